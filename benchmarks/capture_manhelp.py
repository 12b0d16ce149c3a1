"""Capture manual-page and ``--help`` fixtures (issue 16, mechanism 9) by running the real tools.

Each case runs ``man -P cat PAGE`` (``MANWIDTH=80``) or a tool's own ``--help`` on this machine and
writes ``tests/fixtures/<id>.json`` in the corpus schema. ``must_keep`` is every option line, picked
by a plain rule independent of the distiller: a line whose first non-blank character is ``-`` or
``+`` followed by a non-blank (``-a, --all``, ``-#``, ``-?``, ``+N``), or a ``-``/``--`` standing
alone before a column gap, at the indentation the page gives its option terms (5-7 spaces for man,
up to 8 for help), plus the section titles of a manual page. Tools missing here are skipped.
Usage: ``python benchmarks/capture_manhelp.py``.
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_docs import run, save

MAN_PAGES = ("tar", "ssh", "xargs", "python3")
HELPS = (("tar", "tar --help"), ("curl", "curl --help all"), ("node", "node --help"),
         ("wget", "wget --help"), ("python3", "python3 --help"))


def option_lines(text: str, indent: str) -> list[str]:
    """Every option line at the term indentation ``indent`` (a regex), right-stripped."""
    rx = re.compile(rf"^{indent}(?:[-+][^\s-]|--[^\s]|--?(?:\s{{2,}}|$))")
    return [line.rstrip() for line in text.split("\n") if rx.match(line)]


def man_cases() -> None:
    """Manual pages not used in fixtures before: section titles and every option line."""
    for page in MAN_PAGES:
        out, err, code = run(f"man -P cat {page}")
        if code != 0 or not out:
            print(f"man {page}: not installed, skipped", file=sys.stderr)
            continue
        facts = [line.rstrip() for line in out.split("\n") if re.match(r"^[A-Z][A-Z ]+$", line)]
        facts += option_lines(out, " {5,7}")
        save(f"man-own-{page}", "man", f"man -P cat {page}", out, err, code, facts,
             "Debian manual pages (benchmarks/capture_manhelp.py)")


def help_cases() -> None:
    """Tools' own help texts: every option line."""
    for name, cmd in HELPS:
        out, err, code = run(cmd)
        if code != 0 or not out:
            print(f"{cmd}: not available, skipped", file=sys.stderr)
            continue
        save(f"help-own-{name}", "man", cmd, out, err, code, option_lines(out, " {0,8}"),
             "the tool's own --help (benchmarks/capture_manhelp.py)")


if __name__ == "__main__":
    man_cases()
    help_cases()
