"""Helpers for the hook tests: the recorded payloads (tests/hook_payloads), filled in and answered
in-process by ``claude_hook.handle`` exactly as the subprocess would (same function, same bytes).
Their fixtures, ``shared_cache`` and ``session_env``, are in conftest.py."""

from __future__ import annotations

import copy
import json
import os

PAYLOADS = os.path.join(os.path.dirname(__file__), "hook_payloads")
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
MODES = ("default", "acceptEdits", "auto", "plan", "dontAsk", "bypassPermissions")


def payload(name: str, **fields) -> dict:
    """The recorded payload ``name`` with top-level ``fields`` and ``command`` / ``stdout`` set."""
    with open(os.path.join(PAYLOADS, name + ".json"), encoding="utf-8") as fh:
        data = json.load(fh)
    data = copy.deepcopy(data)
    command, stdout = fields.pop("command", None), fields.pop("stdout", None)
    response = fields.pop("response", None)
    data.update(fields)
    if command is not None:
        data["tool_input"]["command"] = command
    if stdout is not None:
        data["tool_response"]["stdout"] = stdout
    if response:
        data["tool_response"].update(response)
    return data


def fixture_stdout(case_id: str) -> str:
    """The stdout of a captured fixture (a real tool output)."""
    with open(os.path.join(FIXTURES, case_id + ".json"), encoding="utf-8") as fh:
        return json.load(fh)["stdout"]


def answer(data: dict, environ: dict) -> dict | None:
    """The hook's answer to ``data`` (``None`` for no output)."""
    from thresher.integrations.claude_hook import handle
    out = handle(json.dumps(data).encode(), environ)
    return json.loads(out) if out else None


def updated_input(data: dict, environ: dict) -> str | None:
    """The rewritten command of a PreToolUse answer, or ``None``."""
    got = answer(data, environ)
    return got["hookSpecificOutput"].get("updatedInput", {}).get("command") if got else None


def settings(folder, **top) -> None:
    """Write ``folder/.claude/settings.json`` with the given top-level keys."""
    (folder / ".claude").mkdir(exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(top))
