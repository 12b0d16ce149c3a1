"""`thresher hook claude` driven as Claude Code drives it: one JSON event on stdin, a subprocess.

Inputs follow the hooks reference (https://code.claude.com/docs/en/hooks, "PreToolUse input":
common fields session_id, transcript_path, cwd, permission_mode, hook_event_name, plus tool_name,
tool_input {command, description, timeout, run_in_background}, tool_use_id; agent_id inside a
subagent). Outputs are compared as exact bytes. A rewrite must never carry a permissionDecision,
and must not happen where the user's rules or mode would meet the rewritten line differently.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from thresher.integrations.claude_hook import session_token
from thresher.integrations.claude_settings import runner_words

SESSION = "9a3f6c1e-2b7d-4e5a-8c90-1f2e3d4c5b6a"
TOKEN = session_token(SESSION)
RUN = runner_words() + " run -- "  # this install's thresher, by its absolute path (defect 1)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty HOME and a project folder (a git repository) for the hook to run in."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "THRESHER_DISABLE", "THRESHER_RAW"):
        monkeypatch.delenv(var, raising=False)
    return proj


def pre_tool_use(cwd, command, mode="default", **extra) -> dict:
    """A PreToolUse Bash input in the documented schema."""
    data = {"session_id": SESSION, "transcript_path": f"{cwd}/.t/{SESSION}.jsonl", "cwd": str(cwd),
            "permission_mode": mode, "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "Run it", "timeout": 120000,
                           "run_in_background": False},
            "tool_use_id": "toolu_01ABC123"}
    data.update(extra)
    return data


def hook(payload, cwd, env=None) -> subprocess.CompletedProcess:
    """Run the hook like Claude Code does; ``payload`` is a dict or raw bytes."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run([sys.executable, "-m", "thresher", "hook", "claude"], input=raw,
                          capture_output=True, cwd=cwd, env={**os.environ, **(env or {})},
                          timeout=60)


def rewritten(data: dict, command: str) -> bytes:
    """The exact answer for a rewrite of ``data`` to ``command``."""
    answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                     "updatedInput": {**data["tool_input"], "command": command}}}
    return (json.dumps(answer) + "\n").encode()


def assert_silent(proc) -> None:
    """No output at all and exit 0: Claude Code's normal flow runs the original command."""
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def settings(folder, **perms) -> None:
    """Write ``folder/.claude/settings.json`` with ``permissions``."""
    (folder / ".claude").mkdir(exist_ok=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps({"permissions": perms}))


def test_rewrite_keeps_every_input_field_and_adds_the_scope(project):
    data = pre_tool_use(project, "cd src && pytest -q tests")
    proc = hook(data, project)
    assert proc.returncode == 0 and proc.stderr == b""
    assert proc.stdout == rewritten(data, f"cd src && THRESHER_SESSION={TOKEN} {RUN}pytest -q tests")
    assert b"permissionDecision" not in proc.stdout


def test_subagent_gets_its_own_scope(project):
    data = pre_tool_use(project, "cargo build", agent_id="a4d2c8f1e0b3a297", agent_type="Explore")
    assert hook(data, project).stdout == rewritten(
        data, f"THRESHER_SESSION={TOKEN} THRESHER_AGENT=a4d2c8f1e0b3a297 {RUN}cargo build")


def test_unnameable_subagent_gets_no_scope_rather_than_its_parents(project):
    data = pre_tool_use(project, "cargo build", agent_id="../../etc x")
    assert hook(data, project).stdout == rewritten(data, RUN + "cargo build")


def test_agent_run_thresher_read_is_scoped_too(project):
    data = pre_tool_use(project, "thresher read src/app.py")
    assert hook(data, project).stdout == rewritten(
        data, f"THRESHER_SESSION={TOKEN} thresher read src/app.py")


@pytest.mark.parametrize("command", [
    "git status",            # read-only for Claude Code: runs unprompted, a rewrite would prompt
    "ls -la",
    "pytest -q | tail -5",   # stdout feeds a pipe
    "echo hello",            # not worth wrapping
    "pytest -q > out.txt",
    "cat <<EOF\nx\nEOF",
])
def test_no_rewrite_no_output(project, command):
    assert_silent(hook(pre_tool_use(project, command), project))


@pytest.mark.parametrize("payload", [
    b"", b"not json", b"[1, 2]", b'{"hook_event_name": "PreToolUse"}', b"\xff\xfe{",
    b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 7}}',
    b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "pytest"}',
    b'{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/x"}}',
    b'{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "pytest"}}',
])
def test_unparsable_or_foreign_input_no_output(project, payload):
    assert_silent(hook(payload, project))


def test_unbalanced_line_no_output(project):
    assert_silent(hook(pre_tool_use(project, 'pytest -q "unterminated'), project))


@pytest.mark.parametrize("perms, command", [
    ({"deny": ["Bash(pytest *)"]}, "pytest -q"),             # a deny must keep matching
    ({"deny": ["Bash(rm:*)"]}, "make && rm -rf build"),
    ({"ask": ["Bash(git push *)"]}, "cargo build && git push"),
    ({"ask": ["Bash"]}, "pytest -q"),
    ({"deny": ["Bash(run_in_background:false)"]}, "pytest -q"),
    ({"allow": ["Bash(pytest *)"]}, "pytest -q"),             # allowed unprompted: a rewrite would prompt
    ({"allow": ["Bash(thresher *)"]}, "pytest -q"),           # the rewrite would skip the prompt
    ({"allow": ["Bash(* -q)"]}, "pytest -q"),
])
def test_permission_rules_that_would_see_the_rewrite_differently(project, perms, command):
    settings(project, **perms)
    assert_silent(hook(pre_tool_use(project, command), project))


def test_user_level_deny_counts(project):
    settings(project.parent / "home", deny=["Bash(cargo build:*)"])
    assert_silent(hook(pre_tool_use(project, "cargo build"), project))


def test_local_settings_at_the_repository_root_count_from_a_subfolder(project):
    (project / "pkg").mkdir()
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"permissions": {"deny": ["Bash(npm test)"]}}))
    assert_silent(hook(pre_tool_use(project / "pkg", "npm test"), project / "pkg"))


def test_unreadable_settings_or_sandbox_no_rewrite(project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{not json")
    assert_silent(hook(pre_tool_use(project, "pytest -q"), project))
    (project / ".claude" / "settings.json").write_text(json.dumps({"sandbox": {"enabled": True}}))
    assert_silent(hook(pre_tool_use(project, "pytest -q"), project))


@pytest.mark.parametrize("mode", ["auto", "plan", "dontAsk", None, "something-new"])
def test_modes_that_judge_the_line_otherwise_no_rewrite(project, mode):
    data = pre_tool_use(project, "pytest -q", mode=mode)
    if mode is None:
        del data["permission_mode"]
    assert_silent(hook(data, project))


def test_bypass_mode_wraps_read_only_commands_too(project):
    data = pre_tool_use(project, "git status", mode="bypassPermissions")
    assert hook(data, project).stdout == rewritten(data, f"THRESHER_SESSION={TOKEN} {RUN}git status")


def test_bare_bash_allow_wraps(project):
    settings(project, allow=["Bash"])
    data = pre_tool_use(project, "git log -5")
    assert hook(data, project).stdout == rewritten(data, f"THRESHER_SESSION={TOKEN} {RUN}git log -5")


def test_other_allow_rules_do_not_block_an_unrelated_rewrite(project):
    settings(project, allow=["Bash(npm run lint)", "Read(./src/**)"], deny=["Bash(git push *)"])
    data = pre_tool_use(project, "pytest -x")
    assert hook(data, project).stdout == rewritten(data, f"THRESHER_SESSION={TOKEN} {RUN}pytest -x")


def test_background_command_is_left_alone(project):
    data = pre_tool_use(project, "pytest -q")
    data["tool_input"]["run_in_background"] = True
    assert_silent(hook(data, project))


def test_malformed_permissions_no_rewrite(project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": "Bash"}}))
    assert_silent(hook(pre_tool_use(project, "pytest -q"), project))


def test_kill_switch(project):
    assert_silent(hook(pre_tool_use(project, "pytest -q"), project, env={"THRESHER_DISABLE": "1"}))


def test_rewritten_command_runs_through_thresher_with_the_scope(project):
    """The rewrite is verifiably in the path: the shell runs it, the ledger books it to the scope."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    data = pre_tool_use(project, "git status", mode="bypassPermissions", agent_id="sub1")
    command = json.loads(hook(data, project).stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    run = subprocess.run(["bash", "-c", command], cwd=project, env=env, capture_output=True)
    bare = subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert run.returncode == bare.returncode == 0 and run.stdout == bare.stdout
    db = sqlite3.connect(os.path.join(os.environ["THRESHER_HOME"], "thresher.db"))
    scopes = [r[0] for r in db.execute("SELECT scope FROM events WHERE command = 'git status'")]
    assert scopes == [f"{TOKEN}/sub1"]


def _scopes():
    from thresher.stores.sessions import SessionLedger
    return sorted(r["scope"] for r in SessionLedger().scopes())


def _seed(*scopes):
    from thresher.stores.sessions import SessionLedger
    lines = [f"line {i} of a long enough output" for i in range(40)]
    for scope in scopes:
        SessionLedger().record(scope, lines)


@pytest.mark.parametrize("event, extra, left", [
    ("SessionStart", {"source": "compact"}, []),
    ("SessionStart", {"source": "clear"}, []),
    ("SessionStart", {"source": "resume"}, [TOKEN, f"{TOKEN}/a1"]),
    ("PreCompact", {"trigger": "auto"}, [f"{TOKEN}/a1"]),
    ("SubagentStart", {"agent_id": "a1", "agent_type": "Explore"}, [TOKEN]),
    ("SubagentStop", {"agent_id": "a1", "agent_type": "Explore"}, [TOKEN]),
    ("SessionEnd", {"reason": "other"}, []),
])
def test_scope_events(project, event, extra, left):
    _seed(TOKEN, f"{TOKEN}/a1", "other-session")
    data = {"session_id": SESSION, "transcript_path": "/t.jsonl", "cwd": str(project),
            "hook_event_name": event, **extra}
    assert_silent(hook(data, project))
    assert _scopes() == sorted(left + ["other-session"])


def test_hook_imports_nothing_heavy(project):
    """The hook runs before every Bash call: no control plane, no SQLite, no MCP SDK."""
    data = json.dumps(pre_tool_use(project, "pytest -q")).encode()
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "thresher", "hook", "claude"],
                         input=data, capture_output=True, cwd=project, check=True)
    imported = {line.split("|")[-1].strip().split(".")[0] for line in
                res.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "thresher" in imported and res.stdout.startswith(b'{"hookSpecificOutput"')
    heavy = {"networkx", "pydantic", "yaml", "numpy", "rank_bm25", "sqlite3", "mcp", "anyio"}
    assert not imported & heavy, sorted(imported & heavy)
