#!/usr/bin/env bash
# The Node receiver example's dependencies are the Node claim stores' (stores/node/package.json:
# the npm package built from this checkout, ioredis, pg, better-sqlite3): installs them there
# (stores/node/setup.sh, idempotent) and links this folder's node_modules to them, so the
# receiver and the stores load one copy of the npm package. Idempotent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
bash "$ROOT/stores/node/setup.sh"
if [ -L "$HERE/node_modules" ] && [ "$(readlink "$HERE/node_modules")" = ../../stores/node/node_modules ]; then
  exit 0
fi
# A checkout from before the stores moved kept its own install here: replaced by the link.
rm -rf "$HERE/node_modules"
ln -s ../../stores/node/node_modules "$HERE/node_modules"
echo "receiver-node: node_modules -> stores/node/node_modules"
