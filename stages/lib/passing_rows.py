"""Fold the passing rows of a verbose test run per group: one shown row and one counted line each.

``pytest -v``, ``python -m unittest -v`` and ``go test -v`` print one row per test. What an agent needs
from them is every row that is not a pass (failed, error, skipped with its reason, xfail, xpass …,
which the distillers never hand in here), the summary, and which file / class / package ran how many
tests: not hundreds of identical passing rows. So per group the FIRST passing row stays verbatim
and the group's other passing rows go, replaced by one line just after that first row::

    tests/test_basic.py::test_basic_functionality PASSED                     [  5%]
    [thresher: 57 more PASSED rows of tests/test_basic.py not shown]

The count is exact (shown + counted == the group's passing rows) and counts rows, not lines: a row
may carry companion lines that go with it (xdist's announce line, unittest's docstring line).
A group with fewer than three passing rows is left whole (the counted line would save nothing).
"""

from __future__ import annotations


class Row:
    """One passing row: its verdict line, its group's label (``PASSED rows of tests/test_x.py``:
    what the counted line names), and the earlier lines that go with it. (A plain class:
    ``dataclasses`` would import ``re`` and ``inspect`` on every ``pipe`` of a test run.)"""

    __slots__ = ("at", "group", "companions")

    def __init__(self, at: int, group: str, companions: tuple[int, ...] = ()) -> None:
        self.at, self.group, self.companions = at, group, companions


def fold(rows: list[Row], keep: list[bool], summaries: dict[int, str]) -> int:
    """Fold ``rows`` (in line order) per group; update ``keep`` and ``summaries`` in place.

    Returns how many rows went.
    The counted line goes just after the group's first row (after the first free index when another
    summary already sits there: the lines in between are dropped ones).
    """
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.group, []).append(row)
    folded = 0
    for group, members in groups.items():
        if len(members) < 3:
            continue
        at = members[0].at + 1
        while at in summaries:
            at += 1
        if at > len(keep):
            continue
        for row in members[1:]:
            for i in (row.at, *row.companions):
                keep[i] = False
        summaries[at] = f"[thresher: {len(members) - 1} more {group} not shown]"
        folded += len(members) - 1
    return folded
