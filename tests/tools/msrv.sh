#!/usr/bin/env bash
# Checks xborder-core's library with the Rust version its manifest promises (`rust-version`,
# read with `cargo metadata`, so Cargo.toml is the one place it is written).
#
# Usage: bash tests/tools/msrv.sh
# Installs that toolchain with rustup if it is missing (`--profile minimal`: rustc, cargo and
# rust-std only; nothing is done when it is present), then runs
#   cargo +VERSION check -p xborder-core --lib --locked
# against the committed Cargo.lock. Its own target directory (target/msrv) keeps the stable
# build's cache untouched. Only the library is checked: the dev-dependencies need a newer Rust
# (see the comment on rust-version in the root Cargo.toml).
set -euo pipefail
cd "$(dirname "$0")/../.."

version=$(cargo metadata --format-version 1 --no-deps --locked | python3 -c '
import json, sys
print(next(p["rust_version"] or "" for p in json.load(sys.stdin)["packages"] if p["name"] == "xborder-core"))')
[ -n "$version" ] || { echo "msrv: xborder-core declares no rust-version" >&2; exit 1; }

if rustup run "$version" rustc --version >/dev/null 2>&1; then
  echo "msrv: toolchain $version present: $(rustup run "$version" rustc --version)"
else
  echo "msrv: rustup toolchain install $version --profile minimal"
  rustup toolchain install "$version" --profile minimal
fi

echo "msrv: cargo +$version check -p xborder-core --lib --locked"
CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}/msrv cargo +"$version" check -p xborder-core --lib --locked
