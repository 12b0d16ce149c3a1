"""Capture outputs of the classes issue 16's leads named, from sources no earlier fixture used, to
check the fixes for their class rather than for the case that showed them:

- ``git diff`` of a whole release over the previous one, for packages whose changes touch error
  handling (click, attrs, Jinja2 sdists from PyPI: the older release committed, the newer one
  unpacked over it): hunks naming an error are the ones to keep under the budget;
- C headers where an ``#ifdef`` or a macro leaves a typedef's declarators as a statement of
  names at file level (Tcl's internal header, glibc's ``bits/types.h``, FreeType, ncurses' C++
  ``etip.h``);
- manual pages that draw tables with rules of dashes (``ascii(7)``, ``enc2xs(1)``,
  ``fonts-conf(5)``): a rule is no option.

The facts follow rules fixed before thresher saw these outputs: for a diff, the rule of
``capture_listings_unseen.py`` (every distinct error line, content lines included, and the first,
middle and last ``diff --git`` header); for a header, every definition head universal-ctags
reports; for a man page, every section heading and the first option token of every indented line
(``capture_docsdata_unseen.py``). What is missing is skipped.
Usage: ``python benchmarks/capture_leads_unseen.py`` (needs git, ctags, man, pip and network).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_docsdata_unseen import case as doc_case, code_case, man_facts, run as doc_run
from capture_listings_unseen import Repo, case, copy_release, rule

SRC = "benchmarks/capture_leads_unseen.py"
DIFFS = (("click", "8.1.3", "8.1.8"), ("attrs", "22.2.0", "24.2.0"), ("jinja2", "3.1.2", "3.1.5"))
"""(package, older release, newer release) whose sdists make one repository and its diff."""
HEADERS = ("tcl8.6/tcl-private/generic/tclInt.h", "x86_64-linux-gnu/bits/types.h",
           "freetype2/freetype/ftoutln.h", "ncursesw/etip.h")
PAGES = (("ascii", "man -P cat ascii"), ("enc2xs", "man -P cat enc2xs"),
         ("fonts-conf", "man -P cat fonts-conf"))


def _sdist(pkg: str, version: str, into: str) -> str | None:
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"{pkg}=={version}", "-d", into], capture_output=True)
    found = [f for f in glob.glob(os.path.join(into, "*")) if version in os.path.basename(f)
             and f.endswith((".tar.gz", ".zip"))]
    return found[0] if found else None


def _unpack(sdist: str, dst: str) -> None:
    """Replace ``dst``'s files (``.git`` aside) with the sdist's tree."""
    with tempfile.TemporaryDirectory() as t:
        with tarfile.open(sdist) as tf:
            tf.extractall(t, filter="data")
        top = [os.path.join(t, d) for d in os.listdir(t)][0]
        for name in os.listdir(dst):
            if name != ".git":
                p = os.path.join(dst, name)
                shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        copy_release(top, dst)


def diff_cases(tmp: str) -> None:
    for pkg, old, new in DIFFS:
        sd = os.path.join(tmp, "sdists")
        os.makedirs(sd, exist_ok=True)
        a, b = _sdist(pkg, old, sd), _sdist(pkg, new, sd)
        if a is None or b is None:
            print(f"{pkg}: sdists not available, skipped", file=sys.stderr)
            continue
        repo = Repo(os.path.join(tmp, pkg))
        _unpack(a, repo.path)
        repo.commit(f"{pkg} {old}")
        _unpack(b, repo.path)
        code, out, err = repo.git("diff")
        rows = [s for s in out.splitlines() if s.startswith("diff --git")]
        case(f"unseen-git-diff-{pkg}-release", "git", "git diff", code, out, err, rule(out, err, rows),
             f"git diff of {pkg} {new} unpacked over {old} (PyPI sdists)")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        diff_cases(tmp)
    for rel in HEADERS:
        path = os.path.join("/usr/include", rel)
        if os.path.exists(path):
            name = os.path.basename(rel)[:-2].replace(".", "").replace("_", "-").lower()
            code_case("c-" + name, path, "Debian -dev package header", os.path.dirname(path))
    for tool, cmd in PAGES:
        out, _, code = doc_run(cmd)
        if code == 0 and out:
            doc_case("man-" + tool, "man", cmd, "/tmp", "Debian manual pages", man_facts(out))


if __name__ == "__main__":
    main()
