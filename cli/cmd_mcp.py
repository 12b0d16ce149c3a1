"""``thresher mcp``: the MCP server over stdio (needs the ``mcp`` extra).

usage: thresher mcp [--root DIR]... [--allow-run all|PROG[,PROG...]] [--run-timeout S] [--tokens]

Tools: thresher_read (path, mode, lines), thresher_expand (handle, lines, grep), thresher_gain
(days), and thresher_run (command) only with --allow-run. Register it with a host, e.g. for
Claude Code: ``claude mcp add thresher -- thresher mcp``.

  --root DIR         where thresher_read may read when the client declares no MCP roots
                     (repeatable; default: the folder the server starts in, unless that is / or ~).
                     Roots the client declares always win. Only regular files under a root, up
                     to 8 MiB; /proc, /sys and /dev never.
  --allow-run all    offer thresher_run for any shell line (run as you, in the server's folder
                     and environment);
  --allow-run git,pytest
                     offer it only for lines made of these programs (no substitutions, compound
                     commands, NAME=value prefixes or redirections to files). Default: not offered.
  --run-timeout S    end a thresher_run line (its whole process group) after S seconds
                     (default 120). Background jobs are not waited for.
  --tokens           print the standing cost of the tool list and instructions (what the host
                     adds to every request) instead of serving.

With THRESHER_OFF=mcp (or the master switch THRESHER_DISABLE=1) in its environment the server
refuses to start (exit 1, one line on stderr).
"""

from __future__ import annotations

import argparse
import sys


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like the other commands
        sys.stderr.write(f"thresher mcp: {message}; see thresher mcp --help\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="thresher mcp", add_help=False)
    ap.add_argument("--root", action="append", default=[])
    ap.add_argument("--allow-run", action="append", default=[])
    ap.add_argument("--run-timeout", type=float, default=None)
    ap.add_argument("--tokens", action="store_true")
    return ap


def config_from(argv: list[str]):
    """The server's :class:`~thresher.integrations.mcp_server.Config` (SystemExit(2) when bad)."""
    import os
    from thresher.integrations.mcp_run import DEFAULT_TIMEOUT_S, RunPolicy, parse_allow
    from thresher.integrations.mcp_server import Config
    args = _parser().parse_args(argv)
    try:
        allow = parse_allow(args.allow_run)
    except ValueError as exc:
        _parser().error(str(exc))
    timeout = DEFAULT_TIMEOUT_S if args.run_timeout is None else args.run_timeout
    if not 0 < timeout <= 3600:
        _parser().error("--run-timeout must be between 0 and 3600 seconds")
    for root in args.root:
        if not os.path.isdir(root):
            _parser().error(f"--root {root}: not a folder")
    return Config(roots=args.root, run=RunPolicy(allow, timeout)), args.tokens


def main(argv: list[str]) -> int:
    """Serve, or print the tool surface's token size."""
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__.split("\n", 1)[1].lstrip() + "\n")
        return 0
    try:
        config, tokens = config_from(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from thresher.boundary import switches
    if not tokens and switches.off("mcp"):
        sys.stderr.write("thresher mcp: switched off (THRESHER_OFF=mcp or THRESHER_DISABLE=1 in "
                         "the server's environment); unset it to serve\n")
        return 1
    try:
        from thresher.integrations import mcp_server
        if tokens:
            size = mcp_server.surface_tokens(mcp_server.build(config))
            exact = f", {size['cl100k']} cl100k" if size["cl100k"] is not None else ""
            print(f"thresher mcp: {size['tools']} tools + instructions = "
                  f"{size['estimate']} tokens (estimate){exact}")
            return 0
        mcp_server.serve(config)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("mcp", "mcp_types"):
            raise
        sys.stderr.write("thresher mcp: the MCP SDK is not installed: pip install 'thresher[mcp]'\n")
        return 1
    return 0
