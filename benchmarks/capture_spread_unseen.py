"""Capture long enumerations of sources no other fixture uses, cut by the class budgets (issue 16 §5).

Sources: the installed sdist-free source of ``dask`` (PyPI, in this checkout's venv), this machine's
``/usr/lib/x86_64-linux-gnu``, ``/usr/share/doc`` and Debian package list. Facts are picked by the
rule of ``capture_listings_unseen.py`` (summaries, distinct error lines, first/middle/last row,
named rows), fixed before thresher saw the outputs. Re-run with
``python benchmarks/capture_spread_unseen.py`` from the project root after ``pip install dask``.
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save
from capture_listings_unseen import rule, run

SRC = "benchmarks/capture_spread_unseen.py"


def main() -> None:
    import dask
    site = os.path.dirname(os.path.dirname(dask.__file__))
    long_row = r"^[-dlcbps][rwx-]{9}"
    cases = [
        ("unseen-grep-rn-def-dask", "search", "grep -rn --include='*.py' 'def ' dask", site, r"^\S+:\d+:",
         (r"def compute\(", r"def from_array\("), "grep -rn over dask's sources (~9,000 matches)"),
        ("unseen-grep-rn-import-dask", "search", "grep -rn --include='*.py' '^from \\|^import ' dask", site,
         r"^\S+:\d+:", (r"dask/array/core\.py:\d+:", r"dask/bag/core\.py:\d+:"),
         "grep -rn of every import line of dask (~3,400 matches)"),
        ("unseen-ls-la-lib-multiarch", "ls", "ls -la /usr/lib/x86_64-linux-gnu", "/", long_row,
         (r" libc\.so\.6 ", r" libssl\.so\.3$", r" perl5$"), "ls -la of the multiarch library dir (~1,100 rows)"),
        ("unseen-find-doc-copyright", "find", "find /usr/share/doc -name copyright", "/", r"^/",
         (r"/git/copyright$", r"/nginx/copyright$"), "find of every package's copyright file (~700 paths)"),
        ("unseen-dpkg-l-lib", "apt", "dpkg -l 'lib*'", "/", r"^[a-z][a-z] ", (r"^ii  libc6:", r"^ii  libssl3:"),
         "dpkg -l of the lib* packages"),
    ]
    for cid, cls, cmd, cwd, rows_rx, named, note in cases:
        code, out, err = run(cmd, cwd, shell=True)
        rows = [s for s in out.splitlines() if re.search(rows_rx, s)]
        save({"id": cid, "class": cls, "command": cmd, "exit_code": code, "stdout": out, "stderr": err,
              "must_keep": rule(out, err, rows, named), "verbatim": False, "source": f"{SRC}: {note}"})
    print("spread fixtures written")


if __name__ == "__main__":
    main()
