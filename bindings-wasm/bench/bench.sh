#!/usr/bin/env bash
# Benchmarks of the npm package in Node (bench.mjs), on the packed tarball installed as a user
# installs it, then in headless Chromium (browser.mjs: the web build in a page) when the
# toolchain's browser is there (tests/tools/setup.sh browser). Measured, never tested: run it by
# hand to compare a change (before / after).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
bash "$ROOT/bindings-wasm/build.sh" >/dev/null
SCRATCH=$ROOT/target/wasm-npm/consumer-bench
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$SCRATCH" >&2
cp "$HERE/bench.mjs" "$SCRATCH/"
echo "node $(node --version), $(uname -m); xborder-wasm $(node -p "require('$SCRATCH/node_modules/xborder-wasm/package.json').version")"
node "$SCRATCH/bench.mjs"
# shellcheck disable=SC1091
[ -f "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh" ] && . "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
if [ -n "${XBORDER_CHROMIUM:-}" ] && [ -n "${XBORDER_NODE_TOOLS:-}" ]; then
  node "$HERE/browser.mjs" "$SCRATCH"
else
  echo "browser: skipped (no XBORDER_CHROMIUM / XBORDER_NODE_TOOLS: tests/tools/setup.sh browser)"
fi
