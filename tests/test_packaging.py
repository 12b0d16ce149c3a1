"""Packaging: every subpackage folder ships, bare folder imports fail, the hot path stays light."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

ROOT = os.path.join(os.path.dirname(__file__), "..")


def _pyproject() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)


def test_every_package_folder_is_listed_for_the_wheel():
    tool = _pyproject()["tool"]["setuptools"]
    mapping = tool["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for root, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                rel = os.path.relpath(root, os.path.join(ROOT, folder))
                found.add(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    assert found == set(tool["packages"])


def test_bare_folder_names_are_not_importable():
    code = "import importlib,sys\nfor m in ('dataflow','stages','stores','viz','cli'):\n" \
           "    try:\n        importlib.import_module(m)\n    except ImportError:\n        continue\n" \
           "    sys.exit(f'bare import of {m} worked')\n"
    res = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_shipped_graphs_are_package_data():
    from importlib.resources import files
    names = {p.name for p in files("thresher.graphs").iterdir()}
    assert "generic.default.yaml" in names and "classify.yaml" in names


HEAVY = ("networkx", "pydantic", "yaml", "numpy", "rank_bm25")


def test_pipe_on_a_warm_cache_imports_no_control_plane_module():
    payload = ("collecting ...\n" + "tests/test_x.py::test_%d PASSED\n" * 1 + "x\n" * 300).encode()
    cmd = [sys.executable, "-X", "importtime", "-m", "thresher", "pipe", "--cmd", "pytest -v",
           "--exit-code", "1"]
    subprocess.run(cmd, input=payload, capture_output=True, check=True)  # warm the plan cache
    res = subprocess.run(cmd, input=payload, capture_output=True, check=True)
    imported = {line.split("|")[-1].strip().split(".")[0] for line in
                res.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "thresher" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert res.stdout  # it did emit something
