"""Helpers for the hook tests: the recorded payloads (tests/hook_payloads), filled in and answered
in-process by ``claude_hook.handle`` exactly as the subprocess would (same function, same bytes)."""

from __future__ import annotations

import copy
import json
import os

import pytest

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


@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    """One plan cache for a whole run: compiling the graphs once, not per test."""
    return str(tmp_path_factory.mktemp("hook-plan-cache"))


@pytest.fixture
def session_env(tmp_path, monkeypatch, shared_cache):
    """An empty HOME, a project (a git repository) as cwd, and the environ the hook sees."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("THRESHER_CACHE_HOME", shared_cache)
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "THRESHER_DISABLE", "THRESHER_RAW",
                "THRESHER_MEASURE_ONLY"):
        monkeypatch.delenv(var, raising=False)
    environ = {k: v for k, v in os.environ.items()}
    return {"home": home, "proj": proj, "environ": environ}


def settings(folder, **top) -> None:
    """Write ``folder/.claude/settings.json`` with the given top-level keys."""
    (folder / ".claude").mkdir(exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(top))
