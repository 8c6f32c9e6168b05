#!/usr/bin/env bash
# How far the probes reach on real local servers (docs/probes.md, "Measured on real servers").
# Usage: scripts/probe-bench.sh [MCP_PIN_BINARY] [POLICY]
#   POLICY: "default" (the config as `init` writes it) or "all" (`probe = "all"`: tools that change
#   things are called too, in a throwaway project that is made anew between `lock` and `check`).
# Per server it prints: tools, valid calls that succeed (at check, against the lock just written),
# tools with a required argument, incomplete calls judged (pass or fail, not skipped), and
# whether the project folder (the server's cwd) is byte-identical afterwards.
# Needs npx (server-filesystem) and the venv target/py that .ci/run makes (git, sqlite); a server
# whose command is missing is reported SKIP.
set -euo pipefail
cd "$(dirname "$0")/.."
PIN="${1:-$PWD/target/release/mcp-pin}"
POLICY="${2:-default}"
PY="$PWD/target/py/bin"
PYSQL="$PWD/target/py-sqlite/bin"
work=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "work: $work"; else trap 'rm -rf "$work"' EXIT; fi

digest() { (cd "$1" && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }

# One throwaway project per server: mcp-pin.toml and mcp.lock beside it, the server's cwd inside.
setup_files() {
  mkdir -p "$1/docs" "$1/data"
  printf 'hello\n' > "$1/notes.txt"
  printf '# Guide\n\nSome text.\n' > "$1/docs/guide.md"
  printf '{"a": 1}\n' > "$1/data/sample.json"
}
setup_git() {
  setup_files "$1"
  git -C "$1" init -q -b main
  git -C "$1" -c user.name=t -c user.email=t@example.invalid add -A
  git -C "$1" -c user.name=t -c user.email=t@example.invalid commit -q -m "first"
}
setup_sqlite() {
  mkdir -p "$1"
  python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute('create table items (id integer primary key, name text)')
c.executemany('insert into items (name) values (?)', [('alpha',), ('beta',)])
c.commit()" "$1/data.db"
}

measure() {
  local name=$1 command=$2 args=$3 setup=$4
  local dir="$work/$name"
  mkdir -p "$dir/project"
  "$setup" "$dir/project"
  {
    printf '[servers.%s]\ncommand = "%s"\nargs = %s\ncwd = "project"\ntimeout = "60s"\n' "$name" "$command" "$args"
    if [ "$POLICY" = all ]; then printf 'probe = "all"\n'; fi
  } > "$dir/mcp-pin.toml"
  local before after
  before=$(digest "$dir/project")
  (cd "$dir" && "$PIN" lock -q >/dev/null 2>"$dir/lock.err") || true
  if [ "$POLICY" = all ]; then
    # Tools that change things changed this copy: check against a fresh one (a sandboxed session
    # gets a fresh scratch copy each time). Pinned paths are relative, so they name the same files.
    rm -rf "$dir/project" && mkdir -p "$dir/project" && "$setup" "$dir/project"
  fi
  (cd "$dir" && "$PIN" check --format json --fail-on never > "$dir/report.json" 2>/dev/null) || true
  if [ "$POLICY" = default ]; then after=$(digest "$dir/project"); fi
  python3 - "$name" "$dir" "$before" "${after:-n/a}" "$POLICY" <<'EOF'
import json, sys
name, d, before, after, policy = sys.argv[1:]
lock = json.load(open(d + "/mcp.lock"))
tools = lock["servers"][name]["tools"]
report = json.load(open(d + "/report.json"))
probes = report["servers"][0].get("probes", [])
# A call that passed with an answer that reads as a failure ("answeredFailure") is no success.
ok = {p["tool"] for p in probes if p["kind"] == "call" and p["outcome"] == "pass" and not p.get("answeredFailure")}
soft = sorted(p["tool"] for p in probes if p["kind"] == "call" and p.get("answeredFailure"))
req = [t for t, v in tools.items() if v.get("inputSchema", {}).get("required")]
judged = {p["tool"] for p in probes if p["kind"] == "incomplete" and p["outcome"] in ("pass", "fail")}
same = "n/a (probe = all)" if policy == "all" else ("yes" if before == after else "NO")
print(f"{name}: {len(tools)} tools, valid call succeeds {len(ok)}/{len(tools)} "
      f"(answered with a failure: {len(soft)}{': ' + ', '.join(soft) if soft else ''}), "
      f"incomplete call judged {len(judged)}/{len(req)}; project folder unchanged: {same}")
EOF
}

echo "## probes on real servers (policy: $POLICY; $("$PIN" --version))"
if command -v npx >/dev/null 2>&1; then
  measure files npx '["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."]' setup_files
else
  echo "files: SKIP (npx not found)"
fi
if [ -x "$PY/mcp-server-git" ]; then
  measure git "$PY/mcp-server-git" '["--repository", "."]' setup_git
else
  echo "git: SKIP (no target/py/bin/mcp-server-git; .ci/run installs it)"
fi
if [ -x "$PYSQL/mcp-server-sqlite" ]; then
  measure sqlite "$PYSQL/mcp-server-sqlite" '["--db-path", "data.db"]' setup_sqlite
else
  echo "sqlite: SKIP (no target/py-sqlite/bin/mcp-server-sqlite; .ci/run installs it)"
fi
