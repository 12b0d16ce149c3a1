"""The executor's contracts, observed through the public API on real captured outputs."""

from __future__ import annotations

import copy
import time

import pytest

from thresher.dataflow.api import compress, handle_of
from thresher.dataflow.markers import FOOTER_RE, is_footer
from thresher.dataflow.plan import load_plans
from thresher.dataflow.tokens import estimate
from thresher.stores.archive import default_archive

from .conftest import fixture_case


def _plan(gid: str) -> dict:
    return copy.deepcopy(load_plans().plans[gid])


def _verbose_failure() -> dict:
    return fixture_case("pytest-fail-verbose")


def _boom(payload, params, ctx):
    raise RuntimeError("stage exploded")


def _slow(payload, params, ctx):
    time.sleep(1.0)
    return payload.select(range(1))


def _fabricate(payload, params, ctx):
    return payload.with_view(["all tests passed"] + list(payload.lines[1:]), (0,) + payload.origin[1:])


def _drop_errors(payload, params, ctx):
    keep = [i for i, line in enumerate(payload.lines) if not line.startswith("E ")]
    return payload.select(keep)


def test_failing_pytest_keeps_every_failure_and_has_one_footer():
    case = _verbose_failure()
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"], trace=True)
    out = res.text
    assert res.emission.decision == "compressed"
    for fact in case["must_keep"]:
        assert fact in out, fact
    footers = [line for line in out.splitlines() if is_footer(line)]
    assert len(footers) == 1 and out.splitlines()[-1] == footers[0]
    m = FOOTER_RE.match(footers[0])
    total = len(case["stdout"].splitlines())
    assert int(m["total"]) == total
    kept = sum(1 for line in out.splitlines()[:-1] if not line.startswith("[thresher:"))
    assert kept + int(m["omitted"]) == total
    assert estimate(out) < estimate(case["stdout"])


def test_lossy_output_is_archived_and_expandable_byte_exact():
    case = _verbose_failure()
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"])
    assert res.emission.handle == handle_of(case["stdout"].encode())
    assert default_archive().get(res.emission.handle) == case["stdout"].encode()


def test_identical_input_gives_identical_bytes():
    case = fixture_case("git-status-long")
    outs = {compress(case["stdout"], command=case["command"], exit_code=0).output for _ in range(3)}
    assert len(outs) == 1


@pytest.mark.parametrize("impl,decision", [
    ("tests.test_engine:_boom", "failed"),
    ("tests.test_engine:_fabricate", "rejected"),
])
def test_bad_stage_fails_open_and_the_trace_says_why(impl, decision):
    case = _verbose_failure()
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["impl"] = impl
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    rec = next(r for r in res.trace.records if r["node"] == "distill")
    assert rec["decision"] == decision
    assert ("stage exploded" in rec["reason"]) if decision == "failed" else "INV-3" in rec["reason"]
    assert "all tests passed" not in res.text
    for fact in case["must_keep"]:
        assert fact in res.text


_SWALLOWED: list = []


def _swallows_the_first_alarm(payload, params, ctx):
    """A stage whose broad ``except`` eats the hang guard's exception, then loops on (bounded
    here, so a broken guard fails the test instead of hanging it)."""
    from thresher.dataflow.errors import StageTimeout
    end = time.monotonic() + 20
    try:
        while time.monotonic() < end:
            pass
    except StageTimeout:
        _SWALLOWED.append("first")
    while time.monotonic() < end:
        pass
    _SWALLOWED.append("ran to its end")
    return None


def test_a_swallowed_hang_guard_fires_again_until_the_stage_gives_up():
    import signal
    from thresher.dataflow import executor
    case = _verbose_failure()
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["impl"] = "tests.test_engine:_swallows_the_first_alarm"
    plan["budget"]["stage_ms"] = 50
    _SWALLOWED.clear()
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    assert _SWALLOWED == ["first"]   # the second firing ended it, long before its 20 s loop
    rec = next(r for r in res.trace.records if r["node"] == "distill")
    assert rec["decision"] == "failed" and "StageTimeout" in rec["reason"]
    assert res.output == case["stdout"].encode() and "hang guard" in res.emission.reason
    # and the guard is gone: no timer armed, the previous handler back
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is not executor._alarm


def test_stage_past_its_hang_guard_means_raw_output():
    case = _verbose_failure()
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["impl"] = "tests.test_engine:_slow"
    plan["budget"]["stage_ms"] = 50
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    rec = next(r for r in res.trace.records if r["node"] == "distill")
    assert rec["decision"] == "failed" and "StageTimeout" in rec["reason"]
    assert res.output == case["stdout"].encode() and "hang guard" in res.emission.reason


def test_dropping_error_lines_of_a_failing_command_is_rejected():
    case = _verbose_failure()
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["impl"] = "tests.test_engine:_drop_errors"
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    rec = next(r for r in res.trace.records if r["node"] == "distill")
    assert rec["decision"] == "rejected" and rec["reason"].startswith("INV-6")


def test_collapse_is_skipped_when_the_distilled_form_meets_the_budget():
    case = _verbose_failure()
    plan = _plan("pytest.default")
    plan["budget"]["max_lines"] = 10_000
    plan["budget"]["max_tokens"] = 100_000
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    by_node = {r["node"]: r for r in res.trace.records}
    assert by_node["distill"]["decision"] == "applied"
    assert by_node["collapse"]["decision"] == "skipped"


def test_guard_verdict_is_byte_exact_passthrough():
    case = fixture_case("git-status-porcelain-own")
    res = compress(case["stdout"], command=case["command"], exit_code=0, trace=True,
                   pclass="git-status")  # force the graph: the classifier alone would say verbatim
    assert res.output == case["stdout"].encode()
    assert res.emission.decision == "verbatim"
    assert [r["port"] for r in res.trace.records if r["node"] == "guard"] == ["verbatim"]


def test_whole_small_outputs_lose_only_their_colour_codes():
    red, bold, off = "\x1b[31m", "\x1b[1m", "\x1b[0m"
    text = (f"{bold}test_x.py{off}:3: in test_sum\n    assert add(2, 2) == 5\n"
            f"{red}E   assert 4 == 5{off}\n{red}1 failed{off} in 0.01s\n")
    res = compress(text, command="pytest -q", exit_code=1)
    assert res.emission.decision == "cleaned" and "colour codes removed" in res.emission.reason
    assert res.text == text.replace(red, "").replace(bold, "").replace(off, "")
    # a cursor move is not only colour: the output passes byte-exact
    moved = text + "\x1b[2K\n"
    assert compress(moved, command="pytest -q", exit_code=1).output == moved.encode()
    # structured output keeps its bytes, colour and all
    data = f'{red}{{"a": 1}}{off}\n'
    assert compress(data, command="tool --porcelain", exit_code=0).output == data.encode()
    # one JSON document: byte-exact for a program reader; the agent's terminal reads it (issue 16)
    assert compress(data, command="tool --json", exit_code=0, reader="program").output == data.encode()


def test_archive_failure_means_raw(monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("THRESHER_HOME", str(blocker))
    case = _verbose_failure()
    res = compress(case["stdout"], command=case["command"], exit_code=1)
    assert res.output == case["stdout"].encode()
    assert res.emission.reason.startswith("INV-7")


@pytest.mark.parametrize("data", [b"", b"\x00\x01\x02binary\xff" * 50, b"\xff\xfe broken utf-8\n" * 300,
                                  b"x" * 3_000_000])
def test_awkward_input_never_crashes_and_loses_nothing(data):
    res = compress(data, command="cat blob")
    if res.emission.decision == "compressed":
        assert default_archive().get(res.emission.handle) == data
    else:
        assert res.output == data or res.emission.decision == "cleaned"
    assert estimate(res.text) <= estimate(data.decode("utf-8", "replace"))


def test_engine_error_is_raw_passthrough(monkeypatch):
    import thresher.dataflow.api as api

    def broken(*a, **k):
        raise MemoryError("boom")
    monkeypatch.setattr(api, "run_plan", broken)
    res = compress("line\n" * 100, command="x")
    assert res.output == b"line\n" * 100 and "engine error" in res.emission.reason


def test_passthrough_classes_and_unknown_output_without_command_are_unchanged():
    case = fixture_case("pytest-fail-verbose")
    data = case["stdout"].encode()
    for res in (compress(data, command="tail -f app.log"), compress(b"hello\n" * 500)):
        assert res.output in (data, b"hello\n" * 500) and res.emission.decision == "verbatim"
    sniffed = compress(data, exit_code=1)  # no command: the banner says pytest
    assert sniffed.pclass == "pytest" and sniffed.emission.decision == "compressed"


def test_estimate_remembers_only_a_few_texts_and_always_counts_the_same():
    """tokens.estimate keeps its last few counts by text (the engine asks for the same text's
    count more than once per payload): a remembered count is the count, and it holds a bounded
    number of texts."""
    from thresher.dataflow import tokens
    texts = [f"line {i}: error in module_{i}.py\n" * (i + 1) for i in range(10)]
    first = [tokens.estimate(t) for t in texts]
    again = [tokens.estimate(t) for t in reversed(texts)][::-1]
    assert first == again == [tokens._estimate(t) for t in texts]
    assert len(tokens._RECENT) <= tokens._RECENT_MAX


def test_estimate_of_a_text_less_its_closing_newline_is_the_count_of_the_text():
    """tokens.estimate derives a text's count from the remembered count of the same text with a
    closing newline (a payload's source and its first view): it is the count, whatever the text
    ends with (a word, punctuation, digits, an underscore, a ruler, non-ASCII, whitespace)."""
    from thresher.dataflow import tokens
    ends = ["word", "x.", "a,", "123", "12345", "_", "a_", "-----", "=", "été", "日本", "tab\t",
            "two  ", "nbsp\u00a0", "em\u2003", "cr\r", "ff\f", "x\n", "\n", "e̊", "!!", "a!!!"]
    for head in ("", "E   assert 1 == 2\n", "  indented\n\n", "ünïcödé line\n"):
        for end in ends:
            text = head + end
            tokens._RECENT.clear()
            tokens.estimate(text + "\n")
            assert tokens.estimate(text) == tokens._estimate(text), repr(text)
