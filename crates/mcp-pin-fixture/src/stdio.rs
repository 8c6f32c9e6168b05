//! stdio transport: rmcp serves one end of an in-memory duplex pipe; two pumps connect the
//! other end to the real stdin/stdout, and the stdout pump applies the raw rewrite.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::handler::Fixture;
use crate::raw::RawStore;

const JUNK_LINE: &str = "mcp-pin-fixture: this line is not JSON-RPC (fault junkStdout)";

pub async fn run(fixture: Fixture, store: Arc<RawStore>) -> i32 {
    let junk =
        fixture.load().ok().filter(|s| s.fault.junk_stdout).map(|s| {
            s.fault.junk_text.as_deref().map(crate::surface::expand_env).unwrap_or_else(|| JUNK_LINE.to_string())
        });
    let (rmcp_end, our_end) = tokio::io::duplex(1 << 20);
    let (our_read, mut our_write) = tokio::io::split(our_end);

    // rmcp: handshake, framing, dispatch. Spawned: a neverAnswer handshake never completes.
    let server = tokio::spawn(async move {
        match fixture.serve(rmcp_end).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => eprintln!("mcp-pin-fixture: session ended during handshake: {e}"),
        }
    });

    // stdout pump: every line rmcp writes, rewritten when it carries a raw placeholder.
    let mut out_pump = tokio::spawn(async move {
        let mut reader = BufReader::new(our_read);
        let mut stdout = tokio::io::stdout();
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                continue;
            }
            let out = store.rewrite(text).unwrap_or_else(|| text.to_owned());
            let mut buf = Vec::with_capacity(out.len() + JUNK_LINE.len() + 2);
            if let Some(junk) = &junk {
                buf.extend_from_slice(junk.as_bytes());
                buf.push(b'\n');
            }
            buf.extend_from_slice(out.as_bytes());
            buf.push(b'\n');
            if stdout.write_all(&buf).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });

    // stdin pump: bytes straight through to rmcp; EOF closes rmcp's input.
    let in_pump = async move {
        let mut stdin = tokio::io::stdin();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if our_write.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = our_write.shutdown().await;
        our_write
    };

    tokio::select! {
        _ = &mut out_pump => {}
        _write_half = in_pump => {
            // The client closed stdin: give rmcp a moment to finish and flush, then go,
            // even if a handler hangs (hang / neverAnswer).
            let _ = tokio::time::timeout(Duration::from_secs(2), out_pump).await;
        }
    }
    drop(server);
    0
}
