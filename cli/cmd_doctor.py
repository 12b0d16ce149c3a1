"""``thresher doctor [--project DIR] [--no-mcp] [--gate N]``: check the install end to end.

Checks the Claude Code hooks in ~/.claude/settings.json and DIR/.claude/settings.json (present,
well-formed, and the hook command answers a recorded PreToolUse input exactly as documented),
the PATH shims on PATH, that the archive is writable, that the graph plans are compiled and
cached, that no other tool (RTK, lean-ctx, OMNI, headroom) rewrites the agent's output too, and
that `thresher mcp` starts and lists its tools, and what thresher adds to every request (the
standing context: MCP instructions and tool schemas, the CLAUDE.md note, SessionStart output, in
cl100k tokens; over thresher's own budget a warning, over `--gate N` a FAIL), each measure-first
scope's progress, and the kill switches set. Prints one
line per check and, for each problem, the command that fixes it. Exit status 1 if any check
FAILs, else 0 (a missing optional MCP SDK is only a warning).
"""

from __future__ import annotations

import argparse
import os


def store_skips():
    """The store operations skipped because another process held the database lock (a warning:
    those outputs went out raw, and unrecorded)."""
    import time
    from thresher.integrations.doctor import OK, WARN, Check
    from thresher.stores.db import home
    from thresher.stores.skips import skips
    try:
        folder = home()
    except OSError as exc:
        return Check(WARN, "store locks", str(exc), "set HOME or THRESHER_HOME")
    count, last, saturated = skips(folder)
    if not count:
        return Check(OK, "store locks", "no store operation skipped on a locked database", "")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(last))
    return Check(WARN, "store locks",
                 f"{'at least ' if saturated else ''}{count} store operation"
                 f"{'s' if count != 1 else ''} skipped because {folder}/thresher.db was locked "
                 f"by another process (last {when}; those outputs went out raw)",
                 f"find the holder with `fuser {folder}/thresher.db`; then delete "
                 f"{folder}/store-skips to reset the count")


def _tokens(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number of tokens, "
                                         f"got {text!r}")
    return int(text)


def archive_retention():
    """The archive's size against its cap (a warning when the retention floor keeps it over)."""
    from thresher.integrations.doctor import OK, WARN, Check
    from thresher.stores.archive import RETENTION_FLOOR_S, default_archive
    try:
        st = default_archive().stats()
    except Exception as exc:  # noqa: BLE001 - the archive check above reports an unusable store
        return Check(WARN, "archive retention", f"cannot read the archive: {exc}", "")
    mib = 1024 * 1024
    used = (f"{st['entries']} entries, {st['stored_bytes'] / mib:.1f} MiB stored of the "
            f"{st['cap_bytes'] / mib:.1f} MiB cap (THRESHER_ARCHIVE_MAX_MB)")
    if not st["over_cap_bytes"]:
        return Check(OK, "archive retention", used, "")
    return Check(WARN, "archive retention",
                 f"{used}: {st['over_cap_bytes'] / mib:.1f} MiB over, because the "
                 f"{st['young_entries']} entries used in the last {RETENTION_FLOOR_S // 60} minutes "
                 "are never evicted (their footers' handles must stay valid); it shrinks as they age",
                 "raise THRESHER_ARCHIVE_MAX_MB if this persists")


def main(argv: list[str]) -> int:
    """Run the checks and print them."""
    ap = argparse.ArgumentParser(prog="thresher doctor", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", default=".", metavar="DIR", help="project folder (default: .)")
    ap.add_argument("--no-mcp", action="store_true", help="skip starting the MCP server")
    ap.add_argument("--gate", type=_tokens, metavar="N",
                    help="fail when the standing context thresher adds to every request (MCP "
                         "instructions + tool schemas, the CLAUDE.md note, SessionStart output) "
                         "exceeds N cl100k tokens")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from thresher.integrations import claude_settings as cs
    from thresher.integrations.doctor import FAIL, run_all
    from thresher.integrations.doctor_policy import (check_conflicts, check_posture,
                                                     check_standing, check_switches)
    settings = list(dict.fromkeys([cs.user_settings(),
                                   cs.project_settings(os.path.abspath(args.project))]))
    checks = run_all(settings, os.environ.get("PATH", ""), mcp=not args.no_mcp)
    checks.append(check_conflicts(args.project, os.environ))
    checks.append(check_standing(args.gate))
    checks += check_posture() + [check_switches()]
    checks.append(store_skips())
    checks.append(archive_retention())
    for check in checks:
        print(check.render())
    failed = sum(c.status == FAIL for c in checks)
    print(f"thresher doctor: {failed} problem{'s' if failed != 1 else ''}" if failed
          else "thresher doctor: all checks passed")
    return 1 if failed else 0
