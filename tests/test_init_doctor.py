"""`thresher init claude` merges into settings.json next to existing entries (idempotent, backed up,
undone byte-exact), and `thresher doctor` is green on a good install and says what is wrong on a
broken one. Everything runs as subprocesses in a temporary HOME and project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

EXISTING = """{
  "permissions": {"allow": ["Bash(npm run lint)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --check"}]}
    ]
  },
  "model": "opus"
}
"""


@pytest.fixture
def env(tmp_path):
    """HOME and a project folder, and the environment to run thresher in."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    e = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR")}
    e["HOME"] = str(home)
    return {"home": home, "proj": proj, "env": e}


def th(env, *args, cwd=None):
    """Run ``thresher ARGS``."""
    return subprocess.run([sys.executable, "-m", "thresher", *args], capture_output=True, text=True,
                          cwd=cwd or env["proj"], env=env["env"], timeout=120)


def test_merge_keeps_existing_entries_and_is_idempotent(env):
    path = env["proj"] / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(EXISTING)
    assert th(env, "init", "claude", "--project").returncode == 0
    data = json.loads(path.read_text())
    assert data["permissions"] == {"allow": ["Bash(npm run lint)"]} and data["model"] == "opus"
    pre = data["hooks"]["PreToolUse"]
    assert pre[0] == {"matcher": "Edit|Write",
                      "hooks": [{"type": "command", "command": "prettier --check"}]}
    assert pre[1]["matcher"] == "Bash" and pre[1]["hooks"][0]["command"].endswith(" hook claude")
    (post, grep) = data["hooks"]["PostToolUse"]
    assert grep["matcher"] == "Grep" and grep["hooks"][0]["command"].endswith(" hook claude")
    conds = [h["if"] for h in post["hooks"]]
    assert post["matcher"] == "Bash" and {"Bash(git *)", "Bash(ls *)", "Bash(cat *)",
                                          "Bash(grep *)", "Bash(find *)", "Bash(pytest *)"} <= set(conds)
    assert "Bash(cd *)" not in conds and "Bash(echo *)" not in conds
    assert all(h["command"] == pre[1]["hooks"][0]["command"] for h in post["hooks"])
    for event in ("SessionStart", "PreCompact", "SubagentStart", "SubagentStop", "SessionEnd"):
        (group,) = data["hooks"][event]
        assert "matcher" not in group and group["hooks"][0]["command"].endswith(" hook claude")
    assert (path.parent / "settings.json.thresher-backup").read_text() == EXISTING
    once = path.read_bytes()
    second = th(env, "init", "claude", "--project")
    assert second.returncode == 0 and "already installed" in second.stdout
    assert path.read_bytes() == once


def test_uninstall_restores_byte_exact_and_keeps_later_edits_otherwise(env):
    path = env["proj"] / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(EXISTING)
    th(env, "init", "claude", "--project")
    out = th(env, "init", "claude", "--project", "--uninstall")
    assert out.returncode == 0 and path.read_text() == EXISTING
    assert not (path.parent / "settings.json.thresher-backup").exists()
    th(env, "init", "claude", "--project")
    data = json.loads(path.read_text())
    data["env"] = {"FOO": "1"}  # the user edits the file after install
    path.write_text(json.dumps(data))
    th(env, "init", "claude", "--project", "--uninstall")
    left = json.loads(path.read_text())
    assert left == {**json.loads(EXISTING), "env": {"FOO": "1"}}


def test_bad_settings_file_is_named_and_left_alone(env):
    path = env["proj"] / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": [}')
    out = th(env, "init", "claude", "--project")
    assert out.returncode == 1 and str(path) in out.stderr and "line 1" in out.stderr
    assert path.read_text() == '{"hooks": [}'


def test_doctor_green_then_uninstall_restores_home_and_project(env):
    user = env["home"] / ".claude" / "settings.json"
    user.parent.mkdir()
    user.write_text(EXISTING)
    notes = env["proj"] / "CLAUDE.md"
    notes.write_text("# Project\n\nUse uv.")
    assert th(env, "init", "claude", "--user", "--instructions").returncode == 0
    assert th(env, "init", "claude", "--project", "--instructions").returncode == 0
    assert "thresher:begin" in notes.read_text()
    doctor = th(env, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "FAIL" not in doctor.stdout and "hook command" in doctor.stdout
    assert "ok   rewritten line: runs with env -i PATH=/usr/bin:/bin" in doctor.stdout
    assert "ok   post hook: PostToolUse replaces stdout only" in doctor.stdout
    assert "thresher_read" in doctor.stdout and "cl100k" in doctor.stdout
    # the plans this doctor run compiled are the ones the next run (and the hot path) finds
    assert "graphs: " in doctor.stdout and "cache fresh" in th(env, "doctor").stdout
    assert th(env, "init", "claude", "--user", "--instructions", "--uninstall").returncode == 0
    assert th(env, "init", "claude", "--project", "--instructions", "--uninstall").returncode == 0
    assert user.read_text() == EXISTING and notes.read_text() == "# Project\n\nUse uv."
    assert not (env["proj"] / ".claude" / "settings.json").exists()
    assert not (env["home"] / ".claude" / "CLAUDE.md").exists()
    assert sorted(os.listdir(user.parent)) == ["settings.json"]


def test_doctor_on_a_broken_install_names_each_problem_and_its_fix(env):
    th(env, "init", "claude", "--project")
    path = env["proj"] / ".claude" / "settings.json"
    data = json.loads(path.read_text())
    del data["hooks"]["PreCompact"]
    data["hooks"]["PostToolUse"][0]["hooks"] = data["hooks"]["PostToolUse"][0]["hooks"][:3]
    for group in data["hooks"]["PreToolUse"]:
        group["hooks"][0]["command"] = "/nonexistent/thresher hook claude"
    path.write_text(json.dumps(data))
    doctor = th(env, "doctor", "--no-mcp")
    assert doctor.returncode == 1
    assert "no thresher handler for PreCompact" in doctor.stdout
    assert "PostToolUse conditions are not this version's" in doctor.stdout
    assert "/nonexistent/thresher" in doctor.stdout and "is not an executable path" in doctor.stdout
    assert doctor.stdout.count("fix: thresher init claude") >= 2


def test_doctor_reports_a_missing_install_and_an_unwritable_archive(env):
    env["env"]["THRESHER_HOME"] = "/proc/thresher-cannot-write-here"
    doctor = th(env, "doctor", "--no-mcp")
    assert doctor.returncode == 1
    assert "no thresher hooks" in doctor.stdout and "fix: thresher init claude" in doctor.stdout
    assert "FAIL archive" in doctor.stdout and "THRESHER_HOME" in doctor.stdout


def test_snippet_prints_the_agent_note(env):
    out = th(env, "init", "snippet")
    assert out.returncode == 0 and "thresher expand" in out.stdout and "NEVER" not in out.stdout


def test_doctor_fails_when_a_rewritten_line_would_not_run(env, tmp_path):
    """Defect 1: doctor executes the rewritten line with PATH=/usr/bin:/bin and compares it."""
    from thresher.integrations.doctor import FAIL, check_rewritten_runs
    broken = tmp_path / "hook.sh"  # a hook whose rewrite calls a bare `thresher` (the old bug)
    broken.write_text("#!/bin/sh\nexec python3 -c 'import json,sys; d=json.load(sys.stdin); "
                      "c=d[\"tool_input\"][\"command\"]; print(json.dumps({\"hookSpecificOutput\":"
                      " {\"hookEventName\": \"PreToolUse\", \"updatedInput\": "
                      "{**d[\"tool_input\"], \"command\": \"thresher run -- \" + c}}}))'\n")
    broken.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    check = check_rewritten_runs(str(broken), dict(os.environ, HOME=str(work)), str(work))
    assert check.status == FAIL and "127" in check.detail
