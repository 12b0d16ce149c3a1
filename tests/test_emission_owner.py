"""One owner of the footer and of never-worse: the engine's emission rule (``finalize.py``).

``finalize.emission_view`` is the one writer of the footer (and of Route's guardrail): Route calls
it where the graph places it, so the trace shows the footer as Route's output; ``finalize`` calls
it only for a lossy view no Route footed, and never derives a footer again. Any other stage that
writes a footer line is rejected.
"""

from __future__ import annotations

import copy

from thresher.dataflow.api import compress, handle_of
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.finalize import emission_view, finalize
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


def _long(n: int = 100) -> bytes:
    return "".join(f"line {i} of a long output\n" for i in range(n)).encode()


def test_a_stage_other_than_route_that_writes_a_footer_is_rejected():
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


def test_route_writes_the_footer_through_the_emission_rule():
    ctx = Context({"max_lines": 10, "max_tokens": 100, "stage_ms": 1, "total_ms": 1}, None,
                  "abc", "t")
    p = initial_payload(_long()).select(range(10))
    view = route.run(p, {"min_saving": 0.1}, ctx)
    assert view is not None and view.lines == emission_view(p, "abc", 0.1).lines
    assert view.lines[-1] == footer(90, 100, "abc", 0, omitted_span(p.origin, 100))
    assert route.run(initial_payload(_long()), {"min_saving": 0.1}, ctx) is None  # nothing omitted


def test_finalize_emits_routes_footer_as_is_and_writes_one_only_when_none_was():
    p = initial_payload(_long()).select(range(10))
    want = footer(90, 100, "abc", 0, omitted_span(p.origin, 100))
    unrouted = finalize(p, "abc", True)
    routed = finalize(emission_view(p, "abc", 0.1), "abc", True)
    assert unrouted.decision == routed.decision == "compressed"
    assert unrouted.output == routed.output
    assert unrouted.output.decode().splitlines() == list(p.lines) + [want]
    assert (routed.kept, routed.omitted, routed.total) == (10, 90, 100)


def test_the_guardrail_gives_way_to_the_full_source_and_without_route_only_never_worse_applies():
    case = fixture_case("pytest-fail-verbose")
    kwargs = dict(command=case["command"], exit_code=1)
    plan = _plan("pytest.default")
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
