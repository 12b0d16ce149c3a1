"""distill-cargo on real cargo runs: rows and progress counted, diagnostics and failures kept."""

from __future__ import annotations

import re

import pytest
from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages.runners import distill_cargo

from .conftest import fixture_case

BIG = {"max_lines": 100_000, "max_tokens": 10_000_000}
SMALL = {"max_lines": 200, "max_tokens": 5000}


def _distill(text: str, budget=BIG, exit_code: int = 0):
    payload = initial_payload(text.encode(), command="cargo test", exit_code=exit_code)
    return distill_cargo.run(payload, {"snippets_over_budget": True}, Context(budget, None, "0" * 12, "t"))


def _summaries(p) -> list[str]:
    return [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC]


@pytest.mark.parametrize("cid", ["cargo-own-test-fail", "cargo-own-test-nocapture",
                                 "cargo-own-check-warnings-huge", "cargo-own-build-error",
                                 "cargo-own-clippy"])
def test_every_fact_survives(cid):
    case = fixture_case(cid)
    for stream in ("stdout", "stderr"):
        if not case[stream]:
            continue
        out = compress(case[stream], command=case["command"], exit_code=case["exit_code"],
                       stream=stream).text
        for fact in case["must_keep"]:
            if fact in case[stream]:
                assert fact in out, fact


def test_passing_rows_are_counted_exactly_and_failures_stay():
    case = fixture_case("cargo-own-test-fail")
    p = _distill(case["stdout"], exit_code=101)
    src = case["stdout"].splitlines()
    ok = sum(1 for line in src if re.match(r"^test .+ \.\.\. ok$", line))
    dropped = [s for s in src if distill_cargo._classify(s) is not None]
    assert _summaries(p) == [f"[thresher: {len(dropped)} lines of progress and passing tests not "
                             f"shown ({ok} passed)]"]
    for line in src:
        if line.endswith("FAILED") or line.startswith(("test result:", "thread '", "failures:")):
            assert line in p.lines, line


def test_progress_is_counted_by_verb():
    case = fixture_case("cargo-own-check-warnings-huge")
    p = _distill(case["stderr"])
    compiling = sum(1 for line in case["stderr"].splitlines() if line.lstrip().startswith(("Compiling", "Checking")))
    assert compiling and any(f"{compiling} checked" in s or f"{compiling} compiled" in s for s in _summaries(p))


def test_over_budget_snippets_go_and_every_warning_header_and_location_stays():
    case = fixture_case("cargo-own-check-warnings-huge")
    p = _distill(case["stderr"], budget=SMALL)
    note = [s for s in _summaries(p) if "code snippets" in s]
    assert len(note) == 1
    heads = [line for line in case["stderr"].splitlines() if line.startswith("warning")]
    arrows = [line for line in case["stderr"].splitlines() if line.lstrip().startswith("-->")]
    assert heads and all(line in p.lines for line in heads + arrows)
    assert f"code snippets of {len(heads)} diagnostics" in note[0]
    assert not any(re.match(r"^\s*\d+ \|", line) for line in p.lines)


def test_under_budget_diagnostics_pass_whole():
    case = fixture_case("cargo-own-build-error")
    p = _distill(case["stderr"], exit_code=101)
    kept = set(p.lines) if p is not None else set(case["stderr"].splitlines())
    assert all(line in kept for line in case["stderr"].splitlines() if "|" in line)


@pytest.mark.parametrize("text", ["", "hello\n" * 30, "ok  \texample.com/x\t0.1s\n" * 10])
def test_declines_when_nothing_is_cargo_progress(text):
    assert _distill(text) is None


def test_declines_when_its_summary_would_outweigh_the_one_line_it_drops():
    """The minimal example `thresher check --profile ci` found on cargo.ci: dropping one short
    progress line for a longer summary line would grow the output, so the stage declines (before,
    the executor had to reject it)."""
    text = "".join(f"Downloading chunk {i} of 300\n" for i in range(11)) + "\n    Compiling app/app/util.py\n"
    assert _distill(text) is None
    long = text + "".join(f"    Compiling crate{i} v0.1.{i}\n" for i in range(30))
    view = _distill(long)
    assert view is not None and view.tokens() < initial_payload(long.encode()).tokens()


@pytest.mark.parametrize("cid", ["unseen-cargo-test-many", "unseen-cargo-test", "unseen-cargo-test-q"])
def test_panic_messages_and_the_failures_list_survive_trim(cid):
    """The message under `thread 't' (pid) panicked at src/x.rs:l:c:` has no shape of its own
    (`called `Result::unwrap()` on an `Err` value: …`), and the `failures:` list names every
    failing test: over budget, trim keeps them with the critical lines."""
    case = fixture_case(cid)
    text = case["stdout"] + case["stderr"]
    src = text.splitlines()
    out = compress(text, command=case["command"], exit_code=case["exit_code"]).text
    heads = [i for i, line in enumerate(src) if re.match(r"^thread '.*'(?: \(\d+\))? panicked at \S+:\d+:\d+:$", line)]
    assert heads
    for i in heads:
        assert src[i + 1] in out.splitlines(), src[i + 1]
    at = src.index("failures:", max(i for i, line in enumerate(src) if line.startswith("---- ")))
    failing = [line for line in src[at + 1:] if line.startswith("    tests::")]
    assert failing and all(line in out.splitlines() for line in failing)


def test_critical_next_marks_only_the_message_under_its_header():
    from thresher.dataflow.payload import CRITICAL
    from thresher.stages.ingest import score
    text = ("running 2 tests\nthread 't' (7) panicked at src/lib.rs:3:5:\n"
            "called `Option::unwrap()` on a `None` value\nplain line after\n")
    params = {"critical": [], "noise": [], "not_critical": [], "locations_on_failure": False}
    for heads, want in (([], False), ([r"^thread '.*'(?: \(\d+\))? panicked at \S+:\d+:\d+:$"], True)):
        p = score.run(initial_payload(text.encode(), command="cargo test", exit_code=0),
                      {**params, "critical_next": heads}, None)
        tiers = dict(zip(p.source, p.tiers))
        assert (tiers["called `Option::unwrap()` on a `None` value"] == CRITICAL) is want
        assert tiers["plain line after"] != CRITICAL
