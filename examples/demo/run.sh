#!/usr/bin/env bash
# The README's first command: build, pin the bundled demo server, check it, then ship a
# "patch release" of the server with two silent changes and watch the gate fail.
# Needs only the Rust toolchain; no network once the crates are fetched.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
echo "building mcp-pin and the demo server (first time: a few minutes; cargo shows its progress)..."
# One cargo invocation for both binaries: their shared dependencies (tokio, serde_json, clap,
# rmcp...) are resolved with one feature set and compiled once, not once per package.
cargo build --manifest-path "$root/Cargo.toml" -p mcp-pin -p mcp-pin-fixture --bins
target_dir=$(cd "${CARGO_TARGET_DIR:-$root/target}" && pwd)
pin="$target_dir/debug/mcp-pin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/examples/demo/surface.json" "$root/examples/demo/surface-drifted.json" "$work/"
cat > "$work/mcp-pin.toml" <<TOML
[servers.demo]
command = "$target_dir/debug/mcp-pin-fixture"
args = ["--surface", "surface.json"]
TOML
cd "$work"

echo; echo "\$ mcp-pin lock"
"$pin" lock
echo; echo "\$ mcp-pin check"
"$pin" check
echo; echo "# upstream ships a patch release of the server (surface-drifted.json)"
cp surface-drifted.json surface.json
echo "\$ mcp-pin check"
set +e
"$pin" check
code=$?
set -e
echo
if [ "$code" -eq 1 ]; then
  echo "exit code 1: the gate fails on the silent changes, as it should."
  echo "To accept them you would run 'mcp-pin lock' and commit the mcp.lock diff."
else
  echo "unexpected exit code $code" >&2
  exit 1
fi
