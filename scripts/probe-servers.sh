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
# Added later, each of another author (at most two of one), none needing more than the project folder
# (scripts/probe-bench.sh names which half, tuned or frozen, each belongs to, and why):
#   npm  @coo-quack/calc-mcp 2.1.1          21 deterministic utilities: math, dates, hashes, encodings,
#        regexes, unit conversion
#   npm  @eslint/mcp 0.3.13                 ESLint's server: lints the project's files (absolute paths)
#        with the project's own flat config
#   npm  @itseasy21/mcp-knowledge-graph 1.0.7  a knowledge graph (entities, relations, observations)
#        kept in a JSON-lines file given by --memory-path
#   npm  @kazuph/mcp-taskmanager 1.1.1      requests split into tasks, done and approved, kept in a
#        JSON file (TASK_MANAGER_FILE_PATH)
#   npm  @modelcontextprotocol/server-sequential-thinking 2026.8.31  step-by-step thinking, one tool,
#        state in memory
#   npm  @negokaz/excel-mcp-server 0.12.0   .xlsx workbooks through excelize (a Go binary shipped in the
#        package), file by absolute path
#   npm  drawio-mcp 1.6.0                   draw.io diagrams (.drawio.svg files): nodes, edges, layout
#   npm  mcp-server-code-runner 0.1.8       runs a code snippet with the language's interpreter (node,
#        python3, bash...)
#   npm  repomix 1.18.1 (--mcp)             packs a folder's code into one file, then greps/reads it
#   pypi code-index-mcp 2.17.1              a code index (symbols, files, search) of a project path set
#        first (`set_project_path`)
#   pypi database-mcp-sqlite 0.2.1          a SQLite file with read-only guardrails and row caps
#   pypi markitdown-mcp 0.0.1a8             Microsoft's MarkItDown: a file: or data: URI converted to
#        Markdown (HTML, CSV, Office, PDF)
#   pypi mcp-alchemy 2026.10.15.202659      any SQLAlchemy database (DB_URL; here a SQLite file): tables,
#        schemas, queries
#   pypi mcp-csv-database 0.1.7             a folder of CSV files loaded into an in-memory SQL database
#   pypi mcp-grep 0.2.1                     grep over files (the system's grep semantics)
#   pypi mcp-sequential-thinking 0.7.0      thinking sessions with steps and summaries (--ephemeral: in
#        memory; its storage folder would otherwise be written at start-up)
#   pypi mcp-server-calculator 0.2.1        one tool: evaluates an arithmetic expression
#   pypi mcp-server-make 0.4.0              runs the project's Makefile targets
#   pypi mcp-server-tree-sitter 0.7.0       tree-sitter ASTs, queries, symbols of a registered project
# Left out, tried: basic-memory (needs python 3.12), mcp-json-yaml-toml (downloads yq at run time),
# ebook-mcp 0.1.8 (its command registers no tool; its module writes logs/ into the cwd), epub-mcp
# 0.0.4 (a dependency's version is not published), mcp-shrimp-task-manager 1.0.21 (no answer to
# initialize), math-mcp 1.3.3 (725 MB, 3.5 min to install), @bytebase/dbhub 1.4.0 (node >= 22.5).
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
  "@coo-quack/calc-mcp@2.1.1"
  "@eslint/mcp@0.3.13"
  "@itseasy21/mcp-knowledge-graph@1.0.7"
  "@kazuph/mcp-taskmanager@1.1.1"
  "@modelcontextprotocol/server-sequential-thinking@2026.8.31"
  "@negokaz/excel-mcp-server@0.12.0"
  "drawio-mcp@1.6.0"
  "mcp-server-code-runner@0.1.8"
  "repomix@1.18.1"
)
# name | pip requirements (space-separated) | a file in the venv that says it is installed
# office-powerpoint-mcp-server, mcp-text-editor, mcp-server-duckdb, mcp-csv-database, mcp-grep,
# mcp-server-make and mcp-server-tree-sitter use the mcp 1.x server API (mcp.server.fastmcp,
# Server.list_tools, mcp.shared.exceptions.McpError), gone in mcp 2.x: mcp pinned to 1.30.0 for them.
PY_SERVERS=(
  "word|office-word-mcp-server==1.1.11|bin/word_mcp_server"
  "excel|excel-mcp-server==2.2.2|bin/excel-mcp-server"
  "pptx|office-powerpoint-mcp-server==2.0.7 mcp==1.30.0|bin/ppt_mcp_server"
  "text-editor|mcp-text-editor==1.0.2 mcp==1.30.0|bin/mcp-text-editor"
  "duckdb|mcp-server-duckdb==1.1.0 mcp==1.30.0|bin/mcp-server-duckdb"
  "alchemy|mcp-alchemy==2026.10.15.202659|bin/mcp-alchemy"
  "calculator|mcp-server-calculator==0.2.1|bin/mcp-server-calculator"
  "code-index|code-index-mcp==2.17.1|bin/code-index-mcp"
  "csv|mcp-csv-database==0.1.7 mcp==1.30.0|bin/mcp-csv-database"
  "grep|mcp-grep==0.2.1 mcp==1.30.0|bin/mcp-grep-server"
  "make|mcp-server-make==0.4.0 mcp==1.30.0|bin/mcp-server-make"
  "markitdown|markitdown-mcp==0.0.1a8|bin/markitdown-mcp"
  "sqlite-ro|database-mcp-sqlite==0.2.1|bin/database-mcp-sqlite"
  "tree-sitter|mcp-server-tree-sitter==0.7.0 mcp==1.30.0|bin/mcp-server-tree-sitter"
  "worknotes|mcp-sequential-thinking==0.7.0|bin/mcp-sequential-thinking"
)

# npm: one prefix for all; a package already at its pinned version is not installed again. The
# missing ones are installed in one `npm install` (one resolution, far quicker than one each); if
# that fails, one at a time, so that a broken package only skips itself.
npm_one() {  # spec... -> exit status of one npm install into the shared prefix
  # desktop-commander pulls puppeteer, whose install script downloads a browser: not needed here.
  PUPPETEER_SKIP_DOWNLOAD=1 timeout 300 npm install --prefix "$NPM_DIR" --no-audit --no-fund --loglevel=error \
    --save-exact "$@"
}
if command -v npm >/dev/null 2>&1; then
  missing=()
  for spec in "${NPM_PKGS[@]}"; do
    pkg=${spec%@*}; ver=${spec##*@}
    have=$(node -p "try{require('$NPM_DIR/node_modules/$pkg/package.json').version}catch(e){''}" 2>/dev/null)
    if [ "$have" = "$ver" ]; then echo "ok   $spec (already installed)"; else missing+=("$spec"); fi
  done
  if [ ${#missing[@]} -gt 1 ] && npm_one "${missing[@]}" >"$ROOT/npm-all.log" 2>&1; then
    for spec in "${missing[@]}"; do echo "ok   $spec"; done
  else
    for spec in "${missing[@]}"; do
      pkg=${spec%@*}
      if npm_one "$spec" >"$ROOT/npm-${pkg//\//_}.log" 2>&1; then
        echo "ok   $spec"
      else
        echo "SKIP $spec (npm install failed; see $ROOT/npm-${pkg//\//_}.log)"
      fi
    done
  fi
else
  echo "SKIP npm servers (npm not found)"
fi

# Python: one venv each (their pins conflict: mcp 1.x for some, 2.x for others), two installs at a
# time (PROBE_JOBS): pip spends much of its time waiting on downloads, so two overlap well on the
# two cores CI has.
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
py_one() {  # name req marker
  local name=$1 req=$2 marker=$3 venv="$ROOT/$1" reqs
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
}
jobs_max=${PROBE_JOBS:-2}
for entry in "${PY_SERVERS[@]}"; do
  IFS='|' read -r name req marker <<<"$entry"
  venv="$ROOT/$name"
  if [ -e "$venv/$marker" ] && [ -f "$venv/.pinned" ] && [ "$(cat "$venv/.pinned")" = "$req" ]; then
    echo "ok   $req (already installed)"; continue
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  py_one "$name" "$req" "$marker" &
done
wait
echo "probe servers: done in $(( $(date +%s) - start )) s"
exit 0
