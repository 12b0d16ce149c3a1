"""Peer conformance: RTK's own test inputs (../shared/corpus/rtk, read in place; skipped when absent).

Every case goes through thresher as the agent would read it (both streams, `seen_by_agent`): every
`must_keep` fact (the lines RTK's tests assert that occur in the input) must be kept verbatim, and
no output may have more tokens than its input. Failures are fixed in the engine or a filter, never
per case.
"""

from __future__ import annotations

import os

import pytest

from thresher.dataflow.plan import load_plans
from thresher.dataflow.tokens import estimate

from .conftest import CORPUS, load_cases, seen_by_agent

RTK = load_cases(os.path.join(CORPUS, "rtk"))


@pytest.fixture(scope="module")
def plans():
    return load_plans(use_cache=False)


@pytest.mark.skipif(not RTK, reason="no RTK conformance corpus on this machine")
@pytest.mark.parametrize("case", RTK, ids=[c["id"] for c in RTK])
def test_rtk_case_keeps_every_fact_and_never_grows(case, plans):
    out = seen_by_agent(case, plans)
    missing = [fact for fact in case["must_keep"] if fact not in out]
    assert not missing, missing[:3]
    assert estimate(out) <= estimate(case["stdout"] + case["stderr"])
