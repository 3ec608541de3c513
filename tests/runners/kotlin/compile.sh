#!/usr/bin/env bash
# Compiles Kotlin sources with the generated binding into a jar, once per content: the jar is
# cached under target/kotlin-jars/ by a hash of the sources, kotlinc's version and the classpath
# (kotlinc takes ~20 s even for a small file). Prints the jar's path on its last line.
# Usage: compile.sh NAME SOURCE.kt... (env: XBORDER_KOTLINC, XBORDER_KOTLIN_CLASSPATH)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
name=$1; shift
: "${XBORDER_KOTLINC:?run tests/tools/setup.sh kotlin and source env.sh}"
KOTLIN_HOME=$(cd "$(dirname "$XBORDER_KOTLINC")/.." && pwd)
version=$(cat "$KOTLIN_HOME/build.txt" 2>/dev/null || cat "$KOTLIN_HOME/package.json" 2>/dev/null | grep '"version"' || echo "$XBORDER_KOTLINC")
FLAGS="-nowarn -include-runtime"
hash=$( { echo "$version $FLAGS"; echo "$XBORDER_KOTLIN_CLASSPATH"; for f in "$@"; do echo "$f"; cat "$f"; done; } | sha256sum | cut -c1-16)
dir=${CARGO_TARGET_DIR:-$ROOT/target}/kotlin-jars
jar=$dir/$name-$hash.jar
if [ -f "$jar" ]; then
  echo "kotlin: $name unchanged, reusing $jar" >&2
else
  echo "kotlin: kotlinc $name ($*)" >&2
  mkdir -p "$dir"
  start=$SECONDS
  "$XBORDER_KOTLINC" $FLAGS -cp "$XBORDER_KOTLIN_CLASSPATH" -d "$jar.tmp.jar" "$@"
  mv "$jar.tmp.jar" "$jar"
  find "$dir" -name "$name-*.jar" ! -name "$(basename "$jar")" -delete
  echo "kotlin: compiled $name in $((SECONDS - start))s" >&2
fi
echo "$jar"
