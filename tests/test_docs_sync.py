"""CONTRIBUTING.md and docs/architecture.md name real files: every path they mention exists, and
the architecture page names every package folder and every stage folder (issue 17 §6)."""

from __future__ import annotations

import os
import re
import tomllib

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))
DOCS = ("CONTRIBUTING.md", "docs/architecture.md")
PATH_RE = re.compile(r"(?<![\w./~<>*-])((?:[\w.-]+/)+[\w.-]*)")
"""A repository path as the pages write it: `dataflow/executor.py`, `stages/runners/`."""


def paths(text: str) -> set[str]:
    """The repository paths ``text`` names (not ``../`` ones, placeholders or URLs)."""
    out = set()
    for m in PATH_RE.finditer(text):
        path, after = m.group(1), text[m.end():m.end() + 1]
        if path.startswith("../") or after in "<*" or "://" in text[m.start() - 3:m.end()]:
            continue
        path = path.rstrip(".")
        if re.search(r"(?:/|\.(?:py|md|ya?ml|json|toml))$", path) or path.startswith(".ci/"):
            out.add(path)
    return out


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_a_page_names_exists(doc):
    with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
        named = paths(fh.read())
    assert len(named) > 10
    missing = sorted(p for p in named if not os.path.exists(os.path.join(ROOT, p)))
    assert not missing, f"{doc} names files that do not exist: {missing}"


def test_the_architecture_page_names_every_folder():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as fh:
        text = fh.read()
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        dirs = tomllib.load(fh)["tool"]["setuptools"]["package-dir"]
    folders = {d for d in dirs.values() if "/" not in d}
    folders |= {f"stages/{e.name}" for e in os.scandir(os.path.join(ROOT, "stages"))
                if e.is_dir() and not e.name.startswith("_")}
    missing = sorted(f for f in folders if f"`{f}/`" not in text)
    assert not missing, f"docs/architecture.md does not name {missing}"


def test_the_path_scan_sees_paths_and_skips_placeholders():
    text = ("`dataflow/executor.py` and stages/runners/ (see `../shared/corpus`, `.ci/lint`, "
            "`graphs/<class>.<role>.yaml`, stages/<family>/*.py, https://example.invalid/a/b.py, "
            "head/tail, CSV/TSV)")
    assert paths(text) == {"dataflow/executor.py", "stages/runners/", ".ci/lint"}
