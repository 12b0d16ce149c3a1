"""The conflict probe: `thresher init claude` refuses to install next to another tool's
output-rewriting hooks (RTK, lean-ctx, OMNI, headroom) unless forced, naming exactly what it found,
and `thresher doctor` reports them as a problem. The settings entries are written the way each
tool's installer writes them (command names from their sources); PATH holds fake executables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from thresher.integrations import conflicts

RTK = {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "/home/u/.claude/hooks/rtk-rewrite.sh"}]}]}
RTK_NATIVE = {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "rtk hook claude"}]}]}
LEAN = {"PreToolUse": [{"matcher": "Bash|bash", "hooks": [
    {"type": "command", "command": "/usr/local/bin/lean-ctx hook rewrite"}]}],
    "PostToolUse": [{"matcher": "Read", "hooks": [
        {"type": "command", "command": "lean-ctx hook observe"}]}]}
OMNI = {"PostToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "/usr/bin/omni --post-hook"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "/usr/bin/omni --session-start"}]}]}
HEADROOM = {"SessionStart": [{"hooks": [
    {"type": "command", "command": "headroom init hook ensure --marker headroom-init-claude"}]}]}


@pytest.fixture
def env(tmp_path):
    home, proj, bin_ = tmp_path / "home", tmp_path / "proj", tmp_path / "bin"
    for d in (home, proj, bin_):
        d.mkdir()
    e = {k: v for k, v in os.environ.items()
         if k not in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "ANTHROPIC_BASE_URL")}
    e.update(HOME=str(home), PATH=f"{bin_}:{os.environ['PATH']}")
    return {"home": home, "proj": proj, "bin": bin_, "env": e}


def th(env, *args):
    return subprocess.run([sys.executable, "-m", "thresher", *args], capture_output=True, text=True,
                          cwd=env["proj"], env=env["env"], timeout=180)


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_each_tools_hook_command_is_recognised_and_others_are_not():
    assert conflicts.tool_of_hook("/home/u/.claude/hooks/rtk-rewrite.sh") == "RTK"
    assert conflicts.tool_of_hook("rtk hook claude") == "RTK"
    assert conflicts.tool_of_hook("'/opt/lean ctx/lean-ctx' hook redirect") == "lean-ctx"
    assert conflicts.tool_of_hook("~/.claude/hooks/lean-ctx-rewrite.sh") == "lean-ctx"
    assert conflicts.tool_of_hook("/usr/bin/omni --hook") == "OMNI"
    assert conflicts.tool_of_hook("headroom init hook ensure --marker headroom-init-claude") \
        == "headroom"
    # neither rewrites output: observing, injecting session context, formatting, ourselves
    for other in ("lean-ctx hook observe", "/usr/bin/omni --session-start", "prettier --check",
                  "/venv/bin/thresher hook claude", "rtk gain", "echo rtk-ish"):
        assert conflicts.tool_of_hook(other) is None, other


def test_init_refuses_naming_every_finding_and_installs_nothing(env):
    user = env["home"] / ".claude" / "settings.json"
    write(user, {"hooks": RTK, "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:8787"}})
    write(env["proj"] / ".claude" / "settings.local.json", {"hooks": LEAN})
    write(env["proj"] / ".claude" / "settings.json", {"hooks": {**OMNI, **HEADROOM}})
    before = {p: p.read_bytes() for p in (user, env["proj"] / ".claude" / "settings.json")}
    done = th(env, "init", "claude", "--project")
    assert done.returncode == 1 and done.stdout == ""
    err = done.stderr
    assert "compressed twice" in err and "--force" in err
    assert f"RTK: PreToolUse hook `/home/u/.claude/hooks/rtk-rewrite.sh` in {user}" in err
    assert "headroom: env ANTHROPIC_BASE_URL=http://127.0.0.1:8787" in err
    assert "lean-ctx: PreToolUse hook `/usr/local/bin/lean-ctx hook rewrite` in " \
        f"{env['proj'] / '.claude' / 'settings.local.json'}" in err
    assert "OMNI: PostToolUse hook `/usr/bin/omni --post-hook`" in err
    assert "headroom: SessionStart hook `headroom init hook ensure" in err
    assert "remove: rtk init -g --uninstall" in err and "remove: lean-ctx uninstall" in err
    assert "observe" not in err and "--session-start" not in err
    assert {p: p.read_bytes() for p in before} == before
    assert not os.path.exists(str(user) + ".thresher-backup")


def test_force_installs_and_doctor_reports_the_conflict_with_its_fix(env):
    write(env["home"] / ".claude" / "settings.json", {"hooks": RTK_NATIVE})
    assert th(env, "init", "claude", "--user").returncode == 1
    forced = th(env, "init", "claude", "--user", "--force")
    assert forced.returncode == 0, forced.stderr
    data = json.loads((env["home"] / ".claude" / "settings.json").read_text())
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "rtk hook claude"
    doctor = th(env, "doctor", "--no-mcp")
    assert doctor.returncode == 1
    line = next(x for x in doctor.stdout.splitlines() if "conflicts:" in x)
    assert line.startswith("FAIL conflicts: output compressed twice: RTK: PreToolUse hook "
                           "`rtk hook claude`")
    assert "thresher init claude --uninstall" in doctor.stdout


def test_lean_ctx_path_shims_block_and_bare_binaries_only_inform(env):
    shim = env["bin"] / "_lc_compress"
    shim.write_text("#!/bin/sh\n# lean-ctx PATH fallback\nexec /usr/local/bin/lean-ctx -c \"$@\"\n")
    shim.chmod(0o755)
    done = th(env, "init", "claude", "--user")
    assert done.returncode == 1
    assert f"lean-ctx: shell-hook PATH shims _lc_compress (its shell aliases route commands " \
        f"through them) in {env['bin']}" in done.stderr
    shim.unlink()
    rtk = env["bin"] / "rtk"
    rtk.write_text("#!/bin/sh\nexit 0\n")
    rtk.chmod(0o755)
    assert th(env, "init", "claude", "--user").returncode == 0
    doctor = th(env, "doctor", "--no-mcp")
    line = next(x for x in doctor.stdout.splitlines() if "conflicts:" in x)
    assert line.startswith("ok   conflicts: no other output-rewriting hooks")
    assert f"rtk ({rtk})" in line


def test_a_proxy_url_in_the_environment_counts_and_another_port_does_not(env):
    assert [c.tool for c in conflicts.probe([], {"ANTHROPIC_BASE_URL": "http://localhost:4444",
                                                 "PATH": ""})] == ["lean-ctx"]
    assert conflicts.probe([], {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9000", "PATH": ""}) == []
    assert conflicts.probe([], {"ANTHROPIC_BASE_URL": "https://api.example.com:8787",
                                "PATH": ""}) == []
