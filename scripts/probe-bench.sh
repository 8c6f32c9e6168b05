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
# Two halves (FROZEN below): the tuned half, which the probes may be studied and changed against,
# and the frozen half, held out to tell whether a change helps servers nobody looked at. The totals
# are printed per half; a frozen server's own figures are not printed (one line instead) unless
# SHOW_FROZEN=1 or CI is set (CI prints everything); its safety failures always are.
# Environment: ONLY="name ..." measures just those servers; HALF=tuned or HALF=frozen just that half;
# KEEP=1 keeps the work folder; MCP_PIN_NO_SKIP=1 fails on a server that is not installed.
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
# The frozen half: servers added for the purpose and never studied. Chosen before any of them was
# measured, by a rule, not by how they did: the new servers grouped by kind (code analysis and
# search; SQL databases; calculators; step-by-step thinking; tabular files; one of a kind), each
# group in alphabetical order of package name (scope without its @), the 1st, 3rd, ... of a group
# frozen and the 2nd, 4th, ... tuned, a server alone of its kind frozen. A server dropped later is
# replaced by one that takes its half. Everything else (the first twelve, eslint, tree-sitter,
# alchemy, calculator, thinking, excel-go) is the tuned half.
FROZEN="code-index grep repomix sqlite-ro calc worknotes csv drawio graph tasks markitdown code-runner make"
export FROZEN
is_frozen() { [[ " $FROZEN " == *" $1 "* ]]; }
# ONLY="name ..." picks servers by name, HALF=tuned|frozen a half; both may be given.
selected() {
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $1 "* ]]; then return 1; fi
  case "${HALF:-}" in
    "") ;;
    tuned) ! is_frozen "$1" || return 1 ;;
    frozen) is_frozen "$1" || return 1 ;;
    *) echo "HALF must be tuned or frozen, not $HALF" >&2; exit 2 ;;
  esac
}
# A frozen server's figures are shown under SHOW_FROZEN=1 or in CI (which prints everything).
show_frozen() { [ -n "${CI:-}" ] || { [ -n "${SHOW_FROZEN:-}" ] && [ "$SHOW_FROZEN" != 0 ]; }; }
# A server not measured: a SKIP line, or a failure under MCP_PIN_NO_SKIP (.ci/run installs them all).
skip() {
  selected "$1" || return 0
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

# For the servers added with the two halves: a small code project (code analysis, lint, search,
# packing), CSV files, a workbook, a knowledge graph, a task list, a diagram, documents to convert,
# a Makefile. Each is made with python3 alone, in the format the server reads.
setup_code() {
  mkdir -p "$1/src" "$1/web" "$1/tests"
  # shellcheck disable=SC2016 # the backticks are Markdown, written as they are
  printf '# inventory\n\nA small inventory tool: `python -m src.app`.\n' > "$1/README.md"
  cat > "$1/src/app.py" <<'PY'
"""Inventory: load items from a CSV and report the total stock."""
import csv

from src.util import parse_qty


class Inventory:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path, newline="") as f:
            for row in csv.DictReader(f):
                self.items[row["name"]] = parse_qty(row["qty"])
        return self

    def total(self):
        return sum(self.items.values())


def main():
    print(Inventory("data/items.csv").load().total())


if __name__ == "__main__":
    main()
PY
  cat > "$1/src/util.py" <<'PY'
def parse_qty(text):
    """A quantity: a whole number, 0 when empty."""
    text = text.strip()
    return int(text) if text else 0
PY
  : > "$1/src/__init__.py"
  cat > "$1/tests/test_util.py" <<'PY'
from src.util import parse_qty


def test_parse_qty():
    assert parse_qty(" 3 ") == 3
    assert parse_qty("") == 0
PY
  cat > "$1/web/main.js" <<'JS'
// Renders the stock total in the page.
const unused = 1;
export function render(total) {
  const el = document.getElementById("total");
  el.textContent = `Total: ${total}`
}
JS
  # ESLint's flat config, with no plugin to resolve (the server brings eslint itself).
  printf 'export default [{ files: ["**/*.js"], rules: { "no-unused-vars": "error", semi: "error" } }];\n' > "$1/eslint.config.mjs"
  mkdir -p "$1/data"
  printf 'name,qty\nbolts,120\nnuts,80\nwashers,\n' > "$1/data/items.csv"
}
setup_csv() {
  mkdir -p "$1/data"
  printf 'region,month,sales\nnorth,2026-01,120\nsouth,2026-01,80\nnorth,2026-02,135\nsouth,2026-02,95\n' > "$1/data/sales.csv"
  printf 'region,manager\nnorth,Ana\nsouth,Bo\n' > "$1/data/regions.csv"
}
# A small .xlsx written with the standard library (no spreadsheet library needed).
setup_xlsx_plain() {
  setup_files "$1"
  python3 - "$1/sales.xlsx" <<'PY'
import sys, zipfile
rows = [["region", "sales"], ["north", 120], ["south", 80]]
def cell(r, c, v):
    ref = "AB"[c] + str(r + 1)
    if isinstance(v, str):
        return f'<c r="{ref}" t="inlineStr"><is><t>{v}</t></is></c>'
    return f'<c r="{ref}"><v>{v}</v></c>'
sheet = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
         '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
         f'<dimension ref="A1:B{len(rows)}"/><sheetData>'
         + "".join(f'<row r="{r + 1}">' + "".join(cell(r, c, v) for c, v in enumerate(row)) + "</row>" for r, row in enumerate(rows))
         + "</sheetData></worksheet>")
files = {
    "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    "_rels/.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
    "xl/workbook.xml": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sales" sheetId="1" r:id="rId1"/></sheets></workbook>',
    "xl/_rels/workbook.xml.rels": '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
    "xl/worksheets/sheet1.xml": sheet,
}
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for name, text in files.items():
        z.writestr(zipfile.ZipInfo(name, (2026, 12, 1, 0, 0, 0)), text)
PY
}
# A knowledge graph of a small team (the server's JSON-lines memory file).
setup_graph() {
  mkdir -p "$1"
  cat > "$1/memory.jsonl" <<'JSONL'
{"type":"entity","name":"Ana","entityType":"person","observations":["leads the north region","prefers email"]}
{"type":"entity","name":"Inventory tool","entityType":"project","observations":["written in Python","release planned for March"]}
{"type":"relation","from":"Ana","to":"Inventory tool","relationType":"owns"}
JSONL
}
# A task list (the server's JSON file): one request with two tasks, one done.
setup_tasks() {
  mkdir -p "$1"
  cat > "$1/tasks.json" <<'JSON'
{
  "requests": [
    {
      "requestId": "req-1",
      "originalRequest": "Prepare the March release",
      "splitDetails": "Prepare the March release",
      "tasks": [
        {"id": "task-1", "title": "Write the changelog", "description": "List the changes since 1.2", "done": true, "approved": true, "completedDetails": "done"},
        {"id": "task-2", "title": "Tag the release", "description": "Tag v1.3 on main", "done": false, "approved": false, "completedDetails": ""}
      ],
      "completed": false
    }
  ]
}
JSON
}
# A draw.io diagram (.drawio.svg: the diagram's XML deflated in the SVG's content attribute).
setup_diagram() {
  mkdir -p "$1/docs"
  python3 - "$1/docs/architecture.drawio.svg" <<'PY'
import base64, sys, urllib.parse, zlib
xml = ('<mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>'
       '<mxCell id="web" value="Web" style="rounded=1;" vertex="1" parent="1"><mxGeometry x="40" y="40" width="120" height="60" as="geometry"/></mxCell>'
       '<mxCell id="db" value="Database" style="shape=cylinder;" vertex="1" parent="1"><mxGeometry x="240" y="40" width="120" height="60" as="geometry"/></mxCell>'
       '<mxCell id="e1" edge="1" parent="1" source="web" target="db"><mxGeometry relative="1" as="geometry"/></mxCell>'
       '</root></mxGraphModel>')
c = zlib.compressobj(9, zlib.DEFLATED, -15)
data = base64.b64encode(c.compress(urllib.parse.quote(xml, safe="-_.!~*'()").encode()) + c.flush()).decode()
content = f'&lt;mxfile&gt;&lt;diagram id=&quot;d&quot; name=&quot;P&quot;&gt;{data}&lt;/diagram&gt;&lt;/mxfile&gt;'
open(sys.argv[1], "w").write(f'<svg xmlns="http://www.w3.org/2000/svg" content="{content}" width="400" height="140"><rect x="40" y="40" width="120" height="60"/></svg>\n')
PY
}
# Documents for a converter to Markdown: HTML, CSV, JSON.
setup_docs() {
  setup_files "$1"
  printf '<html><head><title>Release notes</title></head><body><h1>Release 1.3</h1><ul><li>Faster import</li><li>New report</li></ul></body></html>\n' > "$1/docs/release.html"
  printf 'name,qty\nbolts,120\nnuts,80\n' > "$1/data/items.csv"
}
setup_make() {
  setup_code "$1"
  printf '.PHONY: all test clean\nall:\n\t@echo building inventory\ntest:\n\t@python3 -c "print(1 + 1)"\nclean:\n\t@echo nothing to clean\n' > "$1/Makefile"
}

measure() {
  # env: TOML key = "value" pairs, for the servers that read a setting from their environment.
  local name=$1 command=$2 args=$3 setup=$4 env=${5:-}
  selected "$name" || return 0
  local dir="$work/$name"
  mkdir -p "$dir/project"
  "$setup" "$dir/project"
  {
    printf '[servers.%s]\ncommand = "%s"\nargs = %s\ncwd = "project"\ntimeout = "60s"\n' "$name" "$command" "$args"
    if [ -n "$env" ]; then printf 'env = { %s }\n' "$env"; fi
    if [ "$POLICY" = all ]; then printf 'probe = "all"\n'; fi
  } > "$dir/mcp-pin.toml"
  local before after hide=0 t0=$SECONDS
  if is_frozen "$name" && ! show_frozen; then hide=1; fi
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
  # Seconds for lock and the three checks: the bench runs inside CI's 90 minutes.
  local secs=$((SECONDS - t0))
  if [ ! -f "$dir/mcp.lock" ]; then
    # No lock, no figures: the server is in no total, so this is said even of a frozen one.
    if [ "$hide" = 1 ]; then echo "$name: frozen (lock failed: in no total)"
    else echo "$name: lock failed: $(head -c 300 "$dir/lock.err" | tr '\n' ' ')"; fi
    return 0
  fi
  python3 - "$name" "$dir" "$before" "${after:-n/a}" "$POLICY" "$work" "$PWD" "$hide" "$secs" <<'EOF'
import json, os, re, sys
name, d, before, after, policy, workdir, repo, hide, secs = sys.argv[1:]
hide = hide == "1"
lines = []  # this server's figures: printed unless it is frozen and hidden
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
lines.append(f"{name}: {len(tools)} tools, valid call succeeds {len(ok)}/{len(tools)} "
             f"(answered with a failure: {len(soft)}{': ' + ', '.join(soft) if soft else ''}), "
             f"incomplete call judged {len(judged)}/{len(req)}; project folder unchanged: {same}; "
             f"false alarms at check: {len(wolf)}{': ' + ', '.join(wolf) if wolf else ''}; "
             f"lock + 3 checks: {secs} s")
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
lines.append(f"{name}: verdicts differing from lock's over three checks: {len(unsteady)}"
             f"{': ' + ', '.join(unsteady) if unsteady else ''}; absolute paths of the machine in the lock "
             f"outside its launch record: {len(leaked)}{': ' + ', '.join(leaked) if leaked else ''}")
if hide:
    # A frozen server: one line, its figures only in its half's total; but a safety failure is
    # always named (which check, not which tools), as it fails the run.
    fails = [what for what, bad in (("project folder changed", same == "NO"),
                                    ("false alarm at check", bool(wolf)),
                                    ("verdict differing from lock's", bool(unsteady)),
                                    ("machine path in the lock", bool(leaked))) if bad]
    print(f"{name}: frozen (figures in the half's total)" + (f"; FAIL: {', '.join(fails)}" if fails else ""))
else:
    print("\n".join(lines))
if unsteady:
    open(os.environ["TOTALS"] + ".unsteady", "a").write(name + "\n")
if leaked:
    open(os.environ["TOTALS"] + ".leaked", "a").write(name + "\n")
if same == "NO":
    open(os.environ["TOTALS"] + ".changed", "a").write(name + "\n")
if wolf:
    open(os.environ["TOTALS"] + ".wolf", "a").write(name + "\n")
with open(os.environ["TOTALS"], "a") as t:
    t.write(f"{name}\t{len(tools)}\t{len(ok)}\t{len(req)}\t{len(judged)}\t{secs}\n")
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
extra() {  # name setup command args-json [env]
  local name=$1 setup=$2 command=$3 args=$4 env=${5:-}
  if [ -x "$command" ]; then measure "$name" "$command" "$args" "$setup" "$env"
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
# Added with the two halves (FROZEN says which is which), in alphabetical order of name.
extra alchemy setup_sqlite "$PS/alchemy/bin/mcp-alchemy" '[]' 'DB_URL = "sqlite:///data.db"'
extra calc setup_files "$NPMBIN/calc-mcp" '[]'
extra calculator setup_files "$PS/calculator/bin/mcp-server-calculator" '[]'
extra code-index setup_code "$PS/code-index/bin/code-index-mcp" '[]'
extra code-runner setup_commander "$NPMBIN/mcp-server-code-runner" '[]'
extra csv setup_csv "$PS/csv/bin/mcp-csv-database" '[]'
extra drawio setup_diagram "$NPMBIN/drawio-mcp" '[]'
# Its command is named just `mcp`: called by its path in the package, not the shared .bin.
extra eslint setup_code "$PS/npm/node_modules/@eslint/mcp/src/mcp-cli.js" '[]'
extra excel-go setup_xlsx_plain "$NPMBIN/excel-mcp-server" '[]'
extra graph setup_graph "$NPMBIN/mcp-knowledge-graph" '["--memory-path", "memory.jsonl"]'
extra grep setup_code "$PS/grep/bin/mcp-grep-server" '[]'
extra make setup_make "$PS/make/bin/mcp-server-make" '["--make-path", "Makefile", "--working-dir", "."]'
extra markitdown setup_docs "$PS/markitdown/bin/markitdown-mcp" '[]'
extra repomix setup_code "$NPMBIN/repomix" '["--mcp"]'
extra sqlite-ro setup_sqlite "$PS/sqlite-ro/bin/database-mcp-sqlite" '["--dsn", "data.db"]'
# Its tasks file defaults to ~/Documents/tasks.json: the project's own instead.
extra tasks setup_tasks "$NPMBIN/mcp-taskmanager" '[]' 'TASK_MANAGER_FILE_PATH = "tasks.json"'
extra thinking setup_files "$NPMBIN/mcp-server-sequential-thinking" '[]'
extra tree-sitter setup_code "$PS/tree-sitter/bin/mcp-server-tree-sitter" '[]'
# Without --ephemeral it creates its storage (a lock file, an SQLite log) at start-up, before any
# call: in ~/.mcp_sequential_thinking, or in the project if pointed there.
extra worknotes setup_files "$PS/worknotes/bin/mcp-sequential-thinking" '["--ephemeral"]'

# Totals: the three servers the probes were first built on (nobody on the team had studied the
# others when the probes were measured on them: docs/probes.md), then each half: the tuned one (which
# holds those three), and the frozen one, whose total is the only figure it shows by default.
python3 - "$TOTALS" <<'EOF'
import os, sys
studied = {"files", "git", "sqlite"}
frozen = set(os.environ["FROZEN"].split())
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines() if l]
times = []
for label, pick in (("studied (files, git, sqlite)", lambda n: n in studied),
                    ("tuned half", lambda n: n not in frozen), ("frozen half", lambda n: n in frozen)):
    r = [x for x in rows if pick(x[0])]
    if not r:
        continue
    t, ok, req, judged, secs = (sum(int(x[i]) for x in r) for i in (1, 2, 3, 4, 5))
    print(f"total, {label}: {len(r)} servers, valid call succeeds {ok}/{t} ({100 * ok / max(t, 1):.0f}%), "
          f"incomplete call judged {judged}/{req} ({100 * judged / max(req, 1):.0f}%)")
    if "half" in label:
        times.append(f"{label} {secs} s")
# The bench runs inside CI's 90 minutes: the time each half takes (lock and three checks).
if times:
    print("lock + 3 checks: " + ", ".join(times))
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
echo "bench: $SECONDS s"
[ -z "$failed" ]
