#!/usr/bin/env bash
# Runs bindings-uniffi/demo/Demo.kt against the Kotlin binding and the host library.
# Builds what is missing (bindings, kotlinc toolchain); kotlinc runs only when Demo.kt or the
# binding changed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT"
# shellcheck source=../tests/runners/lib.sh
. "$ROOT/tests/runners/lib.sh"
xb_tools kotlin '-x "${XBORDER_KOTLINC:-}"'
xb_uniffi "$HERE/dist/kotlin/dev/xborder/ffi/xborder.kt"
# The generated file and the hand-written API over it (kotlin/sources.sh).
mapfile -t sources < <(bash "$HERE/kotlin/sources.sh")
jar=$(bash "$ROOT/tests/runners/kotlin/compile.sh" demo "${sources[@]}" "$HERE/demo/Demo.kt" | tail -1)
exec java -Djna.library.path="$HERE/dist/lib" -cp "$jar:$XBORDER_KOTLIN_CLASSPATH" DemoKt "$ROOT/core/examples/fixtures"
