"""distill-lint on real linter runs: every finding kept; over budget only snippets go (counted)."""

from __future__ import annotations

import pytest
from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages import diagnostics, distill_lint

from .conftest import fixture_case

SMALL = {"max_lines": 200, "max_tokens": 5000}
BIG = {"max_lines": 100_000, "max_tokens": 10_000_000}


def _distill(text: str, budget=SMALL, exit_code: int = 1):
    payload = initial_payload(text.encode(), command="ruff check", exit_code=exit_code)
    return distill_lint.run(payload, {}, Context(budget, None, "0" * 12, "t"))


@pytest.mark.parametrize("cid", ["lint-own-ruff-full", "lint-own-ruff-concise", "lint-own-mypy",
                                 "lint-own-mypy-pretty", "lint-own-tsc", "lint-own-eslint"])
def test_every_fact_survives(cid):
    case = fixture_case(cid)
    out = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"]).text
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_ruff_full_keeps_every_finding_header_and_location_when_over_budget():
    case = fixture_case("lint-own-ruff-full")
    p = _distill(case["stdout"])
    src = case["stdout"].splitlines()
    heads = [line for line in src if diagnostics.RUST_HEAD_RE.match(line)]
    arrows = [line for line in src if line.lstrip().startswith("-->")]
    assert len(heads) > 100 and all(line in p.lines for line in heads + arrows)
    note = [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC]
    dropped = len(src) - sum(1 for o in p.origin if o >= 0)
    assert note == [f"[thresher: code snippets of {len(heads)} diagnostics not shown ({dropped} lines)]"]


def test_mypy_pretty_snippets_go_over_budget_and_messages_stay():
    case = fixture_case("lint-own-mypy-pretty")
    src = case["stdout"].splitlines()
    p = _distill(case["stdout"], budget={"max_lines": 5, "max_tokens": 50})
    assert all(line in p.lines for line in src if not line.startswith("    "))
    assert not any(line.startswith("    ") for line, o in zip(p.lines, p.origin) if o >= 0)


@pytest.mark.parametrize("cid", ["lint-own-ruff-concise", "lint-own-eslint", "lint-own-tsc", "lint-own-mypy"])
def test_one_row_formats_are_never_cut_by_the_distiller(cid):
    case = fixture_case(cid)
    assert _distill(case["stdout"], budget={"max_lines": 5, "max_tokens": 50}) is None


def test_under_budget_declines():
    assert _distill(fixture_case("lint-own-ruff-full")["stdout"], budget=BIG) is None
