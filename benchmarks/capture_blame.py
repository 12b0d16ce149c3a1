"""Capture ``git blame`` fixtures (issue 16, mechanism 4) from real repositories with real history.

The repositories are the bare mirrors this machine holds under ``/work/.mirror`` (projects with
hundreds to thousands of commits by many authors); each case runs ``git blame HEAD -- FILE`` there
and records it as ``git blame FILE``. ``must_keep`` is every definition row, whole (prefix, number
and code), picked by a plain rule independent of the distiller: the code after ``N) `` starts
(after indentation and ``pub``/``async``) with ``def``, ``class``, ``fn``, ``struct``, ``enum``,
``impl`` or ``trait``. Mirrors that are missing are skipped. Usage: ``python benchmarks/capture_blame.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save

MIRRORS = "/work/.mirror"
CASES = (("git-blame-own-headroom-proxy", "headroomlabs-ai+headroom", "headroom/cli/proxy.py"),
         ("git-blame-own-leanctx-dispatch", "yvgude+lean-ctx", "rust/src/tools/ctx_read/dispatch.rs"),
         ("git-blame-own-omni-pipe", "fajarhide+omni", "src/hooks/pipe.rs"))
DEF = re.compile(r"\d\) \s*(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:def|class|fn|struct|enum|impl|trait)\b")


def main() -> None:
    for cid, mirror, path in CASES:
        repo = os.path.join(MIRRORS, mirror, "repo")
        if not os.path.isdir(repo):
            print(f"{mirror}: no mirror here, skipped", file=sys.stderr)
            continue
        p = subprocess.run(["git", f"--git-dir={repo}", "blame", "HEAD", "--", path],
                           capture_output=True)
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        facts = [s for s in out.splitlines() if DEF.search(s)]
        save({"id": cid, "class": "git", "command": f"git blame {path}", "exit_code": p.returncode,
              "stdout": out, "stderr": err, "must_keep": facts, "verbatim": False,
              "source": f"benchmarks/capture_blame.py: git blame of {path} in the {mirror} mirror"})


if __name__ == "__main__":
    main()
