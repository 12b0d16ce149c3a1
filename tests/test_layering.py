"""The layering of DESIGN §1b, checked on the source: dataflow/ imports nothing else of ours.

The engine is handed what it needs from the rest of thresher (the stage registry, the filter
loader, the code files its plans depend on: ``thresher.dataflow.shapes.Services``) by the
composition root ``thresher.boundary.wiring``; it must not reach for them itself — neither with an
import statement nor by naming a module of ours in a string (``importlib.import_module("thresher.
stages.registry")`` is the same arrow, hidden). The walk is over the syntax tree, so a docstring
or comment that names a module is fine.
"""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..")
ENGINE = "dataflow"
OURS = ("boundary", "bench", "cli", "filters", "graphs", "integrations", "property", "shell",
        "stages", "stores", "viz")
"""The other folders of the repository that are packages of ours (``thresher.<name>``, or a bare
folder import that works only by accident from the repository root)."""

NOT_AN_IMPORT = {("rxcache.py", "thresher.main")}
"""Strings naming a module of ours that import nothing: rxcache asks whether ``sys.modules`` holds
the command-line front (only a thresher command serves ``re`` from the regex table)."""


def _files(folder: str) -> list[str]:
    base = os.path.join(ROOT, folder)
    return sorted(os.path.join(d, n) for d, _, names in os.walk(base) for n in names
                  if n.endswith(".py"))


def _ours(module: str) -> bool:
    """True when ``module`` (an absolute dotted name) is a package of ours other than the engine."""
    parts = module.split(".")
    if parts[0] == "thresher":
        return len(parts) == 1 or parts[1] != ENGINE
    return parts[0] in OURS


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the string constants that are docstrings (of the module, classes and functions) or
    bare string statements (attribute docs)."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def arrows(path: str) -> list[str]:
    """Every import or module-naming string in ``path`` that points at a package of ours outside
    the engine, as ``file:line: what``."""
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    tree = ast.parse(source, path)
    name, docs, found = os.path.basename(path), _docstrings(tree), []
    for node in ast.walk(tree):
        bad: list[str] = []
        if isinstance(node, ast.Import):
            bad = [a.name for a in node.names if _ours(a.name)]
        elif isinstance(node, ast.ImportFrom):
            if node.level >= 2:
                bad = [f"{'.' * node.level}{node.module or ''}"]   # above thresher.dataflow
            elif node.level == 0 and node.module:
                if node.module == "thresher":
                    bad = [f"thresher.{a.name}" for a in node.names if a.name != ENGINE]
                elif _ours(node.module):
                    bad = [node.module]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value.split(":")[0]
            if text.startswith("thresher.") and text.replace(".", "").replace("_", "").isalnum() \
                    and _ours(text) and (name, text) not in NOT_AN_IMPORT:
                bad = [repr(node.value)]
        found += [f"{os.path.relpath(path, ROOT)}:{node.lineno}: {b}" for b in bad]
    return found


def test_dataflow_imports_nothing_else_of_ours():
    found = [a for path in _files(ENGINE) for a in arrows(path)]
    assert not found, "dataflow/ must be handed these (thresher.boundary.wiring), not import " \
                      "them:\n" + "\n".join(found)


@pytest.mark.parametrize("source, expected", [
    ("import thresher.stages.registry\n", ["thresher.stages.registry"]),
    ("from thresher.filters import runtime\n", ["thresher.filters"]),
    ("from thresher import stages\n", ["thresher.stages"]),
    ("from .. import stores\n", [".."]),
    ("import stages.registry\n", ["stages.registry"]),
    ("import importlib\nREG = 'thresher.stages.registry'\nimportlib.import_module(REG)\n",
     ["'thresher.stages.registry'"]),
    ("__import__('thresher.filters.runtime')\n", ["'thresher.filters.runtime'"]),
    ("IMPL = 'thresher.stages.emit.route:run'\n", ["'thresher.stages.emit.route:run'"]),
    ('"""Names thresher.stages.registry in prose."""\nfrom . import payload\n'
     "from thresher.dataflow import plan\nimport thresher.dataflow.api\nX = 'thresher. '\n", []),
])
def test_the_walk_sees_imports_and_module_strings(tmp_path, source, expected):
    path = tmp_path / "mod.py"
    path.write_text(source)
    assert [a.split(": ", 1)[1] for a in arrows(str(path))] == expected


def test_the_composition_root_is_wired_by_the_package_and_lives_outside_the_engine():
    """The faces hand the engine its services; a warm start does not import them (see
    test_packaging's start-up tests), a compile does."""
    import thresher.dataflow as dataflow
    from thresher.boundary.wiring import WIRING
    services = dataflow.wired()
    assert services is WIRING
    assert "registry.py" in " ".join(services.code_files())
    assert "read" in services.stages()


BELOW_THE_BOUNDARY = {folder: ("dataflow", folder) for folder in ("filters", "shell", "stores", "viz")}
"""Folders under the composition root and what of ours they may import (DESIGN §1b, the
architecture page): the stores are handed to the engine by the boundary, never the reverse; the
filter stage uses the filter engine, never the other way round (what the engine shares with the
stages — the error scan, escape sequences — lives in dataflow/)."""


def _imported_packages(path: str) -> list[tuple[int, str]]:
    """``(line, package)`` for every absolute import of ``thresher.<package>`` in ``path``."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{a.name}" if node.module == "thresher" else node.module
                     for a in node.names]
        else:
            continue
        found += [(node.lineno, n.split(".")[1] if "." in n else n) for n in names
                  if n.split(".")[0] == "thresher"]
    return found


@pytest.mark.parametrize("folder", sorted(BELOW_THE_BOUNDARY))
def test_a_folder_below_the_boundary_imports_only_what_lies_below(folder):
    allowed = BELOW_THE_BOUNDARY[folder]
    found = [f"{os.path.relpath(path, ROOT)}:{line}: thresher.{pkg}" for path in _files(folder)
             for line, pkg in _imported_packages(path) if pkg not in allowed]
    assert not found, f"{folder}/ imports above itself:\n" + "\n".join(found)


BOUNDARY_MAY_NOT = ("integrations", "bench")  # (and no cli module: test_layers_below_cli.py)
"""The composition root sits under the faces: what the hook, MCP and the commands share lives in
boundary/ (switches, deliver(), the measure-first rollout, digests), never the other way round."""


def test_the_boundary_imports_no_face():
    found = [f"{os.path.relpath(path, ROOT)}:{line}: thresher.{pkg}" for path in _files("boundary")
             for line, pkg in _imported_packages(path) if pkg in BOUNDARY_MAY_NOT]
    assert not found, "boundary/ imports a face:\n" + "\n".join(found)
