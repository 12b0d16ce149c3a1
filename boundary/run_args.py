"""The arguments of ``thresher run [OPTIONS] -- CMD [ARGS...]``, parsed below cli/: the command
(``thresher.cmd_run``) and the Claude Code hook, which reads a ``thresher run`` line the agent
typed, share this one parser."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

STREAM_AFTER = 300.0
"""Seconds a command may run before its output streams raw: a hang guard for commands that never
end (servers the classifier did not recognise), generous so that ordinary builds and test runs,
which take longer on a loaded machine, are never raw because of the clock."""


def parse(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Split thresher's options from the command; raise ValueError when there is no command.

    A bad option (unknown, missing or malformed value) does not stop the command: it is noted in
    ``opts["bad"]`` and the caller runs the command untouched, with a warning (thresher's own
    usage error must never cost the agent its command).
    """
    opts: dict[str, Any] = {"raw": False, "role": os.environ.get("THRESHER_ROLE", "default"),
                            "pclass": None, "stream_after": STREAM_AFTER, "bad": []}
    keys = {"--role": "role", "--class": "pclass", "--stream-after": "stream_after"}
    i = 0
    while i < len(argv) and argv[i] != "--":
        flag, eq, value = argv[i].partition("=")
        if flag == "--raw":
            opts["raw"] = True
        elif flag in keys:
            if not eq:
                if i + 1 >= len(argv) or argv[i + 1] == "--":
                    opts["bad"].append(f"option {flag} needs a value")
                    i += 1
                    continue
                i += 1
                value = argv[i]
            _set(opts, keys[flag], flag, value)
        elif flag.startswith("-"):
            opts["bad"].append(f"unknown option {argv[i]!r}")
        else:
            break  # the command starts here (the `--` is optional when unambiguous)
        i += 1
    cmd = argv[i + 1:] if i < len(argv) and argv[i] == "--" else argv[i:]
    if not cmd:
        raise ValueError("; ".join(opts["bad"] + ["no command given"]))
    return opts, cmd


def _set(opts: dict[str, Any], key: str, flag: str, value: str) -> None:
    if key != "stream_after":
        opts[key] = value
        return
    try:
        opts[key] = float(value)
    except ValueError:
        opts["bad"].append(f"option {flag} wants a number of seconds, got {value!r}")
