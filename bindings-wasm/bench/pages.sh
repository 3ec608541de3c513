#!/usr/bin/env bash
# What validation adds to a Vite production page (pages.mjs: the forms module, the full module,
# hand-written checks with ibantools), measured in one run on the packed tarball installed as a
# user installs it; the figures go to target/bench/pages.json (or the file given), then
#   python3 tests/bench/report.py --pages
# writes them into tests/bench/BENCHMARKS.md (its page rows and the size targets, nothing else).
# tests/bench/run.sh runs both. About a minute on 2 cores once the package is built.
#   bash bindings-wasm/bench/pages.sh [out.json]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/target/bench/pages.json}
bash "$ROOT/bindings-wasm/build.sh" >/dev/null
if [ -z "${XBORDER_CHROMIUM:-}" ] || [ -z "${XBORDER_NODE_TOOLS:-}" ]; then
  XBORDER_SKIP_VERIFY=${XBORDER_SKIP_VERIFY:-1} bash "$ROOT/tests/tools/setup.sh" browser >/dev/null
fi
# shellcheck disable=SC1091
. "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
SCRATCH=$ROOT/target/wasm-npm/consumer-pages
# ibantools: the hand-written page's IBAN and BIC checks, a devDependency of the scratch only.
IBANTOOLS=ibantools@4
mkdir -p "$SCRATCH"
[ -f "$SCRATCH/package.json" ] || echo '{ "name": "xborder-pages", "private": true, "type": "module" }' > "$SCRATCH/package.json"
if [ "$(cat "$SCRATCH/.dev-deps" 2>/dev/null)" != "$IBANTOOLS" ] || [ ! -d "$SCRATCH/node_modules/ibantools" ]; then
  (cd "$SCRATCH" && npm install --no-audit --no-fund --loglevel=error --save-dev "$IBANTOOLS" >/dev/null)
  echo "$IBANTOOLS" > "$SCRATCH/.dev-deps"
fi
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$SCRATCH" >&2
XBORDER_PAGES_COMMIT=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || true) node "$HERE/pages.mjs" "$SCRATCH" "$OUT"
