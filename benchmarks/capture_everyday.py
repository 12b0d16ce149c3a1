"""Capture issue-16 fixtures for everyday outputs: timings, content modes and big ``ls -l``.

- timings (collapse is a fallback): ``/usr/bin/time`` over repeated runs, ``vmstat``, ``openssl
  speed`` — lines that differ only in their numbers, which are the answer;
- content modes (a command-chosen filter must not fire): ``git show REV:path`` of a markdown
  file, ``unzip -p`` of a CSV member, ``tar -xO`` of a Python module — real files installed here
  (pyenv's python-build README, a numpy test CSV, pyparsing's helpers.py);
- big ``ls -la`` listings of system and package folders (rows are the answer).
Each fixture is a case in the corpus schema in tests/fixtures/, its facts picked from the real
output by the rule stated with the case. Re-run with ``python benchmarks/capture_everyday.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import sysconfig
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save
from capture_git import run

SRC = "benchmarks/capture_everyday.py"
SITE = sysconfig.get_path("purelib", vars={"base": sys.base_prefix, "platbase": sys.base_prefix})
"""The base interpreter's site-packages (numpy and pyparsing are installed there)."""
PYENV = os.path.expanduser("~/.pyenv")


def case(cwd: str, cid: str, shell: str, keep, note: str, cls: str) -> None:
    """Run ``shell`` with bash in ``cwd`` (stderr into stdout when it says ``2>&1``) and save it."""
    code, out, err = run(["bash", "-c", shell], cwd)
    save({"id": cid, "class": cls, "command": shell, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep(out), "verbatim": False, "source": f"{SRC}: {note}"})


def lines(text: str, rx: str, n: int | None = None) -> list[str]:
    """The first ``n`` (all) lines of ``text`` matching ``rx``."""
    return [s for s in text.splitlines() if re.search(rx, s)][:n]


def timings(tmp: str) -> None:
    """Repeated measurements: every row is a number the user asked for."""
    case(tmp, "everyday-time-runs-25",
         'for i in $(seq 25); do /usr/bin/time -f "run $i: %e s elapsed, %M KB max RSS" '
         'python3 -c "import json"; done 2>&1',
         lambda o: o.splitlines(), "25 timed runs of python3 (within budget: every row stays)", "timing")
    case(tmp, "everyday-vmstat-12", "vmstat 1 12", lambda o: o.splitlines(),
         "vmstat samples, one a second", "timing")
    case(tmp, "everyday-openssl-speed", "openssl speed -seconds 1 sha256 2>&1",
         lambda o: lines(o, r"^Doing |^sha256 "), "openssl speed: one line per block size", "timing")
    case(tmp, "everyday-time-runs-400",
         'for i in $(seq 400); do /usr/bin/time -f "run $i: %e s %M KB" true; done 2>&1',
         lambda o: o.splitlines()[:1], "400 timed runs (over budget: folded, what varied stated)",
         "timing")


def content_modes(tmp: str) -> None:
    """A file's text printed by git, unzip or tar goes to the file's own class graph."""
    repo = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(repo, "docs"))
    shutil.copy(os.path.join(PYENV, "plugins", "python-build", "README.md"),
                os.path.join(repo, "docs", "README.md"))
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@e",
                                                 "commit", "-qm", "docs"]):
        run(["git", *args], repo)
    case(repo, "everyday-git-show-rev-md", "git show HEAD:docs/README.md",
         lambda o: lines(o, r"^#{1,3} ", 12), "git show REV:path of pyenv's python-build README",
         "markdown")
    csv = os.path.join(SITE, "numpy", "random", "tests", "data", "pcg64-testset-1.csv")
    shutil.copy(csv, os.path.join(tmp, "pcg64.csv"))
    run(["zip", "-q", "data.zip", "pcg64.csv"], tmp)
    case(tmp, "everyday-unzip-p-csv", "unzip -p data.zip pcg64.csv",
         lambda o: o.splitlines()[:1], "unzip -p of a CSV member (numpy's pcg64 test set)", "csv")
    pkg = os.path.join(tmp, "pkg")
    os.makedirs(pkg)
    shutil.copy(os.path.join(SITE, "pyparsing", "helpers.py"), os.path.join(pkg, "helpers.py"))
    run(["tar", "-czf", "pkg.tgz", "pkg"], tmp)
    case(tmp, "everyday-tar-xO-py", "tar -xOzf pkg.tgz pkg/helpers.py",
         lambda o: lines(o, r"^def \w+\(", 15), "tar -xO of pyparsing's helpers.py", "code")


def listings(tmp: str) -> None:
    """Big ``ls -la`` listings: rows (at least the names) are the answer."""
    def names(o: str) -> list[str]:
        rows = [s for s in o.splitlines() if re.match(r"^[-dl]", s)]
        return [s.split(None, 8)[8].split(" -> ")[0] for s in rows[:: max(1, len(rows) // 12)]]
    for cid, path, note in (("everyday-ls-la-share-doc", "/usr/share/doc", "~760 package doc folders"),
                            ("everyday-ls-la-man3", "/usr/share/man/man3", "~2,400 manual pages"),
                            ("everyday-ls-la-site-packages", SITE, "a Python site-packages"),
                            ("everyday-ls-la-certs", "/etc/ssl/certs", "the CA certificates (symlinks)")):
        case(tmp, cid, f"ls -la {path}", lambda o: lines(o, r"^total ") + names(o),
             f"ls -la of {note} (facts: the total and names of every ~12th row)", "ls")


def main() -> None:
    """Capture every fixture of this script."""
    with tempfile.TemporaryDirectory() as tmp:
        timings(tmp)
        content_modes(tmp)
        listings(tmp)
    print("everyday fixtures written")


if __name__ == "__main__":
    main()
