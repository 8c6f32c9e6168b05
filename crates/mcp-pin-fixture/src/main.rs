//! `mcp-pin-fixture`: an MCP server, built on rmcp's server side, that serves the tool
//! surface described by a JSON file, byte for byte. Used by mcp-pin's integration tests and
//! by the README demo. See `examples/demo/README.md` and `tests/fixtures/surfaces/README.md`
//! for the surface file format.
#![allow(clippy::disallowed_macros)] // a test fixture: prints its own diagnostics

mod escape;
mod handler;
mod http;
mod raw;
mod state;
mod stdio;
mod surface;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;

use crate::handler::Fixture;
use crate::raw::RawStore;

/// An MCP server that serves the tool surface described by a JSON file (test fixture).
#[derive(Debug, Parser)]
#[command(name = "mcp-pin-fixture", version)]
struct Cli {
    /// Surface file (JSON): serverInfo, instructions, pageSize, cursorLoop, tools, calls,
    /// fault. Re-read on every tools/list and tools/call.
    #[arg(long, value_name = "FILE")]
    surface: PathBuf,

    /// Serve Streamable HTTP on ADDR (path /mcp) instead of stdio. Port 0 picks a free
    /// port; the bound address is printed as one stdout line
    /// `listening on http://HOST:PORT/mcp`.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,

    /// HTTP only: answer requests lacking this exact header with 401 and
    /// `WWW-Authenticate: Bearer`. Format `Name: value`.
    #[arg(long, value_name = "HEADER", requires = "http")]
    require_header: Option<String>,

    /// HTTP only: no sessions (no Mcp-Session-Id) and plain JSON response bodies instead
    /// of SSE streams. Default: rmcp's default session mode with SSE responses.
    #[arg(long, requires = "http")]
    stateless: bool,

    /// Write this process's whole environment (`NAME=value` lines) to FILE at start: tests
    /// check what a server inherits.
    #[arg(long, value_name = "FILE")]
    dump_env: Option<PathBuf>,

    /// Ignored (tests pass a secret as an argument here).
    #[arg(long, value_name = "TEXT")]
    note: Option<String>,

    /// Wait this long before reading or answering anything (a server that is slow to start,
    /// such as an `npx` download; benchmarks of waiting servers).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    start_delay_ms: u64,
}

fn main() {
    let cli = Cli::parse();
    if cli.start_delay_ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(cli.start_delay_ms));
    }
    if let Some(f) = &cli.dump_env {
        let mut text: String =
            std::env::vars_os().map(|(k, v)| format!("{}={}\n", k.to_string_lossy(), v.to_string_lossy())).collect();
        text.push_str(&format!("MCP_PIN_FIXTURE_PID={}\n", std::process::id()));
        let _ = std::fs::write(f, text);
    }
    let mut hostile = surface::Hostile::default();
    if let Ok(s) = surface::Surface::load(&cli.surface) {
        if let Some(text) = &s.fault.stderr {
            eprintln!("{}", surface::expand_env(text));
        }
        if let Some(cwd) = s.fault.refuse_cwd_under.as_deref().and_then(surface::refused_cwd) {
            eprintln!("refusing to work in a temporary folder: {}", cwd.display());
            std::process::exit(1);
        }
        hostile = s.hostile.clone();
    }
    {
        if hostile.ignore_signals {
            // SAFETY: setting dispositions to SIG_IGN before any thread exists.
            unsafe {
                for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
                    libc::signal(sig, libc::SIG_IGN);
                }
            }
        }
        if hostile.close_stdout_on_term {
            // SAFETY: the handler only calls dup2, which is async-signal-safe, on a descriptor
            // opened here before any thread exists.
            unsafe {
                NULL_FD = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY);
                libc::signal(libc::SIGTERM, close_stdout as *const () as libc::sighandler_t);
            }
        }
        if let Some(e) = &hostile.escape {
            escape::attempt(e);
        }
    }
    // Validate the surface once up front so a typo fails fast and loudly.
    if let Err(e) = surface::Surface::load(&cli.surface) {
        eprintln!("mcp-pin-fixture: {e}");
        std::process::exit(2);
    }
    let required_header = match cli.require_header.as_deref().map(parse_header) {
        Some(Ok(h)) => Some(h),
        Some(Err(e)) => {
            eprintln!("mcp-pin-fixture: --require-header: {e}");
            std::process::exit(2);
        }
        None => None,
    };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    let store = Arc::new(RawStore::default());
    let fixture = Fixture::new(cli.surface.clone(), store.clone());
    let code = runtime.block_on(async move {
        match cli.http {
            Some(addr) => http::run(fixture, store, addr, required_header, cli.stateless).await,
            None => stdio::run(fixture, store).await,
        }
    });
    if hostile.ignore_eof {
        eprintln!("mcp-pin-fixture: hostile ignoreEof: stdin closed, running on");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    // Do not wait for the runtime: a blocked stdin read would hold shutdown up.
    std::process::exit(code);
}

static mut NULL_FD: libc::c_int = -1;

extern "C" fn close_stdout(_: libc::c_int) {
    // SAFETY: dup2 is async-signal-safe; NULL_FD was set before the handler was installed.
    unsafe {
        libc::dup2(NULL_FD, 1);
    }
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s.split_once(':').ok_or_else(|| format!("expected `Name: value`, got {s:?}"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!("empty header name in {s:?}"));
    }
    Ok((name.to_ascii_lowercase(), value.trim().to_owned()))
}
