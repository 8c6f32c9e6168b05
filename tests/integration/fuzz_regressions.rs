//! Replays, through the fuzz targets' own code (`mcp_pin::fuzzing`), every input the fuzzers
//! crashed on once (`fuzz/regressions/TARGET/`) and every committed seed (`fuzz/seeds/TARGET/`),
//! plus the diff corpus as `[before, after]` pairs. `scripts/fuzz.sh` runs the fuzzers themselves.

use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 8] = [
    ("lockfile", mcp_pin::fuzzing::lockfile),
    ("config", mcp_pin::fuzzing::config),
    ("diff", mcp_pin::fuzzing::diff),
    ("synth", mcp_pin::fuzzing::synth),
    ("merge", mcp_pin::fuzzing::merge),
    ("result", mcp_pin::fuzzing::result),
    ("mask", mcp_pin::fuzzing::mask),
    ("rejection", mcp_pin::fuzzing::rejection),
];

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// Run `input` through `target` in a thread of the default size, so a stack overflow shows up
/// as it would in a server's thread, and name the file if it panics.
fn replay(name: &str, target: Target, file: &Path) -> Option<String> {
    let bytes = std::fs::read(file).unwrap();
    let r = std::thread::Builder::new().stack_size(2 * 1024 * 1024).spawn(move || target(&bytes)).unwrap().join();
    r.err().map(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("{name}: {}: {msg}", file.display())
    })
}

#[test]
fn fuzz_regressions_and_seeds_replay_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut failures = vec![];
    let mut replayed = 0;
    for (name, target) in TARGETS {
        for dir in ["regressions", "seeds"] {
            let found = files(&root.join(dir).join(name));
            assert!(dir == "regressions" || !found.is_empty(), "no seeds for {name}");
            for f in found {
                replayed += 1;
                failures.extend(replay(name, target, &f));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(replayed >= TARGETS.len());
}

#[test]
fn diff_corpus_pairs_hold_the_diff_targets_invariants() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut n = 0;
    for case in std::fs::read_dir(cases).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_dir()) {
        let read = |f: &str| std::fs::read_to_string(case.join(f)).unwrap();
        let pair = format!("[{}, {}]", read("before.json"), read("after.json"));
        mcp_pin::fuzzing::diff(pair.as_bytes());
        mcp_pin::fuzzing::synth(read("before.json").as_bytes());
        mcp_pin::fuzzing::mask(pair.as_bytes());
        n += 1;
    }
    assert!(n > 80);
}

/// Edge cases the targets must take without tripping their own invariants.
#[test]
fn targets_take_edge_cases() {
    mcp_pin::fuzzing::lockfile(br#"{"lockfileVersion": 1, "servers": {"s": {"tools": {"t": {"name": "t"}}}}}"#);
    // Numbers the writer respells (1e3 -> 1e+3) are still the same surface.
    mcp_pin::fuzzing::diff(
        br#"[{"tools": [{"name": "t", "inputSchema": {"type": "integer", "maximum": 1e3}}]}, {"tools": []}]"#,
    );
    // Bytes that are not UTF-8 / not JSON are ignored by every target.
    for (_, target) in TARGETS {
        target(b"\xff\xfe{");
    }
}
