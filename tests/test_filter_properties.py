"""Property tests of the filter engine: whatever a filter says, on real captured outputs.

Filters are drawn from regexes shaped like the input's own lines (prefixes, words, anchors), so the
rules actually fire; the inputs are the project's captured fixtures (failing and passing runs).
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thresher.dataflow.api import compress
from thresher.dataflow.executor import check_stage, initial_payload
from thresher.dataflow.markers import is_clip_of
from thresher.dataflow.tokens import estimate
from thresher.filters import engine
from thresher.stages.ingest import read
from thresher.stages.ingest import score
from thresher.stages.lib.common import critical_flags

from .conftest import fixture_case

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CASES = ["configure-demo-missing-lib", "configure-demo-warn", "django-migrate-demo-fail",
         "django-migrate-demo-fresh", "mkdocs-demo-strict-fail", "build-own-make-error",
         "cargo-own-build-error"]
_NODE = {"phase": "distill", "emits_summaries": True}
_SCORE = {"critical": [], "noise": [], "not_critical": [], "locations_on_failure": True}


def _payload(case: dict):
    text = case["stdout"] + case["stderr"]
    p = initial_payload(text.encode(), command=case["command"], exit_code=case["exit_code"])
    p = read.run(p, {"strip_ansi": True, "redraws": True, "max_line_chars": 4000}, None) or p
    return score.run(p, _SCORE, None) or p


@st.composite
def case_and_filter(draw):
    """A captured case and a filter whose regexes come from that case's own lines."""
    case = fixture_case(draw(st.sampled_from(CASES)))
    lines = [ln for ln in (case["stdout"] + case["stderr"]).splitlines() if ln.strip()] or ["x"]
    words = sorted({w for ln in lines for w in re.findall(r"[A-Za-z]{3,}", ln)}) or ["x"]
    regex = st.one_of(
        st.sampled_from(lines).map(lambda ln: "^" + re.escape(ln[:8])),
        st.sampled_from(words).map(re.escape),
        st.sampled_from([".", "^", r"^\s*$", r"\d", r"^\s", ":"]))
    small = st.none() | st.integers(0, 12)
    f = {"name": "p", "description": "d", "file": "p.yaml", "origin": "user", "match": ".",
         "strip_ansi": True,
         "replace": draw(st.lists(st.tuples(regex, st.sampled_from(["", "X", "ok"])).map(list),
                                  max_size=2)),
         "short_circuit": draw(st.lists(st.tuples(regex, st.just("all good"),
                                                  st.none() | regex).map(list), max_size=1)),
         "strip": draw(st.lists(regex, max_size=3)),
         "keep": draw(st.none() | st.lists(regex, max_size=3)),
         "max_line_chars": draw(st.none() | st.integers(20, 80)),
         "head": draw(small), "tail": draw(small), "max_lines": draw(st.none() | st.integers(1, 12)),
         "on_empty": draw(st.none() | st.just("nothing left"))}
    exit_code = draw(st.sampled_from([case["exit_code"], 0, 1]))
    return {**case, "exit_code": exit_code}, f


@SETTINGS
@given(case_and_filter())
def test_any_filter_keeps_critical_lines_and_writes_nothing_it_may_not(cf):
    """Critical lines stay byte-exact, kept lines are source lines or their clips, the only new
    lines are the declared message/replacement/on_empty, a short-circuit only on success without
    critical lines, and an applied filter always shrinks its input."""
    case, f = cf
    p = _payload(case)
    new = engine.apply(f, p)
    if new is None:
        return
    check_stage(_NODE, p, new)  # the executor's own per-stage invariants (INV-2/3/6)
    kept = set(new.origin)
    crit = critical_flags(p)
    assert all(p.origin[i] in kept for i, c in enumerate(crit) if c)
    for line, o in zip(new.lines, new.origin):
        if o >= 0:
            assert line == p.source[o] or is_clip_of(line, p.source[o])
            if crit[p.origin.index(o)]:
                assert line == p.source[o]
    if new.lines == ("all good",):
        assert case["exit_code"] in (0, None) and not any(crit)
    assert estimate(new.text()) < estimate(p.text())


@SETTINGS
@given(case_and_filter())
def test_filtered_emission_never_grows_and_keeps_failures(cf):
    """Through the whole generic graph (plan patched with the drawn filter): never larger than the
    input, and on a failing command every error line of the input is in the output."""
    case, f = cf
    from thresher.filters import runtime
    loaded = runtime.Loaded([f], [], [])
    real = runtime.load
    runtime.load = lambda *a, **k: loaded
    try:
        text = case["stdout"] + case["stderr"]
        out = compress(text, command=case["command"], exit_code=case["exit_code"],
                       pclass="generic").text
    finally:
        runtime.load = real
    assert estimate(out) <= estimate(text)
    if case["exit_code"]:
        p = _payload(case)
        errors = [s for s, c in zip(p.source, critical_flags(p)) if c]
        assert all(line in out.split("\n") for line in errors)
