"""distill-listing on real find / fd / tree / du / ls output captured by capture_listing.py."""

from __future__ import annotations

import re

import pytest

from thresher.stages.listings import distill_listing

from .conftest import fixture_case
from .distill_util import graph, kept_and_summaries, output_lines, stage

TREE_ENTRY = re.compile(r"^((?:[│|][\s\xa0]{3}|[\s\xa0]{4})*)(?:[├└]──|[|`]--)[\s\xa0]")


@pytest.mark.parametrize("case_id", ["listing-find-perl-huge", "listing-du-perl"])
def test_paths_keep_the_shallowest_entries_and_count_the_rest(case_id):
    res, case = graph("listing.default", case_id)
    assert res.emission.decision == "compressed"
    out = output_lines(res)
    src = case["stdout"].splitlines()
    m = re.match(r"^\[thresher: (\d+) of (\d+) paths not shown", out[0])
    assert m and int(m[2]) == len(src) and int(m[1]) + len(out) - 1 == len(src)
    assert [s for s in src if s in set(out)] == out[1:]   # input order, byte-exact
    depth = lambda s: s.count("/")  # noqa: E731
    assert min(depth(s) for s in src if s not in out) >= min(depth(s) for s in out[1:])
    for fact in case["must_keep"]:
        assert fact in out


def test_du_keeps_the_total_and_the_largest_entries_first():
    case = fixture_case("listing-du-perl")
    view = stage(distill_listing, "DistillListingParams", case["stdout"], max_lines=12, max_tokens=300)
    kept, _ = kept_and_summaries(view)
    assert case["stdout"].splitlines()[-1] in kept


def test_tree_keeps_report_and_every_kept_entry_has_its_parent():
    res, case = graph("listing.default", "listing-tree-perl-huge")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    assert re.match(r"^\[thresher: \d+ of \d+ entries not shown", out[0])
    assert src[-1] in out and src[0] in out
    body = out[1:]
    for k, line in enumerate(body):
        m = TREE_ENTRY.match(line)
        if m and len(m.group(1)) >= 4:
            i = src.index(line)
            parent = next(s for s in reversed(src[:i])
                          if (p := TREE_ENTRY.match(s)) and len(p.group(1)) == len(m.group(1)) - 4)
            assert parent in body[:k], line


def test_ls_keeps_totals_and_directories_first():
    res, case = graph("listing.default", "listing-ls-la-big")
    out = output_lines(res)
    src = case["stdout"].splitlines()
    assert src[0].startswith("total ") and src[0] in out
    dirs = [s for s in src if s.startswith("d") and not s.endswith((" .", " .."))]
    files = [s for s in src[1:] if s not in dirs and not s.endswith((" .", " .."))]
    shown_dirs = [d for d in dirs if d in out]
    assert shown_dirs == dirs[:len(shown_dirs)] and shown_dirs
    assert not any(f in out for f in files) or len(shown_dirs) == len(dirs)
    shown = [s for s in out if s in src and not s.startswith("total")]
    dropped = [s for s in src[1:] if s not in shown]
    names = _named(out, len(dropped))
    assert len(names) > len(dropped) // 3          # most of the rows that went keep their name
    assert set(names) <= {_name(s) for s in dropped}
    for fact in case["must_keep"]:
        assert fact in out


def _name(row: str) -> str:
    """The name field of a default-format ``ls -l`` row (the 9th field on), symlink target cut."""
    name = row.split(None, 8)[8]
    return name.split(" -> ")[0] if row.startswith("l") else name


def _named(out: list[str], n: int) -> list[str]:
    """The names listed by the one ``N more entries ... shown by name only`` line, checking that
    N is the names plus the ``M more not named``."""
    lines = [s for s in out if re.match(r"^\[thresher: \d+ more entr(?:y|ies) .*shown by name only: ", s)]
    assert len(lines) == 1, lines
    count, names, rest = re.match(r"^\[thresher: (\d+) more entr(?:y|ies) .*?shown by name only: "
                                  r"(.*?)(?:; (\d+) more not named)?\]$", lines[0]).groups()
    assert int(count) == n == len(names.split(" ")) + int(rest or 0)
    return names.split(" ")


def test_ls_sections_are_counted_per_folder():
    case = fixture_case("listing-ls-laR")
    view = stage(distill_listing, "DistillListingParams", case["stdout"], max_lines=60, max_tokens=1200)
    kept, summaries = kept_and_summaries(view)
    src = case["stdout"].splitlines()
    assert all(s in kept for s in src if s.endswith(":") or s.startswith("total "))
    assert summaries and all(re.match(r"^\[thresher: \d+ more entr(?:y|ies) in \S+ shown by name "
                                      r"only: .*\]$", s) for s in summaries)


@pytest.mark.parametrize("case_id", ["git-log-default-huge", "search-grep-context"])
def test_declines_what_is_not_a_listing(case_id):
    case = fixture_case(case_id)
    assert stage(distill_listing, "DistillListingParams", case["stdout"], command="find .",
                 max_lines=20, max_tokens=300) is None


def test_small_listings_and_failures_pass_whole():
    for case_id in ("listing-tree-pygments", "listing-find-missing", "listing-ls-missing"):
        res, case = graph("listing.default", case_id)
        assert res.output == case["stdout"].encode(), case_id


@pytest.mark.parametrize("case_id,rows_rx", [("listing-ls-la-big", r"^[-dl][rwx-]{9}"),
                                              ("listing-find-perl-huge", r"^\S")])
def test_a_cut_listing_keeps_rows_from_its_whole_length(case_id, rows_rx):
    """Past the budget, the first, middle and last rows stay whole (an agent lists to find a row
    that may be anywhere), not only the head of the listing."""
    case = fixture_case(case_id)
    view = stage(distill_listing, "DistillListingParams", case["stdout"], max_lines=40, max_tokens=800)
    kept, _ = kept_and_summaries(view)
    rows = [s for s in case["stdout"].splitlines() if re.match(rows_rx, s)]
    assert len(kept) < len(rows)
    n = len(rows)
    for s in (rows[0], rows[n // 2], rows[-1]):
        assert s in kept


def test_trouble_stems_prefilter_the_trouble_rows():
    """Every row budget.NAMES_TROUBLE_RE matches in ASCII holds one of the listing's stems once
    lower-cased, so the prefiltered spread searches exactly the rows that can match."""
    from thresher.stages.lib.budget import NAMES_TROUBLE_RE
    from thresher.stages.listings.distill_listing import _TROUBLE_STEMS
    words = ["error", "errors", "fatal", "warning", "warnings", "crit", "critical", "emerg",
             "exception", "exceptions", "traceback"]
    for w in words:
        for row in (w, w.upper(), f"/var/log/{w.title()}.log", f"a-{w}_b"):
            if NAMES_TROUBLE_RE.search(row):
                assert any(s in row.lower() for s in _TROUBLE_STEMS), row


def test_path_order_is_fair_order_of_the_built_tree():
    """The flat-table order of a path list is the water-fill of :func:`pathtree.build`'s tree, on
    lists mixing repeats, trailing slashes, absolute and relative paths, directories printed
    after their entries and empty components."""
    import random
    from thresher.stages.lib import pathtree
    rnd = random.Random(15)
    parts = ["a", "b", "c", "", "d.txt"]
    for _ in range(2000):
        paths = []
        for _ in range(rnd.randint(1, 30)):
            path = "/".join(rnd.choice(parts) for _ in range(rnd.randint(1, 4))) or "x"
            path = ("/" if rnd.random() < 0.3 else "") + path + ("/" if rnd.random() < 0.2 else "")
            paths.append(path)
        assert pathtree.path_order(paths) == pathtree.fair_order(pathtree.build(list(enumerate(paths)))), paths
