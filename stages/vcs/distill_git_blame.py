"""git blame: the commit/author/date prefix said once per run of rows; over budget, rows chosen.

A run of consecutive rows of one commit repeats the same hash, path, author and date on every row:
the first row of each run stays byte-exact and the rest show only ``N) code`` (the exact suffix of
the input row: line number and code, byte for byte), under one declared line saying so. Definition
rows (``def``, ``class``, ``fn``, ``func``...) always keep their whole row. Over budget the rows
that survive longest are those definitions, then the most recently changed rows (what a blame is
usually read for), newest first — after the first and last rows (where the blamed range starts
and ends); the view keeps file order and one line counts what went.
Porcelain (``-p``, ``--porcelain``, ``--line-porcelain``, ``--incremental``: the verbatim class)
and anything that is not a blame with increasing line numbers is declined.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.tokens import estimate

from thresher.stages.lib import budget
from thresher.stages.lib.budget import Group, Unit
from thresher.stages.listings.distill_search import DEF_RE

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload, Out

LAYOUT = ("[thresher: git blame with each commit's hash, author and date said once per run: a row "
          "\"N) code\" is line N, of the commit of the nearest whole row above]")

BLAME_RE = re.compile(r"^\^?[0-9a-f]{7,64}(?: \S+)*?\s+(?:\((?P<meta>.*?)\s+)?(?P<n>\d+)\) ?(?P<code>.*)$")
TAIL_RE = re.compile(r"(?<!\d)\d+\)(?: |$)")  # `N) code`; `git blame -c` writes `N)code`: kept whole
WHEN_RE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}|\b\d{9,11} [+-]\d{4}")


def parse(lines: list[str]) -> list[tuple[int, str, str, int]] | None:
    """Per line ``(line number, when, code, where the number starts)``, or ``None`` when this is
    not a plain blame."""
    out, last = [], 0
    for line in lines:
        m = BLAME_RE.match(line)
        if m is None:
            return None
        n = int(m["n"])
        if n <= last:
            return None
        last = n
        when = WHEN_RE.search(m["meta"] or "")
        out.append((n, _sortable(when.group(0)) if when else "", m["code"], m.start("n")))
    return out


def _sortable(when: str) -> str:
    """A key that sorts blame dates (ISO with zone, or epoch seconds) in time order."""
    stamp = when.split()[0]
    return stamp.rjust(12, "0") if stamp.isdigit() else when[:19]


def compact(view, rows):
    """``view`` with each row that continues a run of its commit (the view line above is the
    previous source row, same prefix) shown as its ``N) code`` suffix; ``None`` if none does."""
    src = view.source
    lines, origin, prev = [LAYOUT], [SYNTHETIC], None
    for line, o in zip(view.lines, view.origin):
        if o >= 0 and prev == o - 1 and not DEF_RE.match(rows[o][2]) \
                and src[o][:rows[o][3]] == src[prev][:rows[prev][3]] \
                and TAIL_RE.match(src[o], rows[o][3]):
            line, o_shown = src[o][rows[o][3]:], SYNTHETIC
        else:
            o_shown = o
        lines.append(line)
        origin.append(o_shown)
        prev = o
    if len(lines) - 1 == sum(1 for o in origin if o >= 0):
        return None
    return view.with_view(lines, origin)


def _select(payload, params, ctx, rows, costs):
    """The over-budget selection of rows (definitions and newest changes), or ``None``."""
    total = len(rows)
    group = Group(-1, lambda d: f"[thresher: {len(d)} of {total} blame lines not shown; "
                                f"definitions and the most recent changes are kept]")
    # newest first (a stable sort keeps file order among equal dates), then definitions before all
    order = sorted(range(total), key=lambda i: rows[i][1], reverse=True)
    if params["definitions"]:
        order.sort(key=lambda i: not DEF_RE.match(rows[i][2]))
    # the first and last rows before all: where the blamed range starts and ends (a blame is an
    # enumeration of the file's lines; its ends say how much of the file it covers)
    ends = dict.fromkeys((0, total - 1))
    order = [*ends, *(i for i in order if i not in ends)]
    return budget.distill(payload, ctx, set(), [Unit([i], group) for i in order], costs)


def _distill(payload, params, ctx):
    """The compacted (and, over budget, budgeted) blame, or ``None`` (not a blame, or nothing
    saved)."""
    if any(o < 0 for o in payload.origin) or not payload.lines:
        return None
    rows = parse(list(payload.lines))
    if rows is None:
        return None
    whole = compact(payload, rows)
    if whole is not None and budget.fits(whole, ctx):
        return whole if whole.tokens() <= 0.85 * payload.tokens() else None
    src = payload.source
    # a row that continues its commit's run in the file costs only its suffix when it is shown
    short = [estimate(src[i][r[3]:]) + 1 if i and src[i][:r[3]] == src[i - 1][:rows[i - 1][3]]
             and not DEF_RE.match(r[2]) else None for i, r in enumerate(rows)]
    full = budget.line_costs(payload.lines)
    costs = [full[i] if c is None else c for i, c in enumerate(short)]
    _, max_tokens = budget.room(ctx)
    for _ in range(3):  # runs broken by the selection cost more than predicted: charge that
        view = _select(payload, params, ctx, rows, costs)
        if view is None:
            return None
        view = compact(view, rows) or view
        if budget.fits(view, ctx):
            return view
        scale = view.tokens() / max_tokens * 1.05
        costs = [min(full[i], -(-c * scale // 1)) for i, c in enumerate(costs)]
    view = _select(payload, params, ctx, rows, full)
    return None if view is None else compact(view, rows) or view


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
    """The compacted or budgeted blame, or ``None`` (not a blame, or nothing saved)."""
    return budget.done(_distill(payload, params, ctx))
