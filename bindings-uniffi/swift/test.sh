#!/usr/bin/env bash
# The SwiftPM package: assembles bindings-uniffi/swift (Package.swift, the XborderFFI module map,
# the XCTest cases) with the generated files of bindings-uniffi/dist/swift and the tests' shared
# sources into target/swiftpm/Xborder, then runs `swift build` and `swift test` there, inside the
# Debian trixie root (tests/tools/swift-run.sh; swiftlang 6.0.3 has SwiftPM and XCTest).
#   Sources/Xborder/Xborder.swift              <- dist/swift/Xborder.swift
#   Sources/XborderFFI/XborderFFI.h            <- dist/swift/XborderFFI.h
#   Tests/XborderTests/ApiTests.swift          <- bindings-uniffi/tests/swift/ApiTests.swift up to
#                                                 README-SNIPPET, + the swift.md snippet as a function
#   Tests/XborderConformanceTests/Runner.swift <- tests/runners/swift/main.swift up to ENTRY
# The library is found by SwiftPM through pkgconfig/xborder_ffi.pc (PKG_CONFIG_PATH), no unsafeFlags.
# Usage: bash bindings-uniffi/swift/test.sh [--assemble-only DIR]   (needs bindings-uniffi/dist)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
# shellcheck source=../../tests/runners/lib.sh
. "$ROOT/tests/runners/lib.sh"
DIST=$ROOT/bindings-uniffi/dist
[ -f "$DIST/swift/Xborder.swift" ] && [ -f "$DIST/lib/libxborder_ffi.so" ] ||
  { echo "swiftpm: no $DIST (run bindings-uniffi/build.sh)" >&2; exit 1; }

WORK=${CARGO_TARGET_DIR:-$ROOT/target}/swiftpm
PKG=$WORK/Xborder
only=
if [ "${1:-}" = --assemble-only ]; then only=1; PKG=${2:?--assemble-only DIR}; fi

# put SRC DEST: copy only when the content differs, so SwiftPM's incremental build holds.
put() { mkdir -p "$(dirname "$2")"; cmp -s "$1" "$2" || cp "$1" "$2"; }
snippet() { awk -v lang="$1" '$0 == "```" lang {f = 1; next} f && /^```/ {exit} f' "$2"; }

mkdir -p "$PKG"
put "$HERE/Package.swift" "$PKG/Package.swift"
put "$HERE/Sources/XborderFFI/module.modulemap" "$PKG/Sources/XborderFFI/module.modulemap"
put "$HERE/Tests/XborderTests/ApiXCTests.swift" "$PKG/Tests/XborderTests/ApiXCTests.swift"
put "$HERE/Tests/XborderConformanceTests/ConformanceXCTests.swift" \
  "$PKG/Tests/XborderConformanceTests/ConformanceXCTests.swift"
put "$DIST/swift/Xborder.swift" "$PKG/Sources/Xborder/Xborder.swift"
put "$DIST/swift/XborderFFI.h" "$PKG/Sources/XborderFFI/XborderFFI.h"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{ echo 'import Xborder'
  sed -n '1,/^\/\/ README-SNIPPET$/p' "$ROOT/bindings-uniffi/tests/swift/ApiTests.swift"
  echo 'func readmeSnippet() throws {'
  snippet swift "$ROOT/bindings-uniffi/dist-readme/swift.md" | grep -v '^import '
  echo '}'; } > "$tmp"
put "$tmp" "$PKG/Tests/XborderTests/ApiTests.swift"
{ echo 'import Xborder'; sed -n '1,/^\/\/ ENTRY/p' "$ROOT/tests/runners/swift/main.swift"; } > "$tmp"
put "$tmp" "$PKG/Tests/XborderConformanceTests/Runner.swift"
if [ -n "$only" ]; then
  echo "swiftpm: assembled $PKG (put libxborder_ffi where xborder_ffi.pc says, or use a binary target)"
  exit 0
fi

xb_tools swift '-f "${XBORDER_SWIFT_ROOT:-/nonexistent}/.xborder-ready"'
xb_vector_dirs
# The library and its pkg-config file, as seen inside the root (the work folder is /work there).
mkdir -p "$WORK/lib" "$WORK/pkgconfig"
put "$DIST/lib/libxborder_ffi.so" "$WORK/lib/libxborder_ffi.so"
cat > "$tmp" <<'PC'
libdir=/work/lib
includedir=/work/Xborder/Sources/XborderFFI
Name: xborder_ffi
Description: xborder's uniffi library (bindings-uniffi/dist/lib)
Version: 0.1.0
Libs: -L${libdir} -lxborder_ffi
Cflags: -I${includedir}
PC
put "$tmp" "$WORK/pkgconfig/xborder_ffi.pc"
# The vectors, copied in as run.sh does; their folders passed as `folder=displayName` lines.
rm -rf "$WORK/vectors"
args=
n=0
IFS=: read -r -a dirs <<<"$XBORDER_VECTOR_DIRS"
for d in "${dirs[@]}"; do
  [ -n "$d" ] || continue
  mkdir -p "$WORK/vectors/$n"
  find "$d" -maxdepth 1 -name '*.json' -type f -exec cp {} "$WORK/vectors/$n/" \;
  args+="/work/vectors/$n=$d"$'\n'
  n=$((n + 1))
done

run_in_root() {
  bash "$ROOT/tests/tools/swift-run.sh" "$WORK" -- env PKG_CONFIG_PATH=/work/pkgconfig \
    LD_LIBRARY_PATH=/work/lib XBORDER_SWIFT_VECTOR_ARGS="$args" "$@"
}
start=$SECONDS
echo "swiftpm: swift build --package-path Xborder (in $XBORDER_SWIFT_ROOT)"
run_in_root swift build --package-path Xborder
echo "swiftpm: swift test --package-path Xborder"
run_in_root swift test --package-path Xborder
echo "swiftpm: swift build and swift test in $((SECONDS - start))s"
