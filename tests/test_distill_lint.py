"""distill-lint on real linter runs: every finding kept; over budget only snippets go (counted)."""

from __future__ import annotations

import re

import pytest
from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.tokens import estimate
from thresher.stages.lib import diagnostics
from thresher.stages.runners import distill_lint
from thresher.stages.lib import lint_groups

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


def test_ruff_full_keeps_every_message_and_location_when_over_budget():
    """Over budget: snippets go (counted), each distinct header stays verbatim, and every arrow's
    location is either its own line or named in the group line after its group's first finding."""
    case = fixture_case("lint-own-ruff-full")
    p = _distill(case["stdout"])
    src = case["stdout"].splitlines()
    heads = [line for line in src if diagnostics.RUST_HEAD_RE.match(line)]
    arrows = [line.strip() for line in src if line.lstrip().startswith("-->")]
    assert len(heads) > 100 and set(heads) <= set(p.lines)
    notes = [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC]
    groups = [n for n in notes if GROUP_RE.match(n)]
    shown = [line.strip() for line in p.lines] + [loc for n in groups for loc in _locations(n)]
    assert groups and all(a in shown for a in arrows)
    assert notes[-1].startswith(f"[thresher: code snippets of {len(heads)} diagnostics not shown")
    kept = sum(1 for x in p.lines if x.lstrip().startswith("-->"))
    assert sum(int(GROUP_RE.match(n)[1]) for n in groups) == len(arrows) - kept


def _locations(note: str) -> list[str]:
    """The locations a group line names (``--> a:1:2`` pairs count as one)."""
    body = note.split("] ", 1)[1]
    return ["--> " + x.strip() for x in body.split("-->") if x.strip()] if "-->" in body else body.split()


GROUP_RE = re.compile(r"^\[thresher: the finding above recurs at (\d+) more locations?\] ")


def test_mypy_pretty_snippets_go_over_budget_and_messages_stay():
    case = fixture_case("lint-own-mypy-pretty")
    src = case["stdout"].splitlines()
    p = _distill(case["stdout"], budget={"max_lines": 5, "max_tokens": 50})
    assert all(line in p.lines for line in src if not line.startswith("    "))
    assert not any(line.startswith("    ") for line, o in zip(p.lines, p.origin) if o >= 0)


@pytest.mark.parametrize("cid", ["lint-own-ruff-concise", "lint-own-eslint", "lint-own-tsc", "lint-own-mypy"])
def test_one_row_formats_lose_no_row_only_repeated_messages(cid):
    """Over any budget a one-row format keeps every row, except rows whose message repeats an
    earlier kept row of the same file: each of those is named by its location in a group line."""
    case = fixture_case(cid)
    p = _distill(case["stdout"], budget={"max_lines": 5, "max_tokens": 50})
    if p is None:
        return
    groups = [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC and GROUP_RE.match(line)]
    named = [loc for n in groups for loc in _locations(n)]
    kept = set(p.lines)
    for line in case["stdout"].splitlines():
        if line in kept:
            continue
        m = lint_groups.PATH_ROW_RE.match(line) or lint_groups.STYLISH_ROW_RE.match(line)
        assert m and m["loc"] in named, line
        assert any(k.endswith(m["msg"]) for k in kept), line


def test_under_budget_declines():
    assert _distill(fixture_case("lint-own-ruff-full")["stdout"], budget=BIG) is None


GROUPED = ["lint-flake8-bottle", "lint-pylint-pyparsing", "lint-ruff-concise-tabulate",
           "lint-ruff-full-docutils", "lint-shellcheck-gcc-debian", "lint-shellcheck-tty-debian",
           "lint-eslint-stylish-semver"]


@pytest.mark.parametrize("cid", GROUPED)
def test_new_linter_runs_keep_every_location_and_message(cid):
    """Real runs never seen before (bottle, pyparsing, tabulate, docutils, semver, Debian scripts),
    with grouping turned on as a project graph would: every location and every distinct message
    survives, and the output is smaller than the input. The shipped graph (grouping off) keeps
    every row whole and never grows the output."""
    case = fixture_case(cid)
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"], trace=True,
                   plan=_grouping_plan())
    out = res.text
    missing = [f for f in case["must_keep"] if f not in out]
    assert not missing, missing[:5]
    assert estimate(out) < estimate(case["stdout"])
    assert not [r for r in res.trace.records if r["decision"] == "rejected"]
    shipped = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"]).text
    assert not [f for f in case["must_keep"] if f not in shipped]
    assert estimate(shipped) <= estimate(case["stdout"])


def _grouping_plan() -> dict:
    import copy

    from thresher.dataflow.plan import load_plans
    plan = copy.deepcopy(load_plans().plans["lint.default"])
    node = next(n for n in plan["nodes"].values() if n["stage"] == "distill-lint")
    assert node["params"]["group"] is False   # the shipped default
    node["params"]["group"] = True
    return plan


@pytest.mark.parametrize("cid", ["lint-flake8-bottle", "lint-shellcheck-gcc-debian"])
def test_group_lines_count_exactly_the_rows_they_stand_for(cid):
    """Each group line follows a kept row and names, in input order, the locations of exactly the
    removed rows of the same file with the same message; the view then fits the token budget."""
    case = fixture_case(cid)
    p = _distill(case["stdout"])
    src = case["stdout"].splitlines()
    groups = 0
    for k, (line, _origin) in enumerate(zip(p.lines, p.origin)):
        m = GROUP_RE.match(line)
        if not m:
            continue
        groups += 1
        first = lint_groups.PATH_ROW_RE.match(p.lines[k - 1])
        same = [r for r in src if (x := lint_groups.PATH_ROW_RE.match(r)) and x["msg"] == first["msg"]
                and x["path"] == first["path"] and r not in p.lines]
        locs = _locations(line)
        assert int(m[1]) == len(locs) == len(same)
        assert locs == [lint_groups.PATH_ROW_RE.match(r)["loc"] for r in same]
    assert groups and estimate("\n".join(p.lines)) <= SMALL["max_tokens"]


def test_shellcheck_findings_in_the_middle_of_a_long_run_survive():
    """shellcheck's tty format over budget: every finding under its caret, wherever it sits."""
    case = fixture_case("lint-shellcheck-tty-debian")
    out = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"]).text.splitlines()
    rows = [line for line in case["stdout"].splitlines() if re.match(r"^\s*\^-*\^? SC\d{4} ", line)]
    assert len(rows) > 200 and all(r in out for r in rows)


def test_error_rows_never_group():
    """A row with an error word (INV-6 on a failing run) stays byte-exact however often it repeats."""
    rows = [f"src/app.js:{i}:1: error Unexpected var, use let or const instead [no-var]" for i in range(1, 400)]
    p = _distill("\n".join(rows) + "\n")
    assert p is None or all(r in p.lines for r in rows)


def test_eslint_stylish_groups_stay_under_their_file_heading():
    """eslint stylish: a group line names ``line:col`` locations of the file heading above it, and
    the rows it stands for are exactly the removed rows of that file with that message."""
    case = fixture_case("lint-eslint-stylish-semver")
    p = _distill(case["stdout"], exit_code=case["exit_code"])
    named, kept, heading, last = {}, set(), None, None
    for line in p.lines:
        if lint_groups.STYLISH_HEAD_RE.match(line):
            heading = line
        elif m := lint_groups.STYLISH_ROW_RE.match(line):
            last = m["msg"]
            kept.add((heading, line))
        elif GROUP_RE.match(line):
            named[(heading, last)] = _locations(line)
    removed, heading = {}, None
    for line in case["stdout"].splitlines():
        if lint_groups.STYLISH_HEAD_RE.match(line):
            heading = line
        elif (m := lint_groups.STYLISH_ROW_RE.match(line)) and (heading, line) not in kept:
            removed.setdefault((heading, m["msg"]), []).append(m["loc"])
    assert removed and named == removed
