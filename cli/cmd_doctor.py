"""``thresher doctor [--project DIR] [--no-mcp]``: check the install end to end.

Checks the Claude Code hooks in ~/.claude/settings.json and DIR/.claude/settings.json (present,
well-formed, and the hook command answers a recorded PreToolUse input exactly as documented),
the PATH shims on PATH, that the archive is writable, that the graph plans are compiled and
cached, and that `thresher mcp` starts and lists its tools (with their token cost). Prints one
line per check and, for each problem, the command that fixes it. Exit status 1 if any check
FAILs, else 0 (a missing optional MCP SDK is only a warning).
"""

from __future__ import annotations

import argparse
import os


def main(argv: list[str]) -> int:
    """Run the checks and print them."""
    ap = argparse.ArgumentParser(prog="thresher doctor", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", default=".", metavar="DIR", help="project folder (default: .)")
    ap.add_argument("--no-mcp", action="store_true", help="skip starting the MCP server")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from thresher.integrations import claude_settings as cs
    from thresher.integrations.doctor import FAIL, run_all
    settings = list(dict.fromkeys([cs.user_settings(),
                                   cs.project_settings(os.path.abspath(args.project))]))
    checks = run_all(settings, os.environ.get("PATH", ""), mcp=not args.no_mcp)
    for check in checks:
        print(check.render())
    failed = sum(c.status == FAIL for c in checks)
    print(f"thresher doctor: {failed} problem{'s' if failed != 1 else ''}" if failed
          else "thresher doctor: all checks passed")
    return 1 if failed else 0
