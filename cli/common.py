"""Shared plumbing of the argparse-based subcommands: parse, run, report graph errors, exit 2."""

from __future__ import annotations

import sys


def run_command(prog: str, parser, argv: list[str], body) -> int:
    """Parse ``argv`` with ``parser`` and return ``body(args)``'s status.

    Bad arguments, a graph that does not load or validate, an unknown graph id or an unreadable
    file are reported on stderr (every graph error on its own line, naming file, line and node) and
    give exit status 2.
    """
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits; callers of main() expect a status instead
        return int(exc.code or 0)
    from thresher.dataflow.errors import GraphError, GraphErrors
    try:
        return body(args)
    except GraphErrors as exc:
        for e in exc.errors:
            print(e.render(), file=sys.stderr)
    except (GraphError, LookupError, OSError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
    return 2
