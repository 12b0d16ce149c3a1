"""Capture search fixtures: real grep, rg and git grep over installed packages' sources.

The sources of packages installed in this venv (``_pytest``, ``requests``, ``networkx``,
``pygments``) are copied into a temporary folder so the outputs carry short relative paths; each
fixture is a case in the corpus schema in tests/fixtures/, its facts (``must_keep``) picked from the
real output by the rule stated with the case. Needs ``rg`` (Debian package ripgrep). Re-run with
``python benchmarks/capture_search.py``.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save
from capture_git import run

SRC = "benchmarks/capture_search.py"
PACKAGES = ("_pytest", "requests", "networkx", "pygments")


def copy_sources(tmp: str) -> None:
    """Copy the installed packages (without caches) into ``tmp``."""
    for name in PACKAGES:
        pkg = os.path.dirname(importlib.import_module(name).__file__)
        shutil.copytree(pkg, os.path.join(tmp, name), ignore=shutil.ignore_patterns("__pycache__"))


def first_per_file(out: str, files: int) -> list[str]:
    """The first ``path:N:`` match line of each of the first ``files`` files in the output."""
    seen, keep = set(), []
    for line in out.splitlines():
        m = re.match(r"^([^:]+):\d+:", line)
        if m and m[1] not in seen and len(seen) < files:
            seen.add(m[1])
            keep.append(line)
    return keep


def case(tmp: str, cid: str, cmd: list[str], keep, note: str, cls: str = "search",
         src: str = SRC) -> None:
    """Run ``cmd`` in ``tmp`` and save it as fixture ``cid``; ``keep(out, err)`` picks the facts."""
    code, out, err = run(cmd, tmp)
    save({"id": cid, "class": cls, "command": " ".join(_quote(a) for a in cmd), "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": keep(out, err), "verbatim": False,
          "source": f"{src}: {note}"})


def _quote(arg: str) -> str:
    return f'"{arg}"' if re.search(r"[\s*()\\|$]", arg) else arg


def capture(tmp: str) -> None:
    """Every search fixture."""
    lines = lambda text, rx: [s for s in text.splitlines() if re.search(rx, s)]  # noqa: E731
    case(tmp, "search-rg-def-huge", ["rg", "-n", "def ", "_pytest"],
         lambda o, e: first_per_file(o, 12), "every def in _pytest (~2,000 matches in ~70 files)")
    case(tmp, "search-grep-context", ["grep", "-rn", "-C", "2", "raise ", "requests"],
         lambda o, e: first_per_file(o, 5), "grep with two lines of context around every raise")
    case(tmp, "search-rg-heading", ["rg", "--heading", "-n", "import", "_pytest"],
         lambda o, e: lines(o, r"^_pytest/\w+\.py$")[:10], "rg --heading: path lines, then N:content")
    case(tmp, "search-grep-missing-path", ["grep", "-rn", "Session", "requests", "no-such-dir"],
         lambda o, e: lines(e, r"No such file") + first_per_file(o, 3),
         "grep over a real folder and a missing one (exit 2, matches and an error)")
    case(tmp, "search-rg-files-huge", ["rg", "--files", "networkx"],
         lambda o, e: sorted(o.splitlines(), key=lambda s: (s.count("/"), s))[:8],
         "rg --files: ~600 paths of networkx")
    case(tmp, "search-grep-single-file", ["grep", "-n", "self", "requests/sessions.py"],
         lambda o, e: o.splitlines()[:5], "grep -n in one file: N:content lines")
    case(tmp, "search-rg-long-lines", ["rg", "-n", "= '", "pygments/unistring.py"],
         lambda o, e: [s[:24] for s in o.splitlines()[:6]], "rg matching lines of several KB each")
    case(tmp, "search-grep-no-match", ["grep", "-rn", "zzqqxxnotthere", "requests"],
         lambda o, e: [], "grep without a match (exit 1, empty)")
    run(["git", "init", "-q"], tmp)
    run(["git", "add", "_pytest"], tmp)
    case(tmp, "search-git-grep", ["git", "grep", "-n", "pytest.fixture", "--", "_pytest"],
         lambda o, e: first_per_file(o, 8), "git grep in a repository of _pytest's source")


def main() -> None:
    """Capture every search fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        copy_sources(tmp)
        capture(tmp)
    print("search fixtures written")


if __name__ == "__main__":
    main()
