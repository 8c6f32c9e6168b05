#!/usr/bin/env bash
# mcp-pin's benchmarks: prints the figures recorded in docs/performance.md.
# Usage: scripts/bench.sh            (builds release binaries; needs python3)
set -euo pipefail
cd "$(dirname "$0")/.."
# Two builds, so mcp-pin is built with its own features only (not the fixture's server side).
cargo build --release -q -p mcp-pin --bins
cargo build --release -q -p mcp-pin-fixture
PIN="$PWD/target/release/mcp-pin"
FIX="$PWD/target/release/mcp-pin-fixture"
GEN="$PWD/scripts/gen_surface.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# microseconds from bash's own clock (no process spawned to read it)
now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }
# best of N wall-clock runs of a command, in ms
best_ms() {
  local n=$1; shift
  local best=""
  for _ in $(seq "$n"); do
    local t0 t1 d
    t0=$(now_us); "$@" >/dev/null 2>&1 || true; t1=$(now_us)
    d=$(( t1 - t0 ))
    if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; fi
  done
  awk -v us="$best" 'BEGIN { printf "%.1f", us / 1000 }'
}
# peak RSS (MB) of a command
peak_mb() { local f; f=$(mktemp); /usr/bin/time -o "$f" -f '%M' "$@" >/dev/null 2>&1 || true; tail -1 "$f" | awk '{ printf "%.1f", $1 / 1024 }'; rm -f "$f"; }

echo "machine: $(uname -srm), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo

echo "## startup"
echo "mcp-pin --version: $(best_ms 20 "$PIN" --version) ms (best of 20)"
echo

echo "## diff of two lockfiles (linear growth)"
for n in 100 1000 5000 10000; do
  python3 "$GEN" lock "$n" a 1 > "$work/a$n.lock"
  python3 "$GEN" lock "$n" b 1 > "$work/b$n.lock"
  t=$(best_ms 5 "$PIN" diff "$work/a$n.lock" "$work/b$n.lock" --format json)
  m=$(peak_mb "$PIN" diff "$work/a$n.lock" "$work/b$n.lock" --format json)
  echo "diff $n tools: $t ms, peak $m MB"
done
echo

echo "## check: 50 servers concurrently vs the slowest alone"
mkdir -p "$work/fleet"
cfg="$work/fleet/mcp-pin.toml"; : > "$cfg"
python3 "$GEN" surface 2000 a > "$work/fleet/slow.json"
for i in $(seq -w 1 49); do python3 "$GEN" surface 40 a > "$work/fleet/s$i.json"; done
printf '[servers.slow]\ncommand = "%s"\nargs = ["--surface", "slow.json"]\n\n' "$FIX" >> "$cfg"
for i in $(seq -w 1 49); do printf '[servers.s%s]\ncommand = "%s"\nargs = ["--surface", "s%s.json"]\n\n' "$i" "$FIX" "$i" >> "$cfg"; done
(cd "$work/fleet" && "$PIN" lock --no-probe -q >/dev/null)
all=$(cd "$work/fleet" && best_ms 3 "$PIN" check --no-probe -q)
one=$(cd "$work/fleet" && best_ms 3 "$PIN" check --no-probe -q --server slow)
echo "check 50 servers: $all ms; slowest alone: $one ms; ratio $(python3 -c "print(round($all/$one,2))") (target <= 1.5)"
echo

echo "## overhead over a bare tools/list round trip (one server, 40 tools)"
bare() {  # [PREFIX...]: a command to start the fixture under (the helper, for its cost)
  python3 - "$FIX" "$work/fleet/s01.json" "$@" <<'PY'
import json, subprocess, sys
# Under the helper: PROGRAM ARGV0 ARGS (the fixture's path twice).
cmd = sys.argv[3:] + [sys.argv[1]] * (2 if sys.argv[3:] else 1) + ["--surface", sys.argv[2]]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def send(m): p.stdin.write((json.dumps(m) + "\n").encode()); p.stdin.flush()
def recv():
    while True:
        m = json.loads(p.stdout.readline())
        if "id" in m and "method" not in m: return m
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bare", "version": "0"}}})
recv()
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
recv()
p.stdin.close(); p.wait()
PY
}
python_start=$(best_ms 10 python3 -c pass)
bare_ms=$(best_ms 10 bare)
mkdir -p "$work/one" && cp "$work/fleet/s01.json" "$work/one/"
printf '[servers.s01]\ncommand = "%s"\nargs = ["--surface", "s01.json"]\n' "$FIX" > "$work/one/mcp-pin.toml"
(cd "$work/one" && "$PIN" lock --no-probe -q >/dev/null)
pin_ms=$(cd "$work/one" && best_ms 10 "$PIN" check --no-probe -q)
over=$(python3 -c "print(round($pin_ms-($bare_ms-$python_start),1))")
# mcp-pin's whole run (its own start included) can be shorter than the bare round trip: no overhead.
echo "bare client (python, minus its own ${python_start} ms start): $(python3 -c "print(round($bare_ms-$python_start,1))") ms; mcp-pin check: $pin_ms ms; overhead $(python3 -c "print(max($over, 0.0))") ms (target < 20)"
# The helper every stdio server runs under (src/sandbox/helper.rs): the same round trip with the
# fixture started through it, as mcp-pin starts every server (supervision and the boundary).
helper_ms=$(best_ms 10 bare "$PIN" __mcp-pin-helper session --)
echo "the same round trip with the server under mcp-pin's helper: $(python3 -c "print(round($helper_ms-$python_start,1))") ms; the helper's cost $(python3 -c "print(round($helper_ms-$bare_ms,1))") ms"
echo

echo "## adversarial inputs: mcp-pin's own work stays bounded (lock, then check -v of a hostile change)"
# scripts/adversarial.py writes each case's before/after surface; the fixture serves them.
for c in ref-bomb wide-union long-rewrite deep-nesting huge-strings many-tools; do
  d="$work/adv-$c"
  python3 scripts/adversarial.py "$c" "$d"
  cp "$d/before.json" "$d/s.json"
  probe=all; [ "$c" = many-tools ] && probe=none  # 18,000 calls measure the fixture, not mcp-pin
  printf '[servers.x]\ncommand = "%s"\nargs = ["--surface", "s.json"]\ntimeout = "60s"\nprobe = "%s"\n' "$FIX" "$probe" > "$d/mcp-pin.toml"
  lt=$(cd "$d" && best_ms 1 "$PIN" lock); lm=$(cd "$d" && peak_mb "$PIN" lock)
  cp "$d/after.json" "$d/s.json"
  ct=$(cd "$d" && best_ms 1 "$PIN" check -v); cm=$(cd "$d" && peak_mb "$PIN" check -v)
  code=$(cd "$d" && { "$PIN" check -q >/dev/null 2>&1; echo $?; })
  echo "$c: lock $lt ms (peak $lm MB); check -v $ct ms (peak $cm MB); check exit $code"
done
echo

echo "## hostile transports: each ends with a clear error, peak memory bounded"
# An SSE event that never ends, and a stdout line that never ends, from servers on this machine.
python3 - "$PIN" "$work" <<'PY'
import http.server, json, os, socketserver, subprocess, sys, threading, time
pin, work = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("content-length", 0)); self.rfile.read(n)
        self.send_response(200); self.send_header("content-type", "text/event-stream"); self.end_headers()
        try:
            self.wfile.write(b"data: ")
            chunk = b"x" * (1 << 20)
            for _ in range(4096):  # at most 4 GiB, ended by the client long before
                self.wfile.write(chunk)
        except Exception:
            pass
srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), H); srv.daemon_threads = True
threading.Thread(target=srv.serve_forever, daemon=True).start()
d = os.path.join(work, "sse"); os.makedirs(d, exist_ok=True)
open(os.path.join(d, "mcp-pin.toml"), "w").write(f'[servers.s]\nurl = "http://127.0.0.1:{srv.server_address[1]}/mcp"\ntimeout = "60s"\n')
def run(label, cwd):
    t = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", pin, "lock", "--no-probe"], cwd=cwd, capture_output=True, text=True, timeout=300)
    peak = int(p.stderr.strip().splitlines()[-1]) / 1024
    err = [l for l in p.stderr.splitlines() if l.startswith("error")][:1]
    print(f"{label}: exit {p.returncode} after {time.time()-t:.1f} s, peak {peak:.0f} MB: {err[0][:160] if err else ''}")
run("endless SSE event", d)
d2 = os.path.join(work, "line"); os.makedirs(d2, exist_ok=True)
open(os.path.join(d2, "endless.sh"), "w").write("#!/bin/sh\nexec head -c 600000000 /dev/zero\n")
os.chmod(os.path.join(d2, "endless.sh"), 0o755)
open(os.path.join(d2, "mcp-pin.toml"), "w").write('[servers.s]\ncommand = "./endless.sh"\ntimeout = "60s"\n')
run("endless stdout line", d2)
PY
echo

echo "## the sandbox's second session: check with and without it (same run)"
# One server of 20 tools, 10 annotated read-only: with the default policy ("sandbox") the 10
# others are called in a second session of the server inside the sandbox; with
# probe = "read-only" they are skipped and no second session starts. The difference is the cost
# of the second session (one more server start, the scratch copy of the project folder, the
# confinement). Then the same with a project folder of 2,000 files (20 MB) to copy.
sbx="$work/sbx"; mkdir -p "$sbx"
python3 - "$sbx/s.json" <<'PY'
import json, sys
tools = []
for i in range(20):
    t = {"name": f"t{i:02}", "description": f"Tool {i}.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}
    if i % 2 == 0:
        t["annotations"] = {"readOnlyHint": True}
    tools.append(t)
json.dump({"tools": tools}, open(sys.argv[1], "w"))
PY
# check time (best of $3) of the server in folder $2 under probe policy $1
check_ms() {
  local policy=$1 dir=$2 n=$3
  sed -i "s/^probe = .*/probe = \"$policy\"/" "$dir/mcp-pin.toml"
  (cd "$dir" && "$PIN" lock -q >/dev/null 2>&1)
  (cd "$dir" && best_ms "$n" "$PIN" check -q)
}
sandbox_row() {  # $1: label, $2: folder with mcp-pin.toml (a `probe = ` line), $3: runs
  local with without
  with=$(check_ms sandbox "$2" "$3"); without=$(check_ms read-only "$2" "$3")
  echo "$1: check with the sandbox $with ms, without (probe = \"read-only\") $without ms; second session $(python3 -c "print(round($with-$without,1))") ms"
}
printf '[servers.s]\ncommand = "%s"\nargs = ["--surface", "s.json"]\nprobe = "sandbox"\n' "$FIX" > "$sbx/mcp-pin.toml"
if (cd "$sbx" && "$PIN" lock -v 2>&1 | grep -q ' in the sandbox: '); then
  sandbox_row "fixture, 20 tools (10 in the sandbox), small project" "$sbx" 5
  big="$work/sbx-big"; mkdir -p "$big/src"; cp "$sbx/s.json" "$sbx/mcp-pin.toml" "$big/"
  python3 - "$big/src" <<'PY'
import os, sys
for i in range(2000):
    d = os.path.join(sys.argv[1], f"d{i // 100:02}")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"f{i:04}.txt"), "wb").write(os.urandom(10_000))
PY
  sandbox_row "fixture, 20 tools (10 in the sandbox), project of 2,000 files (20 MB)" "$big" 5
  if command -v npx >/dev/null 2>&1; then
    fs="$work/sbx-fs"; mkdir -p "$fs/data"; echo hello > "$fs/data/a.txt"
    printf '[servers.fs]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "%s"]\ntimeout = "120s"\nprobe = "sandbox"\n' "$fs/data" > "$fs/mcp-pin.toml"
    sandbox_row "server-filesystem through npx, 14 tools (4 in the sandbox)" "$fs" 3
  fi
else
  echo "no sandbox on this machine: skipped"
fi
echo

echo "## servers that mostly wait: 20 servers that each take 1.5 s to start, vs one"
mkdir -p "$work/wait"
python3 "$GEN" surface 10 a > "$work/wait/s.json"
: > "$work/wait/mcp-pin.toml"
for i in $(seq -w 1 20); do
  printf '[servers.w%s]\ncommand = "%s"\nargs = ["--surface", "s.json", "--start-delay-ms", "1500"]\nprobe = "none"\n\n' "$i" "$FIX" >> "$work/wait/mcp-pin.toml"
done
(cd "$work/wait" && "$PIN" lock -q >/dev/null)
all=$(cd "$work/wait" && best_ms 3 "$PIN" check -q)
one=$(cd "$work/wait" && best_ms 3 "$PIN" check -q --server w01)
echo "check 20 waiting servers: $all ms; one: $one ms; ratio $(python3 -c "print(round($all/$one,2))") (target <= 1.2; default --jobs 128, --max-children 32)"
echo

echo "## mcp-pin proxy: per-call latency against the server direct, and a judged tools/list"
# scripts/proxy_bench.py: one client process, newline-delimited JSON-RPC over stdio, the same way
# to the fixture direct and through `mcp-pin proxy` (whose stdin/stdout are pipes, as a client gives).
python3 scripts/proxy_bench.py "$PIN" "$FIX" "$GEN" "$work"
echo

echo "## side by side with peers (PyPI: mcp-diff 0.1.0, ianua-broker 1.11.6), same machine, same run"
# Each tool checks the fixture's surface (40 tools) against its own snapshot: one server, then 8.
# mcp-diff speaks stdio to one server per run (8 servers: 8 runs, one after the other, as a
# script would); ianua-broker's mcpscan checks live tools over loopback HTTP only (8 servers:
# 8 targets in one run). mcp-pin is timed on the same transport as each peer.
peers="$PWD/target/peers"
if [ ! -x "$peers/bin/mcp-diff" ] || [ ! -x "$peers/bin/mcpscan" ]; then
  python3 -m venv "$peers" >/dev/null && "$peers/bin/pip" install -q --disable-pip-version-check mcp-diff==0.1.0 ianua-broker==1.11.6 >/dev/null 2>&1 || true
fi
if [ -x "$peers/bin/mcp-diff" ] && [ -x "$peers/bin/mcpscan" ]; then
  side="$work/side"; mkdir -p "$side"
  cp "$work/fleet/s01.json" "$side/s.json"
  : > "$side/stdio1.toml"; : > "$side/stdio8.toml"; : > "$side/http1.toml"; : > "$side/http8.toml"
  printf '[servers.s1]\ncommand = "%s"\nargs = ["--surface", "s.json"]\n' "$FIX" > "$side/stdio1.toml"
  for i in 1 2 3 4 5 6 7 8; do printf '[servers.s%s]\ncommand = "%s"\nargs = ["--surface", "s.json"]\n\n' "$i" "$FIX" >> "$side/stdio8.toml"; done
  pids=(); targets=()
  # ianua-broker also scans the machine's loopback for endpoints: its one-server figure is taken
  # while only one server runs, the eight-server one after the other seven start.
  start_http() {
    "$FIX" --surface "$side/s.json" --http 127.0.0.1:0 --stateless > "$side/http$1.out" 2>/dev/null &
    pids+=($!)
    for _ in $(seq 50); do grep -q listening "$side/http$1.out" 2>/dev/null && break; sleep 0.1; done
    local url; url=$(sed -n 's/^listening on //p' "$side/http$1.out")
    targets+=("${url#http://}")
    printf '[servers.h%s]\nurl = "%s"\n\n' "$1" "$url" >> "$side/http8.toml"
    [ "$1" = 1 ] && printf '[servers.h1]\nurl = "%s"\n' "$url" > "$side/http1.toml"
    return 0
  }
  start_http 1
  for c in stdio1 stdio8 http1; do (cd "$side" && "$PIN" --config "$c.toml" --lockfile "$c.lock" lock --no-probe -q >/dev/null); done
  (cd "$side" && "$peers/bin/mcp-diff" snapshot -o md.lock "$FIX" --surface s.json >/dev/null 2>&1)
  md8() { for i in 1 2 3 4 5 6 7 8; do "$peers/bin/mcp-diff" check -l md.lock "$FIX" --surface s.json >/dev/null 2>&1; done; }
  ia_args1=(--inspect-live-tools --live-tools-target "${targets[0]}" --no-inventory)
  (cd "$side" && "$peers/bin/mcpscan" baseline "${ia_args1[@]}" --out ia1.json >/dev/null 2>&1)
  pin1=$(cd "$side" && best_ms 5 "$PIN" --config stdio1.toml --lockfile stdio1.lock check --no-probe -q)
  md1=$(cd "$side" && best_ms 5 "$peers/bin/mcp-diff" check -l md.lock "$FIX" --surface s.json)
  pin8=$(cd "$side" && best_ms 5 "$PIN" --config stdio8.toml --lockfile stdio8.lock check --no-probe -q)
  md8t=$(cd "$side" && best_ms 5 md8)
  hpin1=$(cd "$side" && best_ms 5 "$PIN" --config http1.toml --lockfile http1.lock check --no-probe -q)
  ia1=$(cd "$side" && best_ms 5 "$peers/bin/mcpscan" diff "${ia_args1[@]}" --baseline ia1.json)
  for i in 2 3 4 5 6 7 8; do start_http "$i"; done
  (cd "$side" && "$PIN" --config http8.toml --lockfile http8.lock lock --no-probe -q >/dev/null)
  ia_args8=(--inspect-live-tools --no-inventory); for t in "${targets[@]}"; do ia_args8+=(--live-tools-target "$t"); done
  (cd "$side" && "$peers/bin/mcpscan" baseline "${ia_args8[@]}" --out ia8.json >/dev/null 2>&1)
  hpin8=$(cd "$side" && best_ms 5 "$PIN" --config http8.toml --lockfile http8.lock check --no-probe -q)
  ia8=$(cd "$side" && best_ms 5 "$peers/bin/mcpscan" diff "${ia_args8[@]}" --baseline ia8.json)
  ratio() { python3 -c "print(round($1/$2,1))"; }
  echo "stdio, 1 server:  mcp-pin $pin1 ms, mcp-diff $md1 ms (mcp-diff/mcp-pin $(ratio "$md1" "$pin1")x)"
  echo "stdio, 8 servers: mcp-pin $pin8 ms, mcp-diff $md8t ms (8 runs) ($(ratio "$md8t" "$pin8")x)"
  echo "http,  1 server:  mcp-pin $hpin1 ms, ianua-broker $ia1 ms ($(ratio "$ia1" "$hpin1")x)"
  echo "http,  8 servers: mcp-pin $hpin8 ms, ianua-broker $ia8 ms ($(ratio "$ia8" "$hpin8")x)"
  kill "${pids[@]}" 2>/dev/null || true
else
  echo "SKIP: the peers could not be installed from PyPI here"
fi
echo

# Probes on real servers (docs/probes.md, "Measured on real servers"): the default config, and
# `probe = "all"` in throwaway projects (tools that change things called too).
bash scripts/probe-bench.sh "$PIN" default
bash scripts/probe-bench.sh "$PIN" all
bash scripts/probe-cost.sh "$PIN" 7
echo "## hostile listings: refused before they are materialised (max_listing_bytes, max_tools)"
scripts/bench_listing.sh "$PIN"
