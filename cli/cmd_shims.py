"""``thresher shims install DIR [TOOLS...]`` / ``thresher shims remove DIR``: PATH shims.

For agent hosts without hooks: put DIR first on the agent's PATH and every listed tool (default:
git cargo pytest npm pnpm yarn go make tsc eslint ruff mypy docker kubectl) runs through
``thresher run``. Each shim finds the real program on PATH at run time, skipping DIR and any other
thresher shim; a tool started by a shimmed tool runs untouched (its output is shrunk once, as part
of the outer one). ``THRESHER_RAW=1 git ...`` bypasses thresher for one command. A shim cannot tell
a pipe to another program from the agent reading (`git log | head` gets the shrunk log): prefer
hooks (``thresher init claude``) where the host has them. ``remove`` deletes only thresher shims.
"""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher shims", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True)
    inst = sub.add_parser("install", help="write shims into DIR")
    inst.add_argument("dir")
    inst.add_argument("tools", nargs="*", help="command names (default: the common dev tools)")
    rem = sub.add_parser("remove", help="delete the thresher shims in DIR")
    rem.add_argument("dir")
    return ap


def main(argv: list[str]) -> int:
    """Install or remove shims."""
    from thresher.common import run_command
    return run_command("thresher shims", _parser(), argv, _run)


def _run(args) -> int:
    from thresher.integrations import shims
    try:
        if args.action == "install":
            paths = shims.install(args.dir, args.tools or None)
            print(f"thresher shims: wrote {len(paths)} shims in {args.dir}: "
                  + " ".join(p.rsplit('/', 1)[-1] for p in paths))
            print(f'thresher shims: put it first on the agent\'s PATH: export PATH="{args.dir}:$PATH"')
        else:
            gone = shims.remove(args.dir)
            print(f"thresher shims: removed {len(gone)} shims from {args.dir}")
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"thresher shims: {exc}\n")
        return 1
    return 0
