"""Nothing below the command layer imports it: the folders here never name a module of cli/ (the
``thresher`` top package: ``thresher.cmd_gain``, ``thresher.cmd_run``, ...), neither in an import
statement nor as a module name in a string (``importlib.import_module("thresher.cmd_x")``).

Every package folder below cli/ is listed (DESIGN §1b: nothing below cli/ imports cli/)."""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..")
FOLDERS = ("bench", "boundary", "dataflow", "filters", "graphs", "integrations", "property", "shell",
           "stages", "stores", "viz")
NOT_AN_IMPORT = {(os.path.join("dataflow", "rxcache.py"), "thresher.main")}
"""A string naming a cli module that imports nothing: rxcache asks whether ``sys.modules`` holds
the command-line front (as in test_layering)."""
CLI = frozenset(name[:-3] for name in os.listdir(os.path.join(ROOT, "cli"))
                if name.endswith(".py") and name != "__init__.py")


def _names_a_cli_module(name: str) -> bool:
    parts = name.split(".")
    return parts[0] == "thresher" and (len(parts) == 1 or parts[1] in CLI)


def cli_references(path: str) -> list[str]:
    """``line: name`` of every import of a cli module (or of bare ``thresher``) in ``path``, and of
    every string constant that is such a module's dotted name."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if node.module != "thresher" else \
                [f"thresher.{a.name}" for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value.startswith("thresher.") and node.value.replace(".", "").replace("_", "").isalnum():
            names = [node.value]
        else:
            continue
        found += [(node.lineno, n) for n in names if _names_a_cli_module(n)]
    return [f"{line}: {n}" for line, n in sorted(found)]


def test_the_scan_sees_the_import_forms_it_forbids(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("from thresher.cmd_gain import _table\nfrom thresher import cmd_run\n"
                   "import thresher.media_image\nimport importlib\nimportlib.import_module('thresher.main')\n"
                   "from thresher.stores import report\nfrom . import tables\n")
    assert cli_references(str(src)) == ["1: thresher.cmd_gain", "2: thresher.cmd_run",
                                        "3: thresher.media_image", "5: thresher.main"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_folder_imports_no_cli_module(folder):
    found = []
    for base, dirs, files in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(base, name)
            rel = os.path.relpath(path, ROOT)
            found += [f"{rel}:{ref}" for ref in cli_references(path)
                      if (rel, ref.split(": ", 1)[1]) not in NOT_AN_IMPORT]
    assert not found, "below cli/, yet naming a cli module:\n" + "\n".join(found)
