"""No import cycle among xborder's own modules (issue 33): every module of the package's source
(bindings-uniffi/python/xborder/, or the directory given) is parsed with ``ast`` and every import
of another xborder module is an edge, wherever it is written (the top, a function body, an
``if TYPE_CHECKING:`` block); the test fails naming each cycle found. Also checks that it finds
a planted cycle, so a broken parser cannot pass it silently.

    python3 bindings-uniffi/python/tests/test_imports.py [PACKAGE_DIR]
"""

import ast
import os
import sys
import tempfile
from typing import Dict, List, Set

PACKAGE = "xborder"


def module_name(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)[: -len(".py")].split(os.sep)
    if rel[-1] == "__init__":
        rel = rel[:-1]
    return ".".join([PACKAGE] + rel)


def resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names."""
    if node.level == 0:
        return node.module or ""
    parts = current.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def graph(root: str) -> Dict[str, Set[str]]:
    """Module -> the xborder modules it imports."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                files[module_name(root, path)] = path
    edges: Dict[str, Set[str]] = {m: set() for m in files}
    for mod, path in files.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        is_package = path.endswith("__init__.py")
        for node in ast.walk(tree):
            targets: List[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = resolve(mod, is_package, node)
                # `from . import _kinds` imports the module _kinds; `from .claims import X` the
                # module claims (X may be a submodule too: both are looked up).
                subs = ["%s.%s" % (base, a.name) for a in node.names]
                targets = subs if node.module is None else [base] + subs
            for t in targets:
                while t and t not in files and "." in t:
                    t = t.rsplit(".", 1)[0]  # a name inside a module: the module
                if t in files and t != mod:
                    edges[mod].add(t)
    return edges


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a cycle path."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    found: List[List[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "xborder")
    root = os.path.abspath(root)
    # The checker finds a planted cycle (a.py <-> b.py, one of them inside a function).
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "pkg"))
        for name, text in (("__init__.py", ""), ("a.py", "from .b import x\n"),
                           ("b.py", "def f():\n    from . import a\n"), ("c.py", "from . import b\n")):
            with open(os.path.join(tmp, "pkg", name), "w", encoding="utf-8") as f:
                f.write(text)
        planted = cycles(graph(os.path.join(tmp, "pkg")))
        if planted != [["xborder.a", "xborder.b"]]:
            print("test_imports: the checker missed a planted cycle: %r" % (planted,))
            return 1
    edges = graph(root)
    if len(edges) < 10:
        print("test_imports: only %d modules found under %s" % (len(edges), root))
        return 1
    found = cycles(edges)
    for group in found:
        print("test_imports: an import cycle among %s" % ", ".join(group))
        for m in group:
            print("  %s imports %s" % (m, ", ".join(sorted(edges[m] & set(group)))))
    if found:
        return 1
    print("test_imports: %d modules of %s, %d imports among them, no cycle"
          % (len(edges), root, sum(len(e) for e in edges.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
