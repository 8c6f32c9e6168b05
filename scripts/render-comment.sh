#!/usr/bin/env bash
# The pull-request comment mcp-pin writes for a real release, as a reviewer meets it: the
# release pair from tests/cases/ is pinned from its old surface and checked against its new one
# (the fixture server serves each), the markdown report is rendered by a GFM renderer with
# GitHub's stylesheet (npm `marked` and `github-markdown-css`, pinned below) and photographed by
# headless Chromium. Look at the picture, not the source.
#
# Usage: scripts/render-comment.sh [CASE] [OUT.png]
#   CASE  a folder of tests/cases/ (default: real-server-everything-2025.11.25-to-2026.8.31), or
#         the path of any folder holding before.json and after.json
#   OUT   default: docs/img/pr-comment.png (the picture docs/github-action.md shows)
# Needs: cargo, node and npm (the npm registry), chromium and a colour emoji font (Debian:
# apt-get install chromium fonts-noto-color-emoji).
# CHROMIUM=/path/to/chromium picks another browser.
set -euo pipefail
cd "$(dirname "$0")/.."
case_name=${1:-real-server-everything-2025.11.25-to-2026.8.31}
out=${2:-docs/img/pr-comment.png}
# A folder path (holding before.json and after.json) works as well as a case name.
if [[ -d "$case_name" ]]; then case_dir=$case_name; case_name=$(basename "$case_name"); else case_dir="tests/cases/$case_name"; fi
[[ -f "$case_dir/before.json" && -f "$case_dir/after.json" ]] || { echo "error: no release pair in $case_dir" >&2; exit 2; }
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[[ -n "$chromium" ]] || { echo "error: no chromium (Debian: apt-get install chromium; or set CHROMIUM)" >&2; exit 2; }

cargo build --quiet --bin mcp-pin -p mcp-pin -p mcp-pin-fixture
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
pin="$target/debug/mcp-pin"
fixture="$target/debug/mcp-pin-fixture"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The release pair, pinned then checked, as the Action would in a pull request.
project="$work/project"
mkdir -p "$project"
cp "$case_dir/before.json" "$project/surface.json"
printf '[servers.%s]\ncommand = "%s"\nargs = ["--surface", "surface.json"]\nprobe = "none"\n' \
  "$(echo "$case_name" | sed -E 's/^real-//; s/-[0-9].*$//')" "$fixture" >"$project/mcp-pin.toml"
(cd "$project" && env -u CI -u GITHUB_ACTIONS "$pin" lock --no-probe >/dev/null)
cp "$case_dir/after.json" "$project/surface.json"
set +e
(cd "$project" && env -u CI -u GITHUB_ACTIONS "$pin" check --no-probe --format markdown >"$work/comment.md")
code=$?
set -e
[[ $code -le 1 ]] || { echo "error: mcp-pin check exited $code" >&2; exit 2; }

# GFM with GitHub's stylesheet, at the width of a comment.
tools="$work/render"
mkdir -p "$tools"
cp scripts/render-comment.mjs "$tools/"
(cd "$tools" && npm install --silent --no-audit --no-fund --no-save marked@18.2.1 github-markdown-css@5.9.0 >/dev/null)
node "$tools/render-comment.mjs" "$work/comment.md" "$work/comment.html"

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --hide-scrollbars --force-device-scale-factor=1
  --user-data-dir="$work/profile")
# The page's height (its script writes it into the title), then a picture of the whole page.
height=$("$chromium" "${flags[@]}" --window-size=934,1000 --dump-dom "file://$work/comment.html" 2>/dev/null |
  sed -n 's:.*<title>\([0-9]*\)</title>.*:\1:p' | head -1)
[[ -n "$height" ]] || height=3000
mkdir -p "$(dirname "$out")"
"$chromium" "${flags[@]}" --window-size="934,$((height + 32))" --screenshot="$work/shot.png" \
  "file://$work/comment.html" >/dev/null 2>&1
cp "$work/shot.png" "$out"
echo "wrote $out (${height}px high) from $case_name"
