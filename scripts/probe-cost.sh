#!/usr/bin/env bash
# What the probes cost: `check` with every tool probed against `check --no-probe` of the same
# server, in the same run, paired (A B A B ...), on a Node server and a Python server
# (docs/performance.md, "Probed check vs listing-only check"; target: at most 1.5x).
# Usage: scripts/probe-cost.sh [MCP_PIN_BINARY] [PAIRS]
# Needs npx (server-filesystem) and the venv target/py that .ci/run makes (mcp-server-git); a
# server whose command is missing is reported SKIP.
set -euo pipefail
cd "$(dirname "$0")/.."
PIN="${1:-$PWD/target/release/mcp-pin}"
# Absolute: each server is measured from its own folder.
PIN=$(realpath "$PIN") || { echo "no mcp-pin binary at ${1:-target/release/mcp-pin}"; exit 2; }
[ -x "$PIN" ] || { echo "no mcp-pin binary at $PIN"; exit 2; }
PAIRS="${2:-7}"
PY="$PWD/target/py/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_us() { local t=${EPOCHREALTIME/./}; echo "$t"; }
run_us() { local t0 t1; t0=$(now_us); "$@" >/dev/null 2>&1 || true; t1=$(now_us); echo $(( t1 - t0 )); }

# $1: label, $2: folder with mcp-pin.toml. Locks once, then PAIRS pairs of (probed, listing-only).
pair() {
  local label=$1 dir=$2
  (cd "$dir" && "$PIN" lock -q >/dev/null 2>&1) || { echo "$label: SKIP (lock failed)"; return; }
  local a=() b=() r=()
  for _ in $(seq "$PAIRS"); do
    local x y
    x=$(cd "$dir" && run_us "$PIN" check -q)
    y=$(cd "$dir" && run_us "$PIN" check -q --no-probe)
    a+=("$x"); b+=("$y"); r+=("$(python3 -c "print($x/$y)")")
  done
  python3 - "$label" "${a[*]}" "${b[*]}" "${r[*]}" <<'PY'
import statistics as s, sys
label, a, b, r = sys.argv[1], *[list(map(float, x.split())) for x in sys.argv[2:]]
print(f"{label}: probed {s.median(a)/1000:.0f} ms, listing-only {s.median(b)/1000:.0f} ms; "
      f"ratio median {s.median(r):.2f} (min {min(r):.2f}, max {max(r):.2f}, {len(r)} pairs; target <= 1.5)")
PY
}

echo "## probed check vs listing-only check ($("$PIN" --version); $(nproc) cores)"
if command -v npx >/dev/null 2>&1; then
  d="$work/files"; mkdir -p "$d/project"; echo hello > "$d/project/notes.txt"
  printf '[servers.files]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."]\ncwd = "project"\ntimeout = "60s"\n' > "$d/mcp-pin.toml"
  pair "Node: server-filesystem (14 tools, 4 in the sandbox)" "$d"
else
  echo "Node: SKIP (npx not found)"
fi
if [ -x "$PY/mcp-server-git" ]; then
  d="$work/git"; mkdir -p "$d/project"; echo hello > "$d/project/notes.txt"
  git -C "$d/project" init -q -b main
  git -C "$d/project" -c user.name=t -c user.email=t@example.invalid add -A
  git -C "$d/project" -c user.name=t -c user.email=t@example.invalid commit -q -m first
  printf '[servers.git]\ncommand = "%s"\nargs = ["--repository", "."]\ncwd = "project"\ntimeout = "60s"\n' "$PY/mcp-server-git" > "$d/mcp-pin.toml"
  pair "Python: mcp-server-git (12 tools, 5 in the sandbox)" "$d"
else
  echo "Python: SKIP (no target/py/bin/mcp-server-git; .ci/run installs it)"
fi
