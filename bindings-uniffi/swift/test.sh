#!/usr/bin/env bash
# The SwiftPM package: assembles bindings-uniffi/swift (Package.swift, the XborderFFI module map,
# the XCTest cases) with the generated files of bindings-uniffi/dist/swift, the library, its
# pkg-config file and the tests' shared sources into a folder, then (without --assemble-only)
# tests it inside the Debian trixie root (tests/tools/swift-run.sh; swiftlang 6.0.3 has SwiftPM
# and XCTest):
#   Sources/Xborder/Xborder.swift              <- dist/swift/Xborder.swift
#   Sources/Xborder/Handling.swift             <- dist/swift/Handling.swift (hand-written, from Sources/Xborder:
#                                                 handleDelivery over DeliveryHandling)
#   Sources/XborderFFI/XborderFFI.h            <- dist/swift/XborderFFI.h
#   lib/libxborder_ffi.so                      <- dist/lib/libxborder_ffi.so
#   pkgconfig/xborder_ffi.pc                   the library's folder and the header's, relative to
#                                              the .pc (${pcfiledir}): the folder can be moved
#   Tests/XborderTests/ApiTests.swift          <- bindings-uniffi/tests/swift/ApiTests.swift up to ENTRY
#   Tests/XborderTests/Readme.swift            <- every ```swift block of dist-readme/swift.md
#                                                 (bindings-uniffi/tests/swift/readme.sh)
#   Tests/XborderConformanceTests/Runner.swift <- tests/runners/swift/main.swift up to ENTRY
# The test: `--assemble-only target/swiftpm/Xborder` (this script), the .pc read by pkg-config
# (on the host, or in the root when it has one; else its lines checked); `swift build` and
# `swift test` there (SwiftPM reads the .pc itself: no unsafeFlags); then an app that depends on
# the package by path (swift.md's Package.swift block, bindings-uniffi/tests/swift/app/main.swift)
# built with `swift build` and run: it validates drafts and receives signed deliveries (signed
# here with openssl), and its lines are checked.
# Usage: bash bindings-uniffi/swift/test.sh [--assemble-only DIR]   (needs bindings-uniffi/dist)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
# shellcheck source=../../tests/runners/lib.sh
. "$ROOT/tests/runners/lib.sh"
DIST=$ROOT/bindings-uniffi/dist
TESTS=$ROOT/bindings-uniffi/tests/swift
README=bindings-uniffi/dist-readme/swift.md
[ -f "$DIST/swift/Xborder.swift" ] && [ -f "$DIST/lib/libxborder_ffi.so" ] ||
  { echo "swiftpm: no $DIST (run bindings-uniffi/build.sh)" >&2; exit 1; }
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/Cargo.toml" | head -1)

# put SRC DEST: copy only when the content differs, so SwiftPM's incremental build holds.
put() { mkdir -p "$(dirname "$2")"; cmp -s "$1" "$2" || cp "$1" "$2"; }

# assemble DIR: the package, the library and xborder_ffi.pc in DIR.
assemble() {
  local pkg=$1 tmp
  tmp=$(mktemp)
  mkdir -p "$pkg"
  put "$HERE/Package.swift" "$pkg/Package.swift"
  put "$HERE/Sources/XborderFFI/module.modulemap" "$pkg/Sources/XborderFFI/module.modulemap"
  put "$HERE/Tests/XborderTests/ApiXCTests.swift" "$pkg/Tests/XborderTests/ApiXCTests.swift"
  put "$HERE/Tests/XborderConformanceTests/ConformanceXCTests.swift" \
    "$pkg/Tests/XborderConformanceTests/ConformanceXCTests.swift"
  put "$DIST/swift/Xborder.swift" "$pkg/Sources/Xborder/Xborder.swift"
  put "$DIST/swift/Handling.swift" "$pkg/Sources/Xborder/Handling.swift"
  put "$DIST/swift/XborderFFI.h" "$pkg/Sources/XborderFFI/XborderFFI.h"
  put "$DIST/lib/libxborder_ffi.so" "$pkg/lib/libxborder_ffi.so"
  # swift.md shows these lines: keep them the same.
  cat > "$tmp" <<PC
prefix=\${pcfiledir}/..
libdir=\${prefix}/lib
includedir=\${prefix}/Sources/XborderFFI

Name: xborder_ffi
Description: xborder's uniffi library (bindings-uniffi/dist/lib)
Version: $VERSION
Libs: -L\${libdir} -lxborder_ffi
Cflags: -I\${includedir}
PC
  put "$tmp" "$pkg/pkgconfig/xborder_ffi.pc"
  { echo 'import Xborder'; sed -n '1,/^\/\/ ENTRY$/p' "$TESTS/ApiTests.swift"; } > "$tmp"
  put "$tmp" "$pkg/Tests/XborderTests/ApiTests.swift"
  bash "$TESTS/readme.sh" "$README" --import-xborder > "$tmp"
  put "$tmp" "$pkg/Tests/XborderTests/Readme.swift"
  { echo 'import Xborder'; sed -n '1,/^\/\/ ENTRY/p' "$ROOT/tests/runners/swift/main.swift"; } > "$tmp"
  put "$tmp" "$pkg/Tests/XborderConformanceTests/Runner.swift"
  rm -f "$tmp"
}

if [ "${1:-}" = --assemble-only ]; then
  pkg=${2:?--assemble-only DIR}
  assemble "$pkg"
  pkg=$(cd "$pkg" && pwd)
  echo "swiftpm: assembled $pkg: the package, lib/libxborder_ffi.so and pkgconfig/xborder_ffi.pc"
  echo "swiftpm: build with PKG_CONFIG_PATH=$pkg/pkgconfig, run with LD_LIBRARY_PATH=$pkg/lib" \
    "(an app: .package(path: \"$pkg\"), product Xborder)"
  exit 0
fi
[ $# -eq 0 ] || { echo "usage: bash bindings-uniffi/swift/test.sh [--assemble-only DIR]" >&2; exit 2; }

xb_tools swift '-f "${XBORDER_SWIFT_ROOT:-/nonexistent}/.xborder-ready"'
xb_vector_dirs
WORK=${CARGO_TARGET_DIR:-$ROOT/target}/swiftpm
PKG=$WORK/Xborder
mkdir -p "$WORK"
rm -rf "$WORK/lib" "$WORK/pkgconfig"   # where the .pc and the library were before --assemble-only wrote them
bash "$HERE/test.sh" --assemble-only "$PKG"

# The .pc as pkg-config reads it: the flags name the folders that hold the header and the library.
pc_check() {
  local out dir flag libs= incs= ok=1
  if command -v pkg-config >/dev/null; then
    out=$(PKG_CONFIG_PATH=$PKG/pkgconfig pkg-config --cflags --libs xborder_ffi)
    echo "swiftpm: PKG_CONFIG_PATH=$PKG/pkgconfig pkg-config --cflags --libs xborder_ffi: $out"
    [ "$(PKG_CONFIG_PATH=$PKG/pkgconfig pkg-config --modversion xborder_ffi)" = "$VERSION" ] ||
      { echo "swiftpm: FAIL the .pc's version is not $VERSION" >&2; ok=; }
  elif [ -x "$XBORDER_SWIFT_ROOT/usr/bin/pkg-config" ]; then
    out=$(bash "$ROOT/tests/tools/swift-run.sh" "$WORK" -- env PKG_CONFIG_PATH=/work/Xborder/pkgconfig \
      pkg-config --cflags --libs xborder_ffi | sed "s#/work/#$WORK/#g")
    echo "swiftpm: pkg-config --cflags --libs xborder_ffi (in the root): $out"
  else
    # No pkg-config anywhere: the flags as pkg-config would write them from the .pc's lines.
    local p=$PKG/pkgconfig
    out="-I$p/../Sources/XborderFFI -L$p/../lib -lxborder_ffi"
    for line in 'prefix=${pcfiledir}/..' 'libdir=${prefix}/lib' 'includedir=${prefix}/Sources/XborderFFI' \
                'Libs: -L${libdir} -lxborder_ffi' 'Cflags: -I${includedir}'; do
      grep -qxF "$line" "$p/xborder_ffi.pc" || { echo "swiftpm: FAIL the .pc has no line $line" >&2; ok=; }
    done
    echo "swiftpm: no pkg-config on the host or in the root; the .pc's lines give: $out"
  fi
  for flag in $out; do
    case $flag in
      -I*) incs+=" ${flag#-I}" ;;
      -L*) libs+=" ${flag#-L}" ;;
      -lxborder_ffi) ;;
      *) echo "swiftpm: FAIL unexpected flag $flag" >&2; ok= ;;
    esac
  done
  [[ " $out " == *" -lxborder_ffi "* ]] || { echo "swiftpm: FAIL no -lxborder_ffi" >&2; ok=; }
  for dir in $incs; do
    [ -f "$dir/XborderFFI.h" ] && [ -f "$dir/module.modulemap" ] &&
      [ "$(cd "$dir" && pwd -P)" = "$(cd "$PKG/Sources/XborderFFI" && pwd -P)" ] ||
      { echo "swiftpm: FAIL -I$dir is not the package's XborderFFI folder" >&2; ok=; }
  done
  for dir in $libs; do
    cmp -s "$dir/libxborder_ffi.so" "$DIST/lib/libxborder_ffi.so" ||
      { echo "swiftpm: FAIL -L$dir does not hold bindings-uniffi/dist's libxborder_ffi.so" >&2; ok=; }
  done
  [ -n "$incs" ] && [ -n "$libs" ] || { echo "swiftpm: FAIL the flags lack -I or -L" >&2; ok=; }
  # The .pc that swift.md shows (its ``` block that begins with prefix=) is the one written.
  awk 'b && /^```/ {b = 0; if (f) exit; next} !b && /^```/ {b = 1; first = 1; next}
       b && first {first = 0; if ($0 ~ /^prefix=/) f = 1} f' "$README" |
    sed "s/^Version: .*/Version: $VERSION/" | cmp -s - "$PKG/pkgconfig/xborder_ffi.pc" ||
    { echo "swiftpm: FAIL $README does not show the xborder_ffi.pc written" >&2; ok=; }
  [ -n "$ok" ] || return 1
  echo "swiftpm: xborder_ffi.pc: -I is the header's folder, -L the library's, as $README shows"
}
pc_check

# The vectors (the folders of XBORDER_VECTOR_DIRS, the files of XBORDER_VECTOR_FILES), copied in
# as run.sh does; their folders passed as `folder=displayName` lines.
args=
while IFS= read -r line; do args+="/work/vectors/$line"$'\n'; done < <(xb_stage_vectors "$WORK/vectors")
# The project's vectors of ops not every runtime has yet (tests/vectors/handling/), as run.sh.
if [ -d "$ROOT/tests/vectors/handling" ]; then
  mkdir -p "$WORK/vectors/handling"
  cp "$ROOT"/tests/vectors/handling/*.json "$WORK/vectors/handling/"
  args+="/work/vectors/handling=$ROOT/tests/vectors/handling"$'\n'
fi

# In the root the work folder is /work: the package is /work/Xborder, as --assemble-only said.
run_in_root() {
  bash "$ROOT/tests/tools/swift-run.sh" "$WORK" -- env PKG_CONFIG_PATH=/work/Xborder/pkgconfig \
    LD_LIBRARY_PATH=/work/Xborder/lib XBORDER_SWIFT_VECTOR_ARGS="$args" "$@"
}
start=$SECONDS
echo "swiftpm: swift build --package-path Xborder (in $XBORDER_SWIFT_ROOT)"
run_in_root swift build --package-path Xborder
echo "swiftpm: swift test --package-path Xborder"
run_in_root swift test --package-path Xborder
echo "swiftpm: swift build and swift test in $((SECONDS - start))s"

# An app that depends on the package by path: swift.md's manifest, the app's main.swift.
app_check() {
  local app=$WORK/app data=$WORK/app-data target tmp want got secret=whsec_app_test body sig
  tmp=$(mktemp)
  awk '$0 == "```swift Package.swift" {f = 1; next} f && /^```/ {exit} f' "$README" > "$tmp"
  grep -q '\.package(path: "\.\./Xborder")' "$tmp" ||
    { echo "swiftpm: FAIL $README's Package.swift block does not depend on ../Xborder" >&2; return 1; }
  target=$(sed -n 's/.*\.executableTarget(name: "\([A-Za-z_]*\)".*/\1/p' "$tmp" | head -1)
  [ -n "$target" ] || { echo "swiftpm: FAIL $README's Package.swift block has no executableTarget" >&2; return 1; }
  put "$tmp" "$app/Package.swift"
  put "$TESTS/app/main.swift" "$app/Sources/$target/main.swift"
  rm -f "$tmp"
  # The inputs: the rules document and bank list as the server sends them, a draft with a wrong
  # IBAN check digit and no first name, the same draft fixed (the IBAN of ISO 13616's example),
  # a delivery signed here with openssl (not with xborder), the same body tampered.
  rm -rf "$data"; mkdir -p "$data"
  cat > "$data/rules.json" <<'JSON'
{"data": {"country": "DE", "ownerType": "individual", "rules": {
  "requiredFields": [{"field": "firstName", "description": "First name"}],
  "paymentTypes": [{"type": "bank_account", "requiredFields": [{"field": "accountNumber", "description": "IBAN"}]}]}},
 "requestId": "req_1"}
JSON
  echo '{"data": [{"id": "bank_de_001", "name": "Deutsche Bank"}], "requestId": "req_2"}' > "$data/banks.json"
  echo '{"ownerType": "individual", "country": "DE", "paymentType": "bank_account",
 "paymentInfo": {"bankId": "bank_de_001", "accountNumber": "DE89 3704 0044 0532 0130 01"}}' > "$data/bad.json"
  echo '{"ownerType": "individual", "country": "DE", "paymentType": "bank_account", "firstName": "Ada",
 "paymentInfo": {"bankId": "bank_de_001", "accountNumber": "DE89 3704 0044 0532 0130 00"}}' > "$data/good.json"
  body='{"id":"evt_app_1","event":"order:created","entity":{"id":"ord_1","type":"order","data":{"amount":"10.00"}}}'
  printf '%s' "$body" > "$data/body.json"
  printf '%s' "${body/10.00/99.00}" > "$data/tampered.json"
  sig=$(printf '%s' "$body" | openssl dgst -sha256 -hmac "$secret" | sed 's/^.*= //')
  [[ $sig =~ ^[0-9a-f]{64}$ ]] || { echo "swiftpm: FAIL openssl gave no HMAC ($sig)" >&2; return 1; }
  echo "swiftpm: swift build --package-path app (depends on ../Xborder by path)"
  run_in_root swift build --package-path app
  got=$(run_in_root env WEBHOOK_SECRET="$secret" "app/.build/debug/$target" \
    /work/app-data/rules.json /work/app-data/banks.json DE \
    draft=/work/app-data/bad.json draft=/work/app-data/good.json \
    "delivery=/work/app-data/body.json,$sig" "delivery=/work/app-data/tampered.json,$sig" \
    "delivery=/work/app-data/body.json,-" "delivery=/work/app-data/body.json,$sig")
  echo "$got" | sed 's/^/  app| /'
  want='draft bad.json: valid false
  firstName REQUIRED
  paymentInfo.accountNumber INVALID_IBAN
draft good.json: valid true
delivery 1: 200 process evt_app_1
delivery 2: 400 reject SIGNATURE_MISMATCH
delivery 3: 400 reject MISSING_SIGNATURE
delivery 4: 200 duplicate evt_app_1
persisted: evt_app_1'
  [ "$got" = "$want" ] || { echo "swiftpm: FAIL the app printed other lines; expected:"; echo "$want"; return 1; } >&2
  echo "swiftpm: the app (SwiftPM, .package(path:)) validated 2 drafts and answered 4 deliveries as expected"
}
app_check
