"""distill-log on real server logs: each template once, exact counts, errors and stack traces whole."""

from __future__ import annotations

import re

import pytest
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages.logs import distill_log
from thresher.stages.ingest import score

from .conftest import fixture_case, seen_by_agent

BUDGET = {"max_lines": 150, "max_tokens": 4000}
PARAMS = {"max_template_share": 0.6, "tail": 3}
SUMMARY_RE = re.compile(r"^\[thresher: (\d+) more lines? like the entry above(?:, the last at (.+))?\]$")


def _run(text: str, exit_code: int = 0, budget=BUDGET):
    payload = initial_payload(text.encode(), command="cat access.log", exit_code=exit_code)
    ctx = Context(budget, None, "0" * 12, "t")
    payload = score.run(payload, {"critical": [], "noise": [], "not_critical": [],
                                  "locations_on_failure": False}, ctx) or payload
    return distill_log.run(payload, PARAMS, ctx)


@pytest.mark.parametrize("cid", ["log-own-http-server", "docker-logs-crash"])
def test_facts_survive_through_the_log_graph(cid):
    case = fixture_case(cid)
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    assert len(out) < len(case["stdout"] + case["stderr"]) / 4


def test_counts_account_for_every_line_and_name_the_last_timestamp():
    text = fixture_case("log-own-http-server")["stdout"]
    src = text.splitlines()
    view = _run(text)
    kept = [o for o in view.origin if o >= 0]
    hidden = sum(int(SUMMARY_RE.match(line)[1]) for line, o in zip(view.lines, view.origin) if o == SYNTHETIC)
    assert len(kept) + hidden == len(src)
    # the 404 entries: one shown, the rest counted, the last one's time named
    i = view.lines.index(next(line for line in src if "code 404" in line))
    m = SUMMARY_RE.match(view.lines[i + 1])
    not_found = [line for line in src if "code 404" in line]
    assert int(m[1]) == len(not_found) - sum(1 for line in view.lines if "code 404" in line)
    assert m[2] == re.search(r"\d\d/[A-Z][a-z]{2}/\d{4} \d\d:\d\d:\d\d", not_found[-1])[0]


def test_each_distinct_traceback_is_shown_whole():
    text = fixture_case("log-own-http-server")["stdout"]
    shown = "\n".join(_run(text).lines)
    for exc in ("ZeroDivisionError: integer division or modulo by zero", "KeyError: 'asia'"):
        src = text.splitlines()
        end = src.index(exc)
        start = max(j for j in range(end) if src[j].startswith("Traceback ("))
        assert "\n".join(src[start:end + 1]) in shown, exc


def test_on_failure_every_error_line_stays():
    text = fixture_case("log-own-http-server")["stdout"]
    view = _run(text, exit_code=1)
    errors = [line for line in text.splitlines() if line.startswith(("ZeroDivisionError", "KeyError"))]
    assert [line for line in view.lines if line in errors] == errors


def test_declines_within_budget_and_without_repeats():
    text = fixture_case("log-own-http-server")["stdout"]
    assert _run(text, budget={"max_lines": 10_000, "max_tokens": 1_000_000}) is None
    distinct = "\n".join(f"step {w} finished" for w in
                         ("alpha beta gamma delta epsilon zeta eta theta iota kappa".split() * 30)) + "\n"
    varied = "\n".join(f"{a} then {b}" for a in "abcdefghijklmnop" for b in "qrstuvwxyz") + "\n"
    assert _run(varied, budget={"max_lines": 20, "max_tokens": 4000}) is None
    assert _run(distinct, budget={"max_lines": 20, "max_tokens": 4000}) is not None


@pytest.mark.parametrize("cid", ["unseen-nginx-access-timed", "unseen-nginx-combined-status"])
def test_each_failing_status_of_a_request_shape_keeps_a_verbatim_line(cid):
    """An access log's status is a kind, not a number: a 502 is never folded under a 500 of the
    same request shape and client (each (shape, status) keeps one verbatim line)."""
    case = fixture_case(cid)
    out = seen_by_agent(case).splitlines()
    kinds: dict[tuple[str, str], list[str]] = {}
    for line in case["stdout"].splitlines():
        m = re.search(r'"([A-Z]+ \S*) HTTP/[\d.]+" ([45]\d\d) .*"([^"]*)"$', line)
        if m:
            kinds.setdefault((re.sub(r"\d+", "#", m[1]) + " " + m[3], m[2]), []).append(line)
    assert len({status for _, status in kinds}) >= 3
    for (shape, status), lines in kinds.items():
        assert any(line in out for line in lines), (shape, status)


@pytest.mark.parametrize("cid", ["unseen-nginx-error-upstream", "unseen-nginx-error-info"])
def test_a_server_error_level_record_is_critical_and_each_message_keeps_an_instance(cid):
    """nginx's ``[error]`` records are error lines whatever their words (``limiting requests``,
    ``access forbidden``): each distinct message (ids and numbers masked) shows one verbatim."""
    case = fixture_case(cid)
    out = seen_by_agent(case).splitlines()
    by_text: dict[str, list[str]] = {}
    for line in case["stdout"].splitlines():
        if "[error]" in line:
            by_text.setdefault(re.sub(r"[\d.]+", "#", line), []).append(line)
    assert len(by_text) >= 3
    for text, lines in by_text.items():
        assert any(line in out for line in lines), text


@pytest.mark.parametrize("cid", ["unseen-nginx-error-warn", "unseen-worker-log-errors"])
def test_too_many_errors_keep_a_spread_of_each_kind_and_count_the_rest(cid):
    """More error entries than the budget's share holds: each kind (its lines differ only in
    numbers and ids) keeps its first and last instance verbatim, the log its middle entry (the
    budget holds them here), and every line not shown is counted by a summary."""
    case = fixture_case(cid)
    text = case["stdout"]
    src = text.splitlines()
    view = _run(text)
    kept = [o for o in view.origin if o >= 0]
    hidden = sum(int(SUMMARY_RE.match(line)[1]) for line, o in zip(view.lines, view.origin)
                 if o == SYNTHETIC and SUMMARY_RE.match(line))
    assert len(kept) + hidden == len(src)
    errors = [i for i, line in enumerate(src) if re.search(r"\[error\]|\bERROR\b", line)]
    assert len(errors) > BUDGET["max_lines"] // 2 or sum(len(src[i]) for i in errors) > BUDGET["max_tokens"]
    kinds: dict[str, list[int]] = {}
    for i in errors:
        kinds.setdefault(re.sub(r"\d+", "#", src[i]), []).append(i)
    shown = set(kept)
    for members in kinds.values():
        assert members[0] in shown and members[-1] in shown, src[members[0]]
    entries = [i for i, line in enumerate(src) if re.match(r"\d{4}[-/]", line)]
    assert entries[len(entries) // 2] in shown


def test_a_chained_traceback_and_an_exception_not_named_error_end_one_entry():
    """``During handling of the above exception`` joins two tracebacks into one entry, and the
    exception line (``InvalidVersion: ...``, whatever its class is called) ends it."""
    from thresher.stages.logs.distill_log import _blocks
    for cid in ("unseen-worker-log-errors", "unseen-app-log-traceback"):
        src = fixture_case(cid)["stdout"].splitlines()
        blocks = _blocks(src, [False] * len(src))
        traced = [(start, end) for start, end in blocks if src[start + 1:start + 2] == ["Traceback (most recent call last):"]]
        assert traced
        for _, end in traced:   # the entry ends with its exception's line: ``Name: message``
            assert re.match(r"[\w.]+: \S", src[end - 1]), src[end - 1]
        # no entry starts inside a traceback (its note, a blank line, its exception line)
        assert all(re.match(r"\d{4}-", src[start]) for start, _ in blocks), cid
