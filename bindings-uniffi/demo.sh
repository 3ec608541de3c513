#!/usr/bin/env bash
# Runs bindings-uniffi/demo/Demo.kt against the Kotlin binding and the host library.
# Builds what is missing (bindings, kotlinc toolchain); kotlinc runs only when Demo.kt or the
# binding changed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT"
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
if [ -z "${XBORDER_KOTLINC:-}" ] || [ ! -x "$XBORDER_KOTLINC" ]; then
  bash "$ROOT/tests/tools/setup.sh" kotlin
  # shellcheck disable=SC1091
  . "$CACHE/env.sh"
fi
[ -f "$HERE/dist/kotlin/dev/xborder/xborder.kt" ] || bash "$HERE/build.sh"
jar=$(bash "$ROOT/tests/runners/kotlin/compile.sh" demo "$HERE/dist/kotlin/dev/xborder/xborder.kt" "$HERE/demo/Demo.kt" | tail -1)
exec java -Djna.library.path="$HERE/dist/lib" -cp "$jar:$XBORDER_KOTLIN_CLASSPATH" DemoKt "$ROOT/core/examples/fixtures"
