"""distill-jsonl on a real pino-http log: one record of each kind, every error, exact counts."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.stages.data import distill_jsonl

from .conftest import fixture_case, seen_by_agent

BUDGET = {"max_lines": 150, "max_tokens": 4000}
PARAMS = {"head": 3, "tail": 3, "max_anomalies": 60}


def _records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("cid", ["jsonl-pino-cat", "jsonl-pino-tail"])
def test_facts_errors_and_every_kind_of_record_survive(cid):
    case = fixture_case(cid)
    out = seen_by_agent(case)
    src = case["stdout"].splitlines()
    assert len(out) < len(case["stdout"]) / 4
    for fact in case["must_keep"]:
        assert fact in out, fact
    shown = out.splitlines()
    # every error and warning record passes byte-exact; every message has an example record
    assert all(line in shown for line in src if '"level":50' in line or '"level":40' in line)
    for msg in {r["msg"] for r in _records(case["stdout"])}:
        assert any(f'"msg":{json.dumps(msg)}' in line for line in shown if line.startswith("{")), msg
    # nothing made up: every record line shown is an input line
    assert all(line in src for line in shown if line.startswith("{"))


def test_summary_counts_are_exact():
    case = fixture_case("jsonl-pino-cat")
    recs = _records(case["stdout"])
    summary = [line for line in seen_by_agent(case).splitlines() if "JSON records" in line]
    assert len(summary) == 1 and summary[0].startswith(f"[thresher: {len(recs)} JSON records; ")
    codes = Counter(r["res"]["statusCode"] for r in recs if "res" in r)
    levels = Counter(r["level"] for r in recs)
    for code, n in codes.items():
        assert f"{code} ×{n}" in summary[0]
    for level, n in levels.items():
        assert f"{level} ×{n}" in summary[0]


def _run(text: str):
    payload = initial_payload(text.encode(), command="tail -n 500 app.log", exit_code=0)
    return distill_jsonl.run(payload, PARAMS, Context(BUDGET, None, "0" * 12, "t"))


def test_declines_on_text_logs_and_on_mixed_output():
    case = fixture_case("jsonl-pino-cat")
    lines = case["stdout"].splitlines()
    assert _run(case["stdout"]) is not None
    # one plain text line per JSON record: not JSON Lines any more
    mixed = "\n".join(x for line in lines for x in (line, "plain text between records")) + "\n"
    assert _run(mixed) is None
    # under the budget there is nothing to do
    assert _run("\n".join(lines[:10]) + "\n") is None


def test_a_jsonl_file_read_with_cat_goes_through_the_log_graph():
    from thresher.dataflow.plan import load_plans
    assert load_plans().classify("cat events.jsonl") == "log"
    assert load_plans().classify("tail -n 200 audit.ndjson") == "log"
