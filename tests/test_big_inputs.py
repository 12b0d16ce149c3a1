"""Inputs over the examination budget (issue 15 §4): the graph examines what fits, every later
line is scanned for error lines, one footer counts the whole input and says what was only scanned,
and the original comes back byte-exact.

The budget is lowered with THRESHER_EXAMINE_MB so the inputs stay small; the inputs repeat a real
captured failing ``pytest -v`` run (examples/) and a real access log of the fixtures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from thresher.dataflow.errorscan import error_indices
from thresher.dataflow.markers import FOOTER_RE

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "pytest-fail-verbose.txt")
BUDGET_MB = "0.05"   # 52,428 bytes examined


def _thresher(args: list[str], data: bytes = b"", **env: str) -> subprocess.CompletedProcess:
    full = {**os.environ, "THRESHER_EXAMINE_MB": BUDGET_MB, **env}
    return subprocess.run([sys.executable, "-m", "thresher", *args], input=data,
                          capture_output=True, env=full, timeout=120)


def _pytest_run(copies: int) -> bytes:
    with open(EXAMPLE, "rb") as fh:
        unit = fh.read()
    # numbered copies: each run's lines differ a little, as a long real run's would
    return b"".join(unit.replace(b"test_calc.py", f"test_calc{i}.py".encode()) for i in range(copies))


def _footer(out: bytes):
    lines = out.decode().split("\n")
    assert lines[-1] == ""
    footers = [line for line in lines if FOOTER_RE.match(line)]
    assert len(footers) == 1 and lines[-2] == footers[0], "exactly one footer, at the end"
    return FOOTER_RE.match(footers[0]), lines[:-2]


def test_pipe_examines_the_budget_and_scans_the_rest_for_errors():
    data = _pytest_run(40)          # ~270 KB: about a fifth is examined
    assert len(data) > 4 * 52_428
    res = _thresher(["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"], data)
    assert res.returncode == 0
    m, body = _footer(res.stdout)
    src = data.decode().split("\n")[:-1]
    assert int(m["total"]) == len(src)
    first, last = int(m["scan_first"]), int(m["scan_last"])
    assert last == len(src) and 1 < first < len(src) // 3
    assert (m["first"], m["last"]) == (m["scan_first"], m["scan_last"])
    examined_bytes = sum(len(s) + 1 for s in src[:first - 1])
    assert examined_bytes <= 52_428 < examined_bytes + len(src[first - 1]) + 1
    # every distinct error line of the scanned part is shown, verbatim; the count is exact
    scanned = src[first - 1:]
    errors = [scanned[i] for i in error_indices(scanned)]
    assert int(m["errors"]) == len(errors) and int(m["errors_shown"]) == len(set(errors))
    shown = set(body)
    assert set(errors) <= shown
    assert set(src[-40:]) <= shown            # the tail
    # the examined part's own error lines are kept by its graph (INV-6)
    assert {src[i] for i in error_indices(src[:first - 1])} <= shown
    kept = len(body)
    assert kept + int(m["omitted"]) == int(m["total"])
    assert len(res.stdout) < len(data) // 3
    # recoverable, byte-exact, and deterministic
    raw = _thresher(["expand", m["handle"], "--raw"])
    assert raw.returncode == 0 and raw.stdout == data
    again = _thresher(["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"], data)
    assert again.stdout == res.stdout


def test_run_keeps_exit_status_and_stderr_of_a_big_failing_command(tmp_path):
    data = _pytest_run(30)
    path = tmp_path / "out.txt"
    path.write_bytes(data)
    script = f"cat {path}; echo 'fatal: the last thing that went wrong' >&2; exit 3"
    res = _thresher(["run", "--", "sh", "-c", script])
    assert res.returncode == 3
    assert res.stderr == b"fatal: the last thing that went wrong\n"
    m, body = _footer(res.stdout)
    assert int(m["total"]) == data.count(b"\n")
    assert _thresher(["expand", m["handle"], "--raw"]).stdout == data


def test_big_inputs_are_in_the_ledger_with_their_whole_size(tmp_path):
    """pipe and run record one savings event per big payload, as for any other: the whole
    input's size, the handle of the footer, the bytes written."""
    from thresher.stores.savings import load_events
    data = _pytest_run(30)
    res = _thresher(["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"], data)
    path = tmp_path / "out.txt"
    path.write_bytes(data)
    ran = _thresher(["run", "--", "sh", "-c", f"cat {path}; exit 1"])
    rows = load_events()[-2:]
    for row, out in zip(rows, (res.stdout, ran.stdout)):
        m, _ = _footer(out)
        assert row["handle"] == m["handle"] and row["decision"] == "compressed"
        assert row["bytes_in"] == len(data) and row["bytes_out"] == len(out)
        # tokens on both sides are counted on what an agent would have read at most (the
        # ledger's counterfactual cap), so a big input is never credited with more than that
        assert row["class"].startswith("pytest") and row["graph"]
        assert 0 < row["tokens_out"] <= row["tokens_in"]
    assert [r["command"] for r in rows] == ["python -m pytest -v", f"sh -c 'cat {path}; exit 1'"]


def test_a_line_longer_than_the_budget_streams_unchanged():
    data = b"x" * 60_000 + b"\nerror: after a very long line\n" + b"y\n" * 30_000
    res = _thresher(["pipe", "--cmd", "make", "--exit-code", "2"], data)
    assert res.returncode == 0 and res.stdout == data


def test_no_archive_means_raw(tmp_path):
    """The original cannot be stored (cap below its size): no handle may be shown, so raw."""
    data = _pytest_run(30)
    res = _thresher(["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"], data,
                    THRESHER_ARCHIVE_MAX_MB="0.001")
    assert res.stdout == data


def test_measure_only_and_disabled_pass_big_inputs_unchanged():
    data = _pytest_run(30)
    for env in ({"THRESHER_MEASURE_ONLY": "1"}, {"THRESHER_DISABLE": "1"}):
        res = _thresher(["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"], data, **env)
        assert res.stdout == data, env


def test_big_access_log_keeps_every_kind_of_error():
    """A real access log (fixtures) repeated past the budget: each distinct error line of the
    scanned part is shown once; the footer counts all of them."""
    path = next(os.path.join(HERE, "fixtures", f) for f in sorted(os.listdir(os.path.join(HERE, "fixtures")))
                if f.startswith("log-") and f.endswith(".json"))
    with open(path, encoding="utf-8") as fh:
        case = json.load(fh)
    unit = (case["stdout"] + case["stderr"]).encode()
    data = unit * (4 * 52_428 // max(1, len(unit)) + 2)
    res = _thresher(["pipe", "--cmd", case.get("command") or "cat app.log"], data)
    m, body = _footer(res.stdout)
    src = data.decode().split("\n")
    if src[-1] == "":
        src.pop()
    scanned = src[int(m["scan_first"]) - 1:]
    assert set(scanned[i] for i in error_indices(scanned)) <= set(body)
