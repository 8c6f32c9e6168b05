#!/usr/bin/env bash
# Installs the extra real MCP servers that scripts/probe-bench.sh measures the probes on, each at a
# pinned exact version, into target/probe-servers/ (so they run without network: the sandboxed
# session has none, and `npx -y` would fetch). Idempotent: what is already installed is skipped.
# Bounded: each install runs under `timeout`; one that fails prints a SKIP line and the script goes
# on (exit 0). Needs node 20 + npm and python3 (3.11), no root.
#
# Chosen: local servers that need no account and no network at runtime, each of a different kind,
# none of those already measured (filesystem, everything, memory, time, git, fetch, sqlite):
#   npm  @cyanheads/git-mcp-server 2.15.3   a git repository server whose tools act on a working
#        folder set by `git_set_working_dir` first (a session setup tool)
#   npm  @wonderwhy-er/desktop-commander 0.2.52  processes, shell commands, file search and edits
#        (process ids, sessions, a config it writes beside the user's home)
#   npm  @sylphx/pdf-reader-mcp 2.4.0        reads local PDFs (text, metadata, pages)
#   npm  obsidian-mcp 1.0.6 (2.x needs node 22) notes: a folder of markdown files (a vault) given as
#        an argument; read, search, create, edit, tag notes
#   pypi office-word-mcp-server 1.1.11      .docx documents (python-docx), documents by file name
#   pypi excel-mcp-server 2.2.2             .xlsx workbooks (openpyxl), file path + sheet name
#   pypi office-powerpoint-mcp-server 2.0.7 .pptx (python-pptx), a presentation opened or created
#        first and then addressed by id (a value another tool makes)
#   pypi mcp-text-editor 1.0.2              a line-range text editor with hashes of ranges
#   pypi mcp-server-duckdb 1.1.0            an embedded database (DuckDB file), one SQL tool
# Usage: scripts/probe-servers.sh   (then scripts/probe-bench.sh picks them up)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT="$PWD/target/probe-servers"
NPM_DIR="$ROOT/npm"
mkdir -p "$ROOT"
start=$(date +%s)

NPM_PKGS=(
  "@cyanheads/git-mcp-server@2.15.3"
  "@wonderwhy-er/desktop-commander@0.2.52"
  "@sylphx/pdf-reader-mcp@2.4.0"
  "obsidian-mcp@1.0.6"
)
# name | pip requirements (space-separated) | a file in the venv that says it is installed
# office-powerpoint-mcp-server, mcp-text-editor and mcp-server-duckdb use the mcp 1.x server API
# (mcp.server.fastmcp, Server.list_tools), gone in mcp 2.x: mcp pinned to 1.30.0 for them.
PY_SERVERS=(
  "word|office-word-mcp-server==1.1.11|bin/word_mcp_server"
  "excel|excel-mcp-server==2.2.2|bin/excel-mcp-server"
  "pptx|office-powerpoint-mcp-server==2.0.7 mcp==1.30.0|bin/ppt_mcp_server"
  "text-editor|mcp-text-editor==1.0.2 mcp==1.30.0|bin/mcp-text-editor"
  "duckdb|mcp-server-duckdb==1.1.0 mcp==1.30.0|bin/mcp-server-duckdb"
)

# npm: one prefix for all; a package already at its pinned version is not installed again.
if command -v npm >/dev/null 2>&1; then
  for spec in "${NPM_PKGS[@]}"; do
    pkg=${spec%@*}; ver=${spec##*@}
    have=$(node -p "try{require('$NPM_DIR/node_modules/$pkg/package.json').version}catch(e){''}" 2>/dev/null)
    if [ "$have" = "$ver" ]; then echo "ok   $spec (already installed)"; continue; fi
    # desktop-commander pulls puppeteer, whose install script downloads a browser: not needed here.
    if PUPPETEER_SKIP_DOWNLOAD=1 timeout 300 npm install --prefix "$NPM_DIR" --no-audit --no-fund --loglevel=error \
        --save-exact "$spec" >"$ROOT/npm-${pkg//\//_}.log" 2>&1; then
      echo "ok   $spec"
    else
      echo "SKIP $spec (npm install failed; see $ROOT/npm-${pkg//\//_}.log)"
    fi
  done
else
  echo "SKIP npm servers (npm not found)"
fi

PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
for entry in "${PY_SERVERS[@]}"; do
  IFS='|' read -r name req marker <<<"$entry"
  venv="$ROOT/$name"
  if [ -e "$venv/$marker" ] && [ -f "$venv/.pinned" ] && [ "$(cat "$venv/.pinned")" = "$req" ]; then
    echo "ok   $req (already installed)"; continue
  fi
  rm -rf "$venv"
  if timeout 60 "$PY" -m venv "$venv" >"$ROOT/$name.log" 2>&1 \
      && read -r -a reqs <<<"$req" \
      && timeout 300 "$venv/bin/pip" install -q --disable-pip-version-check "${reqs[@]}" >>"$ROOT/$name.log" 2>&1 \
      && [ -e "$venv/$marker" ]; then
    echo "$req" > "$venv/.pinned"
    echo "ok   $req"
  else
    echo "SKIP $req (install failed; see $ROOT/$name.log)"
  fi
done
echo "probe servers: done in $(( $(date +%s) - start )) s"
exit 0
