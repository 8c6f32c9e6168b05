#!/usr/bin/env bash
# Scaffold a new rule: its catalogue entry in src/rules/mod.rs (the `catalogue!` table, the one
# place a rule is defined: it generates the RuleId variant and the RULES entry) and its two case
# folders in tests/cases/ (one change each way, or two variants), ready to fill in.
#
# Usage: scripts/new-rule.sh RULE-ID CLASS SURFACE
#   CLASS:   silent | loud | cosmetic
#   SURFACE: tool | input | output | server | probe
# Then: write the summary, help and example in the entry, its risk rank within its class's band
# (and `prose` when its values are text the model reads), for a schema rule its walker Kind
# between the brackets and its mirror on the other schema side (or a waiver in
# src/rules/tests.rs), the before/after surfaces and expected.json of each case, emit the rule
# from the engine, and run
#   cargo insta review             (after `cargo test --test integration diff_cases::`), or
#   INSTA_UPDATE=always cargo test --test integration diff_cases::   then `git diff`
# which writes each new case's report snapshot and docs/rules.md (CONTRIBUTING.md, "Add a rule").
set -euo pipefail
cd "$(dirname "$0")/.."
id=${1:?rule id (kebab-case)}; class=${2:?class: silent|loud|cosmetic}; surface=${3:?surface: tool|input|output|server|probe}
[[ "$id" =~ ^[a-z]+(-[a-z]+)*$ ]] || { echo "error: rule ids are kebab-case: $id" >&2; exit 2; }
case "$class" in silent) c=S ;; loud) c=L ;; cosmetic) c=C ;; *) echo "error: class $class: silent, loud or cosmetic" >&2; exit 2 ;; esac
case "$surface" in tool) s=T; mark="    // ---- inputSchema" ;; input) s=I; mark="    // ---- outputSchema (mirrored)" ;;
  output) s=O; mark="    // ---- server" ;; server) s=V; mark="    // ---- probes" ;; probe) s=P; mark="}" ;;
  *) echo "error: surface $surface: tool, input, output, server or probe" >&2; exit 2 ;; esac
grep -q " \"$id\" [SLC] " src/rules/mod.rs && { echo "error: $id is already in src/rules/mod.rs" >&2; exit 2; }
python3 - "$id" "$c" "$s" "$mark" <<'PY'
import sys
rid, c, s, mark = sys.argv[1:]
p = "src/rules/mod.rs"
text = open(p).read()
variant = "".join(w.capitalize() for w in rid.split("-"))
kind = "[]" if s in "IO" else "[]"
# risk: within the class's band (silent 50-100, loud 10-39, cosmetic 1-9; rules::tests checks it)
risk = {"S": 50, "L": 20, "C": 3}[c]
todo = "  // TODO: the walker's Kind for a schema rule ([] otherwise); the risk within the band; prose if its values are text the model reads" 
entry = (f'    {variant} "{rid}" {c} {s} {kind} risk {risk} value{todo}\n'
         f'      "TODO: one line: what changed",\n'
         f'      "TODO: why this class: what a caller or the model sees when it happens.",\n'
         f'      r#"TODO: before"#, r#"TODO: after"#;\n')
start = text.index("catalogue! {\n")
i = text.index("\n" + mark + "\n", start) + 1
open(p, "w").write(text[:i] + entry + text[i:])
PY
tool='{"name": "t", "description": "T.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}'
for dir in "tests/cases/$id" "tests/cases/$id-2"; do
  mkdir -p "$dir"
  printf '{"tools": [%s]}\n' "$tool" > "$dir/before.json"
  printf '{"tools": [%s]}\n' "$tool" > "$dir/after.json"
  printf '[\n  {"rule": "%s", "class": "%s", "pointer": "TODO", "tool": "t"}\n]\n' "$id" "$class" > "$dir/expected.json"
done
echo "added $id to src/rules/mod.rs and tests/cases/$id{,-2}; fill in the TODOs (CONTRIBUTING.md, \"Add a rule\")"
