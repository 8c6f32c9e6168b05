#!/usr/bin/env bash
# Run `mcp-pin check` for the GitHub Action (action.yml) and turn its reports into the step's
# annotations, summary, outputs and exit code.
#
# Every input arrives as an environment variable (never spliced into the script), so nothing a
# pull request writes into an input can run as shell code:
#   INPUT_CONFIG, INPUT_LOCKFILE, INPUT_FAIL_ON, INPUT_SERVERS (space/newline separated),
#   INPUT_ARGS (extra arguments, split on whitespace; no quoting, no globbing),
#   INPUT_SARIF (file to write SARIF to, or empty), INPUT_WORKING_DIRECTORY,
#   INPUT_ALLOW_ENV (variable names the config may read; commas, spaces or newlines).
# MCP_PIN: the mcp-pin binary (default: `mcp-pin` on PATH).
# GitHub's own: GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP.
# MCP_PIN_NO_JQ=1 reads the JSON report with python3 even when jq is there (tests).
#
# Exit code: mcp-pin's (0 pass, 1 the gate fails, 2 an error).
set -uo pipefail
set -f # no globbing of the split inputs

mcp_pin="${MCP_PIN:-mcp-pin}"

if [[ -n "${INPUT_WORKING_DIRECTORY:-}" ]]; then
  cd -- "$INPUT_WORKING_DIRECTORY" || {
    echo "::error title=mcp-pin::working-directory '${INPUT_WORKING_DIRECTORY}' does not exist"
    exit 2
  }
fi

out_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-pin-report"
mkdir -p -- "$out_dir"
json="$out_dir/report.json"
markdown="$out_dir/report.md"
annotations="$out_dir/annotations.txt"
rm -f -- "$json" "$markdown" "$annotations"

args=(check)
# The variables the config may read under CI (docs/security.md): names only, never values.
read -r -d '' -a allow_env <<<"$(printf '%s' "${INPUT_ALLOW_ENV:-}" | tr ',' ' ')" || true
for v in ${allow_env[@]+"${allow_env[@]}"}; do
  args+=(--allow-env "$v")
done
[[ -n "${INPUT_CONFIG:-}" ]] && args+=(--config "$INPUT_CONFIG")
[[ -n "${INPUT_LOCKFILE:-}" ]] && args+=(--lockfile "$INPUT_LOCKFILE")
args+=(--fail-on "${INPUT_FAIL_ON:-silent}")
read -r -d '' -a servers <<<"${INPUT_SERVERS:-}" || true
for s in ${servers[@]+"${servers[@]}"}; do
  args+=(--server "$s")
done
read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
args+=(${extra[@]+"${extra[@]}"})
args+=(--report "json=$json" --report "markdown=$markdown" --report "github=$annotations")
if [[ -n "${INPUT_SARIF:-}" ]]; then
  mkdir -p -- "$(dirname -- "$INPUT_SARIF")"
  args+=(--report "sarif=$INPUT_SARIF")
fi

echo "+ mcp-pin ${args[*]}" >&2
# The step summary is written below from the Markdown report; the child must not append its own.
env -u GITHUB_STEP_SUMMARY "$mcp_pin" "${args[@]}"
code=$?

output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  fi
}

if [[ -s "$annotations" ]]; then
  cat -- "$annotations"
fi
if [[ -s "$markdown" && -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  cat -- "$markdown" >>"$GITHUB_STEP_SUMMARY"
fi

if [[ ! -s "$json" ]]; then
  # No report: the configuration or the lockfile could not be read (mcp-pin said why above).
  echo "::error title=mcp-pin::mcp-pin check exited with code ${code} and wrote no report; see the log above"
  output verdict error
  output silent 0
  output loud 0
  output probe-failures 0
  output report ""
  output json ""
  [[ "$code" == 0 ]] && code=2
  exit "$code"
fi

if [[ "${MCP_PIN_NO_JQ:-}" != 1 ]] && command -v jq >/dev/null 2>&1; then
  read -r verdict silent loud probe_failures errors < <(
    jq -r '[.verdict, .counts.silent, .counts.loud, .counts.probeFailures, .counts.errors] | map(tostring) | join(" ")' "$json"
  )
else
  read -r verdict silent loud probe_failures errors < <(
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
c = r["counts"]
print(r["verdict"], c["silent"], c["loud"], c["probeFailures"], c["errors"])' "$json"
  )
fi
# A server that could not be checked makes the verdict an error, whatever the gate said.
if [[ "$code" == 2 && "${errors:-0}" != 0 ]]; then
  verdict=error
fi

output verdict "$verdict"
output silent "$silent"
output loud "$loud"
output probe-failures "$probe_failures"
output report "$markdown"
output json "$json"

exit "$code"
