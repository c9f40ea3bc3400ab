#!/usr/bin/env bash
# Builds both images from deploy/docker/Dockerfile and runs them as the chart does
# (npm run smoke:images -w deploy), on a machine that cannot pull from Docker Hub: the base image
# is a local stand-in (node-base-image.sh) unless the real one is already in buildah's storage.
# CI runs it last; about 2.5 minutes here. Needs root, buildah, debootstrap, and the workspace
# built (tsc -b). Removes the images it made.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in buildah debootstrap unshare chroot; do
  command -v "$tool" >/dev/null || { echo "image smoke needs $tool (apt-get install -y buildah debootstrap)" >&2; exit 1; }
done
export STORAGE_DRIVER=${STORAGE_DRIVER:-vfs}
log=$(mktemp)
version=$(sed -n 's/^ARG NODE_VERSION=//p' deploy/docker/Dockerfile)
base="docker.io/library/node:${version}-bookworm-slim"
made=(media-service media-service-ffmpeg)
cleanup() {
  buildah rmi -f "${made[@]}" >/dev/null 2>&1 || true
  buildah rmi --prune >/dev/null 2>&1 || true
  rm -f "$log"
}
trap cleanup EXIT

# A base image already here (the real one, pulled) is used and kept.
if ! buildah inspect --type image "$base" >/dev/null 2>&1; then
  tools/ci/node-base-image.sh
  made+=("$base")
fi
# --layers: the second target reuses the stages the first one built.
for target in app app-ffmpeg; do
  start=$(date +%s)
  if ! buildah bud --layers --pull=never --isolation chroot --network host \
      -f deploy/docker/Dockerfile --target "$target" -t "media-service${target#app}" . >"$log" 2>&1; then
    tail -40 "$log"
    exit 1
  fi
  echo "built media-service${target#app} (--target $target) in $(($(date +%s) - start)) s"
done
npm run -s smoke:images -w deploy
