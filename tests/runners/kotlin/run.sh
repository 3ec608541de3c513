#!/usr/bin/env bash
# Kotlin conformance runner: the public API (package dev.xborder, bindings-uniffi/jvm/src/main/kotlin)
# over uniffi's generated package dev.xborder.ffi, compiled with kotlinc against JNA, vectors read with Gson, run on the JDK against the host library in
# bindings-uniffi/dist/lib/. kotlinc runs only when the runner or the binding changed.
# The same Runner.kt also runs as a JUnit 5 test in the Maven build (bindings-uniffi/jvm,
# ConformanceTest calls runVectors), against the jar with the library inside. This script stays
# on kotlinc: its jar is cached by content (a rerun costs one JVM start), while `mvn verify`
# recompiles the binding each time (~50 s) and would need Maven here too.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
xb_tools kotlin '-x "${XBORDER_KOTLINC:-}"'
DIST=$ROOT/bindings-uniffi/dist
xb_uniffi "$DIST/kotlin/dev/xborder/ffi/xborder.kt"
xb_vector_dirs
xb_vector_file_api # contract v4's api.json: api.error and events.catch_up (issue 34)

mapfile -t sources < <(bash "$ROOT/bindings-uniffi/kotlin/sources.sh")
jar=$(bash "$HERE/compile.sh" conformance-kotlin "${sources[@]}" "$HERE/Runner.kt" | tail -1)
echo "kotlin: $(java -version 2>&1 | head -1), library $DIST/lib"
exec java -Djna.library.path="$DIST/lib" -cp "$jar:$XBORDER_KOTLIN_CLASSPATH" RunnerKt
