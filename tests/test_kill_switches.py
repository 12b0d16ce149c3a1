"""Per-subsystem kill switches: `THRESHER_OFF=<one of hooks,shims,mcp,ledger,read-stubs>` turns
exactly that subsystem off and leaves the others working; the master `THRESHER_DISABLE=1` turns
every one off. Each subsystem is probed end to end, as a subprocess, on real outputs.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from thresher.boundary.switches import SUBSYSTEMS

pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A folder of 600 files, its real `ls -la`, a large source file, and a shim folder for ls."""
    root = tmp_path_factory.mktemp("switches")
    big = root / "many"
    big.mkdir()
    for i in range(600):
        (big / f"file_{i:04d}.txt").write_text(f"{i}\n")
    src = root / "mod.py"
    src.write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300)))
    subprocess.run([sys.executable, "-m", "thresher", "shims", "install", str(root / "shims"),
                    "ls"], check=True, capture_output=True)
    listing = subprocess.run(["ls", "-la", str(big)], capture_output=True, text=True).stdout
    return {"root": root, "big": big, "src": src, "listing": listing, "shims": root / "shims"}


def run(env, *argv, stdin=None, cwd=None):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def th(env, *args, stdin=None):
    return run(env, sys.executable, "-m", "thresher", *args, stdin=stdin)


def events(env) -> int:
    path = os.path.join(env["THRESHER_HOME"], "thresher.db")
    if not os.path.exists(path):
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM events").fetchone()[0]


def hooks_act(env, world) -> bool:
    base = {"session_id": "switches", "transcript_path": os.devnull, "cwd": str(world["root"]),
            "permission_mode": "default", "tool_name": "Bash", "tool_use_id": "toolu_sw"}
    pre = th(env, "hook", "claude", stdin=json.dumps(
        {**base, "hook_event_name": "PreToolUse",
         "tool_input": {"command": "pytest -q", "description": "t"}}))
    post = th(env, "hook", "claude", stdin=json.dumps(
        {**base, "hook_event_name": "PostToolUse", "tool_use_id": f"toolu_{os.urandom(4).hex()}",
         "tool_input": {"command": f"ls -la {world['big']}", "description": "t"},
         "tool_response": {"stdout": world["listing"], "stderr": "", "interrupted": False,
                           "isImage": False}}))
    acted = ("updatedInput" in pre.stdout, "updatedToolOutput" in post.stdout)
    assert acted[0] == acted[1], acted  # both hooks follow the one switch
    return acted[0]


def shims_act(env, world) -> bool:
    got = run({**env, "PATH": f"{world['shims']}:{env['PATH']}"}, "/bin/sh", "-c",
              f"ls -la {world['big']}")
    assert got.returncode == 0
    if "thresher expand" in got.stdout:
        return True
    assert got.stdout == world["listing"]  # off: the real program's bytes
    return False


def mcp_acts(env, world) -> bool:
    got = th(env, "mcp", stdin="")
    if got.returncode == 1:
        assert got.stderr.startswith("thresher mcp: switched off (THRESHER_OFF=mcp or ")
        return False
    assert got.returncode == 0, got.stderr  # served until the client closed stdin
    return True


def ledger_acts(env, world) -> bool:
    before = events(env)
    got = th(env, "run", "--", "ls", "-la", str(world["big"]))
    assert got.returncode == 0
    return events(env) > before


def read_stubs_act(env, world) -> bool:
    scoped = {**env, "THRESHER_SESSION": f"s-{os.urandom(4).hex()}"}
    first = th(scoped, "read", str(world["src"]), "--mode", "full")
    second = th(scoped, "read", str(world["src"]), "--mode", "full")
    assert first.returncode == second.returncode == 0
    return second.stdout.startswith("[unchanged since you read it")


PROBES = {"hooks": hooks_act, "shims": shims_act, "mcp": mcp_acts, "ledger": ledger_acts,
          "read-stubs": read_stubs_act}


def environment(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("THRESHER_DISABLE", "THRESHER_RAW", "THRESHER_OFF", "THRESHER_NO_LEDGER",
                        "THRESHER_MEASURE_ONLY", "THRESHER_SESSION")}
    env.update(HOME=str(tmp_path), **extra)
    return env


def test_every_subsystem_works_with_no_switch(world, tmp_path):
    env = environment(tmp_path)
    assert {name: probe(env, world) for name, probe in PROBES.items()} == \
        dict.fromkeys(SUBSYSTEMS, True)


@pytest.mark.parametrize("name", SUBSYSTEMS)
def test_thresher_off_disables_exactly_its_subsystem(world, tmp_path, name):
    env = environment(tmp_path, THRESHER_OFF=f"other,{name}")
    got = {n: probe(env, world) for n, probe in PROBES.items()}
    assert got == {n: n != name for n in SUBSYSTEMS}


def test_the_master_switch_still_disables_all(world, tmp_path):
    env = environment(tmp_path, THRESHER_DISABLE="1")
    assert {n: probe(env, world) for n, probe in PROBES.items()} == dict.fromkeys(SUBSYSTEMS, False)


def test_doctor_names_the_switches_set_and_a_misspelt_one(tmp_path):
    env = environment(tmp_path, THRESHER_OFF="hooks,stubs")
    out = th(env, "doctor", "--no-mcp").stdout
    assert "warn switches: THRESHER_OFF names stubs, which is no subsystem" in out
    assert "fix: use any of hooks,shims,mcp,ledger,read-stubs" in out
    out = th(environment(tmp_path, THRESHER_OFF="shims"), "doctor", "--no-mcp").stdout
    assert "warn switches: switched off by THRESHER_OFF: shims" in out
