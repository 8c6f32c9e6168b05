#!/usr/bin/env bash
# Install mcp-pin for the GitHub Action the fast way when it can: the release binary for this
# runner's OS and architecture, checked against its published sha256. When there is no release
# to take (the action is used from a branch or a commit, the download fails, or the checksum does
# not match), it says so and leaves the build from source to the next steps of action.yml.
#
# Environment (set by action.yml; never spliced into the script):
#   MCP_PIN            an mcp-pin binary to use as is (then nothing is installed)
#   INPUT_VERSION      the release to take (`1.2.3` or `v1.2.3`); default: the action's own ref
#                      when it is a version tag
#   ACTION_REPOSITORY  owner/name the action comes from (github.action_repository)
#   ACTION_REF         the ref the action was used at (github.action_ref)
#   GITHUB_ACTION_PATH where the action's files are (its Cargo.lock too)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_SERVER_URL, GITHUB_ENV, GITHUB_OUTPUT
#   MCP_PIN_DOWNLOAD_BASE  overrides `$GITHUB_SERVER_URL/$repo/releases/download` (tests, mirrors)
#
# Outputs: method=preset|release|source, lock-hash=<sha256 of the action's Cargo.lock> (the cache
# key of the source build: hashFiles() only sees files under the workspace, and the action's own
# files are not there).
set -uo pipefail

output() {
  if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  fi
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum -- "$1" | cut -d' ' -f1
  else
    shasum -a 256 -- "$1" | cut -d' ' -f1
  fi
}

# The Rust target triple of a release binary for RUNNER_OS/RUNNER_ARCH (empty: none is built).
target_triple() {
  case "${1:-}/${2:-}" in
    Linux/X64) echo x86_64-unknown-linux-gnu ;;
    Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) echo "" ;;
  esac
}

if [[ -n "${GITHUB_ACTION_PATH:-}" && -f "$GITHUB_ACTION_PATH/Cargo.lock" ]]; then
  output lock-hash "$(sha256_of "$GITHUB_ACTION_PATH/Cargo.lock")"
else
  output lock-hash none
fi

if [[ -n "${MCP_PIN:-}" ]]; then
  echo "mcp-pin: using MCP_PIN=$MCP_PIN"
  output method preset
  exit 0
fi

source_build() {
  echo "mcp-pin: $1; building from source (cached after the first run)"
  output method source
  exit 0
}

version="${INPUT_VERSION:-}"
if [[ -z "$version" ]]; then
  ref="${ACTION_REF:-}"
  if [[ -z "$ref" && -n "${GITHUB_ACTION_PATH:-}" ]]; then
    ref="$(basename -- "$GITHUB_ACTION_PATH")" # .../_actions/OWNER/NAME/REF
  fi
  if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
    version="$ref"
  else
    source_build "the action is used at '${ref:-an unknown ref}', not a release tag vX.Y.Z (set the 'version' input to take a release binary)"
  fi
fi
[[ "$version" == v* ]] || version="v$version"
if [[ ! "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]]; then
  echo "::error title=mcp-pin::version '${INPUT_VERSION:-}' is not a release version like 1.2.3"
  exit 2
fi

target="$(target_triple "${RUNNER_OS:-}" "${RUNNER_ARCH:-}")"
[[ -n "$target" ]] || source_build "no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
exe=""
[[ "$target" == *windows* ]] && exe=".exe"

repo="${ACTION_REPOSITORY:-}"
if [[ -z "$repo" && -n "${GITHUB_ACTION_PATH:-}" ]]; then
  repo="$(basename -- "$(dirname -- "$(dirname -- "$GITHUB_ACTION_PATH")")")/$(basename -- "$(dirname -- "$GITHUB_ACTION_PATH")")"
fi
base="${MCP_PIN_DOWNLOAD_BASE:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download}"
asset="mcp-pin-$target$exe"
dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-pin-bin/$version"
mkdir -p -- "$dir"
bin="$dir/mcp-pin$exe"

fetch() {
  curl --fail --silent --show-error --location --retry 3 --output "$2" -- "$1"
}

if ! fetch "$base/$version/$asset" "$dir/$asset.download" || ! fetch "$base/$version/$asset.sha256" "$dir/$asset.sha256"; then
  rm -f -- "$dir/$asset.download" "$dir/$asset.sha256"
  source_build "could not download $asset $version from $base"
fi
want="$(tr -d '\r' <"$dir/$asset.sha256" | awk '{print tolower($1); exit}')"
have="$(sha256_of "$dir/$asset.download")"
if [[ -z "$want" || "$want" != "$have" ]]; then
  rm -f -- "$dir/$asset.download"
  echo "::warning title=mcp-pin::checksum mismatch for $asset $version (expected ${want:-nothing}, got $have); not using it"
  source_build "the release binary failed its checksum"
fi
mv -f -- "$dir/$asset.download" "$bin"
chmod +x -- "$bin"
echo "mcp-pin: installed $asset $version (sha256 $have)"
if [[ -n "${GITHUB_ENV:-}" ]]; then
  printf 'MCP_PIN=%s\n' "$bin" >>"$GITHUB_ENV"
fi
output method release
output path "$bin"
