#!/usr/bin/env bash
# One command for the mobile bindings: builds the host library once (release cdylib, unwinding,
# never stripped: uniffi reads its metadata) and generates the Kotlin, Swift and Python
# bindings beside it in bindings-uniffi/dist/:
#
#   dist/lib/libxborder_ffi.so                         the host library
#   dist/kotlin/dev/xborder/xborder.kt                 package dev.xborder (JNA)
#   dist/swift/{Xborder.swift,XborderFFI.h,module.modulemap}
#   dist/python/{xborder.py,libxborder_ffi.so}         the module beside its library, hardened
#                                                      by python/harden.py, with the native-value
#                                                      conveniences of python/package.py
#   dist/python/wheel/xborder-*.whl                    the pip-installable package (package.py)
#
# Usage: bash bindings-uniffi/build.sh        (incremental: cargo rebuilds only what changed)
# Needs only the Rust toolchain; the runners under tests/runners/ set up their own tools.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT"
DIST=$HERE/dist
# One build at a time (two would race on dist.new/): a second waits for the first, then finds
# its output up to date.
if command -v flock >/dev/null; then
  mkdir -p "$ROOT/target"
  exec 9>"$ROOT/target/.bindings-uniffi-build.lock"
  flock 9
fi
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
say() { echo "build.sh: $*"; }
die() { echo "build.sh: ERROR: $*" >&2; exit 1; }
# shellcheck disable=SC1091
[ -f "$CACHE/env.sh" ] && . "$CACHE/env.sh"
start=$SECONDS

case "$(uname -s)" in
  Darwin) LIBFILE=libxborder_ffi.dylib ;;
  *) LIBFILE=libxborder_ffi.so ;;
esac

# The profile must keep unwinding (a Rust panic becomes a foreign exception, not an abort) and
# symbols (uniffi reads its metadata from the library).
profile=$(awk '/^\[profile\.release\]/ {on=1; next} /^\[/ {on=0} on' Cargo.toml)
if grep -Eq '^[[:space:]]*panic[[:space:]]*=[[:space:]]*"abort"' <<<"$profile"; then
  die "[profile.release] sets panic = \"abort\": a panic would kill the app instead of throwing"
fi
if grep -Eq '^[[:space:]]*strip[[:space:]]*=[[:space:]]*("symbols"|true)' <<<"$profile"; then
  die "[profile.release] strips symbols: uniffi-bindgen could not read the library's metadata"
fi

say "cargo build --release -p xborder-ffi --lib   (host cdylib)"
cargo build --release -p xborder-ffi --lib
LIB=$TARGET/release/$LIBFILE
[ -f "$LIB" ] || die "no $LIB after the build"

say "cargo build -p xborder-ffi --features uniffi/cli --bin uniffi-bindgen   (the crate's own bindgen)"
cargo build -p xborder-ffi --features uniffi/cli --bin uniffi-bindgen
BINDGEN=$TARGET/debug/uniffi-bindgen

GEN=$(mktemp -d)
trap 'rm -rf "$GEN"' EXIT
say "uniffi-bindgen generate --library $LIB -l kotlin -l swift -l python"
"$BINDGEN" generate --no-format --library "$LIB" -l kotlin -l swift -l python -o "$GEN" >/dev/null
for f in dev/xborder/xborder.kt Xborder.swift XborderFFI.h XborderFFI.modulemap xborder.py; do
  [ -f "$GEN/$f" ] || die "uniffi-bindgen did not write $f"
done

say "assembling $DIST"
rm -rf "$DIST.new"
mkdir -p "$DIST.new/lib" "$DIST.new/kotlin/dev/xborder" "$DIST.new/swift" "$DIST.new/python"
cp "$LIB" "$DIST.new/lib/"
cp "$GEN/dev/xborder/xborder.kt" "$DIST.new/kotlin/dev/xborder/"
# One call status per thread and call depth instead of a JNA Structure per call (kotlin/lean.py
# says why: they were most of a Kotlin call's cost).
"${XBORDER_PYTHON:-python3}" "$HERE/kotlin/lean.py" "$DIST.new/kotlin/dev/xborder/xborder.kt"
cp "$GEN/Xborder.swift" "$GEN/XborderFFI.h" "$DIST.new/swift/"
cp "$GEN/XborderFFI.modulemap" "$DIST.new/swift/module.modulemap"
cp "$GEN/xborder.py" "$LIB" "$DIST.new/python/"
# Python's coercions (a str is a sequence of strings, a bool an int): guards with the parameter
# named, added to the generated module (bindings-uniffi/python/harden.py says which and why).
"${XBORDER_PYTHON:-python3}" "$HERE/python/harden.py" "$DIST.new/python/xborder.py"
# uniffi's call and buffer helpers, replaced by leaner ones of the same behaviour (python/runtime.py
# says why: they were most of a call's 25 µs).
"${XBORDER_PYTHON:-python3}" "$HERE/python/lean.py" "$DIST.new/python/xborder.py"
# Dicts and lists for JSON texts, readable reprs; then the wheel (cached by its inputs' hash).
"${XBORDER_PYTHON:-python3}" "$HERE/python/package.py" "$DIST.new/python"
cp "$HERE/dist-readme/README.md" "$DIST.new/README.md"
for lang in kotlin swift python; do cp "$HERE/dist-readme/$lang.md" "$DIST.new/$lang/README.md"; done
rm -rf "$DIST"
mv "$DIST.new" "$DIST"

say "wrote $DIST ($(du -sh "$DIST" | cut -f1); library $(du -h "$LIB" | cut -f1)) in $((SECONDS - start))s"
