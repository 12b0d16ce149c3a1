"""``thresher expand HANDLE [--lines A-B]``: the archived original, byte-exact (or a line range)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str]) -> int:
    """Print the original of HANDLE; exit 1 when it is unknown."""
    ap = argparse.ArgumentParser(prog="thresher expand", description=__doc__)
    ap.add_argument("handle", help="the handle printed in a thresher footer")
    ap.add_argument("--lines", metavar="A-B", help="only lines A to B (1-based, inclusive)")
    args = ap.parse_args(argv)
    from thresher.dataflow.errors import ArchiveError
    from thresher.stores.archive import default_archive
    try:
        raw = default_archive().get(args.handle)
    except ArchiveError as exc:
        sys.stderr.write(f"thresher expand: {exc}\n")
        return 1
    if args.lines:
        try:
            a, _, b = args.lines.partition("-")
            start, end = int(a), int(b or a)
        except ValueError:
            sys.stderr.write(f"thresher expand: --lines wants A-B, got {args.lines!r}\n")
            return 2
        raw = b"".join(raw.splitlines(keepends=True)[max(start, 1) - 1:end])
    sys.stdout.buffer.write(raw)
    return 0
