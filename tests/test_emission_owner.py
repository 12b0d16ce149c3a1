"""One owner of the footer and of never-worse: the executor's final emission (``finalize.py``).

Route only hands its guardrail (``min_saving``) to the executor through ``ctx.min_saving``; no stage
may write a footer line (the executor rejects one), and finalize writes it once from the final view.
"""

from __future__ import annotations

import copy

from thresher.dataflow.api import compress, handle_of
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.finalize import finalize
from thresher.dataflow.markers import footer, is_footer, omitted_span
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.plan import load_plans
from thresher.stages.emit import route

from .conftest import fixture_case


def _plan(gid: str) -> dict:
    return copy.deepcopy(load_plans().plans[gid])


def _writes_a_footer(payload, params, ctx):
    n = len(payload.source)
    kept = payload.select(range(min(5, len(payload.lines))))
    return kept.with_view(kept.lines + (footer(n - 5, n, ctx.handle),), kept.origin + (SYNTHETIC,))


def _declines(payload, params, ctx):
    return None


def _footers(text: str) -> list[str]:
    return [line for line in text.splitlines() if is_footer(line)]


def test_a_stage_that_writes_a_footer_is_rejected():
    case = fixture_case("pytest-fail-verbose")
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["impl"] = "tests.test_emission_owner:_writes_a_footer"
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    rec = next(r for r in res.trace.records if r["node"] == "distill")
    assert rec["decision"] == "rejected" and rec["reason"].startswith("INV-4")
    n = len(case["stdout"].splitlines())
    assert footer(n - 5, n, res.handle) not in res.text.splitlines()
    found = _footers(res.text)
    assert len(found) <= 1 and (not found or res.text.splitlines()[-1] == found[0])


def test_route_hands_its_guardrail_back_and_changes_nothing():
    ctx = Context({"max_lines": 10, "max_tokens": 100, "stage_ms": 1, "total_ms": 1}, None,
                  "0" * 12, "t")
    payload = initial_payload(b"a\nb\n").select([0])
    assert ctx.min_saving is None
    assert route.run(payload, {"min_saving": 0.3}, ctx) is None
    assert ctx.min_saving == 0.3


def test_finalize_writes_the_one_footer_from_the_final_view():
    raw = "".join(f"line {i} of a long output\n" for i in range(100)).encode()
    p = initial_payload(raw).select(range(10))
    want = footer(90, 100, "abc", 0, omitted_span(p.origin, 100))
    em = finalize(p, "abc", True)
    assert em.decision == "compressed"
    assert em.output.decode().splitlines() == list(p.lines) + [want]
    assert (em.kept, em.omitted, em.total) == (10, 90, 100)


def test_the_guardrail_is_applied_once_by_the_executor():
    """A view that does not save ``min_saving`` of the tokens gives way to the full source; without
    Route (a node that declines instead) only never-worse applies."""
    case = fixture_case("pytest-fail-verbose")
    kwargs = dict(command=case["command"], exit_code=1)
    plan = _plan("pytest.default")
    assert "route" in plan["nodes"]
    plan["nodes"]["route"]["params"]["min_saving"] = 0.0
    lossy = compress(case["stdout"], plan=plan, **kwargs)
    assert lossy.emission.decision == "compressed"
    saved = 1 - lossy.emission.tokens_out / lossy.emission.tokens_in
    plan["nodes"]["route"]["params"]["min_saving"] = min(0.99, saved + 0.05)
    strict = compress(case["stdout"], plan=plan, **kwargs)
    assert strict.emission.decision in ("unchanged", "cleaned") and not _footers(strict.text)
    plan["nodes"]["route"]["impl"] = "tests.test_emission_owner:_declines"
    unrouted = compress(case["stdout"], plan=plan, **kwargs)
    assert unrouted.output == lossy.output
    assert f"thresher expand {handle_of(case['stdout'].encode())}" in _footers(unrouted.text)[0]
