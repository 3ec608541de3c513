# Sourced by the runners and demos of tests/runners/ and bindings-*/ (needs ROOT set to the
# repository root). The shared preamble: toolchain environment, the uniffi artefact built once,
# and the vector folders of CONTRACT.md.

XBORDER_CACHE=${XBORDER_CACHE:-$HOME/.cache/xborder}

# xb_tools PART 'CHECK': source the toolchain environment; when the shell test CHECK (evaluated
# after sourcing) fails, run tests/tools/setup.sh PART and source it again.
# Example: xb_tools kotlin '-x "${XBORDER_KOTLINC:-}"'
xb_tools() {
  local part=$1 check=$2
  # shellcheck disable=SC1091
  [ -f "$XBORDER_CACHE/env.sh" ] && . "$XBORDER_CACHE/env.sh"
  if ! eval "test $check" 2>/dev/null; then
    XBORDER_SKIP_VERIFY=${XBORDER_SKIP_VERIFY:-1} bash "$ROOT/tests/tools/setup.sh" "$part" >&2
    # shellcheck disable=SC1091
    . "$XBORDER_CACHE/env.sh"
  fi
}

# xb_uniffi FILE: bindings-uniffi/build.sh unless conformance.sh built it already this run
# (XBORDER_BUILT_UNIFFI=1) and FILE (a generated file the caller needs) exists.
xb_uniffi() {
  if [ "${XBORDER_BUILT_UNIFFI:-0}" != 1 ] || [ ! -f "$1" ]; then
    bash "$ROOT/bindings-uniffi/build.sh" >&2
  fi
}

# xb_vector_dirs: export XBORDER_VECTOR_DIRS (CONTRACT.md) when it is not set: the project's
# vectors, the committed hostile ones, shared/conformance when present (with v2/ and v3/: every
# runtime keeps contracts v2 and v3), XBORDER_VECTORS_DIR; and XBORDER_VECTOR_FILES, single
# files read beside them (contract v4's accounts.json and forms.json).
# conformance.sh adds the generated hostile vectors.
xb_vector_dirs() {
  if [ -z "${XBORDER_VECTOR_DIRS:-}" ]; then
    XBORDER_VECTOR_DIRS=$ROOT/tests/vectors:$ROOT/tests/vectors/hostile
    [ -d "$ROOT/../shared/conformance" ] && XBORDER_VECTOR_DIRS+=:$(cd "$ROOT/../shared/conformance" && pwd)
    [ -d "$ROOT/../shared/conformance/v2" ] && XBORDER_VECTOR_DIRS+=:$(cd "$ROOT/../shared/conformance/v2" && pwd)
    [ -d "$ROOT/../shared/conformance/v3" ] && XBORDER_VECTOR_DIRS+=:$(cd "$ROOT/../shared/conformance/v3" && pwd)
    [ -n "${XBORDER_VECTORS_DIR:-}" ] && XBORDER_VECTOR_DIRS+=:$XBORDER_VECTORS_DIR
  fi
  export XBORDER_VECTOR_DIRS
  # Contract v4 (issue 31): its accounts and forms files, read by every runner beside the folders;
  # v4/api.json (api.error, events.catch_up) joins with issue 34.
  if [ -z "${XBORDER_VECTOR_FILES:-}" ] && [ -d "$ROOT/../shared/conformance/v4" ]; then
    local v4 f
    v4=$(cd "$ROOT/../shared/conformance/v4" && pwd)
    XBORDER_VECTOR_FILES=
    for f in accounts.json forms.json; do
      [ -f "$v4/$f" ] && XBORDER_VECTOR_FILES+=${XBORDER_VECTOR_FILES:+:}$v4/$f
    done
  fi
  export XBORDER_VECTOR_FILES=${XBORDER_VECTOR_FILES:-}
}

# xb_vector_file_api: adds contract v4's api.json (issue 34's api.error and events.catch_up) to
# XBORDER_VECTOR_FILES when it exists and is not listed: called by the runners of the runtimes
# that have its ops, until every runtime does and it joins the list above.
xb_vector_file_api() {
  local v4=$ROOT/../shared/conformance/v4
  if [ -f "$v4/api.json" ] && [[ ":${XBORDER_VECTOR_FILES:-}:" != *"/v4/api.json:"* ]]; then
    XBORDER_VECTOR_FILES+=${XBORDER_VECTOR_FILES:+:}$(cd "$v4" && pwd)/api.json
  fi
  export XBORDER_VECTOR_FILES
}

# xb_stage_vectors DEST: copies the vectors into DEST/<n>/ for a runner that sees only one folder
# tree (the Swift root): each folder of XBORDER_VECTOR_DIRS, then each file of
# XBORDER_VECTOR_FILES alone in a folder of its own (unless its folder is one of the folders);
# prints one `<n>=<origin folder>` line per staged folder, the origin naming it in FAIL lines.
xb_stage_vectors() {
  local dest=$1 n=0 d f
  local -a dirs files
  rm -rf "$dest"
  IFS=: read -r -a dirs <<<"${XBORDER_VECTOR_DIRS:-}"
  for d in "${dirs[@]}"; do
    [ -n "$d" ] || continue
    mkdir -p "$dest/$n"
    find "$d" -maxdepth 1 -name '*.json' -type f -exec cp {} "$dest/$n/" \;
    echo "$n=$d"
    n=$((n + 1))
  done
  IFS=: read -r -a files <<<"${XBORDER_VECTOR_FILES:-}"
  for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    [[ ":${XBORDER_VECTOR_DIRS:-}:" == *":$(dirname "$f"):"* ]] && continue
    mkdir -p "$dest/$n"
    cp "$f" "$dest/$n/"
    echo "$n=$(dirname "$f")"
    n=$((n + 1))
  done
}
