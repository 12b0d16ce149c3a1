"""distill-git-status and distill-git-blame, and the git graph's progress noise, on real git output."""

from __future__ import annotations

import re

import pytest

from thresher.stages.vcs import distill_git_blame
from thresher.stages.vcs import distill_git_status

from .conftest import fixture_case
from .distill_blame_util import expand_blame
from .distill_util import graph, kept_and_summaries, output_lines, stage


def test_status_keeps_every_tracked_row_and_counts_untracked_ones():
    res, case = graph("git-status.default", "git-status-huge-untracked")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    assert not any(s.lstrip().startswith('(use "git') for s in out)
    title = src.index("Untracked files:")
    tracked = [s for s in src[:title] if s.startswith("\t")]
    untracked = [s for s in src[title:] if s.startswith("\t")]
    assert all(s in out for s in tracked)
    shown = [s for s in out if s in untracked]
    assert f'[thresher: {len(untracked) - len(shown)} more files under "Untracked files:" not shown]' in out
    # the top-level files rank before the 2,500 files of one build folder
    assert all(s in out for s in untracked if "/" not in s)
    for fact in case["must_keep"]:
        assert fact in out


def test_short_status_counts_untracked_rows_and_keeps_changes():
    res, case = graph("git-status.default", "git-status-short-huge")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    assert all(s in out for s in src if not s.startswith("?? "))
    untracked = [s for s in src if s.startswith("?? ")]
    shown = [s for s in out if s.startswith("?? ")]
    assert f"[thresher: {len(untracked) - len(shown)} more untracked files not shown]" in out


def test_conflict_rows_survive_any_budget():
    case = fixture_case("git-status-merge-conflict")
    view = stage(distill_git_status, "DistillGitStatusParams", case["stdout"], max_lines=4, max_tokens=40)
    kept, summaries = kept_and_summaries(view)
    assert [s for s in case["stdout"].splitlines() if "both modified:" in s] == \
        [s for s in kept if "both modified:" in s]
    assert "\tmodified:   requests/models.py" not in kept
    assert summaries == ['[thresher: 1 more file under "Changes to be committed:" not shown]']


@pytest.mark.parametrize("case_id", ["git-log-oneline-huge", "git-branch-many", "git-blame-sessions"])
def test_status_declines_other_git_output(case_id):
    case = fixture_case(case_id)
    assert stage(distill_git_status, "DistillGitStatusParams", case["stdout"], max_lines=5,
                 max_tokens=50) is None


def test_blame_keeps_definitions_and_counts_the_rest():
    res, case = graph("git.default", "git-blame-sessions")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    assert out[0] == distill_git_blame.LAYOUT
    m = re.match(r"^\[thresher: (\d+) of (\d+) blame lines not shown", out[1])
    rows = expand_blame(out[2:], src)
    assert m and int(m[2]) == len(src) and int(m[1]) == len(src) - len(rows)
    assert [s for s in src if s in set(rows)] == rows  # file order
    out = rows
    defs = [s for s in src if re.search(r"\) +(?:def|class) ", s)]
    assert defs and all(s in out for s in defs)
    for fact in case["must_keep"]:
        assert fact in out


def test_blame_ranks_recent_changes_after_definitions():
    case = fixture_case("git-blame-sessions")
    view = stage(distill_git_blame, "DistillGitBlameParams", case["stdout"], max_lines=400, max_tokens=9000)
    kept, _ = kept_and_summaries(view)
    newest = max(re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", s)[0] for s in case["stdout"].splitlines())
    assert any(newest in s for s in kept if not re.search(r"\) +(?:def|class) ", s))


@pytest.mark.parametrize("text", [
    "not a blame line\n" * 300,
    "".join(f"abc1234 (A 2026-01-01 00:00:00 +0000 {n}) x\n" for n in (3, 2, 1) * 100),
])
def test_blame_declines_other_shapes(text):
    assert stage(distill_git_blame, "DistillGitBlameParams", text, max_lines=5, max_tokens=50) is None


def test_push_progress_lines_go_and_the_result_stays():
    case = fixture_case("git-push-progress")
    res, _ = graph("git.default", {**case, "stdout": case["stderr"]})
    out = output_lines(res)
    assert not any(re.match(r"^(?:Counting|Compressing|Writing) objects", s) for s in out)
    for fact in case["must_keep"]:
        assert fact in out
