#!/usr/bin/env bash
# Fuzz mcp-pin's untrusted-input code for a bounded time: lockfile parsing, config parsing (TOML
# and every client JSON format), the diff engine, argument synthesis, `report merge`, the
# result contract of probe results, masking (registered values never break a structured output)
# and the responders to a rejection's words.
# Each target asserts invariants beyond "no panic" (see src/fuzzing.rs).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
#
# FUZZ_SEED=N fixes libFuzzer's random seed, so a run from the same corpus tries the same inputs
# in the same order (CI does this: what a clean checkout finds here, CI finds too). Without it
# each run explores differently; the seed of every run is printed so a find can be replayed.
#
# Needs cargo-fuzz (installed here if missing) and runs on the stable toolchain: cargo-fuzz's -Z
# flags are allowed with RUSTC_BOOTSTRAP=1. Targets are built without a sanitizer (safe Rust; a
# panic, a stack overflow, a timeout or running out of memory is what is looked for), with debug
# assertions and overflow checks on.
#
# A crash stops the run with exit 1 and leaves its input in fuzz/artifacts/TARGET/. Keep it as a
# regression test: copy it to fuzz/regressions/TARGET/<what-it-is>, fix the bug, and
# `cargo test --test integration fuzz_regressions::` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(lockfile config diff synth merge result mask rejection)
export RUSTC_BOOTSTRAP=1 CARGO_TERM_COLOR=never
flags=(-s none -O -a)

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz"
  cargo install cargo-fuzz --locked --version 0.13.2
fi

echo "== seeds"
seed() { mkdir -p "fuzz/corpus/$1"; }
for t in "${targets[@]}"; do seed "$t"; cp -f fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true; done
# The diff corpus cases as [before, after] pairs; their input schemas for argument synthesis.
python3 - <<'PY'
import json, os, glob, hashlib
def put(target, text):
    d = f"fuzz/corpus/{target}"
    if not os.path.isdir(d):
        return
    name = hashlib.sha1(text.encode()).hexdigest()
    with open(f"{d}/{name}", "w") as f:
        f.write(text)
for case in sorted(glob.glob("tests/cases/*/")):
    before = json.load(open(case + "before.json"))
    after = json.load(open(case + "after.json"))
    put("diff", json.dumps([before, after]))
    put("mask", json.dumps([before, after]))
    for side in (before, after):
        for tool in side.get("tools", []):
            if isinstance(tool, dict) and "inputSchema" in tool:
                put("synth", json.dumps(tool["inputSchema"]))
for f in glob.glob("tests/fixtures/configs/*/*"):
    put("config", open(f).read())
put("lockfile", open("mcp.lock.example").read())
for f in glob.glob("examples/demo/*.toml"):
    put("config", open(f).read())
PY

echo "== build"
(cd fuzz && cargo fuzz build "${flags[@]}" 2>&1 | tail -2) || (cd fuzz && cargo fuzz build "${flags[@]}")

seed_flag=()
[ -z "${FUZZ_SEED:-}" ] || seed_flag=(-seed="$FUZZ_SEED")

status=0
for t in "${targets[@]}"; do
  echo "== fuzz $t for ${secs}s"
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log="fuzz/artifacts/$t.log"
  # A target that reads text rather than JSON has a dictionary of its own (fuzz/TARGET.dict).
  dict=json.dict
  [ ! -f "fuzz/$t.dict" ] || dict="$t.dict"
  if (cd fuzz && cargo fuzz run "${flags[@]}" "$t" "corpus/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -dict="$dict" -print_final_stats=1 "${seed_flag[@]}" >"../$log" 2>&1); then
    grep -E -m1 -o "Seed: [0-9]+" "$log" | tr '\n' ' ' || true
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$log" | tr '\n' ' '
    echo "corpus $(find "fuzz/corpus/$t" -type f | wc -l) inputs: clean"
  else
    status=1
    echo "CRASH in $t ($(grep -E -m1 -o "Seed: [0-9]+" "$log" || echo "seed unknown")); input(s) in fuzz/artifacts/$t/:"
    find "fuzz/artifacts/$t" -type f
    grep -E -m1 -A12 "panicked|ERROR: libFuzzer|SUMMARY" "$log" || tail -30 "$log"
  fi
done
exit $status
