#!/usr/bin/env bash
# The uniffi bindings' own API tests (the conformance runners are tests/runners/{kotlin,swift,python}):
# what a Kotlin, Swift or Python user calls, with right and wrong values (issue 12: one secret is
# never split; a Python str is never a list).
#   python  bindings-uniffi/python/tests/run.sh       (the wheel installed in a fresh venv: test_api.py,
#                                                      the stubs, every README snippet)
#   kotlin  bindings-uniffi/tests/kotlin/ApiTest.kt   (kotlinc: the hand-written API over the generated
#                                                      code, kotlin/sources.sh; run on the JDK with JNA)
#   swift   bindings-uniffi/tests/swift/ApiTests.swift (swiftc in the trixie root; with every ```swift
#                                                      block of dist-readme/swift.md, tests/swift/readme.sh)
#   jvm     bindings-uniffi/jvm/test.sh                (Maven: the jar with the library inside, JUnit 5
#                                                      tests from Java, Redis, the HttpServer recipe, the
#                                                      conformance runner; javap on the jar's surface)
#   swiftpm bindings-uniffi/swift/test.sh              (SwiftPM in the root: the package --assemble-only
#                                                      writes, its .pc, swift build and swift test, and
#                                                      an app that depends on it by path)
# Usage: bash bindings-uniffi/test.sh [python|kotlin|swift|jvm|swiftpm ...]   (all when none is named)
# Uses bindings-uniffi/dist (built here when missing; conformance.sh builds it once per run).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
cd "$ROOT"
# shellcheck source=../tests/runners/lib.sh
. "$ROOT/tests/runners/lib.sh"
DIST=$HERE/dist
[ -f "$DIST/python/_xborder_ffi/xborder.py" ] && [ -f "$DIST/kotlin/dev/xborder/ffi/xborder.kt" ] && [ -f "$DIST/swift/Xborder.swift" ] ||
  bash "$HERE/build.sh" || exit 1
[ $# -gt 0 ] && PARTS=("$@") || PARTS=(python kotlin swift jvm swiftpm)


failed=()
run() {
  local name=$1; shift
  echo "== $name"
  if "$@"; then echo "== $name: ok"; else echo "== $name: FAILED"; failed+=("$name"); fi
}

python_api() {
  xb_tools python '-n "${XBORDER_PYTHON:-}"'
  bash "$HERE/python/tests/run.sh"
}

kotlin_api() {
  xb_tools kotlin '-x "${XBORDER_KOTLINC:-}"'
  local jar work=${CARGO_TARGET_DIR:-$ROOT/target}/kotlin-api sources
  mkdir -p "$work"
  # The generated file and the hand-written API over it (kotlin/sources.sh), as a user compiles them.
  mapfile -t sources < <(bash "$HERE/kotlin/sources.sh") && [ ${#sources[@]} -gt 1 ] || return 1
  # Every ```kotlin block of kotlin.md as a function, readmeSnippet1, 2, ... (their imports
  # first, once each), listed in order by readmeSnippets, which ApiTest runs.
  awk '$0 == "```kotlin" {n++; f = 1; body[n] = ""; next}
    f && /^```/ {f = 0; next}
    f && /^import / {if (!seen[$0]++) imports = imports $0 "\n"; next}
    f {body[n] = body[n] $0 "\n"}
    END {printf "%s", imports
      for (i = 1; i <= n; i++) printf "fun readmeSnippet%d() {\n%s}\n", i, body[i]
      printf "val readmeSnippets: List<() -> Unit> = listOf("
      for (i = 1; i <= n; i++) printf "%s::readmeSnippet%d", (i > 1 ? ", " : ""), i
      print ")"}' "$HERE/dist-readme/kotlin.md" > "$work/Readme.kt"
  jar=$(bash "$ROOT/tests/runners/kotlin/compile.sh" api-kotlin "${sources[@]}" \
    "$HERE/tests/kotlin/ApiTest.kt" "$work/Readme.kt" | tail -1) || return 1
  java -Djna.library.path="$DIST/lib" -cp "$jar:$XBORDER_KOTLIN_CLASSPATH" ApiTestKt
}

swift_api() {
  xb_tools swift '-f "${XBORDER_SWIFT_ROOT:-/nonexistent}/.xborder-ready"'
  local work=${CARGO_TARGET_DIR:-$ROOT/target}/swift-api hash bin
  mkdir -p "$work"
  # Handling.swift: the module's hand-written part (handleDelivery), beside the generated file.
  cp "$DIST/swift/Xborder.swift" "$DIST/swift/XborderFFI.h" "$DIST/swift/module.modulemap" \
    "$DIST/swift/Handling.swift" "$DIST/lib/libxborder_ffi.so" "$work/"
  cp "$HERE/tests/swift/ApiTests.swift" "$work/main.swift"
  # Every ```swift block of swift.md as a function (readme.sh), run by ApiTests' readmeTests().
  bash "$HERE/tests/swift/readme.sh" bindings-uniffi/dist-readme/swift.md > "$work/Readme.swift" || return 1
  hash=$(cat "$XBORDER_SWIFT_ROOT/.xborder-ready" "$work/Xborder.swift" "$work/Handling.swift" "$work/XborderFFI.h" \
    "$work/module.modulemap" "$work/Readme.swift" "$work/main.swift" | sha256sum | cut -c1-16)
  bin=api-$hash
  if [ ! -x "$work/$bin" ]; then
    find "$work" -maxdepth 1 -name 'api-*' -delete
    bash "$ROOT/tests/tools/swift-run.sh" "$work" -- \
      swiftc -I . -L . -lxborder_ffi Xborder.swift Handling.swift Readme.swift main.swift -o "$bin.tmp" || return 1
    mv "$work/$bin.tmp" "$work/$bin"
  fi
  bash "$ROOT/tests/tools/swift-run.sh" "$work" -- env LD_LIBRARY_PATH=. "./$bin"
}

for part in "${PARTS[@]}"; do
  case $part in
    python|kotlin|swift) run "$part api" "${part}_api" ;;
    jvm|swiftpm) run "$part package" bash "$HERE/${part/pm/}/test.sh" ;;
    *) echo "bindings-uniffi/test.sh: unknown part '$part' (python, kotlin, swift, jvm, swiftpm)" >&2; exit 2 ;;
  esac
done
if [ ${#failed[@]} -gt 0 ]; then echo "uniffi api tests: FAILED: ${failed[*]}"; exit 1; fi
echo "uniffi api tests: all passed (${PARTS[*]})"
