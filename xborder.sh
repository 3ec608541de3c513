#!/usr/bin/env bash
# xborder's entry point.
#   bash xborder.sh demo   the main job: receive a signed batch of webhooks, validate drafts, page
#                          (Rust, then the same scenario through the npm package in Node and
#                          through the Kotlin bindings, when those are built)
#   bash xborder.sh test   every test: fmt, clippy, unit, doc, property, conformance in every
#                          runtime, account details against python-stdnum, schwifty and clabe,
#                          package and budget checks. Installs what it needs (idempotent).
set -euo pipefail
cd "$(dirname "$0")"
cmd=${1:-help}

passed=0; failed=0; failures=()
step() {
  local name=$1; shift
  echo; echo "=== $name"
  local t0=$SECONDS
  if "$@"; then passed=$((passed + 1)); echo "=== $name: ok ($((SECONDS - t0)) s)"
  else failed=$((failed + 1)); failures+=("$name"); echo "=== $name: FAILED ($((SECONDS - t0)) s)"; fi
}

case "$cmd" in
  demo)
    step "rust demo" cargo run -q -p xborder-core --example demo
    [ -f bindings-wasm/demo.sh ] && step "node demo (npm package)" bash bindings-wasm/demo.sh
    [ -f bindings-uniffi/demo.sh ] && step "kotlin demo (uniffi)" bash bindings-uniffi/demo.sh
    ;;
  test)
    bash tests/tools/disk.sh || { echo "xborder test: not started (disk)"; exit 1; }
    step "toolchains" bash tests/tools/setup.sh wasm browser kotlin swift python redis postgres
    step "cargo fmt --check" cargo fmt --all -- --check
    step "cargo clippy (no-panic lints)" cargo clippy --workspace --all-targets -- -D warnings
    step "cargo test (unit, doc, property, snapshots)" cargo test --workspace
    step "MSRV: xborder-core's library with its rust-version's toolchain (installed if missing)" bash tests/tools/msrv.sh
    step "conformance (every runtime)" bash tests/conformance.sh
    step "account details against python-stdnum, schwifty and clabe (IBAN registry; differential, >=10,000 values per kind)" bash tests/accounts/run.sh
    [ -f bindings-wasm/test.sh ] && step "npm package (tarball, types, size, panic, bundlers, dev servers: Vite, webpack, Next.js; loading after first paint; the demo form e2e)" bash bindings-wasm/test.sh
    step "uniffi bindings' API tests (python, kotlin, swift)" bash bindings-uniffi/test.sh
    step "Node claim stores against redis-server, PostgreSQL and SQLite (delivery.claims vectors); the Node receiver" bash examples/receiver-node/test.sh
    step "Python receiver: Redis adapter (sync, asyncio), PostgreSQL and SQLite, in a fleet" bash examples/receiver-python/test.sh
    step "fault test (receivers on Redis, PostgreSQL and SQLite: instances killed, stores restarted, hung and at their connection limit; slow-body attack with RSS, a clock 5 minutes ahead, a rolling SIGTERM restart)" bash tests/fault/fault-test.sh
    ;;
  *) sed -n '2,7p' "$0"; exit 2 ;;
esac

echo
[ ${#failures[@]} -eq 0 ] || printf 'failed step: %s\n' "${failures[@]}"
echo "xborder $cmd: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
