"""The shipped type stubs (xborder/__init__.pyi) against the installed module: every name they
type exists, with the same parameters (names, order, which have defaults), every field they
declare is one the module's records have, every enum lists the module's members; `py.typed`
ships beside them. Stubs that drifted from the module would mislead every type checker."""
import ast
import enum
import inspect
import os
import sys
import unittest

import xborder as x

PKG = os.path.dirname(x.__file__)
STUB = os.path.join(PKG, "__init__.pyi")
if not os.path.isfile(STUB):  # the module from dist/python (not installed): the source stubs
    STUB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "xborder.pyi")
# Names only the stubs have: type aliases and the protocol of an asyncio store.
TYPING_ONLY = {"Body", "JsonInput", "AsyncClaimStore", "__getattr__"}


def params(fn):
    """(name, kind, has default) of each parameter but self/cls."""
    sig = inspect.signature(fn)
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty)
            for p in sig.parameters.values() if p.name not in ("self", "cls")]


def stub_params(node):
    a = node.args
    out = []
    positional = a.posonlyargs + a.args
    first_default = len(positional) - len(a.defaults)
    for i, p in enumerate(positional):
        if p.arg in ("self", "cls"):
            continue
        out.append((p.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD, i >= first_default))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, inspect.Parameter.KEYWORD_ONLY, d is not None))
    return out


class Stubs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(STUB, encoding="utf-8") as f:
            cls.tree = ast.parse(f.read(), STUB)

    def test_installed_from_the_wheel(self):
        if os.environ.get("XBORDER_INSTALLED"):
            self.assertTrue(os.path.isfile(os.path.join(PKG, "py.typed")))
            self.assertEqual(STUB, os.path.join(PKG, "__init__.pyi"))
            self.assertTrue(x.__file__.startswith(sys.prefix), (x.__file__, sys.prefix))
            self.assertIn("site-packages", x.__file__)

    def test_the_wheel_tag_names_the_glibc_the_library_needs(self):
        """A manylinux_2_N tag: pip installs the wheel on any glibc >= 2.N and refuses it below,
        so N must be the newest GLIBC_2.x symbol version the library needs, no lower."""
        if not os.environ.get("XBORDER_INSTALLED"):
            self.skipTest("the module from dist/python, not an installed wheel")
        import importlib.metadata
        import re
        tags = [line.split(": ", 1)[1] for line in
                importlib.metadata.distribution("xborder").read_text("WHEEL").splitlines()
                if line.startswith("Tag: ")]
        self.assertEqual(len(tags), 1, tags)
        lib = [n for n in os.listdir(PKG) if n.startswith("libxborder_ffi.")]
        with open(os.path.join(PKG, lib[0]), "rb") as f:
            needed = max(int(v) for v in re.findall(rb"GLIBC_2\.(\d+)(?![\d.])", f.read()))
        m = re.fullmatch(r"py3-none-manylinux_2_(\d+)_x86_64", tags[0])
        self.assertIsNotNone(m, tags[0])
        self.assertEqual(int(m.group(1)), needed, tags[0])

    def check_function(self, node, runtime, where):
        got = params(runtime)
        want = stub_params(node)
        if [p[0] for p in got] != [p[0] for p in want]:
            self.fail("%s: stub parameters %s, module %s" % (where, want, got))
        for (name, kind, dflt), (_, skind, sdflt) in zip(got, want):
            self.assertEqual((dflt, kind == inspect.Parameter.KEYWORD_ONLY),
                             (sdflt, skind == inspect.Parameter.KEYWORD_ONLY), "%s(%s)" % (where, name))

    def check_class(self, node, runtime, where):
        if issubclass(runtime, enum.Enum):
            stub_members = [t.targets[0].id for t in node.body if isinstance(t, ast.Assign)]
            self.assertEqual(stub_members, [m.name for m in runtime], where)
        fields = set()
        if runtime.__init__ is not object.__init__ and not issubclass(runtime, (enum.Enum, BaseException)):
            fields = {p[0] for p in params(runtime.__init__)}
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if issubclass(runtime, BaseException) and not hasattr(runtime, item.name):
                    # Typed on the base, defined on each variant (every raised error is one).
                    variants = [v for v in vars(runtime).values()
                                if isinstance(v, type) and issubclass(v, runtime)]
                    self.assertTrue(variants, where)
                    for v in variants:
                        self.check_function(item, getattr(v, item.name), "%s.%s" % (v.__qualname__, item.name))
                    continue
                self.assertTrue(hasattr(runtime, item.name), "%s.%s" % (where, item.name))
                attr = getattr(runtime, item.name)
                if isinstance(attr, property) or isinstance(inspect.getattr_static(runtime, item.name), property):
                    continue
                self.check_function(item, attr, "%s.%s" % (where, item.name))
            elif isinstance(item, ast.AnnAssign) and not issubclass(runtime, BaseException):
                name = item.target.id
                self.assertTrue(name in fields or hasattr(runtime, name),
                                "%s.%s is not a field of the module's %s" % (where, name, where))
            elif isinstance(item, ast.ClassDef):
                self.assertTrue(hasattr(runtime, item.name), "%s.%s" % (where, item.name))
                self.check_class(item, getattr(runtime, item.name), "%s.%s" % (where, item.name))

    def test_every_stubbed_name_matches_the_module(self):
        checked = 0
        for node in self.tree.body:
            name = getattr(node, "name", None)
            if name is None or name in TYPING_ONLY:
                continue
            with self.subTest(name=name):
                self.assertTrue(hasattr(x, name), "the stubs type %s, the module has none" % name)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.check_function(node, getattr(x, name), name)
                    self.assertEqual(isinstance(node, ast.AsyncFunctionDef),
                                     inspect.iscoroutinefunction(getattr(x, name)), name)
                elif isinstance(node, ast.ClassDef):
                    self.check_class(node, getattr(x, name), name)
                checked += 1
        self.assertGreaterEqual(checked, 30)

    def test_the_main_entry_points_are_typed(self):
        typed = {getattr(n, "name", None) for n in self.tree.body}
        for name in ("Receiver", "Decision", "verify", "sign", "validate_beneficiary", "Claims",
                     "ClaimStore", "Catalog", "PageWalker", "ClaimTask", "claim_step_async",
                     "XborderError", "list_query", "page_info", "BeneficiaryValidator", "Issue",
                     "IssueCode", "required_fields", "Drift", "WalkStep"):
            self.assertIn(name, typed)


if __name__ == "__main__":
    unittest.main(verbosity=1)
