#!/usr/bin/env bash
# The benchmarks, in one command: xborder against what integrators write instead, in Rust
# (criterion), Node (the npm package), the JVM (JMH on the Maven jar) and Python (the uniffi binding), plus artifact sizes, dedupe
# memory and the receiver services' deliveries per second (memory, Redis, naive SET NX); then
# tests/bench/BENCHMARKS.md and tests/bench/ratios.svg are rewritten.
#
#   bash tests/bench/run.sh
#
# Builds what it needs (bindings-wasm/build.sh and bindings-uniffi/build.sh are idempotent).
# About 6-10 minutes on 2 cores once things are built. Knobs (defaults in brackets):
#   XBORDER_BENCH_MEASURE_MS [2000], XBORDER_BENCH_WARMUP_MS [300], XBORDER_BENCH_SAMPLES [20]
#     criterion, per benchmark
#   XBORDER_BENCH_ROUNDS [15], XBORDER_BENCH_BATCH_MS [20]   Node and Python alternating batches (JMH: its own settings)
#   XBORDER_BENCH_SKIP_BUILD=1   reuse the built package, bindings and jar as they are
# Intermediate results: target/bench/ (node.json, pages.json, jmh.json, jmh-off.json, python.json,
# python-off.json, dedupe.json, services.json, load).
# The page rows alone (what validation adds to a Vite page; a minute):
#   bash bindings-wasm/bench/pages.sh && python3 tests/bench/report.py --pages
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
OUT=$ROOT/target/bench
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
say() { echo "bench: $*"; }
start=$SECONDS
mkdir -p "$OUT"
rm -f "$OUT"/{node,jmh,jmh-off,python,python-off,dedupe,services,pages}.json "$OUT/load.txt"
load() { echo "$1 $(date +%s) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load.txt"; }
load start

# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"

say "fixtures"
python3 "$HERE/fixtures.py"

if [ "${XBORDER_BENCH_SKIP_BUILD:-0}" != 1 ]; then
  say "build: bindings-wasm/build.sh"
  bash bindings-wasm/build.sh 2>&1 | tail -2 | sed 's/^/  /'
  say "build: bindings-uniffi/build.sh"
  bash bindings-uniffi/build.sh 2>&1 | tail -1 | sed 's/^/  /'
  say "build: cargo bench --no-run"
  cargo bench -p xborder-core --benches --no-run 2>&1 | grep -E '^(error|warning: unused)|Finished' | sed 's/^/  /' || true
fi
load built

say "rust: criterion (core/benches/compare.rs)"
rm -rf target/criterion/{verify,decode,receive,classify,validate,account,form,normalize,page}
XBORDER_BENCH_MEASURE_MS=${XBORDER_BENCH_MEASURE_MS:-2000} XBORDER_BENCH_WARMUP_MS=${XBORDER_BENCH_WARMUP_MS:-300} \
  cargo bench -q -p xborder-core --bench compare 2>&1 | grep -E '^[a-z_]+\/|time:' | sed 's/^/  /'
load rust

say "rust: dedupe memory at 1,000,000 ids (core/benches/dedupe_memory.rs)"
XBORDER_BENCH_OUT=$OUT/dedupe.json cargo bench -q -p xborder-core --bench dedupe_memory 2>&1 | sed 's/^/  /'
load dedupe

say "node: the npm package against node:crypto and JSON.parse"
bash bindings-wasm/scripts/consumer.sh "$OUT/node-consumer"
node "$HERE/node/bench.cjs" "$OUT/node-consumer" "$HERE/fixtures" "$OUT/node.json" | sed 's/^/  /'
say "pages: what validation adds to a Vite production page: forms module, full module, hand-written + ibantools (bindings-wasm/bench/pages.sh)"
bash bindings-wasm/bench/pages.sh "$OUT/pages.json" 2>&1 | sed 's/^/  /'
load node

say "jvm: JMH (tests/bench/jmh) of the Maven jar against javax.crypto, Gson and a HashSet"
M2=$CACHE/m2
mvn -B -q -f bindings-uniffi/jvm/pom.xml "-Dmaven.repo.local=$M2" -DskipTests install
mvn -B -q -f "$HERE/jmh/pom.xml" "-Dmaven.repo.local=$M2" package
java -jar "$HERE/jmh/target/benchmarks.jar" -bm avgt -tu ns -wi 3 -w 1s -i 5 -r 1s -f 1 -prof gc \
  -p "fixtures=$HERE/fixtures" -rf json -rff "$OUT/jmh.json" \
  | grep -E '^(Benchmark|[A-Za-z]+Bench\.[a-z_0-9]+ |[A-Za-z]+Bench\.[a-z_0-9]+:gc\.alloc\.rate\.norm)' | sed 's/^/  /'
say "jvm: the same xborder benchmarks without the speed module (-Dxborder.speed=false: Speed.kt off)"
java -jar "$HERE/jmh/target/benchmarks.jar" '.*_xborder$' -bm avgt -tu ns -wi 3 -w 1s -i 5 -r 1s -f 1 -prof gc \
  -jvmArgs -Dxborder.speed=false -p "fixtures=$HERE/fixtures" -rf json -rff "$OUT/jmh-off.json" \
  | grep -E '^[A-Za-z]+Bench\.[a-z_0-9]+ ' | sed 's/^/  /'
load kotlin

say "python: the uniffi binding against hmac, json and a set"
python3 "$HERE/python/bench.py" "$ROOT/bindings-uniffi/dist/python" "$HERE/fixtures" "$OUT/python.json" | sed 's/^/  /'
say "python: the same without the speed module (XBORDER_PYTHON_SPEED=0: _speed.py not installed)"
XBORDER_PYTHON_SPEED=0 python3 "$HERE/python/bench.py" "$ROOT/bindings-uniffi/dist/python" "$HERE/fixtures" "$OUT/python-off.json" | sed 's/^/  /'
load python

say "services: one receiver instance with the memory store, with Redis, and the naive SET NX (tools/simulator/bench.sh)"
bash "$ROOT/tests/tools/setup.sh" redis >/dev/null
# shellcheck disable=SC1091
. "$CACHE/env.sh"
REDIS_SERVER=${XBORDER_REDIS_SERVER:-redis-server} bash tools/simulator/bench.sh --json "$OUT/services.json" 2>&1 | sed 's/^/  /'
load services

say "report: tests/bench/BENCHMARKS.md, tests/bench/ratios.svg"
python3 "$HERE/report.py" --seconds $((SECONDS - start))
say "done in $((SECONDS - start))s"
