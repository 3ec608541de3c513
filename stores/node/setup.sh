#!/usr/bin/env bash
# Installs the Node claim stores' dependencies (stores/node; the Node receiver example links them): the npm package built from this checkout
# (bindings-wasm/build.sh, idempotent), ioredis and pg from the registry, and better-sqlite3
# (pinned: 12.11.1, the last line for Node 20), whose native addon is built from source with
# node-gyp against the installed Node headers (/usr/include/node: no prebuilt binary is
# downloaded) and kept in ${XBORDER_CACHE:-~/.cache/xborder}/node-addons, so a fresh checkout
# copies it instead of compiling again (a few minutes on 2 cores). Idempotent.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
say() { echo "node-stores: $*"; }
bash "$ROOT/bindings-wasm/build.sh"
tarball=$ROOT/target/wasm-npm/xborder-wasm.tgz
stamp=$HERE/node_modules/.xborder-tarball
sum=$( (sha256sum "$tarball"; sha256sum "$HERE/package.json") | sha256sum | cut -d' ' -f1)
sqlite_version=$(node -p "require('$HERE/package.json').dependencies['better-sqlite3']")
addon_rel=node_modules/better-sqlite3/build/Release/better_sqlite3.node
cached_addon=$CACHE/node-addons/better-sqlite3-$sqlite_version-node$(node -p 'process.versions.modules')-$(node -p 'process.platform + "-" + process.arch').node
# Whether better-sqlite3 loads and runs a statement.
sqlite_loads() {
  (cd "$HERE" && node -e "const D = require('better-sqlite3'); new D(':memory:').prepare('SELECT 1').get()" >/dev/null 2>&1)
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ] && [ -d "$HERE/node_modules/ioredis" ] &&
  [ -d "$HERE/node_modules/pg" ] && [ -f "$HERE/$addon_rel" ] && sqlite_loads; then
  say "node_modules up to date"
  exit 0
fi
say "npm install --ignore-scripts (xborder-wasm from ${tarball#"$ROOT"/}, ioredis, pg, better-sqlite3 $sqlite_version)"
# npm keeps an installed file: dependency whose version did not change: drop it first.
rm -rf "$HERE/node_modules/xborder-wasm"
(cd "$HERE" && npm install --ignore-scripts --no-audit --no-fund --no-package-lock --silent)
if [ -f "$HERE/$addon_rel" ] && sqlite_loads; then
  say "better-sqlite3: native addon in place"
elif [ -f "$cached_addon" ]; then
  say "better-sqlite3: native addon from ${cached_addon}"
  mkdir -p "$(dirname "$HERE/$addon_rel")"
  cp "$cached_addon" "$HERE/$addon_rel"
fi
if ! sqlite_loads; then
  nodedir=${npm_config_nodedir:-}
  if [ -z "$nodedir" ] && [ -f /usr/include/node/node.h ]; then nodedir=/usr; fi
  [ -n "$nodedir" ] || { say "no Node headers (/usr/include/node/node.h): node-gyp would download them; set npm_config_nodedir"; exit 1; }
  say "better-sqlite3 $sqlite_version: building its native addon from source (node-gyp, headers from $nodedir/include/node; a few minutes)"
  # prebuild-install would download a binary (no network here): build_from_source skips it.
  (cd "$HERE" && npm_config_build_from_source=true npm_config_nodedir=$nodedir \
    npm rebuild better-sqlite3 --no-audit --no-fund 2>&1 | grep -v 'Unknown env config' | sed 's/^/  /')
  sqlite_loads || { say "better-sqlite3 did not build (see above)"; exit 1; }
  mkdir -p "$(dirname "$cached_addon")"
  cp "$HERE/$addon_rel" "$cached_addon.tmp.$$" && mv "$cached_addon.tmp.$$" "$cached_addon"
  say "better-sqlite3: native addon kept in $cached_addon"
fi
echo "$sum" > "$stamp"
