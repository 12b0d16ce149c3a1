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


def test_output_without_trailing_newline_is_kept_and_binary_is_one_line_with_its_bytes_archived():
    res = _run("printf", "no newline")
    assert res.stdout == b"no newline"
    blob = bytes(range(256)) * 100
    res = _run(sys.executable, "-c", "import sys; sys.stdout.buffer.write(bytes(range(256)) * 100)")
    line = res.stdout.decode()
    assert line.count("\n") == 1 and f"binary data (not UTF-8 text), {len(blob):,} bytes" in line
    handle = line.split("thresher expand ")[1].split()[0]
    back = subprocess.run([sys.executable, "-m", "thresher", "expand", handle, "--raw"],
                          capture_output=True, timeout=60)
    assert back.returncode == 0 and back.stdout == blob


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
    expected = subprocess.run([sys.executable, "-c", code], capture_output=True).stdout
    res = subprocess.run(TH + ["--", sys.executable, "-c", code, "--porcelain"], capture_output=True)
    assert res.stdout == expected
    # one JSON document (--json) is a read by the agent's terminal (issue 16: crushed over
    # budget), but under a PATH shim into a pipe a program may be reading it: every byte
    shim = {**os.environ, "THRESHER_SHIMMED": "1"}
    res = subprocess.run(TH + ["--", sys.executable, "-c", code, "--json"], capture_output=True, env=shim)
    assert res.stdout == expected
    res = subprocess.run(TH + ["--", sys.executable, "-c", code, "--json"], capture_output=True)
    assert res.stdout != expected and b"[thresher: " in res.stdout


def test_bad_usage_runs_the_command_raw_with_a_warning():
    code = "for i in range(500): print('line', i % 7)"
    raw = "".join(f"line {i % 7}\n" for i in range(500)).encode()
    for opts in (["--bogus"], ["--stream-after", "soon"], ["--role"]):
        res = subprocess.run(TH + opts + ["--", sys.executable, "-c", code + "\nraise SystemExit(3)"],
                             capture_output=True, text=True)
        assert res.returncode == 3 and res.stdout == raw.decode(), opts
        assert res.stderr.startswith("thresher run: ") and "running the command unfiltered" in res.stderr
    assert "unknown option '--bogus'" in subprocess.run(TH + ["--bogus", "--", "true"],
                                                        capture_output=True, text=True).stderr
    res = subprocess.run(TH, capture_output=True, text=True)
    assert res.returncode == 2 and "no command given" in res.stderr


def test_a_reader_that_goes_away_ends_the_command_as_in_the_shell():
    """`thresher run -- yes | head -1`: yes meets SIGPIPE (141) and everything ends at once."""
    res = subprocess.run(["sh", "-c", " ".join(TH) + " -- yes | head -1; echo \"$?\"",],
                         capture_output=True, timeout=60)
    assert res.stdout == b"y\n0\n"
    script = ('import subprocess, sys\n'
              'p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)\n'
              'print(p.stdout.readline().decode(), end="")\n'
              'p.stdout.close()\n'
              'print(p.wait())\n')
    res = subprocess.run([sys.executable, "-c", script, *TH, "--", "yes"], capture_output=True,
                         timeout=60)
    assert res.stdout == b"y\n141\n"


def _ready_child(tmp_path, body: str) -> tuple[list[str], str]:
    ready = tmp_path / "ready"
    code = ("import os, signal, sys, time\n"
            "for i in range(300): print('row', i)\n"
            "sys.stdout.flush()\n" + body +
            f"open({str(ready)!r}, 'w').close()\n"
            "time.sleep(30)\n")
    return [sys.executable, "-c", code], str(ready)


def _wait_for(path: str) -> None:
    import time
    for _ in range(3000):
        if os.path.exists(path):
            return
        time.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.parametrize("signame", ["SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM"])
def test_every_catchable_signal_reaches_the_command_and_its_output_is_delivered(tmp_path, signame):
    import signal
    sig = getattr(signal, signame)
    body = (f"signal.signal({int(sig)}, lambda *a: (print('got', {int(sig)}), sys.exit(9)))\n")
    cmd, ready = _ready_child(tmp_path, body)
    proc = subprocess.Popen(TH + ["--", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for(ready)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 9, err
    text = out.decode()
    assert f"got {int(sig)}" in text and "row 0" in text  # buffered output delivered


def test_a_signal_that_kills_the_command_still_delivers_its_output(tmp_path):
    import signal
    cmd, ready = _ready_child(tmp_path, "")
    proc = subprocess.Popen(TH + ["--", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for(ready)
    proc.send_signal(signal.SIGUSR1)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGUSR1 and out.startswith(b"row 0\n")


@pytest.mark.parametrize("signame,status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_a_cold_start_is_handed_to_the_command_without_a_traceback(signame, status):
    """A signal while the plans compile (seconds on a cold cache): no traceback, the command is
    started untouched and gets the signal (sleep dies of it, as in the shell)."""
    script = ("import os, signal, sys, time\n"
              "import thresher.dataflow.plan as plan\n"
              "def slow(*a, **k):\n"
              f"    os.kill(os.getpid(), signal.{signame})\n"
              "    time.sleep(30)\n"
              "plan.load_plans = slow\n"
              "from thresher import cmd_run\n"
              "sys.exit(cmd_run.main(['--', 'sleep', '20']))\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert res.stderr == b"" and res.returncode == status


def test_a_closed_stdout_is_met_by_the_command_as_in_the_shell():
    """`thresher run -- cmd >&-`: no thresher traceback; the command's own status, as without it."""
    script = "sh -c 'echo hi; echo err >&2'"
    direct = subprocess.run(["sh", "-c", script + " >&-"], capture_output=True)
    res = subprocess.run(["sh", "-c", " ".join(TH) + " -- " + script + " >&-"], capture_output=True,
                         timeout=60)
    assert b"Traceback" not in res.stderr
    assert res.returncode == direct.returncode and res.stderr == direct.stderr


@pytest.mark.parametrize("words", [
    ["true"], ["git", "log", "--format=%H %s"], ["echo", ""], ["echo", "it's"], ["a b", "c\td"],
    ["printf", "%s\n", "$HOME"], ["ls", "é"], ["x", "-_@%+=:,./"], ["cat", "a;b", "|", "(c)"],
    ["sh", "-c", "echo \"$1\"", "'q'"], ["grep", "-e", "\\d+", "*.py"],
])
def test_command_line_is_shlex_join_byte_for_byte(words):
    """The command string the classifier, the archive and the ledger see is ``shlex.join``'s,
    although ``thresher run`` no longer imports shlex (and so ``re``) to build it."""
    import shlex

    from thresher.cmd_run import _command_line
    assert _command_line(words) == shlex.join(words)
