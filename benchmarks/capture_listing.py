"""Capture listing fixtures: real ls, find, fd, tree and du over installed packages and system folders.

Package sources installed in this venv are copied into a temporary folder (short relative paths);
system folders (``/usr/lib/x86_64-linux-gnu``, ``/usr/bin``) are listed where they are. Each fixture
is a case in the corpus schema in tests/fixtures/, its facts picked from the real output by the
rule stated with the case. Needs ``tree`` and ``fdfind`` (Debian packages tree, fd-find).
Re-run with ``python benchmarks/capture_listing.py``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_search import case as search_case, copy_sources

SRC = "benchmarks/capture_listing.py"


def lines(text: str, rx: str) -> list[str]:
    """Every line of ``text`` matching ``rx``."""
    return [s for s in text.splitlines() if re.search(rx, s)]


def shallow(out: str, depth: int, n: int) -> list[str]:
    """The first ``n`` lines of ``out`` naming a path with at most ``depth`` slashes."""
    return [s for s in out.splitlines() if s.count("/") <= depth][:n]


def capture(tmp: str) -> None:
    """Every listing fixture."""
    cls = "listing"

    def case(*args, **kw):
        return search_case(*args, **kw, src=SRC)
    case(tmp, "listing-find-networkx", ["find", "networkx", "-name", "*.py"],
         lambda o, e: shallow(o, 1, 10), "find over networkx (~600 paths, 5 levels)", cls)
    case(tmp, "listing-find-perl-huge", ["find", "/usr/share/perl", "-type", "f"],
         lambda o, e: shallow(o, 4, 5) + shallow(o, 5, 8)[-3:], "find over the system's perl library "
         "(~1,200 files, 6 levels)", cls)
    case(tmp, "listing-tree-perl-huge", ["tree", "/usr/share/perl"],
         lambda o, e: lines(o, r"^\d+ directories, \d+ files$") + lines(o, r"^(?:│\xa0\xa0 )?[├└]── \S+$")[:12],
         "tree of the system's perl library (~1,400 entries)", cls)
    case(tmp, "listing-du-perl", ["du", "-ah", "/usr/share/perl"],
         lambda o, e: o.splitlines()[-1:], "du -ah: a row per file and folder (~1,400 rows)", cls)
    case(tmp, "listing-find-missing", ["find", "requests", "no-such-dir", "-name", "*.py"],
         lambda o, e: lines(e, r"No such file") + o.splitlines()[:3],
         "find with a missing start folder (exit 1)", cls)
    case(tmp, "listing-fd-networkx", ["fdfind", "-e", "py", ".", "networkx"],
         lambda o, e: shallow(o, 1, 10), "fd (fdfind) over networkx", cls)
    case(tmp, "listing-tree-pygments", ["tree", "pygments"],
         lambda o, e: lines(o, r"^\d+ directories, \d+ files$") + lines(o, r"^[├└]── \w+$")[:8],
         "tree of pygments (~350 entries)", cls)
    case(tmp, "listing-tree-ascii", ["tree", "--charset=ascii", "-L", "2", "networkx"],
         lambda o, e: lines(o, r"^\d+ directories, \d+ files$") + lines(o, r"^[|`]-- algorithms$"),
         "tree two levels deep with ASCII connectors", cls)
    case(tmp, "listing-du-networkx", ["du", "-h", "networkx"],
         lambda o, e: o.splitlines()[-1:], "du -h over networkx (a line per folder, largest folders)", cls)
    case(tmp, "listing-ls-laR", ["ls", "-laR", "_pytest"],
         lambda o, e: lines(o, r"^_pytest(?:/\w+)?:$") + lines(o, r"^total \d+$")[:3],
         "ls -laR: sections with totals", cls)
    case(tmp, "listing-ls-la-big", ["ls", "-la", "/usr/lib/x86_64-linux-gnu"],
         lambda o, e: lines(o, r"^total ") + lines(o, r"^d.* (?:gconv|perl-base)$"),
         "ls -la of a system folder with hundreds of entries", cls)
    case(tmp, "listing-ls-1-big", ["ls", "/usr/bin"],
         lambda o, e: o.splitlines()[:5], "plain ls of /usr/bin (one name per line when piped)", cls)
    case(tmp, "listing-ls-missing", ["ls", "-la", "no-such-dir"],
         lambda o, e: lines(e, r"^ls: "), "ls of a missing folder (exit 2)", cls)


def main() -> None:
    """Capture every listing fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        copy_sources(tmp)
        capture(tmp)
    print("listing fixtures written")


if __name__ == "__main__":
    main()
