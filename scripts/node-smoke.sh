#!/usr/bin/env bash
# Usage: bash scripts/node-smoke.sh <line>    (after scripts/setup.sh; a line of scripts/node-lines.txt)
# The smoke set on that line's pinned Node: the native addons, the build, the demo, and one jest run of the test
# files listed in SMOKE_TESTS below. Every step runs; the last line of output is
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

# The test files whose code paths differ between Node lines: native addons (sharp, onnxruntime-node), zlib and the
# PNG path (png-rows fails when inflate-into.ts takes its fallback), the filesystem's locks and atomic writes, the
# provider SDKs' HTTP clients, the AWS SDK, timers and abort signals, the built package, and one end-to-end flow.
# The flows' own logic is the same JavaScript on every line; the whole suite runs it on the full line.
SMOKE_TESTS=(
  tests/package
  tests/unit/png-rows.test.ts tests/unit/png-compare.test.ts tests/unit/images.test.ts tests/unit/pixel-diff.test.ts
  tests/unit/lazy-sharp.test.ts tests/unit/stitch.test.ts tests/unit/element-match.test.ts
  tests/unit/fingerprint.test.ts tests/unit/file-store.test.ts tests/unit/records.test.ts tests/unit/keys.test.ts
  tests/unit/budget.test.ts tests/unit/artifacts.test.ts tests/unit/log.test.ts tests/unit/deadline.test.ts
  tests/unit/contract.test.ts tests/unit/config.test.ts tests/unit/page-source.test.ts
  tests/providers/gemini.test.ts tests/providers/openai.test.ts tests/providers/ocr.test.ts
  tests/store/s3-store.test.ts
  tests/e2e/flow.test.ts
)

jest_log="$(mktemp)"
trap 'rm -f "$jest_log"' EXIT
smoke_jest() {
  local missing=()
  for path in "${SMOKE_TESTS[@]}"; do [ -e "$path" ] || missing+=("$path"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "scripts/node-smoke.sh lists test files that do not exist: ${missing[*]}; update SMOKE_TESTS." >&2
    return 1
  fi
  npm run jest -- "${SMOKE_TESTS[@]}" 2>&1 | tee "$jest_log"
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
