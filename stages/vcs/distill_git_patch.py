"""git diff / git show / git log (and ``diff -u``): shrunk only over budget, a valid diff where kept.

Always kept: commit lines and header fields (Author, Date, Merge…), each subject line, stat summary
lines, every file header (``diff --git``, modes, ``new file mode``, ``---``/``+++``) and tool
messages. Over budget, in this order of what stays longest:
1. stat / name-status rows (round-robin across commits: each commit keeps its first rows);
2. message bodies (newest commit first), each counted under its subject when it goes;
3. hunks, round-robin across files (every file keeps its first hunk before any keeps a second),
   each hunk whole or not at all; hunks whose changed lines name an error (``error``,
   ``…Exception``, ``fail…``) go first, then hunks whose context does (each the smallest first,
   so that the most of them fit), then the rest. While the hunk headers are cheap (``index_share`` of the budget)
   every ``@@`` header stays (the map of the change): a dropped body becomes one counted line under
   its header, or, when those lines would not fit, one counted line per file for all its dropped
   bodies (a header directly followed by the next is a hunk whose body went); otherwise whole
   hunks go, counted per file by one line that also lists their ``@@`` lines, copied as written,
   or, when those lists would not fit, by one line per file that counts them.
When even the headers do not fit, a log keeps each commit's identity first: its ``commit`` line
and subject stay for every commit, and the rest of a commit (Author/Date fields, blank lines,
body) is kept newest first while it fits, one declared line counting the commits shown without
it. Only when the identities alone do not fit do the oldest commits (or last files) go whole,
counted. (A long plain ``git log`` is read like ``--oneline``: which commits, in what order.)
``git log --oneline`` / ``git reflog`` keep the newest entries. Unknown shapes are declined.
"""

from __future__ import annotations

from functools import partial

from thresher.stages.lib import budget
from thresher.stages.lib.budget import Group, Unit, plural
from thresher.stages.lib.gitpatch import ONELINE_RE, STAT_SUM_RE, Patch, error_rank, parse

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload, Out

TOP_SHARE = 0.7
"""When only some commits/files fit, their skeletons may take this share of the budget."""


HUNK, FILE, WHOLE, COUNT = "hunk", "file", "whole", "count"
"""How dropped hunks are counted: each body under its header, the bodies per file (headers stay),
whole hunks per file (their ``@@`` lines listed), or whole hunks per file by count alone."""


def _hunk_units(p: Patch, mode: str, lines: list[str], ranked: bool = True) -> list[Unit]:
    """Hunks round-robin across files; bodies only (headers stay) unless ``mode`` is WHOLE (or
    COUNT); ranked by :func:`_ranked` unless ``ranked`` is false."""
    seqs = []
    for f in p.all_files():
        if mode in (WHOLE, COUNT):
            group = Group(f.last(), partial(_file_summary, lines=lines, heads=mode == WHOLE))
            seqs.append([Unit([h.header, *h.body], group, h) for h in f.hunks])
        elif mode == FILE:
            group = Group(f.last(), _bodies_summary)
            seqs.append([Unit(h.body, group, h) for h in f.hunks if h.body])
        else:
            seqs.append([Unit(h.body, Group(h.header, _body_summary), h) for h in f.hunks if h.body])
    order = budget.round_robin(seqs)
    return _ranked(order, lines) if ranked else order


def _ranked(units: list[Unit], lines: list[str]) -> list[Unit]:
    """``units`` with their hunk units (the tail of the list: those whose ``info`` is a hunk)
    ordered: hunks naming an error first, the smallest first (the most of them fit); the rest
    keep their round-robin order. (A stable sort on each unit's own key: ranking a subsequence
    gives the subsequence of the ranked whole.)"""
    k = next((j for j, u in enumerate(units) if u.info is not None), len(units))
    hunks = units[k:]
    rank = [(r, len(u.lines) if r < 2 else 0) for u in hunks for r in (error_rank(lines, u.info),)]
    return units[:k] + [u for _, u in sorted(zip(rank, hunks), key=lambda t: t[0])]


def _bodies_summary(dropped: list[Unit]) -> str:
    hunks = [u.info for u in dropped]
    n = sum(len(h.body) for h in hunks)
    adds, dels = sum(h.adds for h in hunks), sum(h.dels for h in hunks)
    what = ("the body of 1 hunk", "its @@ line stays") if len(hunks) == 1 else (
        f"the bodies of {len(hunks)} hunks", "their @@ lines stay")
    return (f"[thresher: {what[0]} of this file not shown ({plural(n, 'line')}, +{adds} -{dels});"
            f" {what[1]}]")


def _body_summary(dropped: list[Unit]) -> str:
    h = dropped[0].info
    return f"[thresher: hunk body not shown: {plural(len(h.body), 'line')}, +{h.adds} -{h.dels}]"


def _file_summary(dropped: list[Unit], lines: list[str], heads: bool = True) -> str:
    """The counted line for a file's dropped hunks; with ``heads`` their ``@@`` lines follow it,
    as written (in file order, whatever order they were chosen in)."""
    hunks = sorted((u.info for u in dropped), key=lambda h: h.header)
    n = sum(len(h.body) + 1 for h in hunks)
    adds, dels = sum(h.adds for h in hunks), sum(h.dels for h in hunks)
    text = (f"[thresher: {plural(len(hunks), 'hunk')} of this file not shown ({plural(n, 'line')},"
            f" +{adds} -{dels})")
    return f"{text}: {' '.join(lines[h.header] for h in hunks)}]" if heads else f"{text}]"


def _body_summary_of(dropped: list[Unit]) -> str:
    return f"[thresher: {plural(len(dropped[0].lines), 'more message line')} not shown]"


def _row_units(p: Patch) -> list[Unit]:
    """Stat / name-status rows, round-robin across commits, counted per commit."""
    seqs = []
    for rows in [p.rows] + [c.rows for c in p.commits]:
        if rows:
            group = Group(rows[-1], lambda d: f"[thresher: {plural(len(d), 'more file row')} not shown]")
            seqs.append([Unit([i], group) for i in rows])
    return budget.round_robin(seqs)


def _units(p: Patch, mode: str, lines: list[str], ranked: bool = True) -> list[Unit]:
    units = _row_units(p)
    units += [Unit(c.body, Group(c.subject, _body_summary_of)) for c in p.commits if c.body]
    return units + _hunk_units(p, mode, lines, ranked)


def _covered_at_most(p: Patch, mode: str) -> int:
    """How many view lines :func:`_units` of ``mode`` can cover at most (the sum of its units'
    sizes): ``len(lines)`` less this bounds a mode's mandatory lines from below, so a mode whose
    bare skeleton is far over the line budget (a long ``git log -p``) is passed over without
    building, pricing and ranking thousands of units."""
    hunks = [h for f in p.all_files() for h in f.hunks]
    bodies = sum(len(h.body) for h in hunks) + (len(hunks) if mode in (WHOLE, COUNT) else 0)
    return len(p.rows) + sum(len(c.rows) + len(c.body) for c in p.commits) + bodies


def _details(p: Patch, lines: list[str], costs, ctx) -> list[Unit] | None:
    """Each commit's lines other than its ``commit`` line, subject, rows and diff: the newest
    first, under one group counted at the top; ``None`` for a log whose identities (and other
    mandatory lines) alone would not fit (then the oldest commits go whole)."""
    tops = _tops(p, len(lines))
    if len(p.commits) < 2:
        return None
    units = []
    for c, (a, b) in zip(p.commits, tops):
        keep = {c.head[0], c.subject} | set(c.rows)
        keep.update(i for f in c.files for i in f.header)
        keep.update(i for f in c.files for h in f.hunks for i in (h.header, *h.body))
        keep.update(i for i in range(a, b) if STAT_SUM_RE.match(lines[i]))
        units.append(Unit([i for i in range(a, b) if i not in keep], None))
    group = Group(-1, lambda d: f"[thresher: {plural(len(d), 'older commit')} shown by commit line "
                                f"and subject only ({plural(sum(len(u.lines) for u in d), 'line')} of "
                                f"fields, blank lines and bodies not shown)]")
    for u in units:
        u.group = group
    units = [u for u in units if u.lines]
    covered = {i for u in units for i in u.lines}
    mandatory = set(range(len(lines))) - covered
    max_lines, max_tokens = budget.room(ctx)
    if sum(costs[i] for i in mandatory) + 60 > max_tokens or len(mandatory) + 1 > max_lines:
        return None
    return units


def _tops(p: Patch, n: int) -> list[tuple[int, int]]:
    """``(first, end)`` view ranges of the top-level items: commits, else files."""
    if p.commits:
        starts = [c.head[0] for c in p.commits]
    else:
        starts = [f.header[0] for f in p.files]
    return list(zip(starts, starts[1:] + [n]))


def _cut_tail(p: Patch, costs, units: list[Unit], ctx, view: list[str]
              ) -> tuple[set[int], list[Unit]] | None:
    """Keep the first top-level items whose skeletons fit; the rest go as one counted unit.
    (``units`` unranked: only the kept ones are ranked.)"""
    n = len(costs)
    covered = bytearray(n)   # 1 for a line of a unit (a byte a line: sets of all n cost ~10 MB)
    for u in units:
        for i in u.lines:
            covered[i] = 1
    max_lines, max_tokens = budget.room(ctx)
    tokens = lines = 0
    tops = _tops(p, n)
    cut = len(tops)
    for k, (a, b) in enumerate(tops):
        inside = [i for i in range(a, b) if not covered[i]]
        tokens += sum(costs[i] for i in inside)
        lines += len(inside)
        if k and (tokens > TOP_SHARE * max_tokens or lines > TOP_SHARE * max_lines):
            cut = k
            break
    if cut == len(tops):
        return None
    start = tops[cut][0]
    what = "older commit" if p.commits else "more file"
    count = len(tops) - cut
    tail = Group(start - 1, lambda d: f"[thresher: {plural(count, what)} not shown ({plural(n - start, 'line')})]")
    kept = _ranked([u for u in units if max(u.lines) < start], view)
    return {i for i in range(start) if not covered[i]}, kept + [Unit(range(start, n), tail)]


def _oneline(payload, ctx, costs):
    """``--oneline`` / reflog: newest entries first, the rest counted."""
    n = len(payload.lines)
    group = Group(n - 1, lambda d: f"[thresher: {plural(len(d), 'older entry', 'older entries')} not shown]")
    return budget.distill(payload, ctx, set(), [Unit([i], group) for i in range(n)], costs, prefix=True)


def _distill(payload, params, ctx):
    """The budgeted diff/log, or ``None`` (fits already, or a shape this does not know)."""
    costs = budget.over_budget_costs(payload, ctx)
    if costs is None:
        return None
    lines = list(payload.lines)
    if all(ONELINE_RE.match(s) for s in lines):
        return _oneline(payload, ctx, costs)
    p = parse(lines)
    if p is None:
        return None
    max_lines, max_tokens = budget.room(ctx)
    share = params["index_share"]
    for mode in (HUNK, FILE, WHOLE, COUNT):
        limit = share if mode in (HUNK, FILE) else 1.0
        if len(lines) - _covered_at_most(p, mode) > limit * max_lines:
            continue   # (its floor has at least that many lines: it cannot fit)
        units = _units(p, mode, lines, ranked=False)
        mandatory = set(range(len(lines))) - {i for u in units for i in u.lines}
        tokens, nlines = budget.floor(costs, mandatory, units)
        if tokens <= limit * max_tokens and nlines <= limit * max_lines:
            return budget.distill(payload, ctx, mandatory, _ranked(units, lines), costs)
    if p.commits and not any(c.files or c.rows for c in p.commits):
        details = _details(p, lines, costs, ctx)
        if details is not None:
            mandatory = set(range(len(lines))) - {i for u in details for i in u.lines}
            return budget.distill(payload, ctx, mandatory, details, costs, prefix=True)
    cut = _cut_tail(p, costs, _units(p, COUNT, lines, ranked=False), ctx, lines)
    if cut is None:  # one commit/file, over budget even bare (error hunks of a failing diff):
        units = _units(p, HUNK, lines)  # then every @@ header is worth its line
        mandatory = set(range(len(lines))) - {i for u in units for i in u.lines}
        return budget.distill(payload, ctx, mandatory, units, costs)
    return budget.distill(payload, ctx, cut[0], cut[1], costs)


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
    """The budgeted diff/log, or ``None`` (fits already, or a shape this does not know)."""
    return budget.done(_distill(payload, params, ctx))
