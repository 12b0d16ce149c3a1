"""Measure before mutate: under a measure-first scope the agent gets the original bytes and exit
code while the ledger records what compression would have saved; the scope graduates by itself
once its baseline window holds MIN_PAYLOADS payloads of MIN_FAMILIES command families, or by
`thresher init claude --graduate`. Outputs are real: `ls`, `find`, `grep`, `cat` run here.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

from .hook_util import answer, payload

from thresher.boundary import rollout


def th(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "thresher", *args], capture_output=True,
                          cwd=cwd, env=env or os.environ, timeout=120)


def many(folder, n=600):
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"file_{i:04d}.txt").write_text(f"line {i}\n")
    return folder


def ledger(where="1"):
    path = os.path.join(os.environ["THRESHER_HOME"], "thresher.db")
    with sqlite3.connect(path) as db:
        return db.execute(f"SELECT measure_only, tokens_in, tokens_out FROM events WHERE {where} "
                          "ORDER BY id").fetchall()


def test_thresher_run_in_a_measuring_scope_is_byte_identical_and_measured(tmp_path):
    proj, other = tmp_path / "proj", tmp_path / "other"
    other.mkdir()
    big = many(proj / "many")
    rollout.start(str(proj))
    for argv in (["ls", "-la", str(big)], ["ls", "-la", str(big), str(proj / "missing")]):
        raw = subprocess.run(argv, capture_output=True, cwd=proj)
        got = th("run", "--", *argv, cwd=proj)
        assert (got.returncode, got.stdout, got.stderr) == (raw.returncode, raw.stdout, raw.stderr)
    assert [r[0] for r in ledger("stream = 'stdout'")] == [1, 1]
    assert all(t_out < t_in for _, t_in, t_out in ledger("stream = 'stdout'"))
    outside = th("run", "--", "ls", "-la", str(big), cwd=other)
    assert b"thresher expand" in outside.stdout and ledger()[-1][0] == 0
    forced = th("run", "--", "ls", "-la", str(big), cwd=proj,
                env={**os.environ, "THRESHER_MEASURE_ONLY": "0"})
    assert b"thresher expand" in forced.stdout  # the environment overrides the posture


def _post(session_env, command, stdout, n):
    data = payload("post_bash", command=command, stdout=stdout, cwd=str(session_env["proj"]),
                   tool_use_id=f"toolu_measure_{n}")
    return answer(data, session_env["environ"])


def test_hooks_measure_then_graduate_automatically_by_the_rule(session_env, tmp_path):
    proj = session_env["proj"]
    big = many(tmp_path / "data" / "many")
    outputs = {cmd: subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout
               for cmd in (f"ls -la {big}", f"find {big.parent}", f"grep -rn line {big}",
                           f"cat {big}/file_0001.txt {big}/file_0002.txt")}
    ls, find, grep, cat = outputs
    rollout.start(str(proj))
    n = 0
    for i in range(rollout.MIN_PAYLOADS):  # three families only: not yet
        cmd = (find, grep)[i % 2] if i < 6 else ls
        assert _post(session_env, cmd, outputs[cmd], n) is None  # the agent reads the original
        n += 1
    (item,) = rollout.status()
    assert item["state"] == "measuring" and item["payloads"] == rollout.MIN_PAYLOADS
    assert item["families"] == 3 and item["would_save"] > 0
    assert _post(session_env, cat, outputs[cat], n) is None  # the fourth family completes it
    (item,) = rollout.status()
    assert item["state"] == "graduated (auto)"
    assert (item["payloads"], item["families"]) == (rollout.MIN_PAYLOADS + 1, 4)
    measured = ledger("measure_only = 1")
    assert len(measured) == rollout.MIN_PAYLOADS + 1
    assert item["would_save"] == sum(t_in - t_out for _, t_in, t_out in measured)
    after = _post(session_env, ls, outputs[ls], n + 1)
    assert "thresher expand" in after["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
    assert ledger()[-1][0] == 0
    gain = th("gain", "--no-exact", cwd=proj)
    assert f"{proj}: graduated (auto) after {rollout.MIN_PAYLOADS + 1} payloads of 4 command " \
        f"families measured, which would have saved {item['would_save']:,} tokens" in \
        gain.stdout.decode()
    assert "measure-only (raw emitted): 41 payloads would have saved" in gain.stdout.decode()


def test_init_measure_first_graduate_and_uninstall(tmp_path):
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    first = th("init", "claude", "--project", str(proj), "--measure-first", cwd=proj, env=env)
    assert first.returncode == 0 and b"measuring first in " + str(proj).encode() in first.stdout
    assert rollout.status()[0]["state"] == "measuring"
    doctor = th("doctor", "--no-mcp", "--project", str(proj), cwd=proj, env=env)
    assert f"ok   measure-first: {proj}: measuring first, 0 of 40 payloads".encode() in doctor.stdout
    assert doctor.returncode == 0, doctor.stdout  # doctor checks the compressing path still
    done = th("init", "claude", "--project", str(proj), "--graduate", cwd=proj, env=env)
    assert done.returncode == 0 and b"graduated (manual): compressing from now on" in done.stdout
    assert rollout.status()[0]["state"] == "graduated (manual)"
    assert not rollout.measuring(str(proj / "sub"))
    th("init", "claude", "--project", str(proj), "--uninstall", cwd=proj, env=env)
    assert rollout.status() == []
    everywhere = th("init", "claude", "--measure-first", cwd=proj, env=env)
    assert b"measuring first in every project (user settings)" in everywhere.stdout
    assert rollout.measuring(str(tmp_path)) and rollout.measuring("/usr")


def test_the_window_counts_only_ledger_events_and_its_index_stays_bounded(tmp_path):
    proj = tmp_path / "proj"
    rollout.start(str(proj))
    for i in range(rollout.INDEX_CAP + 10):  # never recorded in the ledger: no baseline
        rollout.note(str(proj / "src"), ("ls", "git status", "pytest", "find")[i % 4], f"{i:012x}")
    (item,) = rollout.status()
    assert item["state"] == "measuring" and item["payloads"] == 0
    log = rollout._log(str(proj))
    assert len(open(log).readlines()) == rollout.INDEX_CAP
    rollout.note(str(proj), "cargo build", "f" * 12)  # a new family is still indexed
    assert open(log).readlines()[-1] == "cargo build\t" + "f" * 12 + "\n"
    rollout.note(str(tmp_path / "elsewhere"), "make", "e" * 12)  # outside the root: nothing
    assert len(open(log).readlines()) == rollout.INDEX_CAP + 1
