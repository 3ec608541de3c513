#!/usr/bin/env bash
# One command for the mobile bindings: builds the host library once (release cdylib, unwinding,
# never stripped: uniffi reads its metadata) and generates the Kotlin, Swift and Python
# bindings beside it in bindings-uniffi/dist/:
#
#   dist/lib/libxborder_ffi.so                         the host library
#   dist/kotlin/dev/xborder/ffi/xborder.kt             uniffi's Kotlin as generated, package dev.xborder.ffi (JNA)
#   dist/kotlin/dev/xborder/{*.kt,internal/}           the hand-written API users import (bindings-uniffi/jvm/src/main/kotlin;
#                                                      internal/Speed.kt, the speed measure, checked by kotlin/check_speed.py)
#   dist/swift/{Xborder.swift,XborderFFI.h,module.modulemap}
#   dist/swift/Handling.swift                          the hand-written part of the module Xborder (handleDelivery;
#                                                      bindings-uniffi/swift/Sources/Xborder), compiled beside Xborder.swift
#   dist/python/xborder/                               the package users import (python/xborder/,
#                                                      hand-written)
#   dist/python/_xborder_ffi/{xborder.py,libxborder_ffi.so}  the generated module, as uniffi writes it
#   dist/python/wheel/xborder-*.whl                    the pip-installable package (python/package.py)
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
for f in dev/xborder/ffi/xborder.kt Xborder.swift XborderFFI.h XborderFFI.modulemap xborder.py; do
  [ -f "$GEN/$f" ] || die "uniffi-bindgen did not write $f"
done
# Kotlin: the JVM package's labelled speed measure (jvm/src/main/kotlin/dev/xborder/internal/Speed.kt)
# must fit the generated Kotlin: the uniffi version it was written for is Cargo.lock's and the
# generated declarations it relies on are there (kotlin/check_speed.py lists them); else the build fails.
"${XBORDER_PYTHON:-python3}" "$HERE/kotlin/check_speed.py" "$GEN/dev/xborder/ffi/xborder.kt"

say "assembling $DIST"
rm -rf "$DIST.new"
mkdir -p "$DIST.new/lib" "$DIST.new/kotlin/dev/xborder/ffi" "$DIST.new/swift" "$DIST.new/python"
cp "$LIB" "$DIST.new/lib/"
# Kotlin: the generated file untouched, beside the hand-written API over it (the same sources the
# JVM jar compiles; dev/xborder/redis needs Jedis and ships in the jar only).
cp "$GEN/dev/xborder/ffi/xborder.kt" "$DIST.new/kotlin/dev/xborder/ffi/"
cp -R "$HERE/jvm/src/main/kotlin/dev/xborder/internal" "$HERE/jvm/src/main/kotlin/dev/xborder/"*.kt \
  "$DIST.new/kotlin/dev/xborder/"
cp "$GEN/Xborder.swift" "$GEN/XborderFFI.h" "$DIST.new/swift/"
cp "$GEN/XborderFFI.modulemap" "$DIST.new/swift/module.modulemap"
# Swift: the module's hand-written part (handleDelivery), compiled into the same module Xborder.
cp "$HERE/swift/Sources/Xborder/Handling.swift" "$DIST.new/swift/"
# Python: the hand-written package (python/xborder/) and, beside it, the generated module,
# untouched, with its library (python/_xborder_ffi/); package.py checks the labelled speed module
# (xborder/_speed.py) against the generated module (the build fails if it no longer fits) and
# writes the wheel.
tar -C "$HERE/python" --exclude=__pycache__ -cf - xborder _xborder_ffi | tar -C "$DIST.new/python" -xf -
cp "$GEN/xborder.py" "$LIB" "$DIST.new/python/_xborder_ffi/"
# xborder.redis's compare-and-set: the project's one script (core/src/claims/), shipped in the package.
cp "$ROOT/core/src/claims/redis_compare_and_set.lua" "$DIST.new/python/xborder/"
"${XBORDER_PYTHON:-python3}" "$HERE/python/package.py" "$DIST.new/python"
cp "$HERE/dist-readme/README.md" "$DIST.new/README.md"
for lang in kotlin swift python; do cp "$HERE/dist-readme/$lang.md" "$DIST.new/$lang/README.md"; done
rm -rf "$DIST"
mv "$DIST.new" "$DIST"

say "wrote $DIST ($(du -sh "$DIST" | cut -f1); library $(du -h "$LIB" | cut -f1)) in $((SECONDS - start))s"
