#!/usr/bin/env bash
# Hostile listings (docs/performance.md): `mcp-pin lock --no-probe` against a server that lists
# tools built to cost memory (scripts/hostile_server.py writes them piece by piece, so the peak
# measured is mcp-pin's own), over stdio and HTTP: exit code, wall time, peak memory, the error.
# scripts/bench.sh runs it; alone: scripts/bench_listing.sh [PATH/TO/mcp-pin]
set -euo pipefail
cd "$(dirname "$0")/.."
PIN="${1:-$PWD/target/release/mcp-pin}"
[ -x "$PIN" ] || { cargo build --release -q -p mcp-pin --bins; PIN="$PWD/target/release/mcp-pin"; }
python3 - "$PIN" "$PWD/scripts/hostile_server.py" <<'PY'
import os, subprocess, sys, tempfile, time
pin, server = sys.argv[1], sys.argv[2]
cases = [
    # (label, case arguments, extra config)
    ("one tool, 120 MB description", ["huge-description", "120"], ""),
    ("300,000 tools in one page", ["many-tools", "300000"], ""),
    ("3,000 tools in one page (under both caps)", ["many-tools", "3000"], ""),
    ("2,000 pages of 50 KB", ["many-pages", "2000", "50"], "max_tools = 1000000\n"),
    ("realistic tools, 30 MB", ["realistic", "30"], "max_tools = 1000000\n"),
    ("dense enum of zeros, 30 MB", ["dense", "30"], ""),
    # Accepted listings just under the default caps (16 MiB; one JSON value per 16 bytes): the
    # peak memory of a whole `lock` per byte of the cap.
    ("realistic tools, 16 MB (at the byte cap)", ["realistic", "16.5"], "max_tools = 1000000\n"),
    ("dense enum of zeros, 2 MB (at the value cap)", ["dense", "2.09"], ""),
    ("realistic tools each with an x-mcp-header, 16 MB", ["mapped", "16.5"], "max_tools = 1000000\n"),
]
def run(label, transport, args, extra):
    d = tempfile.mkdtemp()
    proc = None
    if transport == "stdio":
        cfg = f'[servers.h]\ncommand = "python3"\nargs = {str([server, "stdio"] + args).replace(chr(39), chr(34))}\n'
    else:
        proc = subprocess.Popen(["python3", server, "http", "0"] + args, stdout=subprocess.PIPE, text=True)
        url = proc.stdout.readline().strip().removeprefix("listening on ")
        cfg = f'[servers.h]\nurl = "{url}"\n'
    open(os.path.join(d, "mcp-pin.toml"), "w").write(cfg + 'timeout = "300s"\n' + extra)
    t = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", pin, "lock", "--no-probe"], cwd=d, capture_output=True, text=True, timeout=900)
    took = time.time() - t
    if proc:
        proc.kill()
    peak = int(p.stderr.strip().splitlines()[-1]) / 1024
    err = [l for l in p.stderr.splitlines() if l.startswith("error")][:1]
    print(f"{label} ({transport}): exit {p.returncode} after {took:.1f} s, peak {peak:.0f} MB{': ' + err[0][:200] if err else ''}", flush=True)
for label, args, extra in cases:
    for transport in ("stdio", "http"):
        run(label, transport, args, extra)
PY
