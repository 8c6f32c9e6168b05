#!/usr/bin/env bash
# How far the probes reach on real local servers (docs/probes.md, "Measured on real servers").
# Usage: scripts/probe-bench.sh [MCP_PIN_BINARY] [POLICY]
#   POLICY: "default" (the config as `init` writes it) or "all" (`probe = "all"`: tools that change
#   things are called too, in a throwaway project that is made anew between `lock` and `check`).
# Per server it prints: tools, valid calls that succeed (at check, against the lock just written),
# tools with a required argument, incomplete calls judged (pass or fail, not skipped), whether
# the project folder (the server's cwd) is byte-identical afterwards, and the probes that failed
# at check (false alarms: nothing changed between lock and check); then, over `check` run three
# times after `lock`, the probes whose verdict differs from lock's, and the absolute paths of the
# machine the lock holds outside its launch record. It fails on a changed folder, a false alarm,
# a verdict that differs or a path of the machine in a lock.
# Needs npx (server-filesystem) and the venv target/py that .ci/run makes (git, sqlite); the
# other servers come from scripts/probe-servers.sh (target/probe-servers/, pinned, run by absolute
# path: the sandboxed session has no network). A server whose command is missing is reported SKIP.
set -euo pipefail
cd "$(dirname "$0")/.."
PIN="${1:-$PWD/target/release/mcp-pin}"
# Absolute: each server is measured from its own folder.
PIN=$(realpath "$PIN") || { echo "no mcp-pin binary at ${1:-target/release/mcp-pin}"; exit 2; }
[ -x "$PIN" ] || { echo "no mcp-pin binary at $PIN"; exit 2; }
POLICY="${2:-default}"
PY="$PWD/target/py/bin"
PYSQL="$PWD/target/py-sqlite/bin"
PS="$PWD/target/probe-servers"
NPMBIN="$PS/npm/node_modules/.bin"
work=$(mktemp -d)
export TOTALS="$work/totals.tsv"
: > "$TOTALS"
if [ -n "${KEEP:-}" ]; then echo "work: $work"; else trap 'rm -rf "$work"' EXIT; fi
# A server not measured: a SKIP line, or a failure under MCP_PIN_NO_SKIP (.ci/run installs them all).
skip() {
  echo "$1: SKIP ($2)"
  if [ -n "${MCP_PIN_NO_SKIP:-}" ] && [ "$MCP_PIN_NO_SKIP" != 0 ]; then
    echo "error: $1 was not measured and MCP_PIN_NO_SKIP is set: a broken install" >&2
    exit 1
  fi
}

# Content and metadata (mode, owner, modification time, size) of every entry but `.git`.
digest() {
  (cd "$1" && { find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum
               find . -path ./.git -prune -o -printf '%p %m %U:%G %T@ %s\n' | sort; } | sha256sum | cut -c1-16)
}

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
# For the servers of scripts/probe-servers.sh: small realistic projects, each file made with the
# server's own libraries where it has them.
setup_docx() {
  setup_files "$1"
  "$PS/word/bin/python" -c "
import sys, docx
d = docx.Document()
d.add_heading('Quarterly report', 0)
d.add_paragraph('Sales grew in the north region.')
d.add_heading('Figures', 1)
t = d.add_table(rows=2, cols=2)
t.cell(0, 0).text = 'region'; t.cell(0, 1).text = 'sales'
t.cell(1, 0).text = 'north'; t.cell(1, 1).text = '120'
d.save(sys.argv[1])" "$1/report.docx"
}
setup_xlsx() {
  setup_files "$1"
  "$PS/excel/bin/python" -c "
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Sales'
ws.append(['region', 'sales'])
ws.append(['north', 120])
ws.append(['south', 80])
wb.save(sys.argv[1])" "$1/sales.xlsx"
}
setup_pptx() {
  setup_files "$1"
  "$PS/pptx/bin/python" -c "
import sys
from pptx import Presentation
p = Presentation()
s = p.slides.add_slide(p.slide_layouts[0])
s.shapes.title.text = 'Roadmap'
s.placeholders[1].text = 'Plans for next year'
s = p.slides.add_slide(p.slide_layouts[1])
s.shapes.title.text = 'Goals'
s.placeholders[1].text = 'Ship the product'
p.save(sys.argv[1])" "$1/deck.pptx"
}
setup_pdf() {
  setup_files "$1"
  # A one-page PDF with text, written by hand (no PDF library needed).
  python3 -c "
import sys
objs = [b'<< /Type /Catalog /Pages 2 0 R >>',
        b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
        None,
        b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        b'<< /Title (Invoice) /Author (Probe) >>']
text = b'BT /F1 18 Tf 72 720 Td (Invoice 42: total 120 EUR) Tj ET'
objs[3] = b'<< /Length %d >>\\nstream\\n' % len(text) + text + b'\\nendstream'
out = b'%PDF-1.4\\n'; offs = []
for i, o in enumerate(objs, 1):
    offs.append(len(out)); out += b'%d 0 obj\\n' % i + o + b'\\nendobj\\n'
x = len(out)
out += b'xref\\n0 %d\\n0000000000 65535 f \\n' % (len(objs) + 1)
out += b''.join(b'%010d 00000 n \\n' % o for o in offs)
out += b'trailer\\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\\nstartxref\\n%d\\n%%%%EOF\\n' % (len(objs) + 1, x)
open(sys.argv[1], 'wb').write(out)" "$1/invoice.pdf"
}
setup_notes() {
  mkdir -p "$1/.obsidian" "$1/projects" "$1/daily"
  printf '{}\n' > "$1/.obsidian/app.json"  # obsidian-mcp wants a vault Obsidian has opened
  printf '# Welcome\n\nSee [[projects/alpha]] and #inbox.\n' > "$1/Welcome.md"
  printf -- '---\ntags: [project]\n---\n# Alpha\n\nStatus: active. #project\n' > "$1/projects/alpha.md"
  printf '# 2026-12-01\n\n- met the team #meeting\n' > "$1/daily/2026-12-01.md"
}
setup_commander() {
  setup_files "$1"
  printf 'print("hello from a script")\n' > "$1/hello.py"
  printf 'all:\n\techo built\n' > "$1/Makefile"
}
setup_duckdb() {
  mkdir -p "$1"
  "$PS/duckdb/bin/python" -c "
import sys, duckdb
c = duckdb.connect(sys.argv[1])
c.execute('create table items (id integer primary key, name varchar)')
c.execute(\"insert into items values (1, 'alpha'), (2, 'beta')\")
c.close()" "$1/data.duckdb"
}

measure() {
  local name=$1 command=$2 args=$3 setup=$4
  # ONLY="name ..." measures just those servers.
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then return 0; fi
  local dir="$work/$name"
  mkdir -p "$dir/project"
  "$setup" "$dir/project"
  {
    printf '[servers.%s]\ncommand = "%s"\nargs = %s\ncwd = "project"\ntimeout = "60s"\n' "$name" "$command" "$args"
    if [ "$POLICY" = all ]; then printf 'probe = "all"\n'; fi
  } > "$dir/mcp-pin.toml"
  local before after
  before=$(digest "$dir/project")
  (cd "$dir" && "$PIN" lock >/dev/null 2>"$dir/lock.err") || true
  if [ "$POLICY" = all ]; then
    # Tools that change things changed this copy: check against a fresh one (a sandboxed session
    # gets a fresh scratch copy each time). Pinned paths are relative, so they name the same files.
    rm -rf "$dir/project" && mkdir -p "$dir/project" && "$setup" "$dir/project"
  fi
  # Steady (RULES.md): `check` three times right after `lock`, nothing changed, gives lock's
  # verdict for every probe every time. The first report is the one measured.
  local i
  for i in 1 2 3; do
    (cd "$dir" && "$PIN" check --format json --fail-on never > "$dir/report$i.json" 2>/dev/null) || true
    if [ "$POLICY" = all ] && [ "$i" != 3 ]; then
      rm -rf "$dir/project" && mkdir -p "$dir/project" && "$setup" "$dir/project"
    fi
  done
  cp "$dir/report1.json" "$dir/report.json"
  if [ "$POLICY" = default ]; then after=$(digest "$dir/project"); fi
  if [ ! -f "$dir/mcp.lock" ]; then
    echo "$name: lock failed: $(head -c 300 "$dir/lock.err" | tr '\n' ' ')"; return 0
  fi
  python3 - "$name" "$dir" "$before" "${after:-n/a}" "$POLICY" "$work" "$PWD" <<'EOF'
import json, os, re, sys
name, d, before, after, policy, workdir, repo = sys.argv[1:]
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
# The server did not change between lock and check: a probe that fails at check cries wolf.
wolf = sorted(f"{p['tool']} ({p['kind']}: {p.get('rule')})" for p in probes if p["outcome"] == "fail")
print(f"{name}: {len(tools)} tools, valid call succeeds {len(ok)}/{len(tools)} "
      f"(answered with a failure: {len(soft)}{': ' + ', '.join(soft) if soft else ''}), "
      f"incomplete call judged {len(judged)}/{len(req)}; project folder unchanged: {same}; "
      f"false alarms at check: {len(wolf)}{': ' + ', '.join(wolf) if wolf else ''}")
# (a) Probes whose verdict at any of the three checks differs from lock's: a valid call that
# passed at lock must pass, and every probe must get the same outcome all three times.
lock_err = open(d + "/lock.err", errors="replace").read()
passed_at_lock = set(re.findall(r"probe of `([^`]*)` passed", lock_err))
outcomes = {}
for i in (1, 2, 3):
    try:
        r = json.load(open(f"{d}/report{i}.json"))
    except Exception:
        r = {"servers": [{}]}
    for p in r["servers"][0].get("probes", []):
        outcomes.setdefault((p["tool"], p["kind"]), []).append(p["outcome"])
unsteady = []
for (tool, kind), seen in sorted(outcomes.items()):
    differs = len(set(seen)) > 1 or len(seen) != 3
    if kind == "call":
        differs |= tool in passed_at_lock and any(o != "pass" for o in seen)
    if differs:
        unsteady.append(f"{tool} ({kind}: {'/'.join(seen)})")
# (b) An absolute path of the machine in the lock outside its launch record: the bench's own
# folders, the repository, the home folder.
machine = [os.path.realpath(workdir), workdir, os.path.realpath(repo), repo, os.path.expanduser("~")]
def strings(v, out):
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        for x in v: strings(x, out)
    elif isinstance(v, dict):
        for k, x in v.items():
            out.append(k); strings(x, out)
    return out
# (`launch` and `source`: the command, args and cwd as the config wrote them.)
entry = {k: v for k, v in lock["servers"][name].items() if k not in ("launch", "source")}
leaked = sorted({s[:120] for s in strings(entry, []) if any(m and m != "/" and m in s for m in machine)})
print(f"{name}: verdicts differing from lock's over three checks: {len(unsteady)}"
      f"{': ' + ', '.join(unsteady) if unsteady else ''}; absolute paths of the machine in the lock "
      f"outside its launch record: {len(leaked)}{': ' + ', '.join(leaked) if leaked else ''}")
if unsteady:
    open(os.environ["TOTALS"] + ".unsteady", "a").write(name + "\n")
if leaked:
    open(os.environ["TOTALS"] + ".leaked", "a").write(name + "\n")
if same == "NO":
    open(os.environ["TOTALS"] + ".changed", "a").write(name + "\n")
if wolf:
    open(os.environ["TOTALS"] + ".wolf", "a").write(name + "\n")
with open(os.environ["TOTALS"], "a") as t:
    t.write(f"{name}\t{len(tools)}\t{len(ok)}\t{len(req)}\t{len(judged)}\n")
EOF
}

echo "## probes on real servers (policy: $POLICY; $("$PIN" --version))"
if command -v npx >/dev/null 2>&1; then
  measure files npx '["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."]' setup_files
else
  skip files "npx not found"
fi
if [ -x "$PY/mcp-server-git" ]; then
  measure git "$PY/mcp-server-git" '["--repository", "."]' setup_git
else
  skip git "no target/py/bin/mcp-server-git; .ci/run installs it"
fi
if [ -x "$PYSQL/mcp-server-sqlite" ]; then
  measure sqlite "$PYSQL/mcp-server-sqlite" '["--db-path", "data.db"]' setup_sqlite
else
  skip sqlite "no target/py-sqlite/bin/mcp-server-sqlite; .ci/run installs it"
fi

# The servers of scripts/probe-servers.sh (pinned there); SKIP when not installed.
extra() {  # name setup command args-json
  local name=$1 setup=$2 command=$3 args=$4
  if [ -x "$command" ]; then measure "$name" "$command" "$args" "$setup"
  else skip "$name" "no $command; scripts/probe-servers.sh installs it"; fi
}
extra word setup_docx "$PS/word/bin/word_mcp_server" '[]'
extra excel setup_xlsx "$PS/excel/bin/excel-mcp-server" '["stdio"]'
extra pptx setup_pptx "$PS/pptx/bin/ppt_mcp_server" '[]'
extra pdf setup_pdf "$NPMBIN/pdf-reader-mcp" '[]'
extra git-cyanheads setup_git "$NPMBIN/git-mcp-server" '[]'
# obsidian-mcp refuses a relative vault path and any vault under /tmp (a "system directory"): its
# project lives under target/ and is named by absolute path (the sandboxed session's scratch copy is
# elsewhere, so there the path still names the real project, which it cannot write).
(
  work=$(mktemp -d "$PWD/target/probe-bench-notes.XXXXXX")
  if [ -n "${KEEP:-}" ]; then echo "work (notes): $work"; else trap 'rm -rf "$work"' EXIT; fi
  extra notes setup_notes "$NPMBIN/obsidian-mcp" "[\"$work/notes/project\"]"
)
extra commander setup_commander "$NPMBIN/desktop-commander" '[]'
extra text-editor setup_files "$PS/text-editor/bin/mcp-text-editor" '[]'
extra duckdb setup_duckdb "$PS/duckdb/bin/mcp-server-duckdb" '["--db-path", "data.duckdb"]'

# Totals: the three servers the probes were first built on, and the others (nobody on the team
# had studied them when the probes were measured on them: docs/probes.md).
python3 - "$TOTALS" <<'EOF'
import sys
studied = {"files", "git", "sqlite"}
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines() if l]
for label, pick in (("studied (files, git, sqlite)", lambda n: n in studied), ("others", lambda n: n not in studied)):
    r = [x for x in rows if pick(x[0])]
    if not r:
        continue
    t, ok, req, judged = (sum(int(x[i]) for x in r) for i in (1, 2, 3, 4))
    print(f"total, {label}: {len(r)} servers, valid call succeeds {ok}/{t} ({100 * ok / max(t, 1):.0f}%), "
          f"incomplete call judged {judged}/{req} ({100 * judged / max(req, 1):.0f}%)")
EOF
failed=
if [ -s "$TOTALS.changed" ]; then
  echo "FAIL: the project folder changed under: $(tr '\n' ' ' < "$TOTALS.changed")"
  failed=1
fi
# The same server, locked then checked at once: a failing probe is a false alarm (a gate that
# cries wolf gets switched off).
if [ -s "$TOTALS.wolf" ]; then
  echo "FAIL: check failed a probe of a server that did not change: $(tr '\n' ' ' < "$TOTALS.wolf")"
  failed=1
fi
# Steady: the same verdicts as lock's, three checks in a row.
if [ -s "$TOTALS.unsteady" ]; then
  echo "FAIL: a probe's verdict at check differed from lock's under: $(tr '\n' ' ' < "$TOTALS.unsteady")"
  failed=1
fi
# A lock is checked on another machine: no path of this one outside the launch record.
if [ -s "$TOTALS.leaked" ]; then
  echo "FAIL: a lock holds an absolute path of the machine outside its launch record: $(tr '\n' ' ' < "$TOTALS.leaked")"
  failed=1
fi
echo "servers with a verdict differing from lock's: $(sort -u "$TOTALS.unsteady" 2>/dev/null | wc -l); locks holding a path of the machine: $(sort -u "$TOTALS.leaked" 2>/dev/null | wc -l)"
[ -z "$failed" ]
