"""distill-git-patch on real git diff / show / log and diff -u outputs captured by capture_git.py."""

from __future__ import annotations

import re

import pytest

from thresher.dataflow.plan import load_plans
from thresher.stages.vcs import distill_git_patch
from thresher.stages.lib.gitpatch import error_rank, parse
from thresher.stages.lib.text import ERROR_RE

from .conftest import fixture_case
from .distill_util import graph, output_lines, stage

BODY_RE = re.compile(r"^\[thresher: hunk body not shown: (\d+) lines?, \+(\d+) -(\d+)\]$")
FILE_RE = re.compile(r"^\[thresher: (\d+) hunks? of this file not shown \((\d+) lines?, \+(\d+) -(\d+)\)"
                     r"(?:: (@@.*))?\]$")
BODIES_RE = re.compile(r"^\[thresher: the bod(?:y of 1 hunk|ies of (\d+) hunks) of this file not shown "
                       r"\((\d+) lines?, \+(\d+) -(\d+)\); (?:its @@ line stays|their @@ lines stay)\]$")


def check_hunks(source: list[str], out: list[str]) -> tuple[int, int]:
    """Walk the source's files and hunks along the output: every hunk is whole, or its body (or the
    whole hunk) is dropped and counted exactly. Returns (hunks kept whole, hunks dropped)."""
    p = parse(source)
    pos, whole, dropped = 0, 0, 0
    for f in p.all_files():
        for i in f.header:
            pos = out.index(source[i], pos) + 1
        missing, bodyless = [], []
        for k, h in enumerate(f.hunks):
            body = [source[i] for i in h.body]
            nxt = source[f.hunks[k + 1].header] if k + 1 < len(f.hunks) else None
            if pos < len(out) and out[pos] == source[h.header]:
                if pos + 1 < len(out) and BODY_RE.match(out[pos + 1]):
                    n, a, d = map(int, BODY_RE.match(out[pos + 1]).groups())
                    assert (n, a, d) == (len(body), h.adds, h.dels)
                    pos, dropped = pos + 2, dropped + 1
                elif body and pos + 1 < len(out) and (out[pos + 1] == nxt or BODIES_RE.match(out[pos + 1])):
                    bodyless.append(h)   # counted by the file's one bodies line
                    pos, dropped = pos + 1, dropped + 1
                else:
                    assert out[pos + 1:pos + 1 + len(body)] == body, source[h.header]
                    pos, whole = pos + 1 + len(body), whole + 1
            else:
                missing.append(h)
        if bodyless:
            m = BODIES_RE.match(out[pos])
            assert m, out[pos]
            assert int(m[1] or 1) == len(bodyless)
            assert int(m[2]) == sum(len(h.body) for h in bodyless)
            assert (int(m[3]), int(m[4])) == (sum(h.adds for h in bodyless), sum(h.dels for h in bodyless))
            pos += 1
        if missing:
            m = FILE_RE.match(out[pos])
            assert m, out[pos]
            assert int(m[1]) == len(missing)
            assert int(m[2]) == sum(len(h.body) + 1 for h in missing)
            assert (int(m[3]), int(m[4])) == (sum(h.adds for h in missing), sum(h.dels for h in missing))
            if m[5] is not None:   # their @@ lines, as written (or only counted, when they do not fit)
                assert m[5] == " ".join(source[h.header] for h in missing)
            pos, dropped = pos + 1, dropped + len(missing)
    return whole, dropped


@pytest.mark.parametrize("case_id,gid", [("git-diff-refactor-huge", "git-diff.default"),
                                         ("git-diff-ru-dirs", "git-diff.default"),
                                         ("git-log-patch", "git-log.default")])
def test_kept_hunks_are_whole_and_dropped_ones_counted(case_id, gid):
    res, case = graph(gid, case_id)
    assert res.emission.decision == "compressed"
    out = output_lines(res)
    whole, dropped = check_hunks(case["stdout"].splitlines(), out)
    assert whole and dropped
    for fact in case["must_keep"]:
        assert fact in out


def test_headers_survive_when_every_hunk_header_does_not_fit():
    """A tight budget drops whole hunks (counted per file) but keeps every file header."""
    res, case = graph("git-diff.default", "git-diff-refactor-huge", max_tokens=2500, max_lines=120)
    out = output_lines(res)
    assert any(FILE_RE.match(s) for s in out)
    check_hunks(case["stdout"].splitlines(), out)
    assert all(h in out for h in case["must_keep"])


def test_every_hunk_header_stays_when_the_per_hunk_lines_do_not_fit():
    """A diff with many hunks (diff -ru of two released sdists): the @@ lines are the map of the
    change, so they all stay and the dropped bodies are counted by one line per file."""
    res, case = graph("git-diff.default", "gen-diff-ru-idna")
    src = case["stdout"].splitlines()
    out = output_lines(res)
    heads = [s for s in src if s.startswith("@@ ")]
    assert len(heads) > 50 and all(h in out for h in heads)
    assert any(BODIES_RE.match(s) for s in out)
    whole, dropped = check_hunks(src, out)
    assert whole and dropped
    assert all(f in out for f in case["must_keep"])


def test_hunks_naming_an_error_are_kept_first_and_the_view_fits():
    """A 37-file diff whose @@ lines alone exceed the budget: whole hunks go, counted per file
    (the @@ lists would not fit either), the view fits the budget, and the hunks whose changed
    lines name an error are the ones kept, the smallest first."""
    res, case = graph("git-diff.default", "unseen-git-diff-worktree")
    src = case["stdout"].splitlines()
    out = output_lines(res)
    budget = load_plans().plans["git-diff.default"]["budget"]
    assert len(res.text.splitlines()) <= budget["max_lines"]
    assert any(FILE_RE.match(s) and FILE_RE.match(s)[5] is None for s in out)
    whole, dropped = check_hunks(src, out)
    assert whole and dropped
    p = parse(src)
    hunks = [h for f in p.all_files() for h in f.hunks]
    kept = [h for h in hunks if src[h.header] in out]
    named = [h for h in hunks if error_rank(src, h) == 0]
    assert sum(error_rank(src, h) == 0 for h in kept) > len(kept) / 2
    smallest = min(len(h.body) for h in named if h not in kept)
    assert all(h in kept for h in named if len(h.body) < smallest)
    assert len([h for h in named if h in kept]) >= 8


def test_failing_diff_keeps_every_error_line_in_whole_hunks():
    """A git failure (exit 128) keeps every error line; `git diff --exit-code`'s own exit 1 only
    says the trees differ (the graph's result_exits), so the same words there are content."""
    case = dict(fixture_case("git-diff-exit-code-fail"))
    assert case["exit_code"] == 1
    differ, _ = graph("git-diff.default", case, max_tokens=300, max_lines=40)
    case["exit_code"] = 128
    res, case = graph("git-diff.default", case, max_tokens=300, max_lines=40)
    assert res.emission.decision == "compressed"
    assert len(differ.output) < len(res.output)
    out = output_lines(res)
    errors = [s for s in case["stdout"].splitlines() if ERROR_RE.search(s)]
    assert errors and all(e in out for e in errors)
    assert check_hunks(case["stdout"].splitlines(), out)[1]


def test_combined_diff_of_a_merge_keeps_every_header():
    res, case = graph("git-diff.default", "git-show-merge-combined")
    out = output_lines(res)
    for fact in case["must_keep"]:
        assert fact in out
    assert any(s.startswith("[thresher: hunk body not shown") for s in out)
    check_hunks(case["stdout"].splitlines(), out)
    tight, _ = graph("git-diff.default", "git-show-merge-combined", max_tokens=1500, max_lines=100)
    assert check_hunks(case["stdout"].splitlines(), output_lines(tight))[1]


def test_log_keeps_the_newest_commits_and_counts_the_rest():
    res, case = graph("git-log.default", "git-log-stat-huge")
    out = output_lines(res)
    commits = [s for s in case["stdout"].splitlines() if s.startswith("commit ")]
    shown = [s for s in out if s.startswith("commit ")]
    assert shown == commits[:len(shown)] and 0 < len(shown) < len(commits)
    tail = [s for s in out if s.startswith("[thresher:") and "older commit" in s]
    assert tail == [f"[thresher: {len(commits) - len(shown)} older commits not shown "
                    f"({len(case['stdout'].splitlines()) - case['stdout'].splitlines().index(commits[len(shown)])} lines)]"]
    for fact in case["must_keep"]:
        assert fact in out


@pytest.mark.parametrize("case_id", ["unseen-git-log-default", "unseen-git-log-fuller",
                                     "unseen-git-log-all-decorate"])
def test_long_plain_log_keeps_every_commit_line_and_subject(case_id):
    """When the headers of ~190 commits do not fit, every commit keeps its identity (commit line
    and subject, in order); the newest keep their fields and bodies; one line counts the rest."""
    res, case = graph("git-log.default", case_id)
    out = output_lines(res)
    src = case["stdout"].splitlines()
    p = parse(src)
    ident = [s for c in p.commits for s in (src[c.head[0]], src[c.subject])]
    assert [s for s in out if s in set(ident)] == ident
    whole = [c for c in p.commits if all(src[i] in out for i in range(c.head[0], c.subject + 1))]
    assert 0 < len(whole) < len(p.commits)
    assert whole == p.commits[:len(whole)]            # the newest, a prefix
    lost = len(p.commits) - len(whole)
    summary = [s for s in out if s.startswith("[thresher:")]
    assert len(summary) == 1 and summary[0].startswith(f"[thresher: {lost} older commits shown by commit line ")
    shown = sum(1 for s in out if not s.startswith("[thresher:"))
    assert f"({len(src) - shown} lines of fields" in summary[0]
    for fact in case["must_keep"]:
        assert fact in res.text


def test_dropped_message_bodies_are_counted_under_their_subject():
    res, case = graph("git-log.default", "git-log-default-huge", max_tokens=1500, max_lines=120)
    out = output_lines(res)
    p = parse(case["stdout"].splitlines())
    src = case["stdout"].splitlines()
    counted = 0
    for c in p.commits:
        if src[c.head[0]] not in out:
            break
        at = out.index(src[c.subject], out.index(src[c.head[0]]))
        if c.body and out[at + 1].startswith("[thresher:"):
            assert out[at + 1] == f"[thresher: {len(c.body)} more message lines not shown]"
            counted += 1
    assert counted


def test_oneline_log_keeps_a_prefix_and_counts_the_older_entries():
    case = fixture_case("git-log-oneline-huge")
    view = stage(distill_git_patch, "DistillGitPatchParams", case["stdout"], command=case["command"],
                 max_lines=30, max_tokens=2000)
    rows = case["stdout"].splitlines()
    kept = list(view.lines[:-1])
    assert kept == rows[:len(kept)]
    assert view.lines[-1] == f"[thresher: {len(rows) - len(kept)} older entries not shown]"


def test_reviewer_role_keeps_the_diff_whole():
    res, case = graph("git-diff.reviewer", "git-diff-refactor-huge")
    assert res.output == case["stdout"].encode()


@pytest.mark.parametrize("text", [
    "just some words\n" * 400,
    "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n" + "[-old-]{+new+}\n" * 300,
    "diff --git a/x.png b/x.png\nindex 1..2 100644\nGIT binary patch\nliteral 10\n" + "zcmb\n" * 400,
    "* commit abc1234\n| Author: A\n" * 300,
])
def test_declines_what_it_does_not_understand(text):
    assert stage(distill_git_patch, "DistillGitPatchParams", text, command="git diff",
                 max_lines=20, max_tokens=200) is None


def test_declines_when_the_output_fits():
    case = fixture_case("git-diff-exit-code-fail")
    assert stage(distill_git_patch, "DistillGitPatchParams", case["stdout"], command=case["command"],
                 max_lines=1000, max_tokens=100000) is None


def test_diff_exit_1_is_a_result_not_a_failure():
    """`diff` exits 1 when the inputs differ (the git-diff graph's `result_exits`): error words
    inside its hunks (`raise ...Error` in code) do not pin those hunks whole as they would for a
    failing command, so the output is the one exit 0 gives; exit 2 (trouble) still fails."""
    from thresher.dataflow.api import compress
    from thresher.dataflow.plan import load_plans
    PLANS = load_plans(use_cache=False)
    case = fixture_case("gen-diff-ru-urllib3")
    text, cmd = case["stdout"], case["command"]
    assert case["exit_code"] == 1
    diff1 = compress(text, command=cmd, exit_code=1, plans=PLANS)
    diff0 = compress(text, command=cmd, exit_code=0, plans=PLANS)
    diff2 = compress(text, command=cmd, exit_code=2, plans=PLANS)
    assert diff1.graph_id == "git-diff.default" and PLANS.plans[diff1.graph_id]["result_exits"] == [1]
    assert diff1.output == diff0.output
    assert len(diff1.output) * 4 < len(text.encode())
    errors = [s for s in text.splitlines() if ERROR_RE.search(s)]
    out2 = set(diff2.output.decode().splitlines())
    assert errors and all(e in out2 for e in errors)      # a real failure keeps every error line
    assert len(diff2.output) > len(diff1.output)


def _counted_body_line_by_line(lines: list[str], start: int, old: int, new: int) -> tuple[int, int, int]:
    """The rule of a counted ``@@`` body read one line at a time: ``(end, adds, dels)``."""
    i, adds, dels = start, 0, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("\\"):
            pass
        elif old <= 0 and new <= 0:
            break
        elif line == "" or line[0] in " +-":
            c = line[:1]
            old, new = old - (c != "+"), new - (c != "-")
            adds, dels = adds + (c == "+"), dels + (c == "-")
        else:
            break
        i += 1
    return i, adds, dels


def test_counted_hunk_body_ends_where_the_line_by_line_rule_ends():
    import random
    from thresher.stages.lib.gitpatch import HUNK_RE, Hunk, _hunk_body
    rnd = random.Random(15)
    common = [" a", "+b", "-c", "", "\\ No newline at end of file"]
    rare = ["x", "@@ -1 +1 @@", "diff --git a/x b/x", "+", "-", " "]
    for _ in range(3000):
        old, new = rnd.randint(0, 40), rnd.randint(0, 40)
        header = f"@@ -1,{old} +1,{new} @@ f()" if rnd.random() < 0.9 else "@@ -3 +3 @@"
        pool = common + (rare if rnd.random() < 0.3 else [])
        lines = [header] + [rnd.choice(pool) for _ in range(rnd.randint(0, 100))]
        m = HUNK_RE.match(lines[0])
        assert m is not None
        hunk = Hunk(0)
        end = _hunk_body(lines, 1, m, hunk)
        counts = [int(r.split(",")[1]) if "," in r else 1 for r in m["ranges"].split()]
        assert (end, hunk.adds, hunk.dels) == _counted_body_line_by_line(lines, 1, counts[0], counts[1])
        assert hunk.body == list(range(1, end))


@pytest.mark.parametrize("case_id", ["git-log-patch", "git-diff-refactor-huge", "git-show-merge-combined", "git-log-stat-huge"])
def test_mode_bound_is_at_least_what_the_units_cover(case_id):
    # a mode is passed over when its lines less this bound exceed the budget: it must never be
    # below the lines its units really cover
    case = fixture_case(case_id)
    lines = case["stdout"].split("\n")
    p = parse(lines)
    assert p is not None
    for mode in (distill_git_patch.HUNK, distill_git_patch.FILE, distill_git_patch.WHOLE,
                 distill_git_patch.COUNT):
        units = distill_git_patch._units(p, mode, lines)
        assert distill_git_patch._covered_at_most(p, mode) == sum(len(u.lines) for u in units)


def test_ranking_kept_units_equals_keeping_the_ranked_units():
    case = fixture_case("git-log-patch")
    lines = case["stdout"].split("\n")
    p = parse(lines)
    assert p is not None
    units = distill_git_patch._units(p, distill_git_patch.COUNT, lines, ranked=False)
    ranked = distill_git_patch._ranked(units, lines)
    assert sorted(map(id, ranked)) == sorted(map(id, units)) and ranked != units
    assert len({error_rank(lines, u.info) for u in units if u.info is not None}) > 1
    cut = max(u.lines[-1] for u in units) // 2
    kept = distill_git_patch._ranked([u for u in units if max(u.lines) < cut], lines)
    assert kept == [u for u in ranked if max(u.lines) < cut]
