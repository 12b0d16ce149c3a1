"""``thresher pipe``: the stable stdin → stdout contract that hooks and benchmarks use."""

from __future__ import annotations

import subprocess
import sys

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


def test_pipe_with_bad_flags_explains_and_exits_2():
    res = _pipe(b"x\n", "--exit-code", "one")
    assert res.returncode == 2 and b"--exit-code needs an integer" in res.stderr
    assert b"usage: thresher pipe" in res.stderr


def test_pipe_streams_huge_input_unchanged(monkeypatch):
    data = b"y" * (64 * 1024 * 1024 + 10)
    res = _pipe(data, "--cmd", "cat big")
    assert res.returncode == 0 and len(res.stdout) == len(data) and res.stdout == data


def test_help_explains_the_commands():
    res = subprocess.run([sys.executable, "-m", "thresher", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "pipe" in res.stdout and "expand" in res.stdout
    bad = subprocess.run([sys.executable, "-m", "thresher", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown command 'nope'" in bad.stderr
