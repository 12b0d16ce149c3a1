"""``thresher pipe``: the stable stdin → stdout contract that hooks and benchmarks use."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys

import pytest

from thresher.dataflow.markers import FOOTER_RE

from .conftest import fixture_case


def _pipe(data: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thresher", "pipe", *args], input=data,
                          capture_output=True)


def test_pipe_compresses_a_failing_run_and_the_footer_expands_to_the_original():
    case = fixture_case("pytest-fail-verbose")
    res = _pipe(case["stdout"].encode(), "--cmd", case["command"], "--exit-code", "1")
    assert res.returncode == 0
    out = res.stdout.decode()
    assert all(fact in out for fact in case["must_keep"])
    m = FOOTER_RE.match(out.splitlines()[-1])
    assert m is not None
    back = subprocess.run([sys.executable, "-m", "thresher", "expand", m["handle"]], capture_output=True)
    assert back.returncode == 0 and back.stdout == case["stdout"].encode()
    part = subprocess.run([sys.executable, "-m", "thresher", "expand", m["handle"], "--lines", "2-3"],
                          capture_output=True)
    assert part.stdout.decode().splitlines() == case["stdout"].splitlines()[1:3]


def test_expand_of_an_unknown_handle_says_so_and_exits_1():
    res = subprocess.run([sys.executable, "-m", "thresher", "expand", "abcdef123456"], capture_output=True)
    assert res.returncode == 1 and b"unknown or expired handle" in res.stderr


def test_pipe_passes_structured_output_byte_exact():
    case = fixture_case("git-status-porcelain-own")
    res = _pipe(case["stdout"].encode(), "--cmd=git status --porcelain")
    assert res.returncode == 0 and res.stdout == case["stdout"].encode()


@pytest.mark.parametrize("args", [("--exit-code", "one"), ("--exit-code", ""), ("--exit-code",),
                                  ("--bogus", "1"), ("--cmd", "pytest", "-x"), ("--exit-code=",)])
def test_pipe_with_a_bad_argument_writes_its_input_unchanged_and_warns(args):
    data = fixture_case("pytest-fail-verbose")["stdout"].encode()  # would be compressed otherwise
    res = _pipe(data, *args)
    assert (res.returncode, res.stdout) == (0, data)
    warning = res.stderr.decode().splitlines()
    assert len(warning) == 1 and warning[0].startswith("thresher pipe: ")
    assert "input passed through unchanged" in warning[0]


def test_pipe_needs_an_integer_exit_code_and_says_so():
    res = _pipe(b"x\n", "--exit-code", "one")
    assert b"--exit-code needs an integer, got 'one'" in res.stderr and res.stdout == b"x\n"


def _ledger_exit_codes() -> list:
    path = os.path.join(os.environ["THRESHER_HOME"], "thresher.db")
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT exit_code FROM events ORDER BY id")]


FAILING = "printf 'E   assert 1 == 2\\nFAILED t.py::x\\n'; exit 3"


def _bash(line: str, tmp_path) -> subprocess.CompletedProcess:
    """``line`` in a real bash, with thresher (this venv's) first on PATH, in ``tmp_path``."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    (bindir / "thresher").write_text(f"#!/bin/sh\nexec {sys.executable} -m thresher \"$@\"\n")
    (bindir / "thresher").chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}
    return subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


def test_the_old_readme_idiom_passes_the_wrong_status_and_the_documented_one_the_right(tmp_path):
    old = _bash(f"cmd() ( {FAILING} ); cmd 2>&1 | thresher pipe --cmd cmd --exit-code $?",
                tmp_path)
    assert old.returncode == 0 and _ledger_exit_codes() == [0]  # $?: the line before's status
    new = _bash(f"cmd() ( {FAILING} ); cmd > out.txt 2>&1; "
                "thresher pipe --cmd cmd --exit-code $? < out.txt", tmp_path)
    assert new.returncode == 0 and "FAILED t.py::x" in new.stdout
    assert _ledger_exit_codes() == [0, 3]


def test_thresher_run_keeps_the_status_in_a_real_shell(tmp_path):
    res = _bash(f"thresher run -- sh -c \"{FAILING}\"; echo status=$?", tmp_path)
    assert "FAILED t.py::x" in res.stdout and res.stdout.endswith("status=3\n")
    assert _ledger_exit_codes() == [3]


def test_docs_no_longer_teach_the_wrong_idiom():
    root = os.path.join(os.path.dirname(__file__), "..")
    for rel in ("README.md", os.path.join("cli", "main.py"), os.path.join("cli", "cmd_pipe.py")):
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            text = fh.read()
        assert not re.search(r"\| *thresher pipe [^\n<]*--exit-code \$\?", text), rel


def test_pipe_streams_huge_input_unchanged(monkeypatch):
    data = b"y" * (64 * 1024 * 1024 + 10)
    res = _pipe(data, "--cmd", "cat big")
    assert res.returncode == 0 and len(res.stdout) == len(data) and res.stdout == data


def test_help_explains_the_commands():
    res = subprocess.run([sys.executable, "-m", "thresher", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "pipe" in res.stdout and "expand" in res.stdout
    bad = subprocess.run([sys.executable, "-m", "thresher", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown command 'nope'" in bad.stderr
