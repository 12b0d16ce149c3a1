"""``thresher trust PATH...``: trust a project's filter files by content hash (also --list, --revoke).

The file's bytes are read once, validated and hashed (blake3); the hash and the absolute path go
to ``$THRESHER_CONFIG_HOME/trusted-filters``. The engine loads a project filter file only while its
current bytes hash to the recorded value: after any edit, trust it again.
"""

from __future__ import annotations

import argparse
import os
import sys

DESCRIPTION = """Trust project filter files (.thresher/filters.yaml, .thresher/filters/*) so that
thresher applies them. A project's filters are written by whoever wrote the repository: thresher
ignores them (with one warning line on stderr) until you have read them and trusted their exact
content. Trust is by content hash: an edited file is ignored again until re-trusted."""

EPILOG = """examples:
  thresher trust .thresher/filters.yaml
  thresher trust --list
  thresher trust --revoke .thresher/filters.yaml"""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher trust", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", metavar="PATH", help="filter files to trust as they are now")
    ap.add_argument("--list", action="store_true", help="show trusted files and whether they changed")
    ap.add_argument("--revoke", metavar="PATH", action="append", default=[],
                    help="forget the trust of PATH (repeatable)")
    return ap


def _show() -> int:
    from thresher.filters import trust
    records = trust.load()
    if not records:
        print(f"nothing trusted ({trust.trust_path()})")
    for path, h in sorted(records.items()):
        try:
            with open(path, "rb") as fh:
                state = "trusted" if trust.digest(fh.read()) == h else "CHANGED since trusted"
        except OSError:
            state = "missing"
        print(f"{h[:16]}  {state:<21}  {path}")
    return 0


def _trust(paths: list[str]) -> int:
    from thresher.filters import trust
    from thresher.filters.load import FilterErrors, parse
    status = 0
    for path in paths:
        with open(path, "rb") as fh:
            data = fh.read()  # read once: what is validated is what is hashed
        try:
            n = len(parse(path, data))
        except FilterErrors as exc:
            for err in exc.errors:
                print(err.render(), file=sys.stderr)
            print(f"thresher trust: {path} not trusted: fix the errors above first", file=sys.stderr)
            status = 2
            continue
        h = trust.record(path, data)
        print(f"trusted {os.path.abspath(path)} ({n} filter{'s' if n != 1 else ''}, blake3 {h[:16]})")
    return status


def _run(args) -> int:
    from thresher.filters import trust
    if not (args.paths or args.list or args.revoke):
        _parser().print_usage(sys.stderr)
        print("thresher trust: name a PATH to trust, or use --list / --revoke PATH", file=sys.stderr)
        return 2
    status = _trust(args.paths) if args.paths else 0
    for path in args.revoke:
        if trust.revoke(path):
            print(f"revoked {os.path.abspath(path)}")
        else:
            print(f"thresher trust: {path} was not trusted", file=sys.stderr)
            status = status or 1
    if args.list:
        _show()
    return status


def main(argv: list[str]) -> int:
    """Entry point of ``thresher trust``."""
    from thresher.common import run_command
    return run_command("thresher trust", _parser(), argv, _run)
