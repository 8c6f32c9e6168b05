//! Bounds on what a server sends for its surface (`max_listing_bytes`, `max_tools`): counted while
//! it is read, over stdio and HTTP (JSON bodies and SSE streams), within a page and across pages,
//! and refused before it is parsed, with an error naming the server and the key to raise. The
//! other server is still pinned.

use crate::common;

use common::*;
use serde_json::{json, Value};

fn tool(i: usize, description: &str) -> Value {
    json!({"name": format!("t{i}"), "description": description, "inputSchema": {"type": "object"}})
}

/// How the hostile server is reached.
#[derive(Clone, Copy, Debug)]
enum Via {
    Stdio,
    /// Streamable HTTP with sessions: answers are SSE streams.
    HttpSse,
    /// Stateless Streamable HTTP: answers are JSON bodies.
    HttpJson,
}

const VIAS: [Via; 3] = [Via::Stdio, Via::HttpSse, Via::HttpJson];

/// A project with a healthy server `good` and a server `big` serving `surface` over `via`, with
/// the extra config lines `extra` for `big`. The HTTP fixture (if any) lives as long as the project.
fn project(surface: &Value, via: Via, extra: &str) -> (Project, Option<HttpFixture>) {
    let p = Project::new();
    p.write_json("good.json", &json!({"tools": [tool(0, "Fine.")]}));
    p.write_json("big.json", surface);
    let (big, fx) = match via {
        Via::Stdio => (format!("command = {:?}\nargs = [\"--surface\", \"big.json\"]\n", fixture_bin()), None),
        Via::HttpSse | Via::HttpJson => {
            let flags: &[&str] = if matches!(via, Via::HttpJson) { &["--stateless"] } else { &[] };
            let fx = HttpFixture::start(&p.path("big.json"), flags);
            (format!("url = {:?}\n", fx.url), Some(fx))
        }
    };
    p.write(
        "mcp-pin.toml",
        &format!(
            "[servers.big]\n{big}timeout = \"30s\"\nprobe = \"none\"\n{extra}\n[servers.good]\ncommand = {:?}\nargs = [\"--surface\", \"good.json\"]\nprobe = \"none\"\n",
            fixture_bin()
        ),
    );
    (p, fx)
}

/// `lock` fails for `big` only, naming it and every needle; `good` is pinned.
fn refused(p: &Project, needles: &[&str]) -> String {
    let out = p.run(&["lock"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("`big`"), "the error names the server: {t}");
    for n in needles {
        assert!(err.contains(n), "expected {n:?} in: {t}");
    }
    let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
    assert!(lock["servers"]["good"]["tools"]["t0"].is_object(), "{t}");
    assert!(lock["servers"].get("big").is_none(), "{t}");
    err
}

#[test]
fn a_huge_description_is_refused_while_it_is_read() {
    // 2 MB in one description, against a cap of 1 MiB: over stdio, an SSE stream and a JSON body.
    let huge = "x".repeat(2_000_000);
    for via in VIAS {
        let (p, _fx) = project(&json!({"tools": [tool(1, &huge)]}), via, "max_listing_bytes = \"1MiB\"\n");
        let err = refused(&p, &["more than 1 MiB", "max_listing_bytes"]);
        assert!(err.contains("before parsing"), "{via:?}: {err}");
        // Raised, the same server is pinned.
        let raised = p.read("mcp-pin.toml").replace("max_listing_bytes = \"1MiB\"", "max_listing_bytes = \"4MiB\"");
        p.write("mcp-pin.toml", &raised);
        let out = p.run(&["lock"]);
        assert_eq!(out.status.code(), Some(0), "{via:?}: {}", text(&out));
        let lock: Value = serde_json::from_str(&p.read("mcp.lock")).unwrap();
        assert_eq!(lock["servers"]["big"]["tools"]["t1"]["description"].as_str().map(str::len), Some(2_000_000));
    }
}

#[test]
fn the_listing_cap_counts_across_pages() {
    // 2,000 tools of ~300 bytes in pages of 50: each page ~15 KB, the listing ~600 KB.
    let pad = "y".repeat(250);
    let tools: Vec<Value> = (1..=2000).map(|i| tool(i, &pad)).collect();
    for via in VIAS {
        let (p, _fx) = project(&json!({"tools": tools, "pageSize": 50}), via, "max_listing_bytes = 262144\n");
        refused(&p, &["more than 256 KiB", "every tools/list page together", "max_listing_bytes"]);
    }
}

#[test]
fn a_huge_tool_count_is_refused_before_its_tools_are_parsed() {
    let tools: Vec<Value> = (1..=600).map(|i| tool(i, "T.")).collect();
    for via in VIAS {
        let (p, _fx) = project(&json!({"tools": tools}), via, "max_tools = 500\n");
        refused(&p, &["more than 500 tools", "before parsing them", "max_tools"]);
    }
}

#[test]
fn a_dense_listing_is_refused_by_its_count_of_values() {
    // 140 KB of `0,` under a 1 MiB cap, but 70,000 values: more than one per 16 bytes of the cap.
    let zeros = vec![0; 70_000];
    let surface =
        json!({"tools": [{"name": "t1", "inputSchema": {"type": "object", "properties": {"v": {"enum": zeros}}}}]});
    for via in VIAS {
        let (p, _fx) = project(&surface, via, "max_listing_bytes = \"1MiB\"\n");
        refused(&p, &["past 65536 JSON values", "before parsing them", "max_listing_bytes"]);
    }
}

#[test]
fn the_handshake_counts_against_the_listing_cap() {
    // 2 MB of instructions in the handshake answer, against a cap of 1 MiB.
    let surface = json!({"instructions": "i".repeat(2_000_000), "tools": [tool(1, "T.")]});
    let (p, _fx) = project(&surface, Via::Stdio, "max_listing_bytes = \"1MiB\"\n");
    refused(&p, &["more than 1 MiB", "max_listing_bytes"]);
}

#[test]
fn max_listing_bytes_is_validated_with_the_line() {
    let p = Project::new();
    for (value, needle) in
        [("\"64 parsecs\"", "unknown unit `parsecs`"), ("0", "must be more than zero"), ("true", "must be a size")]
    {
        p.write("mcp-pin.toml", &format!("[servers.a]\ncommand = \"x\"\nmax_listing_bytes = {value}\n"));
        let out = p.run(&["check"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("mcp-pin.toml:3:") && err.contains("`max_listing_bytes`") && err.contains(needle),
            "{err}"
        );
    }
}
