"""``thresher hook claude``: the Claude Code hook handler (PreToolUse rewrite, PostToolUse output
replacement, scope events).

Reads one hook event (JSON) on stdin and writes the documented answer on stdout, or nothing.
Always exits 0: whatever it cannot parse or would rather not touch runs untouched. See
``thresher.integrations.claude_hook`` for the contract and the permission rules it keeps.
"""

from __future__ import annotations

import sys

HELP = """usage: thresher hook claude      (reads one Claude Code hook event as JSON on stdin)

Installed by `thresher init claude` for PreToolUse and PostToolUse (Bash), SessionStart,
PreCompact, SubagentStart, SubagentStop and SessionEnd. Before a Bash call it answers with an
updatedInput that routes the commands worth shrinking through `thresher run` - only when that
cannot change the permission prompt you would have seen (it never answers "allow"); a
`thresher run -- X` line is answered deny/ask when a deny/ask rule matches X. After a Bash call
that it left alone, it answers with an updatedToolOutput whose stdout is the compressed view
(the original is archived first). Any other input: no output. Exit status: always 0.
"""


def main(argv: list[str]) -> int:
    """Answer one hook event; never fails the agent's tool call."""
    if argv[:1] in (["-h"], ["--help"]) or argv != ["claude"]:
        (sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr).write(HELP)
        return 0
    try:
        raw = sys.stdin.buffer.read()
        from thresher.integrations.claude_hook import handle
        out = handle(raw)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
    except Exception:  # noqa: BLE001 - no output, exit 0: the command runs untouched
        pass
    return 0
