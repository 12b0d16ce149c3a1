"""distill-search on real grep / rg / git grep output captured by capture_search.py."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from thresher.dataflow.markers import is_clip_of
from thresher.stages.lib.budget import NAMES_TROUBLE_RE
from thresher.stages.listings import distill_search

from .conftest import fixture_case
from .distill_util import graph, kept_and_summaries, output_lines, stage

MORE_RE = re.compile(r"^\[thresher: (\d+) more match(?:es)? in (\S+) not shown\]$")


def _per_file(lines: list[str]) -> Counter:
    return Counter(m[1] for m in (re.match(r"^([^:]+):\d+:", s) for s in lines) if m)


def test_huge_result_keeps_every_file_and_counts_exactly():
    res, case = graph("search.default", "search-rg-def-huge")
    assert res.emission.decision == "compressed"
    out = output_lines(res)
    src = case["stdout"].splitlines()
    total, shown = _per_file(src), _per_file([s for s in out if not s.startswith("[thresher:")])
    assert set(shown) == set(total)                     # every file keeps at least one match
    more = {m[2]: int(m[1]) for m in map(MORE_RE.match, out) if m}
    for path, n in total.items():
        assert shown[path] + more.get(path, 0) == n, path
    assert all(s in src for s in out if not s.startswith("[thresher:"))
    for fact in case["must_keep"]:
        assert fact in out


SHARED_RE = re.compile(r"^\[thresher: (\d+) more match(?:es)? in (\d+) files? not shown; every file keeps "
                       r"its first matches first\]$")


@pytest.mark.parametrize("case_id", ["unseen-rg-def-pylib", "unseen-rg-import-pylib", "unseen-grep-rc-class"])
def test_results_over_hundreds_of_files_count_what_went_in_one_line(case_id):
    """Past a few files per line of the budget, one line counts the dropped matches and their
    files (per-file lines would take the view); the first matches of files still come first."""
    res, case = graph("search.default", case_id)
    out = output_lines(res)
    src = case["stdout"].splitlines()
    kept = [s for s in out if not s.startswith("[thresher:")]
    assert all(s in src for s in kept) and [s for s in src if s in set(kept)] == kept
    summaries = [s for s in out if s.startswith("[thresher:")]
    assert len(summaries) == 1 and not any(MORE_RE.match(s) for s in out)
    m = SHARED_RE.match(summaries[0])
    dropped = [s for s in src if s not in set(kept)]
    assert int(m[1]) == len(dropped)
    assert int(m[2]) == len({s.split(":", 1)[0] for s in dropped})
    path = lambda s: s.split(":", 1)[0]   # noqa: E731
    lead = set(_lead_rows(src))   # rows kept before the water-fill, wherever they are
    counts = Counter(map(path, [s for s in kept if s not in lead]))
    if counts and max(counts.values()) > 1:   # a second match only once every file has its first
        assert {path(s) for s in src} <= set(counts) | {path(s) for s in lead}


def _lead_rows(rows: list[str]) -> list[str]:
    """The first, quarter, middle and last rows of an enumeration and its rows naming trouble."""
    n = len(rows)
    return [rows[k * (n - 1) // 4] for k in range(5)] + [rows[n // 2]] + [
        s for s in rows if NAMES_TROUBLE_RE.search(s)]


@pytest.mark.parametrize("case_id", ["unseen-rg-def-pylib", "unseen-rg-import-pylib", "unseen-grep-rn-email-http"])
def test_a_cut_result_keeps_rows_from_its_whole_length(case_id):
    """Over budget, the first, middle and last matches and the matches naming an error stay (an
    agent searches to find a row that may be anywhere), not only the head of every file."""
    res, case = graph("search.default", case_id)
    out = output_lines(res)
    src = case["stdout"].splitlines()
    assert len([s for s in out if not s.startswith("[thresher:")]) < len(src)   # it was cut
    n = len(src)
    for s in (src[0], src[n // 4], src[n // 2], src[3 * (n - 1) // 4], src[-1]):
        assert s in out
    trouble = [s for s in src if NAMES_TROUBLE_RE.search(s)]
    assert trouble and all(s in out for s in trouble[:50])


def test_grep_count_rows_of_files_without_a_match_go_first():
    case = fixture_case("unseen-grep-rc-class")
    view = stage(distill_search, "DistillSearchParams", case["stdout"], max_lines=300, max_tokens=6000)
    kept, _ = kept_and_summaries(view)
    src = case["stdout"].splitlines()
    zeros = [s for s in src if s.endswith(":0")]
    assert zeros and len(kept) < len(src) - len(zeros)   # the budget holds fewer than the counted rows
    assert not set(zeros) & set(kept)                      # so no `path:0` row is among them


def test_definitions_rank_first_within_a_file():
    case = fixture_case("search-rg-def-huge")
    view = stage(distill_search, "DistillSearchParams", case["stdout"], max_lines=200, max_tokens=3000)
    kept, _ = kept_and_summaries(view)
    defs = [s for s in kept if re.match(r"^[^:]+:\d+:\s*(?:async\s+)?def ", s)]
    assert len(defs) == len(kept)


def test_context_goes_before_matches():
    case = fixture_case("search-grep-context")
    view = stage(distill_search, "DistillSearchParams", case["stdout"], max_lines=120, max_tokens=2500)
    kept, summaries = kept_and_summaries(view)
    src = case["stdout"].splitlines()
    matches = [s for s in src if re.match(r"^[^:]+:\d+:", s)]
    context = [s for s in src if re.match(r"^requests/[\w/]+\.py-\d+-", s)]
    assert set(matches) <= set(kept)
    shown = [s for s in kept if s in context]
    assert f"[thresher: {len(context) - len(shown)} context lines not shown]" in summaries


def test_heading_format_keeps_paths_and_counts_per_file():
    res, case = graph("search.default", "search-rg-heading")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    heads = [s for s in src if re.match(r"^_pytest/\S+\.py$", s)]
    assert all(h in out for h in heads)
    for m in filter(None, map(MORE_RE.match, out)):
        block = src[src.index(m[2]) + 1:]
        rows = block[:block.index("")] if "" in block else block
        at = out.index(m[2]) + 1
        shown = out[at:out.index(m[0], at)]
        assert len(shown) + int(m[1]) == len(rows)


def test_long_lines_are_clipped_with_exact_counts():
    res, case = graph("search.default", "search-rg-long-lines")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    clipped = [s for s in out if s not in src]
    assert clipped and all(any(is_clip_of(c, s) for s in src) for c in clipped)
    assert len(out) == len(src)
    for fact in case["must_keep"]:
        assert any(s.startswith(fact) for s in out)


def test_path_lists_are_a_listing_and_failing_runs_keep_errors():
    res, case = graph("search.default", "search-rg-files-huge", max_tokens=1500, max_lines=100)
    out = output_lines(res)
    assert re.match(r"^\[thresher: \d+ of 595 paths not shown", out[0])
    assert all(s in case["stdout"].splitlines() for s in out[1:])
    fail = fixture_case("search-grep-missing-path")
    res = graph("search.default", {**fail, "stdout": fail["stderr"]})[0]
    assert res.output == fail["stderr"].encode()


@pytest.mark.parametrize("case_id,command", [
    ("git-log-default-huge", "grep -rn x ."),        # prose lines
    ("listing-ls-la-big", "rg -n x"),                # ls rows
    ("search-rg-files-huge", "rg -n x"),             # paths without a list flag
])
def test_declines_other_shapes(case_id, command):
    case = fixture_case(case_id)
    assert stage(distill_search, "DistillSearchParams", case["stdout"], command=command,
                 max_lines=20, max_tokens=300) is None


def test_git_grep_is_a_search_even_when_the_pattern_names_a_tool():
    res, case = graph("search.default", "search-git-grep")
    from thresher.dataflow.plan import load_plans
    assert load_plans().classify(case["command"]) == "search"
    assert load_plans().classify("ls tests/pytest_plugins") == "listing"
    assert res.output == case["stdout"].encode()
