#!/usr/bin/env bash
# The demo page in one command: builds the npm package (bindings-wasm/build.sh: nothing to do when
# it is up to date) and serves the page, with its stand-in of the payments API, on
# http://127.0.0.1:${PORT:-8000}/ (serve.mjs).
#   bash bindings-wasm/demo/serve.sh            then open http://127.0.0.1:8000/
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
bash "$HERE/../build.sh" | tail -1
exec node "$HERE/serve.mjs" --port "${PORT:-8000}"
