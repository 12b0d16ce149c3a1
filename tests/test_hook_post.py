"""PostToolUse on Bash (issue 14, "Reach"): the recorded payloads of tests/hook_payloads filled
with real captured outputs. Every read-only command of the README's table gets a compressed view
in default, acceptEdits, auto and plan modes; the answer echoes the host's object with only
``stdout`` replaced; the original is archived first; nothing is compressed twice.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from .hook_util import answer, fixture_stdout, payload

README = os.path.join(os.path.dirname(__file__), "..", "README.md")
# Where each README row's real output comes from: a captured fixture, or (grep) a live run.
SOURCES = {
    "git status": "git-status-huge-untracked", "git status -sb": "git-status-short-huge",
    "git diff": "git-diff-refactor-huge", "git log": "git-log-default-huge",
    "git log --stat": "git-log-stat-huge", "git log -p -n 6 -- requests/sessions.py": "git-log-patch",
    "git show HEAD": "git-show-merge-combined", "ls /usr/bin": "listing-ls-1-big",
    "ls -la /usr/lib/x86_64-linux-gnu": "listing-ls-la-big", "ls -R assets": "ls-sweep-recursive-plain",
    "cat pydantic/main.py": "code-own-py-pydantic-main",
    "head -n 700 src/net/http/server.go": "code-own-go-head-cut",
    "tail -n 400 /var/log/syslog": "log-sweep-syslog", 'grep -rn "def " _pytest': None,
    'rg -n "def " _pytest': "search-rg-def-huge", "find /usr/share/perl -type f":
    "listing-find-perl-huge", "du -ah /usr/share/perl": "listing-du-perl",
}


def readme_table() -> list[str]:
    """The commands of the README's PostToolUse table."""
    with open(README, encoding="utf-8") as fh:
        text = fh.read()
    block = text.split("| command | output |", 1)[1].split("\n\n", 1)[0]
    return re.findall(r"^\s*\| `(.+?)` \|", block, re.M)


def real_output(command: str) -> str:
    source = SOURCES[command]
    if source:
        return fixture_stdout(source)
    import _pytest  # a real grep over an installed package's sources
    site = os.path.dirname(os.path.dirname(_pytest.__file__))
    proc = subprocess.run(["grep", "-rn", "--include=*.py", "def ", "_pytest"], cwd=site,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    return proc.stdout


def test_every_readme_row_has_a_real_output():
    rows = readme_table()
    assert len(rows) >= 15 and set(rows) == set(SOURCES)


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "auto", "plan"])
def test_every_read_only_command_in_the_readme_gets_a_compressed_view(session_env, mode):
    from thresher.stores.archive import SqliteArchive
    env, cwd = session_env["environ"], str(session_env["proj"])
    for i, command in enumerate(readme_table()):
        raw = real_output(command)
        data = payload("post_bash", cwd=cwd, permission_mode=mode, command=command, stdout=raw,
                       session_id=f"s-{mode}-{i}", tool_use_id=f"toolu_{mode}_{i}")
        pre = answer({**data, "hook_event_name": "PreToolUse"}, env)
        assert pre is None, (command, "PreToolUse must leave it alone in", mode)
        got = answer(data, env)
        assert got is not None, (command, mode)
        out = got["hookSpecificOutput"]
        assert out["hookEventName"] == "PostToolUse"
        new = out["updatedToolOutput"]
        assert {k: v for k, v in new.items() if k != "stdout"} == \
            {k: v for k, v in data["tool_response"].items() if k != "stdout"}
        assert len(new["stdout"]) < len(raw)
        handle = re.search(r"thresher expand ([0-9a-f]{12})", new["stdout"]).group(1)
        assert SqliteArchive().get(handle) == raw.encode()  # archived before it was named


def test_wrapped_line_is_not_compressed_twice(session_env):
    env, cwd = session_env["environ"], str(session_env["proj"])
    raw = fixture_stdout("git-status-huge-untracked")
    pre = answer(payload("pre_bash", cwd=cwd, permission_mode="bypassPermissions",
                         command="git status"), env)
    wrapped = pre["hookSpecificOutput"]["updatedInput"]["command"]
    for command in (wrapped, "git status"):  # what ran, or the original the host may pass
        data = payload("post_bash", cwd=cwd, permission_mode="bypassPermissions",
                       command=command, stdout=raw)
        assert answer(data, env) is None
    typed = payload("post_bash", cwd=cwd, command="thresher run -- git status", stdout=raw)
    assert answer(typed, env) is None


@pytest.mark.parametrize("command, response", [
    ("git log | head -50", {}),                        # a pipe: the agent shaped it
    ("git status; git log", {}),                       # two commands speak
    ("git status", {"interrupted": True}),
    ("git status", {"isImage": True}),
    ("git status", {"backgroundTaskId": "bash_1"}),
    ("echo hello", {}),                                # nothing thresher has a use for
    ("THRESHER_RAW=1 git status", {}),                 # the agent asked for it untouched
    ("cd src && THRESHER_DISABLE=yes git log", {}),
])
def test_left_alone(session_env, command, response):
    env, cwd = session_env["environ"], str(session_env["proj"])
    data = payload("post_bash", cwd=cwd, command=command, response=response,
                   stdout=fixture_stdout("git-status-huge-untracked"))
    assert answer(data, env) is None


def test_raw_switch_set_to_off_is_not_a_request_for_raw(session_env):
    env, cwd = session_env["environ"], str(session_env["proj"])
    data = payload("post_bash", cwd=cwd, command="THRESHER_RAW=0 git status",
                   stdout=fixture_stdout("git-status-huge-untracked"))
    assert answer(data, env) is not None


def test_small_output_and_kill_switch(session_env, monkeypatch):
    env, cwd = session_env["environ"], str(session_env["proj"])
    small = payload("post_bash", cwd=cwd, stdout="On branch main\nnothing to commit\n")
    assert answer(small, env) is None
    monkeypatch.setenv("THRESHER_DISABLE", "1")
    big = payload("post_bash", cwd=cwd, stdout=fixture_stdout("git-status-huge-untracked"))
    assert answer(big, env) is None


def test_output_the_host_saved_to_disk_is_read_back_whole(session_env, tmp_path):
    env, cwd = session_env["environ"], str(session_env["proj"])
    raw = fixture_stdout("git-log-default-huge")
    saved = tmp_path / "tool-results" / "toolu_01GHI789.txt"
    saved.parent.mkdir()
    saved.write_text(raw)
    data = payload("post_bash_persisted", cwd=cwd, stdout=raw[:2000],
                   response={"persistedOutputPath": str(saved), "persistedOutputSize": len(raw)})
    new = answer(data, env)["hookSpecificOutput"]["updatedToolOutput"]
    assert "persistedOutputPath" not in new and "persistedOutputSize" not in new
    assert new["stdout"].splitlines()[-1].startswith("[thresher:")
    handle = re.search(r"thresher expand ([0-9a-f]{12})", new["stdout"]).group(1)
    from thresher.stores.archive import SqliteArchive
    assert SqliteArchive().get(handle) == raw.encode()
    gone = payload("post_bash_persisted", cwd=cwd, stdout=raw[:2000],
                   response={"persistedOutputPath": str(tmp_path / "nope.txt")})
    assert answer(gone, env) is None


def test_failure_and_read_events_get_no_answer(session_env):
    env, cwd = session_env["environ"], str(session_env["proj"])
    assert answer(payload("post_failure", cwd=cwd), env) is None
    read = payload("post_read", cwd=cwd)
    read["tool_response"]["file"]["content"] = fixture_stdout("code-own-py-pydantic-main")
    assert answer(read, env) is None


def test_one_answer_per_tool_call(session_env):
    """A second install's handler for the same call stays silent instead of folding the output."""
    env, cwd = session_env["environ"], str(session_env["proj"])
    data = payload("post_bash", cwd=cwd, stdout=fixture_stdout("git-status-huge-untracked"))
    assert answer(data, env) is not None
    assert answer(data, env) is None


def test_the_installed_command_answers_as_a_subprocess(session_env):
    env, cwd = session_env["environ"], str(session_env["proj"])
    data = payload("post_bash", cwd=cwd, stdout=fixture_stdout("git-diff-refactor-huge"),
                   command="git diff")
    proc = subprocess.run([sys.executable, "-m", "thresher", "hook", "claude"],
                          input=json.dumps(data).encode(), capture_output=True, cwd=cwd,
                          env=env, timeout=120)
    assert proc.returncode == 0 and proc.stderr == b""
    assert json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"]


def test_grep_content_is_shortened_and_its_line_count_kept_true(session_env):
    env, cwd = session_env["environ"], str(session_env["proj"])
    raw = fixture_stdout("search-rg-def-huge")  # rg -n output: what Grep's content mode holds
    data = payload("post_grep", cwd=cwd)
    files = sorted({line.split(":", 1)[0] for line in raw.splitlines()})
    data["tool_response"].update(content=raw, numLines=len(raw.splitlines()),
                                 numFiles=len(files), filenames=files)
    new = answer(data, env)["hookSpecificOutput"]["updatedToolOutput"]
    assert len(new["content"]) < len(raw) and new["numLines"] == len(new["content"].splitlines())
    assert (new["mode"], new["numFiles"], new["filenames"]) == ("content", len(files), files)
    assert re.search(r"thresher expand [0-9a-f]{12}", new["content"])
    names = payload("post_grep", cwd=cwd, tool_use_id="toolu_names")
    names["tool_response"].update(mode="files_with_matches", filenames=files, numFiles=len(files))
    assert answer(names, env) is None  # a list of names: every entry is the answer
