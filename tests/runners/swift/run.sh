#!/usr/bin/env bash
# Swift conformance runner: uniffi's generated Xborder.swift (+ XborderFFI.h, module.modulemap)
# and main.swift compiled with swiftc 6.0.3 inside the Debian trixie root of
# tests/tools/setup.sh, linked against the host library, and run there. swiftc runs only when
# the Swift sources, the header or the compiler changed. The same main.swift (up to its ENTRY
# line) also runs as an XCTest case in the SwiftPM package (bindings-uniffi/swift/test.sh).
# It reads the folders of XBORDER_VECTOR_DIRS and the files of XBORDER_VECTOR_FILES
# (tests/runners/CONTRACT.md).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
cd "$ROOT"
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
xb_tools swift '-f "${XBORDER_SWIFT_ROOT:-/nonexistent}/.xborder-ready"'
DIST=$ROOT/bindings-uniffi/dist
xb_uniffi "$DIST/swift/Xborder.swift"
xb_vector_dirs
xb_vector_file_api # contract v4's api.json: api.error and events.catch_up (issue 34)

# The work folder is bind-mounted into the root: sources, library and vectors are copied in.
WORK=${CARGO_TARGET_DIR:-$ROOT/target}/swift-runner
mkdir -p "$WORK"
# Handling.swift: the hand-written part of the module (handleDelivery, issue 33), beside the
# generated file.
cp "$DIST/swift/Xborder.swift" "$DIST/swift/XborderFFI.h" "$DIST/swift/module.modulemap" \
   "$DIST/swift/Handling.swift" \
   "$HERE/main.swift" "$DIST/lib/libxborder_ffi.so" "$WORK/"
# The vectors copied in (xb_stage_vectors), each folder passed as `vectors/<n>=<origin>`.
args=()
while IFS= read -r line; do args+=("vectors/$line"); done < <(xb_stage_vectors "$WORK/vectors")
# The project's vectors of ops not every runtime has yet (issue 33's delivery.handle,
# tests/vectors/DECISIONS.md), read explicitly as the Rust runner does.
if [ -d "$ROOT/tests/vectors/handling" ]; then
  mkdir -p "$WORK/vectors/handling"
  cp "$ROOT"/tests/vectors/handling/*.json "$WORK/vectors/handling/"
  args+=("vectors/handling=$ROOT/tests/vectors/handling")
fi

hash=$(cat "$XBORDER_SWIFT_ROOT/.xborder-ready" "$WORK/Xborder.swift" "$WORK/XborderFFI.h" \
  "$WORK/module.modulemap" "$WORK/Handling.swift" "$WORK/main.swift" | sha256sum | cut -c1-16)
bin=runner-$hash
if [ -x "$WORK/$bin" ]; then
  echo "swift: runner unchanged, reusing $WORK/$bin"
else
  echo "swift: swiftc -I . -L . -lxborder_ffi Xborder.swift Handling.swift main.swift (in $XBORDER_SWIFT_ROOT)"
  start=$SECONDS
  find "$WORK" -maxdepth 1 -name 'runner-*' -delete
  bash "$ROOT/tests/tools/swift-run.sh" "$WORK" -- \
    swiftc -O -I . -L . -lxborder_ffi Xborder.swift Handling.swift main.swift -o "$bin.tmp"
  mv "$WORK/$bin.tmp" "$WORK/$bin"
  echo "swift: compiled in $((SECONDS - start))s"
fi
echo "swift: $(cat "$XBORDER_SWIFT_ROOT/.xborder-ready"), library $DIST/lib/libxborder_ffi.so"
exec bash "$ROOT/tests/tools/swift-run.sh" "$WORK" -- env LD_LIBRARY_PATH=. "./$bin" "${args[@]}"
