"""``thresher run``: real commands, exact exit codes, byte-exact passthrough where required."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from thresher.dataflow.markers import FOOTER_RE

TH = [sys.executable, "-m", "thresher", "run"]


def _run(*cmd: str, stdin: bytes = b"", env: dict | None = None, cwd=None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(TH + ["--", *cmd], input=stdin, capture_output=True, env=full_env,
                          cwd=cwd, timeout=120)


@pytest.mark.parametrize("script,status", [("exit 0", 0), ("exit 3", 3), ("exit 255", 255),
                                           ("kill -9 $$", 137), ("kill -15 $$", 143)])
def test_exit_status_is_exact(script, status):
    assert _run("sh", "-c", script).returncode == status


def test_command_not_found_is_127_and_not_executable_is_126(tmp_path):
    res = _run("definitely-not-a-command-xyz")
    assert res.returncode == 127 and b"command not found" in res.stderr
    f = tmp_path / "noexec.sh"
    f.write_text("echo hi\n")
    assert _run(str(f)).returncode == 126


def test_failing_command_stderr_is_byte_exact_and_stdout_is_filtered(tmp_path):
    script = ("import sys\nfor i in range(400): print(f'step {i} ok')\n"
              "sys.stderr.write('Traceback (most recent call last):\\n  File \"x.py\", line 3\\n"
              "ValueError: bad \\x1b[31mthing\\x1b[0m\\n')\nsys.exit(4)\n")
    res = _run(sys.executable, "-c", script)
    assert res.returncode == 4
    assert res.stderr == b'Traceback (most recent call last):\n  File "x.py", line 3\n' \
                         b'ValueError: bad \x1b[31mthing\x1b[0m\n'
    lines = res.stdout.decode().splitlines()
    assert len(lines) < 100 and FOOTER_RE.match(lines[-1])
    assert lines[0] == "step 0 ok"


def test_stdin_reaches_the_command():
    res = _run(sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read().upper())", stdin=b"abc\n")
    assert res.returncode == 0 and res.stdout == b"ABC\n"


def test_fifty_megabytes_come_back_whole_or_expandable():
    code = ("import sys\nb = b'0123456789abcdef' * 64\n"
            "for i in range(50 * 1024): sys.stdout.buffer.write(b + str(i).encode() + b'\\n')\n")
    expected = b"".join(b"0123456789abcdef" * 64 + str(i).encode() + b"\n" for i in range(50 * 1024))
    res = _run(sys.executable, "-c", code)
    assert res.returncode == 0
    if res.stdout != expected:
        m = FOOTER_RE.match(res.stdout.decode().splitlines()[-1])
        assert m is not None and len(res.stdout) < len(expected)
        back = subprocess.run([sys.executable, "-m", "thresher", "expand", m["handle"]], capture_output=True)
        assert back.stdout == expected


def test_a_pipeline_inside_sh_keeps_its_exit_status_and_output():
    res = _run("sh", "-c", "printf 'a\\nb\\nc\\n' | grep -c b; exit 5")
    assert res.returncode == 5 and res.stdout == b"1\n"


def test_still_running_after_the_budget_streams_raw():
    code = "import time,sys\nfor i in range(300): print('tick', i)\nsys.stdout.flush(); time.sleep(1.5)\nprint('done')\n"
    res = subprocess.run(TH + ["--stream-after", "0.5", "--", sys.executable, "-c", code],
                         capture_output=True, timeout=60)
    assert res.returncode == 0
    assert res.stdout.decode().splitlines() == [f"tick {i}" for i in range(300)] + ["done"]


def test_output_without_trailing_newline_and_binary_are_kept():
    res = _run("printf", "no newline")
    assert res.stdout == b"no newline"
    res = _run(sys.executable, "-c", "import sys; sys.stdout.buffer.write(bytes(range(256)) * 100)")
    assert res.stdout == bytes(range(256)) * 100


def test_kill_switches(tmp_path):
    code = "for i in range(500): print('line', i % 7)"
    filtered = _run(sys.executable, "-c", code)
    raw = "".join(f"line {i % 7}\n" for i in range(500)).encode()
    assert filtered.stdout != raw
    for env in ({"THRESHER_DISABLE": "1"}, {"THRESHER_RAW": "1"}):
        assert _run(sys.executable, "-c", code, env=env).stdout == raw
    home = tmp_path / "home"
    res = _run(sys.executable, "-c", code, env={"THRESHER_MEASURE_ONLY": "1", "THRESHER_HOME": str(home)})
    assert res.stdout == raw
    from thresher.stores.savings import load_events
    row = load_events(str(home))[0]  # measure-only events live in the savings ledger
    assert row["measure_only"] == 1
    assert row["tokens_out"] < row["tokens_in"] and row["decision"] == "compressed"
    assert subprocess.run(TH + ["--raw", "--", sys.executable, "-c", code], capture_output=True).stdout == raw


def test_watchers_and_machine_formats_run_untouched():
    code = "import json; print(json.dumps([{'a': i} for i in range(300)], indent=1))"
    res = subprocess.run(TH + ["--", sys.executable, "-c", code, "--json"], capture_output=True)
    expected = subprocess.run([sys.executable, "-c", code], capture_output=True).stdout
    assert res.stdout == expected


def test_bad_usage_exits_2_with_help():
    res = subprocess.run(TH + ["--bogus", "--", "true"], capture_output=True, text=True)
    assert res.returncode == 2 and "unknown option '--bogus'" in res.stderr and "usage:" in res.stderr
    res = subprocess.run(TH, capture_output=True, text=True)
    assert res.returncode == 2 and "no command given" in res.stderr
