#!/usr/bin/env bash
# Kotlin conformance runner: uniffi's generated package dev.xborder compiled with kotlinc
# against JNA, vectors read with Gson, run on the JDK against the host library in
# bindings-uniffi/dist/lib/. kotlinc runs only when the runner or the binding changed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
if [ -z "${XBORDER_KOTLINC:-}" ] || [ ! -x "$XBORDER_KOTLINC" ]; then
  bash "$ROOT/tests/tools/setup.sh" kotlin
  # shellcheck disable=SC1091
  . "$CACHE/env.sh"
fi
DIST=$ROOT/bindings-uniffi/dist

# The host library and bindings are built once per conformance.sh run (XBORDER_BUILT_UNIFFI=1).
if [ "${XBORDER_BUILT_UNIFFI:-0}" != 1 ] || [ ! -f "$DIST/kotlin/dev/xborder/xborder.kt" ]; then
  bash "$ROOT/bindings-uniffi/build.sh"
fi

if [ -z "${XBORDER_VECTOR_DIRS:-}" ]; then
  XBORDER_VECTOR_DIRS=$ROOT/tests/vectors
  [ -d "$ROOT/../shared/conformance" ] && XBORDER_VECTOR_DIRS+=:$(cd "$ROOT/../shared/conformance" && pwd)
  [ -n "${XBORDER_VECTORS_DIR:-}" ] && XBORDER_VECTOR_DIRS+=:$XBORDER_VECTORS_DIR
  export XBORDER_VECTOR_DIRS
fi

jar=$(bash "$HERE/compile.sh" conformance-kotlin "$DIST/kotlin/dev/xborder/xborder.kt" "$HERE/Runner.kt" | tail -1)
echo "kotlin: $(java -version 2>&1 | head -1), library $DIST/lib"
exec java -Djna.library.path="$DIST/lib" -cp "$jar:$XBORDER_KOTLIN_CLASSPATH" RunnerKt
