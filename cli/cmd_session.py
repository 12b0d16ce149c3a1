"""``thresher session reset|show``: the session ledger's reader scopes.

A scope is ``SESSION`` or ``SESSION/AGENT`` (``THRESHER_SESSION``, ``THRESHER_AGENT``). Dropping a
scope makes thresher forget what that reader was shown: nothing is folded as "already shown" and no
read stub is sent until it is delivered again. Run ``reset`` when the agent's context is compacted
or cleared (the compaction hook does this) — a compacted reader no longer has what it was shown.

  thresher session reset                 the current scope (from the environment)
  thresher session reset --scope S       scope S only
  thresher session reset --scope S --all-agents   S and every S/AGENT under it
  thresher session reset --everything    every scope
  thresher session show                  scopes with state, newest first
"""

from __future__ import annotations

import argparse
import sys
import time


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher session", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True)
    reset = sub.add_parser("reset", help="forget what a reader scope was shown")
    reset.add_argument("--scope", help="the scope to drop (default: THRESHER_SESSION[/AGENT])")
    reset.add_argument("--all-agents", action="store_true",
                       help="also drop every SCOPE/AGENT subagent scope")
    reset.add_argument("--everything", action="store_true", help="drop every scope")
    sub.add_parser("show", help="list scopes with state")
    return ap


def _reset(args) -> int:
    from thresher.stores.sessions import drop_all, drop_scope, scope_from_env
    if args.everything:
        n = drop_all()
        print(f"thresher session: dropped every scope ({n} records)")
        return 0
    scope = args.scope or scope_from_env()
    if not scope:
        sys.stderr.write("thresher session reset: no scope: pass --scope, or set THRESHER_SESSION\n")
        return 2
    n = drop_scope(scope, subscopes=args.all_agents)
    print(f"thresher session: dropped scope {scope!r}{' and its agents' if args.all_agents else ''}"
          f" ({n} records)")
    return 0


def _show() -> int:
    from thresher.stores.sessions import SessionLedger
    rows = SessionLedger().scopes()
    if not rows:
        print("thresher session: no scope has state")
        return 0
    width = max(len(r["scope"]) for r in rows)
    print(f"{'scope':<{width}}  {'blocks':>7}  {'files':>5}  last active")
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["last"]))
        print(f"{r['scope']:<{width}}  {r['blocks']:>7}  {r['files']:>5}  {when}")
    return 0


def main(argv: list[str]) -> int:
    """Run ``session reset`` or ``session show``."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        return _reset(args) if args.action == "reset" else _show()
    except Exception as exc:  # noqa: BLE001 - an unreadable store: say so
        sys.stderr.write(f"thresher session: cannot use the session store: {exc}\n")
        return 1
