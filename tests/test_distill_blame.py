"""git blame (issue 16, mechanism 4): the commit prefix once per run, every shown row recoverable.

Fixtures are real blames of files with long histories (benchmarks/capture_blame.py: the headroom,
lean-ctx and omni mirrors); their must_keep facts are every definition row, whole.
"""

from __future__ import annotations

import os
import re
import subprocess
import types

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans
from thresher.property import invariants as inv
from thresher.property.strategies import Case
from thresher.dataflow.tokens import estimate
from thresher.stages.vcs import distill_git_blame
from thresher.stores.archive import FileArchive

from .conftest import fixture_case, seen_by_agent
from .distill_blame_util import expand_blame
from .distill_util import output_lines, stage

CASES = ("git-blame-own-headroom-proxy", "git-blame-own-leanctx-dispatch", "git-blame-own-omni-pipe")


def _prefix(row: str) -> str:
    return re.match(r"^(.*?[ (])\d+\) ", row).group(1).rstrip()


@pytest.mark.parametrize("cid", CASES)
def test_over_budget_blame_keeps_definitions_and_every_shown_row_reads_back(cid):
    case = fixture_case(cid)
    src = case["stdout"].splitlines()
    res = compress(case["stdout"], command=case["command"], exit_code=0, trace=True)
    assert res.graph_id == "git.default" and res.emission.decision == "compressed"
    out = output_lines(res)
    assert out[0] == distill_git_blame.LAYOUT
    rows = expand_blame(out, src)
    assert [s for s in src if s in set(rows)] == rows  # file order, each row once
    m = re.match(r"^\[thresher: (\d+) of (\d+) blame lines not shown", out[1])
    assert m and int(m[2]) == len(src) and int(m[1]) == len(src) - len(rows)
    assert all(f in out for f in case["must_keep"])  # definition rows stay whole
    # a compact row only continues a run: the row above it in the file is shown, same commit
    at = {s: i for i, s in enumerate(src)}
    body = [x for x in out if not x.startswith("[thresher: ")]
    tails = [r for line, r in zip(body, rows) if line != r]
    assert tails and all(src[at[r] - 1] in set(rows) and _prefix(src[at[r] - 1]) == _prefix(r)
                         for r in tails)
    assert estimate(res.text) < 0.25 * estimate(case["stdout"])


@pytest.mark.parametrize("cid", CASES)
def test_compaction_shows_more_rows_than_whole_rows_in_the_same_budget(cid):
    case = fixture_case(cid)
    src = case["stdout"].splitlines()
    view = stage(distill_git_blame, "DistillGitBlameParams", case["stdout"], max_lines=600,
                 max_tokens=6000)
    shown = expand_blame(list(view.lines), src)
    whole = [s for s in src if s in set(shown)]
    # the same rows as whole rows would not fit the budget the compacted view meets
    assert view.tokens() <= 6000 and estimate("\n".join(whole)) > view.tokens() * 1.15


def test_a_blame_within_budget_shows_every_row_with_the_prefix_once_per_run():
    case = fixture_case("git-blame-own-omni-pipe")
    head = "\n".join(case["stdout"].splitlines()[:150]) + "\n"
    res = compress(head, command=case["command"], exit_code=0)
    out = output_lines(res)
    src = head.splitlines()
    assert expand_blame(out, src) == src  # nothing dropped
    assert estimate(res.text) < 0.85 * estimate(head)


def test_blame_machine_formats_pass_byte_exact():
    case = fixture_case("git-blame-own-omni-pipe")
    plain = case["stdout"].encode()
    for cmd in ("git blame -p src/hooks/pipe.rs", "git blame --porcelain src/hooks/pipe.rs",
                "git blame --line-porcelain src/hooks/pipe.rs", "git blame --incremental x.rs"):
        res = compress(plain, command=cmd, exit_code=0, trace=True)
        assert res.output == plain and res.emission.decision == "verbatim", cmd


def test_real_porcelain_output_is_declined_by_the_distiller():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = subprocess.run(["git", "blame", "--line-porcelain", "stages/prose.py"], capture_output=True,
                       text=True, cwd=root)
    if p.returncode != 0:
        pytest.skip("no history for stages/prose.py here")
    assert distill_git_blame.parse(p.stdout.splitlines()) is None


@pytest.mark.parametrize("cid", CASES[:2])
def test_the_independent_oracle_accepts_the_compacted_blame(cid, tmp_path):
    case = fixture_case(cid)
    plan = load_plans().plans["git.default"]
    c = Case(case["stdout"].encode(), case["command"], 0)
    res = inv.run_case(c, plan, FileArchive(str(tmp_path / "archive")))
    reading = inv.check_no_fabrication(c, res, plan)
    assert reading.summaries and not reading.unmatched
    inv.check_one_footer(c, res, plan, FileArchive(str(tmp_path / "archive")))
    # a tail that is no input row's tail is caught
    lines = res.output.decode().split("\n")
    k = next(i for i, line in enumerate(lines) if re.match(r"^\d+\) ", line))
    lines[k] += " # not in the input"
    bad = types.SimpleNamespace(output="\n".join(lines).encode(), emission=res.emission)
    with pytest.raises(AssertionError, match="INV-3"):
        inv.check_no_fabrication(c, bad, plan)


@pytest.mark.parametrize("cid", ["unseen-git-blame-version", "unseen-git-blame-attrs"])
def test_an_over_budget_blame_keeps_its_first_and_last_rows(cid):
    """The ends of a blame say which part of the file it covers: they stay whatever their age."""
    case = fixture_case(cid)
    rows = case["stdout"].splitlines()
    out = seen_by_agent(case)
    assert len(out) < len(case["stdout"]) / 2
    assert rows[0] in out and rows[-1] in out
