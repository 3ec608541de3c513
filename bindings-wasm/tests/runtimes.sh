#!/usr/bin/env bash
# runtimes.sh DIR: the installed package in Bun, Deno and workerd (tests/runtimes/runtimes.mjs says
# what each is sent). DIR is a scratch npm project: the three runtimes are installed there from npm
# as devDependencies of the harness (never dependencies of the package; their binaries come in
# the platform packages @oven/bun-*, @deno/*, @cloudflare/workerd-*), once, then the packed tarball
# (scripts/consumer.sh). A runtime whose package cannot be installed is named with npm's reason by
# runtimes.mjs and not tested; any other failure fails.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIR=${1:?usage: runtimes.sh DIR}
# shellcheck disable=SC1091
[ -n "${XBORDER_NODE_TOOLS:-}" ] || . "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
# Pinned: what the tests were last run with (npm view bun|deno|workerd version).
SPECS=(bun@1.4.5 deno@2.9.6 workerd@1.20261117.1)

mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{ "name": "xborder-runtimes", "private": true, "type": "module" }' > "$DIR/package.json"
if [ "$(cat "$DIR/.dev-deps" 2>/dev/null)" != "${SPECS[*]}" ] || [ ! -d "$DIR/node_modules" ]; then
  rm -f "$DIR"/.unavailable-*
  for spec in "${SPECS[@]}"; do
    name=${spec%@*}
    echo "dev-deps: npm install --save-dev $spec (into ${DIR#"$ROOT"/})"
    if ! err=$(cd "$DIR" && npm install --no-audit --no-fund --loglevel=error --save-dev "$spec" 2>&1 >/dev/null); then
      printf 'npm install %s failed: %s\n' "$spec" "$(printf '%s\n' "$err" | grep -v -e '^npm warn' -e 'complete log of this run' | tail -n 3 | tr '\n' ' ')" > "$DIR/.unavailable-$name"
      cat "$DIR/.unavailable-$name"
    elif ! out=$("$DIR/node_modules/.bin/$name" --version 2>&1); then
      printf '%s installed but does not run here: %s\n' "$spec" "$(printf '%s\n' "$out" | tail -n 3 | tr '\n' ' ')" > "$DIR/.unavailable-$name"
      cat "$DIR/.unavailable-$name"
    fi
  done
  # Tried again next time when one could not be installed.
  compgen -G "$DIR/.unavailable-*" >/dev/null || echo "${SPECS[*]}" > "$DIR/.dev-deps"
fi
bash "$ROOT/bindings-wasm/scripts/consumer.sh" "$DIR" || exit 1
cp "$HERE"/runtimes/* "$DIR/" || exit 1

pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; }
trap cleanup EXIT
trap 'exit 1' INT TERM
# runtimes.mjs stops the servers it starts (each in its own process group) when it ends or is
# signalled; the trap signals it if this script is interrupted.
(cd "$DIR" && exec node runtimes.mjs "$ROOT/bindings-wasm/README.md") &
pid=$!
wait "$pid"
rc=$?
pid=
exit $rc
