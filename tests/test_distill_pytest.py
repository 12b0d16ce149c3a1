"""distill-pytest / distill-unittest on real captured runs: facts kept, counts exact, declines."""

from __future__ import annotations

import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages.runners import distill_pytest
from thresher.stages.runners import distill_unittest

from .conftest import fixture_case

PARAMS = {"fold_passing": True, "condense_over_budget": True}
BIG = {"max_lines": 100_000, "max_tokens": 10_000_000}


def _distill(text: str, command: str = "pytest", exit_code: int = 1, budget=None, params=None):
    payload = initial_payload(text.encode(), command=command, argv=tuple(command.split()),
                              exit_code=exit_code)
    ctx = Context(budget or BIG, None, "0" * 12, "test")
    return distill_pytest.run(payload, params or PARAMS, ctx)


def _summaries(p) -> list[str]:
    return [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC]


def _out(case: dict) -> str:
    return compress(case["stdout"], command=case["command"], exit_code=case["exit_code"]).text


@pytest.mark.parametrize("cid", ["pytest-own-fail-default", "pytest-own-huge-fail",
                                 "pytest-own-verbose-params", "pytest-own-capture-off",
                                 "pytest-own-collect-error", "pytest-fail-quiet"])
def test_every_fact_survives_as_a_whole_line(cid):
    case = fixture_case(cid)
    lines = set(_out(case).splitlines())
    for fact in case["must_keep"]:
        assert any(fact in line for line in lines), fact


def test_progress_summary_counts_exactly_what_was_dropped():
    case = fixture_case("pytest-own-fail-default")
    src = case["stdout"].splitlines()
    p = _distill(case["stdout"], case["command"], case["exit_code"])
    kept = {o for o in p.origin if o >= 0}
    dropped = [src[i] for i in range(len(src)) if i not in kept]
    progress = [d for d in dropped if distill_pytest.PROGRESS_RE.match(d)]
    marks = "".join(distill_pytest.PROGRESS_RE.match(d)["marks"] for d in progress)
    parts = ", ".join(f"{marks.count(ch)} {name}" for ch, name in
                      ((".", "passed"), ("s", "skipped"), ("x", "xfailed")) if marks.count(ch))
    want = f"[thresher: {len(progress)} progress line{'s' if len(progress) > 1 else ''} not shown ({parts})]"
    assert _summaries(p) == [want]
    # the final counts line, the short summary and every E line stay byte-exact
    assert src[-1] in p.lines and all(line in p.lines for line in src if line.startswith(("E ", "FAILED ")))
    assert not any(line.startswith(("platform ", "rootdir: ", "collected ")) for line in p.lines)


def test_progress_lines_with_a_failure_mark_are_kept():
    case = fixture_case("pytest-own-huge-fail")
    p = _distill(case["stdout"], case["command"], case["exit_code"])
    marked = [line for line in case["stdout"].splitlines()
              if distill_pytest.PROGRESS_RE.match(line) and "F" in line]
    assert marked and all(line in p.lines for line in marked)


def test_over_budget_failure_blocks_are_shortened_and_counted():
    case = fixture_case("pytest-own-huge-fail")
    p = _distill(case["stdout"], case["command"], 1, budget={"max_lines": 150, "max_tokens": 4000})
    note = [s for s in _summaries(p) if "failure block" in s]
    assert len(note) == 1
    blocks = sum(1 for line in case["stdout"].splitlines() if distill_pytest.BLOCK_HEAD_RE.match(line))
    assert f"{blocks} failure blocks shortened" in note[0]
    assert all(line in p.lines for line in case["stdout"].splitlines()
               if line.startswith((">", "E ")) or re.match(r"^\S+\.py:\d+: \w+Error$", line))


def test_short_tracebacks_keep_the_innermost_code_line():
    """`--tb=short` prints no `>` line: the code line above a block's first E line is the failing
    source line, and a shortened block keeps it (a real run of a 4-deep call chain)."""
    case = fixture_case("unseen-pytest-deep-tb-short")
    p = _distill(case["stdout"], case["command"], 1, budget={"max_lines": 150, "max_tokens": 4000})
    assert any("failure block" in s for s in _summaries(p))
    src = case["stdout"].splitlines()
    innermost = [src[i - 1] for i in range(2, len(src)) if src[i].startswith("E ")
                 and not src[i - 1].startswith("E") and distill_pytest.SHORT_FRAME_RE.match(src[i - 2])]
    assert innermost and all(line in p.lines for line in innermost)
    outer = {src[i + 1] for i in range(len(src) - 1) if distill_pytest.SHORT_FRAME_RE.match(src[i])
             and not src[i + 2].startswith("E")} - set(innermost)
    assert outer and not outer & set(p.lines)   # only the innermost frame's code, not every frame's


def test_long_tracebacks_asked_for_are_not_shortened():
    case = fixture_case("pytest-own-huge-fail")
    small = {"max_lines": 150, "max_tokens": 4000}
    p = _distill(case["stdout"], "pytest --tb=long", 1, budget=small)
    assert not any("failure block" in s for s in _summaries(p))
    src = case["stdout"].splitlines()
    start = src.index(next(line for line in src if "FAILURES" in line))
    assert all(line in p.lines for line in src[start:])


def test_verbose_passed_rows_fold_per_file_with_exact_counts():
    case = fixture_case("pytest-own-verbose-params")
    p = _distill(case["stdout"], case["command"], case["exit_code"])
    src = case["stdout"].splitlines()
    rows = [line for line in src if "::" in line and " PASSED" in line]
    assert rows[0] in p.lines    # the file's first PASSED row stays, then its counted line
    assert f"[thresher: {len(rows) - 1} more PASSED rows of test_calc.py not shown]" in _summaries(p)
    assert all(line in p.lines for line in src if "::" in line and " PASSED" not in line)


def test_prints_of_a_capture_off_run_are_kept():
    case = fixture_case("pytest-own-capture-off")
    out = _out(case)
    assert "connecting to db" in out and "retrying after timeout" in out


def test_collection_error_is_never_summarised_as_success():
    case = fixture_case("pytest-own-collect-error")
    p = _distill(case["stdout"], case["command"], case["exit_code"])
    text = "\n".join(p.lines)
    assert not any("passed" in s for s in _summaries(p))
    for line in case["stdout"].splitlines():
        if line.startswith(("E ", "ERROR ", "!!!", "_____")) or "1 error" in line:
            assert line in p.lines
    assert "no tests" not in text


@pytest.mark.parametrize("text", [
    "",
    "hello world\n" * 40,
    "running 3 tests\ntest a ... ok\ntest b ... ok\ntest c ... ok\n\ntest result: ok. 3 passed; 0 failed\n",
    "=== RUN   TestX\n--- PASS: TestX (0.00s)\nPASS\nok  \texample.com/x\t0.002s\n",
    "src/a.py:3: error: Name 'x' is not defined  [name-defined]\nFound 1 error in 1 file\n",
])
def test_declines_on_output_that_is_not_a_finished_test_run(text):
    assert _distill(text) is None


def test_internal_error_declines_and_passes_every_line():
    case = fixture_case("pytest-own-internal-error")
    assert _distill(case["stdout"], case["command"], case["exit_code"]) is None
    out = _out(case)
    assert all(f in out for f in case["must_keep"])


def test_no_tests_ran_keeps_its_counts_line():
    case = fixture_case("pytest-own-no-tests")
    out = _out(case)
    assert any(line.startswith("=") and "no tests ran" in line for line in out.splitlines())


def test_unittest_marks_are_counted_and_failures_kept():
    case = fixture_case("unittest-own-pass")
    payload = initial_payload(case["stderr"].encode(), command=case["command"], exit_code=0)
    p = distill_unittest.run(payload, {}, None)
    marks = [line for line in case["stderr"].splitlines() if distill_unittest.MARKS_RE.match(line)]
    chars = "".join(marks)
    assert _summaries(p) == [f"[thresher: {len(marks)} progress line{'s' if len(marks) > 1 else ''} "
                             f"not shown ({chars.count('.')} passed, {chars.count('s')} skipped)]"]
    assert any(line.startswith("Ran ") for line in p.lines) and p.lines[-1].startswith("OK")
    fail = fixture_case("unittest-own-fail")
    out = compress(fail["stderr"], command=fail["command"], exit_code=0, stream="stderr").text
    assert all(f in out for f in fail["must_keep"])


def test_unittest_declines_without_its_closing_lines():
    payload = initial_payload(b"....\nsomething else\n", command="python -m unittest", exit_code=1)
    assert distill_unittest.run(payload, {}, None) is None
