#!/usr/bin/env bash
# The Kotlin binding as kotlinc compiles it, one file a line: uniffi's generated file as uniffi
# wrote it (bindings-uniffi/dist/kotlin/dev/xborder/ffi/xborder.kt, package dev.xborder.ffi), then
# the hand-written API users import (bindings-uniffi/jvm/src/main/kotlin: dev.xborder and its
# internal conversions; dev.xborder.redis needs Jedis and is left to the Maven build).
# Used by bindings-uniffi/test.sh kotlin, tests/runners/kotlin/run.sh and bindings-uniffi/demo.sh:
#   mapfile -t sources < <(bash bindings-uniffi/kotlin/sources.sh)
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
generated=$HERE/dist/kotlin/dev/xborder/ffi/xborder.kt
[ -f "$generated" ] || { echo "kotlin/sources.sh: no $generated (run bindings-uniffi/build.sh)" >&2; exit 1; }
echo "$generated"
ls "$HERE"/jvm/src/main/kotlin/dev/xborder/*.kt "$HERE"/jvm/src/main/kotlin/dev/xborder/internal/*.kt
