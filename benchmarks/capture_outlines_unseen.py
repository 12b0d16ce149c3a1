"""Capture C headers and manual pages no earlier fixture used, to check issue 16 §6 and §9 on
outputs thresher was not tuned on: typedefs are declarations (struct, enum and function-pointer
typedefs, under ``#ifdef`` too) and every option of a man page keeps its line (sub-options and
examples an option-like token leads under an option's entry included).

The facts follow the rules of ``capture_docsdata_unseen.py`` (fixed there before thresher saw
these outputs): for a header, every definition head universal-ctags reports (prototypes, structs,
enums, unions, typedefs); for a man page or ``--help``, every section heading and the first
option-like token of every indented line. Headers and pages missing here are skipped.
Usage: ``python benchmarks/capture_outlines_unseen.py`` (needs ctags, man).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_docsdata_unseen import case, code_case, man_facts, run

HEADERS = ("xcb/xproto.h", "X11/Xlib.h", "nss/pkcs11t.h", "tcl8.6/tk.h", "GL/glcorearb.h")
"""Long headers of Debian -dev packages, dense in typedefs (X11, NSS, Tk, OpenGL, XCB)."""
PAGES = (("top", "man -P cat top"), ("gpg", "man -P cat gpg"), ("tmux", "man -P cat tmux"),
         ("zip", "man -P cat zip"), ("dpkg", "dpkg --help"), ("ps", "ps --help all"))


def main() -> None:
    for rel in HEADERS:
        path = os.path.join("/usr/include", rel)
        if not os.path.exists(path):
            print(f"{rel}: not installed, skipped", file=sys.stderr)
            continue
        name = os.path.basename(rel)[:-2].replace(".", "").lower()
        code_case("c-" + name, path, "Debian -dev package header", os.path.dirname(path))
    for tool, cmd in PAGES:
        out, _, code = run(cmd)
        if code or not out:
            print(f"{cmd}: not available, skipped", file=sys.stderr)
            continue
        case(("man-" if cmd.startswith("man") else "help-") + tool, "man", cmd, "/tmp",
             "Debian manual pages" if cmd.startswith("man") else "the tool's own help",
             man_facts(out))


if __name__ == "__main__":
    main()
