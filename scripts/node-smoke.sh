#!/usr/bin/env bash
# Usage: bash scripts/node-smoke.sh <line>    (after scripts/setup.sh; a line of scripts/node-lines.txt)
# The smoke set on that line's pinned Node: the native addons, the build, the demo, and one jest run of the unit
# tests, the package tests, the real OCR engine and one end-to-end file. Every step runs; the last line of output is
# "smoke <line>: Node v<version> ok|FAILED (...)" and the exit code is non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

line="${1:?usage: bash scripts/node-smoke.sh <line>}"
bin="$(bash scripts/node-line.sh "$line")" || exit 1
export PATH="$bin:$PATH"
node_version="$(node --version)"
echo "== smoke set on Node $node_version (line $line): addons, build, demo, jest"

failed=()
step() {
  local name="$1"
  shift
  echo "-- $name: $*"
  "$@" || failed+=("$name")
}

jest_log="$(mktemp)"
trap 'rm -f "$jest_log"' EXIT
smoke_jest() {
  npm run jest -- tests/unit tests/package tests/providers/ocr.test.ts tests/e2e/flow.test.ts 2>&1 | tee "$jest_log"
  return "${PIPESTATUS[0]}"
}

step addons node scripts/native-addons.mjs
step build npm run build
step demo npm run demo
step jest smoke_jest

# jest's summary ("tests: N passed, N failed, N skipped"), repeated without its "tests:" so that only the full suite's
# summary stands alone as a closing line in .ci/run.
counts="$(grep -E '^tests: [0-9]+ passed, [0-9]+ failed' "$jest_log" | tail -n 1 | sed 's/^tests: //')"
if [ ${#failed[@]} -eq 0 ]; then
  echo "smoke $line: Node $node_version ok (jest ${counts:-no summary})"
else
  echo "smoke $line: Node $node_version FAILED in ${failed[*]} (jest ${counts:-no summary})"
  exit 1
fi
