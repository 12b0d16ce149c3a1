"""Issue 14, defects 1-4, on the recorded PreToolUse payload (tests/hook_payloads/pre_bash.json).

1. a rewritten line must run where the agent's shell runs: ``env -i PATH=/usr/bin:/bin``, no venv;
2. Read/Edit deny or ask rules, and ``blockReadsOutsideWorkingDirectories``, must keep meeting the
   file commands Claude Code recognises, so such lines are never wrapped;
3. the mode decides before the allow rules: auto/plan/dontAsk/unknown are never rewritten;
4. ``thresher run -- X`` typed by the agent is judged as ``X`` against the deny/ask rules.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from .hook_util import answer, payload, settings, updated_input

AGENT_ENV = ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "LC_ALL=C"]


def _agent_shell(line: str, cwd, home) -> tuple:
    # the plan cache is shared only to spare a compile; PATH has no venv, as in the agent's shell
    cache = f"THRESHER_CACHE_HOME={os.environ['THRESHER_CACHE_HOME']}"
    proc = subprocess.run(AGENT_ENV + [f"HOME={home}", cache, "/bin/sh", "-c", line], cwd=cwd,
                          capture_output=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize("target", ["listing", "listing/missing"])
def test_rewritten_line_runs_without_the_venv_on_path(session_env, target):
    """Defect 1: before the fix the line called a bare `thresher` and exited 127."""
    proj, home = session_env["proj"], session_env["home"]
    (proj / "listing").mkdir()
    for name in ("a.txt", "b.txt"):
        (proj / "listing" / name).write_text(name)
    line = f"ls -la {target}"
    data = payload("pre_bash", cwd=str(proj), permission_mode="bypassPermissions", command=line)
    new = updated_input(data, session_env["environ"])
    assert new is not None and new.endswith(f"run -- {line}")
    assert os.path.isabs(new.split()[1])  # THRESHER_SESSION=... /abs/thresher run -- ...
    original = _agent_shell(line, proj, home)
    assert _agent_shell(new, proj, home) == original
    assert original[0] == (0 if target == "listing" else 2)


@pytest.mark.parametrize("perms, mode, line", [
    ({"deny": ["Read(./.env)"]}, "bypassPermissions", "cat .env"),
    ({"ask": ["Read(./.env)"]}, "bypassPermissions", "cat .env"),
    ({"deny": ["Read(.env)"]}, "bypassPermissions", "cat config/.env"),
    ({"deny": ["Read(./secrets/**)"], "allow": ["Bash"]}, "default", "grep -rn API_KEY ."),
    ({"deny": ["Read(./secrets/**)"], "allow": ["Bash"]}, "default", "grep -rn API_KEY"),
    ({"deny": ["Read(~/.aws/**)"]}, "bypassPermissions", "cat ~/.aws/credentials"),
    ({"deny": ["Read(//etc/shadow)"]}, "bypassPermissions", "cat /etc/shadow"),
    ({"deny": ["Read(*.pem)"]}, "bypassPermissions", "head -n 5 keys/server.pem"),
    ({"deny": ["Read"]}, "bypassPermissions", "cat README.md"),
    ({"deny": ["Edit(./build/**)"]}, "default", "cargo build 2> build/err.log"),
    ({"deny": ["Read(./.env)"]}, "bypassPermissions", "cat $CONFIG"),
    ({"deny": ["Read(//etc/shadow)"]}, "bypassPermissions", "cd /etc && cat shadow"),
    ({"deny": ["Read(./.env)"]}, "bypassPermissions", "timeout 5 cat .env"),
])
def test_read_and_edit_rules_keep_meeting_the_line(session_env, perms, mode, line):
    """Defect 2: before the fix each of these was wrapped, and the rule no longer saw the file."""
    settings(session_env["proj"], permissions=perms)
    data = payload("pre_bash", cwd=str(session_env["proj"]), permission_mode=mode, command=line)
    assert answer(data, session_env["environ"]) is None


def test_reads_outside_the_working_directories(session_env):
    proj = session_env["proj"]
    settings(proj, permissions={"blockReadsOutsideWorkingDirectories": True})
    outside = payload("pre_bash", cwd=str(proj), permission_mode="bypassPermissions",
                      command="cat /etc/hosts")
    assert answer(outside, session_env["environ"]) is None
    inside = payload("pre_bash", cwd=str(proj), permission_mode="bypassPermissions",
                     command="cat README.md")
    assert updated_input(inside, session_env["environ"]).endswith("run -- cat README.md")


def test_unrelated_file_rules_still_let_the_line_be_wrapped(session_env):
    settings(session_env["proj"], permissions={"deny": ["Read(./.env)", "Edit(./build/**)"]})
    (session_env["proj"] / "src").mkdir()
    (session_env["proj"] / "src" / "app.py").write_text("print('hi')\n")
    data = payload("pre_bash", cwd=str(session_env["proj"]), permission_mode="bypassPermissions",
                   command="cat src/app.py")
    assert updated_input(data, session_env["environ"]).endswith("run -- cat src/app.py")


@pytest.mark.parametrize("allow", [["Bash"], ["Bash(*)"]])
@pytest.mark.parametrize("mode", ["auto", "plan", "dontAsk", "somethingNew"])
def test_mode_is_checked_before_a_broad_allow_rule(session_env, allow, mode):
    """Defect 3: before the fix a bare Bash allow rule rewrote lines in these modes."""
    settings(session_env["proj"], permissions={"allow": allow})
    data = payload("pre_bash", cwd=str(session_env["proj"]), permission_mode=mode,
                   command="git log -5")
    assert answer(data, session_env["environ"]) is None


@pytest.mark.parametrize("line", [
    "thresher run -- git push origin main",
    "thresher run --role ci -- git push",
    "THRESHER_SESSION=cc-1 /opt/venv/bin/thresher run -- git push --force",
    "cargo build && thresher run -- timeout 60 git push origin",
])
@pytest.mark.parametrize("kind", ["deny", "ask"])
def test_thresher_run_typed_by_the_agent_is_judged_as_its_command(session_env, line, kind):
    """Defect 4: before the fix the hook said nothing and the rule never saw `git push`."""
    settings(session_env["proj"], permissions={kind: ["Bash(git push:*)"]})
    for mode in ("default", "bypassPermissions", "auto"):
        data = payload("pre_bash", cwd=str(session_env["proj"]), permission_mode=mode,
                       command=line)
        got = answer(data, session_env["environ"])["hookSpecificOutput"]
        assert got["permissionDecision"] == kind and "updatedInput" not in got
        assert "git push" in got["permissionDecisionReason"]


def test_deny_wins_over_ask_and_unmatched_targets_stay_silent(session_env):
    settings(session_env["proj"], permissions={"ask": ["Bash(git *)"],
                                               "deny": ["Bash(git push:*)"]})
    data = payload("pre_bash", cwd=str(session_env["proj"]), command="thresher run -- git push")
    assert answer(data, session_env["environ"])["hookSpecificOutput"]["permissionDecision"] == \
        "deny"
    quiet = payload("pre_bash", cwd=str(session_env["proj"]), command="thresher run -- ls -la")
    assert answer(quiet, session_env["environ"]) is None


def test_rules_given_on_the_claude_command_line_stop_rewrites(session_env, tmp_path):
    """A --disallowedTools rule is not in any settings file: with it, nothing is rewritten."""
    import json
    import sys
    env = {**session_env["environ"], "CLAUDE_PROJECT_DIR": str(session_env["proj"])}
    data = json.dumps(payload("pre_bash", cwd=str(session_env["proj"]), command="pytest -q"))
    hook = [sys.executable, "-m", "thresher", "hook", "claude"]
    script = tmp_path / "claude"  # stands in for the claude process that starts the hook
    # it keeps running (no exec) so its own command line, flags included, stays in /proc
    script.write_text('#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\n"$@"\n')
    script.chmod(0o755)

    def run(*flags):
        shell = f"{' '.join(hook)} <<'EOF'\n{data}\nEOF\n"
        proc = subprocess.run([str(script), *flags, "--", "/bin/sh", "-c", shell], env=env,
                              capture_output=True, timeout=60, cwd=session_env["proj"])
        return proc.stdout

    assert b"updatedInput" in run("--model", "opus")
    assert run("--disallowedTools", "Bash(pytest:*)") == b""
    assert run("--settings=/tmp/extra.json") == b""
