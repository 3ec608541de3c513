#!/usr/bin/env bash
# Ready to publish: `npm publish --dry-run` of bindings-wasm/pkg packs exactly the package's files
# and warns about nothing of the package's own; publint finds nothing (no error, warning or
# suggestion); @arethetypeswrong/cli (attw) on the packed tarball finds no problem for the main
# entry in every resolution (node10, node16 from CJS and from ESM, bundler) and for the
# ESM-only browser entry `xborder-wasm/web` in those that read ESM. publint and attw are
# installed into the test tool cache ($XBORDER_NODE_TOOLS) as tests/tools/setup.sh installs the
# other npm tools. Usage: publish.sh (after build.sh).
set -uo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PKG=$HERE/pkg
TARBALL=$ROOT/target/wasm-npm/xborder-wasm.tgz
: "${XBORDER_NODE_TOOLS:?source the env.sh of tests/tools/setup.sh}"

# npm_tool PKG SPEC: npm install PKG@SPEC into $XBORDER_NODE_TOOLS unless installed from the same
# SPEC (tests/tools/setup.sh's npm_tool; the stamp's name has no `/` for a scoped package).
npm_tool() {
  local pkg=$1 spec=$2 stamp=$XBORDER_NODE_TOOLS/.spec-${1//\//+}
  if [ -f "$XBORDER_NODE_TOOLS/node_modules/$pkg/package.json" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$spec" ]; then return 0; fi
  echo "publish: npm: installing $pkg@$spec into $XBORDER_NODE_TOOLS"
  npm install --prefix "$XBORDER_NODE_TOOLS" --no-audit --no-fund --loglevel=error "$pkg@$spec" >/dev/null && echo "$spec" > "$stamp"
}
npm_tool publint "${PUBLINT_VERSION:-0.3}" || exit 1
npm_tool @arethetypeswrong/cli "${ATTW_VERSION:-0.18}" || exit 1
BIN=$XBORDER_NODE_TOOLS/node_modules/.bin
fail=0
bad() { echo "publish: FAILED: $*"; fail=1; }

# npm publish --dry-run: the files, and no warning but the two that are not the package's (a user
# config of this machine npm does not know; no login, which a dry run does not need).
STDERR=$ROOT/target/wasm-npm/publish-dry-run.stderr
out=$(cd "$PKG" && npm publish --dry-run --json 2>"$STDERR")
err=$(grep -v -e 'Unknown user config' -e 'requires you to be logged in' "$STDERR" | grep -i 'warn\|err' || true)
[ -z "$err" ] || bad "npm publish --dry-run warned: $err"
files=$(node -e 'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); const p = j["xborder-wasm"] ?? j;
  console.log(p.files.map((f) => f.path).map((f) => f.replace(/snippets\/[^/]+\//, "snippets/*/")).sort().join(" "))' <<<"$out")
api=$(cd "$HERE/js/api" && ls ./*.js | sed 's|^\./|api/|' | tr '\n' ' ')
snip() { for f in "$HERE"/js/imports/*.js; do n=$(basename "$f"); case "$1:$n" in forms:envelope.js | forms:pagination.js) continue ;; esac; echo "$1/snippets/*/js/imports/$n"; done | tr '\n' ' '; }
want=$(echo "LICENSE-APACHE LICENSE-MIT README.md $api forms-node.mjs forms.d.ts forms.js $(snip forms) forms/xborder_wasm.js forms/xborder_wasm_bg.wasm index.cjs index.d.cts index.d.ts index.mjs node/api.cjs node/package.json $(snip node) node/xborder_wasm.js node/xborder_wasm_bg.wasm package.json web.d.ts web.js $(snip web) web/xborder_wasm.js web/xborder_wasm_bg.wasm" | tr ' ' '\n' | grep -v '^$' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')
[ "$files" = "$want" ] || bad "npm publish --dry-run packs: $files
  want: $want"
node -e '
  const p = require(process.argv[1]);
  const need = { name: "xborder-wasm", license: "MIT OR Apache-2.0", type: "module", sideEffects: false, engines: { node: ">=20" } };
  for (const [k, v] of Object.entries(need)) if (JSON.stringify(p[k]) !== JSON.stringify(v)) throw new Error(`package.json ${k}: ${JSON.stringify(p[k])}`);
  const e = p.exports["."];
  const ok = e.browser.default === "./web.js" && e.node.import.default === "./index.mjs" && e.node.require.default === "./index.cjs"
    && e.node.import.types === "./index.d.ts" && e.node.require.types === "./index.d.cts" && e.default.default === "./web.js";
  if (!ok) throw new Error("package.json exports: " + JSON.stringify(e));
  if (p.dependencies || p.devDependencies || p.peerDependencies) throw new Error("the package has no dependencies");
' "$PKG/package.json" || bad "package.json"
[ $fail = 0 ] && echo "publish: npm publish --dry-run: clean, $(wc -w <<<"$files") files (name, license, type, sideEffects, engines, exports for import/require/types/browser)"

# publint: nothing at all to say.
lint=$(cd "$PKG" && "$BIN/publint" --level suggestion --strict 2>&1); rc=$?
if [ $rc -ne 0 ] || grep -q -e 'Suggestions' -e 'Warnings' -e 'Errors' <<<"$lint"; then bad "publint (exit $rc):
$lint"; else echo "publint: $(tail -1 <<<"$lint")"; fi

# attw on the tarball the tests install: the main entry everywhere; the browser entry and the forms
# module (ESM only, as browsers and bundlers take them) where ESM is read. The two .wasm entries
# are files for a worker's bundler (no types to find) and are not checked.
"$BIN/attw" "$TARBALL" --format ascii --entrypoints . >"$ROOT/target/wasm-npm/attw.txt" 2>&1 \
  || bad "attw (xborder-wasm):
$(cat "$ROOT/target/wasm-npm/attw.txt")"
"$BIN/attw" "$TARBALL" --format ascii --entrypoints ./web ./forms --profile esm-only >>"$ROOT/target/wasm-npm/attw.txt" 2>&1 \
  || bad "attw (xborder-wasm/web, xborder-wasm/forms, ESM only):
$(cat "$ROOT/target/wasm-npm/attw.txt")"
[ $fail = 0 ] && echo "attw: no problems (xborder-wasm: node10, node16 CJS and ESM, bundler; xborder-wasm/web and xborder-wasm/forms: node16 ESM, bundler)"
exit $fail
