#!/usr/bin/env bash
# The npm package's own tests (the conformance runners are tests/runners/{node,browser}):
# tarball (import + require + web.js export exactly index.d.ts, no test hook or plumbing, no `any`;
# json: a JS value crosses as its JSON text (JSON.stringify, non-finite numbers refused);
# kinds: every parameter refuses a wrong kind with a TypeError naming it, secrets are UTF-8 keys,
# the signature header in every form a handler has it, the hints of a parsed body and of a
# mismatch; features: Catalog, PageWalker and Claims (built-in and JS stores, sync and async);
# readme: every js block of README.md run as written, the HTTP handler sent a signed and a tampered
# delivery), recipes (the README's ts blocks compiled with tsc --strict; the Express (4 and 5),
# Fastify and Fetch servers started on loopback and sent deliveries and requests of the wrong
# shape: each a 4xx JSON answer, never a crash), runtimes (Bun, Deno and workerd from npm: the
# Fetch-handler recipe and a validation in each), types (tsc --strict: a declared interface, a
# JSON import, exactOptionalPropertyTypes), size budget, publish (npm publish --dry-run, publint,
# attw), panic recovery (on the test build, build.sh --test-hooks), forms (xborder-wasm/forms: its
# exports, every vector of its operations through its own .wasm, its size and a Vite page's, run
# in Chromium), bundlers (an app built by webpack 5 and by Vite, run in Chromium), devservers (a form
# page under Vite dev and build, webpack-dev-server and a production build, next dev and
# next build + start, in Chromium, with no config line; a Next.js route handler using the package
# on the server, with the README's one line for server code), deferred
# (the README's page that loads xborder-wasm/forms after first paint, built by Vite, its .wasm held
# back by the server: painted and typed into before the .wasm arrives, what was typed checked once
# it has, in Chromium), demo end-to-end in headless Chromium (screenshot under target/wasm-npm/).
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
# `bash bindings-wasm/test.sh NAME`: that test alone (tests/bench/run.sh measures the forms page so).
only=${1:-}
run() {
  local name=$1; shift
  [ -z "$only" ] || [ "$only" = "$name" ] || return 0
  echo "== $name"
  if "$@"; then echo "== $name: ok"; else echo "== $name: FAILED"; failed+=("$name"); fi
}
tarball() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-tarball" &&
    cp "$HERE/tests/tarball.cjs" "$HERE/tests/tarball.mjs" "$HERE/tests/kinds.mjs" \
      "$HERE/tests/features.mjs" "$HERE/tests/readme.mjs" "$SCRATCH/consumer-tarball/" &&
    node "$SCRATCH/consumer-tarball/tarball.cjs" && node "$SCRATCH/consumer-tarball/tarball.mjs" &&
    node "$SCRATCH/consumer-tarball/kinds.mjs" && node "$SCRATCH/consumer-tarball/features.mjs" &&
    (cd "$SCRATCH/consumer-tarball" && node readme.mjs "$HERE/README.md")
}
panic() {
  bash "$HERE/build.sh" --test-hooks | grep -E 'done|up to date|ERROR' &&
    bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-panic" "$SCRATCH/xborder-wasm-test-hooks.tgz" &&
    cp "$HERE/tests/panic.mjs" "$SCRATCH/consumer-panic/" && node "$SCRATCH/consumer-panic/panic.mjs"
}
# dev_deps DIR SPEC...: npm packages of the test harness itself (never dependencies of the
# package), installed as devDependencies of the scratch project DIR, once per list of specs.
dev_deps() {
  local dir=$1; shift
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{ "name": "xborder-recipes", "private": true, "type": "module" }' > "$dir/package.json"
  if [ "$(cat "$dir/.dev-deps" 2>/dev/null)" = "$*" ] && [ -d "$dir/node_modules" ]; then return 0; fi
  echo "dev-deps: npm install --save-dev $* (into ${dir#"$ROOT"/})"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --save-dev "$@" >/dev/null) && echo "$*" > "$dir/.dev-deps"
}
recipes() {
  local dir=$SCRATCH/consumer-recipes
  # express@4 as the alias express4 (typed by @types/express@4 as @types/express4): the Express
  # recipe runs under both majors.
  dev_deps "$dir" express@5 express4@npm:express@4 fastify@5 @types/express@5 \
    @types/express4@npm:@types/express@4 @types/node@20 &&
    bash "$HERE/scripts/consumer.sh" "$dir" &&
    cp "$HERE/tests/recipes.mjs" "$dir/" && (cd "$dir" && node recipes.mjs "$HERE/README.md")
}
bundlers() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-bundlers" &&
    node "$HERE/tests/bundlers.mjs" "$SCRATCH/consumer-bundlers"
}
forms() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-forms" &&
    ( # shellcheck source=../tests/runners/lib.sh
      . "$ROOT/tests/runners/lib.sh" && xb_vector_dirs &&
        node "$HERE/tests/forms.mjs" "$SCRATCH/consumer-forms" "$XBORDER_VECTOR_DIRS" "$XBORDER_VECTOR_FILES" )
}
devservers() {
  # The dev servers and production builds a frontend team starts with (Vite 7: the esbuild
  # pre-bundling that moves the package; webpack 5; Next.js 16, Turbopack: the page, then a route
  # handler), as devDependencies of the scratch; and Next.js 15's production build of the page
  # (webpack) in a second one.
  local dir=$SCRATCH/consumer-devservers next15=$SCRATCH/consumer-devservers-next15
  dev_deps "$dir" vite@7 webpack@5 webpack-dev-server@5 next@16 react@19 react-dom@19 &&
    bash "$HERE/scripts/consumer.sh" "$dir" &&
    node "$HERE/tests/devservers.mjs" "$dir" &&
    dev_deps "$next15" next@15 react@19 react-dom@19 &&
    bash "$HERE/scripts/consumer.sh" "$next15" &&
    node "$HERE/tests/devservers.mjs" "$next15" next-build
}
catchup() {
  # The simulator's GET /v1/external-events (a debug build of the workspace's tool).
  (cd "$ROOT" && cargo build -q -p xborder-simulator) &&
    bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-tarball" &&
    node "$HERE/tests/catchup.mjs" "$SCRATCH/consumer-tarball" "${CARGO_TARGET_DIR:-$ROOT/target}/debug/xborder-simulator"
}
deferred() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-deferred" &&
    node "$HERE/tests/deferred.mjs" "$SCRATCH/consumer-deferred" "$HERE/README.md"
}
e2e() {
  bash "$HERE/scripts/consumer.sh" "$SCRATCH/consumer-tarball" &&
    node "$HERE/tests/e2e.mjs" "$SCRATCH/consumer-tarball" "$SCRATCH/demo-e2e.png"
}
run tarball tarball
run lifecycle node "$HERE/tests/lifecycle.mjs" "$SCRATCH/consumer-tarball" # NOT_INITIALIZED, init() retried, FREED
run json node "$HERE/tests/json.mjs" "$HERE/js/api/json.js"
run recipes recipes
run catchup catchup # catchUp against the simulator's GET /v1/external-events; readApiError
run runtimes bash "$HERE/tests/runtimes.sh" "$SCRATCH/consumer-runtimes"
run types bash "$HERE/tests/types.sh" "$SCRATCH/consumer-types"
run size bash "$HERE/tests/size.sh"
run publish bash "$HERE/tests/publish.sh"
run panic panic
run forms forms
run bundlers bundlers
run devservers devservers
run deferred deferred
run e2e e2e
if [ ${#failed[@]} -gt 0 ]; then echo "wasm tests: FAILED: ${failed[*]}"; exit 1; fi
[ -z "$only" ] || { echo "wasm tests: $only passed"; exit 0; }
echo "wasm tests: all passed (tarball, lifecycle, json, recipes, catchup, runtimes, types, size, publish, panic, forms, bundlers, devservers, deferred, e2e)"
