#!/usr/bin/env bash
# Idempotent toolchain setup for the xborder binding tests.
#
# Usage: bash tests/tools/setup.sh [wasm|browser|kotlin|swift|python|redis|postgres|fuzz ...]
#        (all parts when none is named)
# npm tools and the Swift root go to ${XBORDER_CACHE:-$HOME/.cache/xborder}; cargo-installed tools
# (wasm-bindgen-cli, cargo-fuzz) to ~/.cargo/bin, apt packages system-wide; afterwards
#   . "${XBORDER_CACHE:-$HOME/.cache/xborder}/env.sh"
# gives PATH additions and XBORDER_* variables for the tools that are present.
# XBORDER_SKIP_VERIFY=1 skips the smoke tests (compile/run hello worlds).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../.."                      # repo root (no rust-toolchain file: rustup's default applies)
CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}
NODE_TOOLS=$CACHE/node-tools
SWIFT_ROOT=$CACHE/swift-root
KOTLIN_HOME=$NODE_TOOLS/node_modules/kotlin-compiler
KOTLIN_CP=/usr/share/java/gson.jar:/usr/share/java/jna.jar
CHROMIUM=/usr/bin/chromium
CHROMIUM_ARGS="--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --no-first-run"
WASM_BINDGEN_VERSION=${WASM_BINDGEN_VERSION:-0.2.130}
export DEBIAN_FRONTEND=noninteractive
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

say() { echo "setup: $*"; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }
verify() { [ "${XBORDER_SKIP_VERIFY:-0}" != 1 ]; }

# apt_install PKG...: install the missing ones; `apt-get update` only then.
apt_install() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'ok installed' >/dev/null || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then say "apt: $* already installed"; return; fi
  say "apt: installing ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}"
}

# npm_tool PKG SPEC: npm install PKG@SPEC into $NODE_TOOLS unless installed from the same SPEC.
npm_tool() {
  local pkg=$1 spec=$2 stamp=$NODE_TOOLS/.spec-$1
  if [ -f "$NODE_TOOLS/node_modules/$pkg/package.json" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$spec" ]; then
    say "npm: $pkg $(node -p "require('$NODE_TOOLS/node_modules/$pkg/package.json').version") present"
    return
  fi
  say "npm: installing $pkg@$spec into $NODE_TOOLS"
  mkdir -p "$NODE_TOOLS"
  npm install --prefix "$NODE_TOOLS" --no-audit --no-fund --loglevel=error "$pkg@$spec"
  echo "$spec" > "$stamp"
}

part_wasm() {
  if rustup target list --installed | grep -x wasm32-unknown-unknown >/dev/null; then
    say "rust target wasm32-unknown-unknown present"
  else
    say "rustup target add wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$(wasm-bindgen --version 2>/dev/null)" = "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    say "wasm-bindgen $WASM_BINDGEN_VERSION present"
  else
    say "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
  npm_tool binaryen "${BINARYEN_VERSION:-132}"
  npm_tool typescript "${TYPESCRIPT_VERSION:-7}"
  # rolldown: the npm package's CommonJS build of its public API (bindings-wasm/build.sh bundles
  # js/api/ into node/api.cjs, so `require` and `import` in Node share one instance).
  npm_tool rolldown "${ROLLDOWN_VERSION:-1}"
  say "$("$NODE_TOOLS/node_modules/.bin/wasm-opt" --version); tsc $("$NODE_TOOLS/node_modules/.bin/tsc" --version); rolldown $(node -p "require('$NODE_TOOLS/node_modules/rolldown/package.json').version")"
}

part_browser() {
  apt_install chromium
  npm_tool playwright-core "${PLAYWRIGHT_VERSION:-1}"
  # The bundlers the npm package is tested through (bindings-wasm/tests/bundlers.mjs).
  npm_tool webpack "${WEBPACK_VERSION:-5}"
  npm_tool vite "${VITE_VERSION:-8}"
  verify || return 0
  say "checking headless $($CHROMIUM --version 2>/dev/null) via playwright-core"
  NODE_TOOLS=$NODE_TOOLS CHROMIUM=$CHROMIUM CHROMIUM_ARGS=$CHROMIUM_ARGS timeout 120 node -e '
    const { chromium } = require(process.env.NODE_TOOLS + "/node_modules/playwright-core");
    (async () => {
      const browser = await chromium.launch({ executablePath: process.env.CHROMIUM,
        headless: true, args: process.env.CHROMIUM_ARGS.split(" ") });
      const page = await browser.newPage();
      await page.goto("data:text/html,<title>xborder</title>");
      const two = await page.evaluate(() => 1 + 1);
      await browser.close();
      if (two !== 2) throw new Error("1+1 = " + two);
      console.log("setup: chromium ok: 1+1 =", two);
    })().catch((e) => { console.error(e); process.exit(1); });'
}

part_kotlin() {
  npm_tool kotlin-compiler "${KOTLIN_VERSION:-~2.4.0}"
  apt_install libjna-java libgoogle-gson-java
  verify || return 0
  say "checking kotlinc with Gson + JNA"
  local d=$TMP/kotlin; mkdir -p "$d"
  cat > "$d/Hello.kt" <<'EOF'
import com.google.gson.Gson
import com.sun.jna.Library
import com.sun.jna.Native

interface LibC : Library { fun getpid(): Int }

fun main() {
    val json = Gson().toJson(mapOf("hello" to "kotlin"))
    val pid = Native.load("c", LibC::class.java).getpid()
    println("setup: kotlin ok: $json, getpid() via JNA = $pid")
}
EOF
  "$KOTLIN_HOME/bin/kotlinc" -cp "$KOTLIN_CP" -include-runtime -d "$d/hello.jar" "$d/Hello.kt"
  java -cp "$d/hello.jar:$KOTLIN_CP" HelloKt
}

part_swift() {
  apt_install debootstrap
  if [ -f "$SWIFT_ROOT/.xborder-ready" ]; then
    say "swift root present: $(cat "$SWIFT_ROOT/.xborder-ready")"
  else
    local mirror; mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
    [ -n "$mirror" ] || die "no URIs: line in /etc/apt/sources.list.d/debian.sources"
    if findmnt -rno TARGET | grep "^$SWIFT_ROOT/" >/dev/null; then die "something is mounted under $SWIFT_ROOT; unmount it first"; fi
    say "debootstrap trixie into $SWIFT_ROOT from $mirror"
    rm -rf "$SWIFT_ROOT"
    debootstrap --variant=minbase trixie "$SWIFT_ROOT" "$mirror"
    say "installing swiftlang into the root"
    "$HERE/swift-run.sh" "$SWIFT_ROOT/tmp" -- sh -c 'apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends swiftlang libc6-dev libstdc++-14-dev &&
      apt-get clean'
    local version; version=$("$HERE/swift-run.sh" "$SWIFT_ROOT/tmp" -- swiftc --version 2>&1 | head -1)
    echo "$version" > "$SWIFT_ROOT/.xborder-ready"
  fi
  verify || return 0
  say "checking swiftc with Foundation"
  local d=$TMP/swift; mkdir -p "$d"
  cat > "$d/hello.swift" <<'EOF'
import Foundation
let data = try! JSONSerialization.data(withJSONObject: ["hello": "swift"], options: [.sortedKeys])
print("setup: swift ok: " + String(data: data, encoding: .utf8)!)
EOF
  "$HERE/swift-run.sh" "$d" -- sh -c 'swiftc hello.swift -o hello && ./hello'
}

part_python() {
  python3 -c 'import sys; assert sys.version_info >= (3, 11), sys.version' \
    || die "python3 >= 3.11 needed, have $(python3 --version 2>&1)"
  say "$(python3 --version) at $(command -v python3)"
}

# redis-server (Debian) for the Redis adapters' tests, which start their own on a free loopback
# port; nothing is left running.
part_redis() {
  apt_install redis-server
  say "$(redis-server --version | cut -d' ' -f1-3)"
}

# PostgreSQL's server binaries (Debian's postgresql; the SQL claim stores' tests and the fault
# test start their own cluster with tests/servers/postgres.sh). The package's own cluster is
# not used: whatever it left running stays as it is.
part_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    apt_install postgresql
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1)
  else
    say "postgresql server binaries present"
  fi
  [ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && [ -x "$bin/psql" ] ||
    die "no initdb, pg_ctl and psql under /usr/lib/postgresql/*/bin after installing postgresql"
  say "$("$bin/postgres" --version) in $bin"
}

part_fuzz() {
  if command -v cargo-fuzz >/dev/null; then
    say "cargo-fuzz present: $(cargo fuzz --version)"
  else
    say "cargo install cargo-fuzz"
    cargo install cargo-fuzz
  fi
  rustup toolchain list | grep '^nightly' >/dev/null || die "no nightly toolchain (rustup toolchain list)"
  say "nightly: $(rustup run nightly rustc --version)"
}

# env.sh: what other scripts source; lists only tools that are present.
write_env() {
  local f=$CACHE/env.sh
  {
    echo "# written by tests/tools/setup.sh; source it"
    echo "export XBORDER_CACHE='$CACHE'"
    echo "export WASM_BINDGEN_VERSION='$WASM_BINDGEN_VERSION'"
    echo "xborder_path() { case \":\$PATH:\" in *\":\$1:\"*) ;; *) PATH=\"\$1:\$PATH\" ;; esac; }"
    echo "xborder_path \"\$HOME/.cargo/bin\""
    if [ -d "$NODE_TOOLS/node_modules" ]; then
      echo "export XBORDER_NODE_TOOLS='$NODE_TOOLS'"
      echo "xborder_path '$NODE_TOOLS/node_modules/.bin'"
    fi
    if [ -x "$CHROMIUM" ]; then
      echo "export XBORDER_CHROMIUM='$CHROMIUM'"
      echo "export XBORDER_CHROMIUM_ARGS='$CHROMIUM_ARGS'"
    fi
    if [ -x "$KOTLIN_HOME/bin/kotlinc" ]; then
      echo "export XBORDER_KOTLINC='$KOTLIN_HOME/bin/kotlinc'"
      echo "export XBORDER_KOTLIN_CLASSPATH='$KOTLIN_CP'"
    fi
    if [ -f "$SWIFT_ROOT/.xborder-ready" ]; then
      echo "export XBORDER_SWIFT_ROOT='$SWIFT_ROOT'"
    fi
    echo "export XBORDER_PYTHON='$(command -v python3)'"
    if command -v redis-server >/dev/null; then
      echo "export XBORDER_REDIS_SERVER='$(command -v redis-server)'"
    fi
    local pg
    pg=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r | head -1)
    if [ -n "$pg" ] && [ -x "$pg/initdb" ]; then
      echo "export XBORDER_PG_BIN='$pg'"
    fi
    echo "unset -f xborder_path; export PATH"
  } > "$f.tmp"
  mv "$f.tmp" "$f"
}

parts=("$@")
[ $# -gt 0 ] || parts=(wasm browser kotlin swift python redis postgres fuzz)
for p in "${parts[@]}"; do
  case $p in wasm|browser|kotlin|swift|python|redis|postgres|fuzz) ;; *) die "unknown part '$p'" ;; esac
done
mkdir -p "$CACHE"
for p in "${parts[@]}"; do
  start=$SECONDS
  say "== $p"
  "part_$p"
  write_env
  say "== $p ok ($((SECONDS - start))s)"
done
say "wrote $CACHE/env.sh"
