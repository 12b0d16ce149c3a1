"""``thresher init claude [--user|--project DIR] [--instructions] [--measure-first|--graduate]
[--force] [--uninstall]``; ``thresher init snippet``.

``claude`` merges thresher's hooks into Claude Code's settings.json — the user file
(``~/.claude/settings.json``, the default) or a project's ``.claude/settings.json`` — next to
whatever is there (idempotent; the first install keeps a byte-exact backup). The hooks: PreToolUse
on Bash (``thresher hook claude`` routes commands worth shrinking through ``thresher run``, never
changing the permission prompt you would get), PostToolUse on Bash (replaces the output of the
commands it left alone with their compressed view; one handler per command thresher has a use
for, through the hooks' ``if`` field), and SessionStart / PreCompact / SubagentStart /
SubagentStop / SessionEnd (they drop what a reader was shown when its context is lost).
Before installing, the settings files of every level and PATH are searched for other tools that
rewrite the agent's output (RTK, lean-ctx, OMNI, headroom): with any, init names each finding and
exits 1 without installing (``--force`` installs anyway; outputs are then compressed twice).
``--measure-first`` starts the scope (``--project DIR``, or everywhere for the user settings)
measuring: outputs reach the agent untouched while their would-be savings are recorded; it
graduates to compressing by itself after 40 measured payloads of 4 command families (the rule:
``thresher.boundary.rollout``), or now with ``--graduate``.
``--instructions`` also adds a short note for the agent to CLAUDE.md (``~/.claude/CLAUDE.md`` with
``--user``, ``DIR/CLAUDE.md`` with ``--project``). ``--uninstall`` takes all of it out again and
restores the backup when nothing else changed. ``snippet`` prints that note (for AGENTS.md or any
other agent's instructions file). Then run ``thresher doctor``.
"""

from __future__ import annotations

import argparse
import os
import sys


def _parser() -> argparse.ArgumentParser:
    from thresher.boundary import rollout
    ap = argparse.ArgumentParser(prog="thresher init", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", choices=("claude", "snippet"), help="what to set up")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="~/.claude/settings.json (default)")
    where.add_argument("--project", nargs="?", const=".", metavar="DIR",
                       help="DIR/.claude/settings.json (DIR defaults to the current folder)")
    ap.add_argument("--instructions", action="store_true",
                    help="also add the agent note to CLAUDE.md")
    ap.add_argument("--uninstall", action="store_true", help="remove what init added")
    posture = ap.add_mutually_exclusive_group()
    posture.add_argument("--measure-first", action="store_true",
                         help="measure before compressing: the agent gets every output untouched "
                              "while thresher records what it would have saved; compression "
                              "starts by itself once the baseline is in the ledger "
                              f"({rollout.MIN_PAYLOADS} payloads of {rollout.MIN_FAMILIES} "
                              "command families; see thresher gain)")
    posture.add_argument("--graduate", action="store_true",
                         help="end measuring first for this scope now: compress from here on "
                              "(settings files are not touched)")
    ap.add_argument("--force", action="store_true",
                    help="install even next to another tool's output-rewriting hooks (RTK, "
                         "lean-ctx, OMNI, headroom): their outputs are then compressed twice")
    return ap


def main(argv: list[str]) -> int:
    """Install or remove the Claude Code integration."""
    from thresher.common import run_command
    return run_command("thresher init", _parser(), argv, _run)


def _run(args) -> int:
    from thresher.integrations import claude_settings as cs
    from thresher.boundary import rollout
    from thresher.integrations import snippet
    from thresher.stores.db import StoreError
    if args.target == "snippet":
        sys.stdout.write(snippet.block())
        return 0
    if args.project:
        root = os.path.abspath(args.project)
        path, notes = cs.project_settings(root), os.path.join(root, "CLAUDE.md")
    else:
        path = cs.user_settings()
        notes = os.path.join(os.path.dirname(path), "CLAUDE.md")
    root = os.path.abspath(args.project) if args.project else rollout.EVERYWHERE
    if args.graduate:
        print(f"thresher init: {rollout.graduate(root)}")
        return 0
    if not args.uninstall and not args.force:
        found = _conflicts(args.project or ".")
        if found:
            sys.stderr.write("thresher init: not installing: other tools already rewrite the "
                             "agent's command output, which would then be compressed twice:\n" +
                             "".join(f"  {c.render()}\n" for c in found) +
                             "thresher init: remove them, or pass --force to install anyway\n")
            return 1
    try:
        if args.uninstall:
            lines = [cs.uninstall(path)]
            if args.instructions or os.path.exists(notes):
                lines.append(snippet.remove(notes))
            lines += [line for line in [rollout.forget(root)] if line]
        else:
            lines = [cs.install(path)]
            if args.instructions:
                lines.append(snippet.add(notes))
            if args.measure_first:
                lines.append(rollout.start(root))
    except (cs.SettingsError, OSError, StoreError) as exc:
        sys.stderr.write(f"thresher init: {exc}\n")
        return 1
    for line in lines:
        print(f"thresher init: {line}")
    if not args.uninstall:
        print("thresher init: check it with `thresher doctor`")
    return 0


def _conflicts(project: str) -> list:
    """Other tools' output-rewriting hooks a session in ``project`` would also run."""
    from thresher.integrations import conflicts
    return conflicts.probe(conflicts.settings_for(project, os.environ), os.environ)
