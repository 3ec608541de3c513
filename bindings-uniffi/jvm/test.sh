#!/usr/bin/env bash
# The JVM package: `mvn verify` on bindings-uniffi/jvm/pom.xml (kotlin-maven-plugin compiles the
# hand-written API of src/main/kotlin over the generated Kotlin in bindings-uniffi/dist/kotlin;
# Surefire runs JUnit 5: JavaApiTest, RedisClaimStoreTest against a redis-server it starts,
# CatchUpTest (catchUp, the one call) against the simulator's GET /v1/external-events it starts
# (xborder-simulator api, built here), HttpServerRecipeTest (the README's Java recipe) and the
# conformance runner
# tests/runners/kotlin/Runner.kt; the sources and javadoc jars are made; Failsafe runs JarSurfaceIT,
# javap on the jar's public surface), then a Java consumer compiled against the jar and run with
# plain `java -cp`, no -Djna.library.path.
# Maven's local repository is $XBORDER_CACHE/m2 (~/.cache/xborder/m2). The first run resolves
# online (Maven prints each download); later runs are offline (`mvn -o`).
# Usage: bash bindings-uniffi/jvm/test.sh   (needs bindings-uniffi/dist: bindings-uniffi/build.sh)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DIST=$ROOT/bindings-uniffi/dist
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
M2=$CACHE/m2
[ -f "$DIST/kotlin/dev/xborder/ffi/xborder.kt" ] && [ -f "$DIST/lib/libxborder_ffi.so" ] ||
  { echo "jvm: no $DIST (run bindings-uniffi/build.sh)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "jvm: mvn not found (Maven 3.8+ and a JDK 17)" >&2; exit 1; }
# The conformance test reads XBORDER_VECTOR_DIRS (tests/runners/CONTRACT.md), as run.sh does.
# shellcheck source=../../tests/runners/lib.sh
. "$ROOT/tests/runners/lib.sh"
xb_vector_dirs
# The Redis test's server (tests/tools/setup.sh redis writes it to env.sh).
export XBORDER_REDIS_SERVER=${XBORDER_REDIS_SERVER:-redis-server}
command -v "$XBORDER_REDIS_SERVER" >/dev/null || { echo "jvm: no redis-server (bash tests/tools/setup.sh redis)" >&2; exit 1; }
# CatchUpTest's provider: the simulator's `api` (XBORDER_SIMULATOR), built as Python's tests build it.
(cd "$ROOT" && cargo build -q -p xborder-simulator) || { echo "jvm: cargo build -p xborder-simulator failed" >&2; exit 1; }
export XBORDER_SIMULATOR=${CARGO_TARGET_DIR:-$ROOT/target}/debug/xborder-simulator

# Offline once the pom's dependencies and plugins are in $M2 (a marker per pom content).
marker=$M2/.xborder-resolved-$(sha256sum "$HERE/pom.xml" | cut -c1-16)
mvn_args=(-B -f "$HERE/pom.xml" "-Dmaven.repo.local=$M2")
if [ -f "$marker" ]; then
  mvn_args+=(-o)
  echo "jvm: mvn -o verify (dependencies in $M2)"
else
  echo "jvm: first resolve: mvn verify downloads the plugins and dependencies into $M2 from Maven Central"
fi
start=$SECONDS
# Surefire prints the conformance closing line and each test class's counts.
# clean: classes of an older layout (the generated code was package dev.xborder) must not reach
# the jar whose surface JarSurfaceIT reads.
mvn "${mvn_args[@]}" clean verify
jar=$HERE/target/xborder-jvm-0.1.0.jar
[ -f "$jar" ] || { echo "jvm: no $jar after mvn verify" >&2; exit 1; }
echo "jvm: mvn verify in $((SECONDS - start))s: $jar ($(du -h "$jar" | cut -f1))"
listing=$(unzip -l "$jar")
grep -q ' linux-x86-64/libxborder_ffi.so$' <<<"$listing" ||
  { echo "jvm: the jar has no linux-x86-64/libxborder_ffi.so" >&2; exit 1; }

# A consumer: the jar and its two runtime dependencies on the classpath, nothing else.
work=$HERE/target/consumer
rm -rf "$work" && mkdir -p "$work/classes"
# Offline only once everything was resolved: the first run fetches the dependency plugin too.
mvn "${mvn_args[@]}" -q dependency:build-classpath \
  -Dmdep.includeScope=runtime "-Dmdep.outputFile=$work/deps.txt"
mkdir -p "$M2" && touch "$marker"
cp="$jar:$(cat "$work/deps.txt")"
javac -d "$work/classes" -cp "$cp" "$HERE/consumer/App.java"
java -cp "$work/classes:$cp" App
