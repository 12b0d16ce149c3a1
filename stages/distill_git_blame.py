"""git blame: a whole file annotated line by line, shrunk only over budget, lines byte-exact.

While the blame fits, it passes whole. Over budget the lines that survive longest are the file's
outline — lines that define something (``def``, ``class``, ``fn``, ``func``…) — and then the most
recently changed lines (what a blame is usually read for), newest first; the view keeps file order
and one line counts what went. Porcelain (``-p``, ``--porcelain``) and anything that is not a
blame with increasing line numbers is declined.
"""

from __future__ import annotations

import re

from . import budget
from .budget import Group, Unit
from .distill_search import DEF_RE

BLAME_RE = re.compile(r"^\^?[0-9a-f]{7,64}(?: \S+)*?\s+(?:\((?P<meta>.*?)\s+)?(?P<n>\d+)\) ?(?P<code>.*)$")
WHEN_RE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}|\b\d{9,11} [+-]\d{4}")


def parse(lines: list[str]) -> list[tuple[int, str, str]] | None:
    """Per line ``(line number, when, code)``, or ``None`` when this is not a plain blame."""
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
        out.append((n, _sortable(when.group(0)) if when else "", m["code"]))
    return out


def _sortable(when: str) -> str:
    """A key that sorts blame dates (ISO with zone, or epoch seconds) in time order."""
    stamp = when.split()[0]
    return stamp.rjust(12, "0") if stamp.isdigit() else when[:19]


def _distill(payload, params, ctx):
    """The budgeted blame, or ``None`` (fits already, or not a blame)."""
    costs = budget.over_budget_costs(payload, ctx)
    if costs is None:
        return None
    lines = list(payload.lines)
    rows = parse(lines)
    if rows is None:
        return None
    total = len(rows)
    group = Group(-1, lambda d: f"[thresher: {len(d)} of {total} blame lines not shown; "
                                f"definitions and the most recent changes are kept]")
    defs = params["definitions"]
    # newest first (a stable sort keeps file order among equal dates), then definitions before all
    order = sorted(range(total), key=lambda i: rows[i][1], reverse=True)
    if defs:
        order.sort(key=lambda i: not DEF_RE.match(rows[i][2]))
    return budget.distill(payload, ctx, set(), [Unit([i], group) for i in order], costs)


def run(payload, params, ctx):
    """The budgeted blame, or ``None`` (fits already, or not a blame)."""
    return budget.done(_distill(payload, params, ctx))
