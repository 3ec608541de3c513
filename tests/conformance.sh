#!/usr/bin/env bash
# One entry point for the conformance vectors: tests/conformance.sh [rust|node|browser|kotlin|python|swift ...]
# (all runtimes when none is named). Builds what each runtime needs once, runs its runner, and
# exits non-zero when any runner failed. See tests/runners/CONTRACT.md.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
ALL=(rust node browser kotlin python swift)
[ $# -gt 0 ] && RUNTIMES=("$@") || RUNTIMES=("${ALL[@]}")

# The hostile vectors: the small hand-written ones, and the big ones (multi-MB bodies, 100k-deep
# nesting, huge arrays) written once per run by a deterministic generator (too big to commit).
HOSTILE_GEN=${CARGO_TARGET_DIR:-$ROOT/target}/hostile-generated
echo "== generate: hostile vectors (tests/vectors/hostile/generate.py -> $HOSTILE_GEN)"
rm -rf "$HOSTILE_GEN"
"${XBORDER_PYTHON:-python3}" "$ROOT/tests/vectors/hostile/generate.py" "$HOSTILE_GEN" | tail -1 ||
  { echo "conformance.sh: tests/vectors/hostile/generate.py failed" >&2; exit 1; }

# shellcheck source=runners/lib.sh
. "$ROOT/tests/runners/lib.sh"
unset XBORDER_VECTOR_DIRS
xb_vector_dirs
export XBORDER_VECTOR_DIRS="$XBORDER_VECTOR_DIRS:$HOSTILE_GEN"

# Release artefacts are built once here and reused by every runner that needs them.
wants() { local r; for r in "${RUNTIMES[@]}"; do case " $* " in *" $r "*) return 0 ;; esac; done; return 1; }
if wants node browser; then
  echo "== build: npm package (bindings-wasm/build.sh)"
  bash "$ROOT/bindings-wasm/build.sh" || { echo "conformance.sh: the npm package did not build" >&2; exit 1; }
  export XBORDER_BUILT_WASM=1
fi
if wants kotlin swift python; then
  echo "== build: uniffi library and bindings (bindings-uniffi/build.sh)"
  bash "$ROOT/bindings-uniffi/build.sh" || { echo "conformance.sh: the uniffi bindings did not build" >&2; exit 1; }
  export XBORDER_BUILT_UNIFFI=1
fi

status=0
summary=()
for rt in "${RUNTIMES[@]}"; do
  case " ${ALL[*]} " in *" $rt "*) ;; *) echo "conformance.sh: unknown runtime '$rt' (one of: ${ALL[*]})" >&2; exit 2 ;; esac
  echo "== conformance: $rt"
  log=$(mktemp)
  if [ "$rt" = rust ]; then
    cargo run -q --release -p xborder-conformance 2>&1 | tee "$log"
  elif [ -x "$ROOT/tests/runners/$rt/run.sh" ] || [ -f "$ROOT/tests/runners/$rt/run.sh" ]; then
    bash "$ROOT/tests/runners/$rt/run.sh" 2>&1 | tee "$log"
  else
    echo "conformance: 0 passed, 1 failed"
    echo "FAIL no runner for $rt (tests/runners/$rt/run.sh)" | tee "$log"
    false
  fi
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^conformance: [0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  rm -f "$log"
  [ -n "$line" ] || { line="no closing line"; rc=1; }
  [ "$rc" -eq 0 ] || status=1
  summary+=("$rt: ${line#conformance: }$([ "$rc" -eq 0 ] || echo ' (FAILED)')")
done
echo "== conformance summary"
printf '  %s\n' "${summary[@]}"
exit $status
