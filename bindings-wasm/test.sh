#!/usr/bin/env bash
# The npm package's own tests (the conformance runners are tests/runners/{node,browser}):
# tarball (import + require, exports = index.d.ts, no `any`; kinds: every parameter refuses a wrong
# kind with a TypeError naming it, secrets are UTF-8 keys; readme: every js block of README.md run
# as written, the HTTP handler sent a signed and a tampered delivery), types (tsc --strict), size budget,
# panic recovery, bundlers (an app built by webpack 5 and by Vite, run in Chromium), demo
# end-to-end in headless Chromium (screenshot under target/wasm-npm/).
# Uses the artefact of bindings-wasm/build.sh (built here when missing or stale).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT"
bash "$HERE/build.sh" || exit 1
if [ -z "${XBORDER_CHROMIUM:-}" ] || [ -z "${XBORDER_NODE_TOOLS:-}" ]; then
  XBORDER_SKIP_VERIFY=${XBORDER_SKIP_VERIFY:-1} bash tests/tools/setup.sh browser >/dev/null || exit 1
fi
# shellcheck disable=SC1091
. "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"

SCRATCH=$ROOT/target/wasm-npm
failed=()
run() {
  local name=$1; shift
  echo "== $name"
  if "$@"; then echo "== $name: ok"; else echo "== $name: FAILED"; failed+=("$name"); fi
}
tarball() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-tarball" &&
    cp "$HERE/tests/tarball.cjs" "$HERE/tests/tarball.mjs" "$HERE/tests/kinds.mjs" "$HERE/tests/panic.mjs" \
      "$HERE/tests/readme.mjs" "$SCRATCH/consumer-tarball/" &&
    node "$SCRATCH/consumer-tarball/tarball.cjs" && node "$SCRATCH/consumer-tarball/tarball.mjs" &&
    node "$SCRATCH/consumer-tarball/kinds.mjs" &&
    (cd "$SCRATCH/consumer-tarball" && node readme.mjs "$HERE/README.md")
}
panic() { bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-tarball" && node "$SCRATCH/consumer-tarball/panic.mjs"; }
bundlers() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-bundlers" &&
    node "$HERE/tests/bundlers.mjs" "$SCRATCH/consumer-bundlers"
}
e2e() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-tarball" &&
    node "$HERE/tests/e2e.mjs" "$SCRATCH/consumer-tarball" "$SCRATCH/demo-e2e.png"
}
run tarball tarball
run types bash "$HERE/tests/types.sh" "$SCRATCH/consumer-types"
run size bash "$HERE/tests/size.sh"
run panic panic
run bundlers bundlers
run e2e e2e
if [ ${#failed[@]} -gt 0 ]; then echo "wasm tests: FAILED: ${failed[*]}"; exit 1; fi
echo "wasm tests: all passed (tarball, types, size, panic, bundlers, e2e)"
