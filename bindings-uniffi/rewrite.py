"""The one way the build rewrites a file uniffi-bindgen generated (shared by python/harden.py,
python/lean.py and kotlin/lean.py): `python3 TOOL PATH` reads PATH; a file that already holds
the tool's marker is left alone (the build may run again over its own output); otherwise the
tool's transform returns the new text and a summary, and the file is rewritten. A transform that
cannot apply raises SystemExit, so the build fails instead of shipping a half-rewritten file.
"""
import sys


def rewrite(tool, marker, already, transform):
    """Runs `transform(text, path) -> (text, summary)` over the file named on the command line."""
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 %s path/to/generated-file" % tool)
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if marker in text:
        print("%s: %s %s" % (tool, path, already))
        return
    text, summary = transform(text, path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("%s: %s: %s" % (tool, path, summary))
