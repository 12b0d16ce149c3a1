"""Budgeted selection shared by the structural distillers (git, search, listings).

A distiller describes its input as *mandatory* view lines (always kept), *units* (groups of view
lines kept or dropped together) listed in priority order, and *groups* of units whose dropped
members are counted by one summary line. :func:`select` then keeps the mandatory lines and adds
units, best first, while the view still fits the graph's budget; :func:`render` builds the view,
each group's summary (exact counts of what it dropped) placed after the group's anchor line.

Priority order is where the fairness lives: listing units round-robin across files or directories
gives a water-fill (every file keeps its first matches before any file keeps many).
"""

from __future__ import annotations

import re
from itertools import chain, compress, repeat
from operator import attrgetter, is_not, not_

from thresher.dataflow.payload import CRITICAL, SYNTHETIC, Out
from thresher.dataflow.tokens import estimate

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

FOOTER_ROOM = 40
"""Tokens left free for the footer line Route appends."""

GIVE_UP = 400
"""Consecutive units that did not fit after which the budget counts as full (bounds the time on
outputs of 100k lines; the units left are dropped and counted like any other)."""


class Group:
    """Units whose dropped members one summary line counts; the line goes after view line ``anchor``.

    ``render(dropped_units)`` returns the summary text (``None`` for no line). ``anchor`` is a view
    index (-1 puts the summary first; ``None``, a commit body without a subject, shows none).
    """

    __slots__ = ("anchor", "render", "size", "cost")

    def __init__(self, anchor: int | None, render: Callable[[list[Unit]], str | None]) -> None:
        self.anchor = anchor
        self.render = render
        self.size = 0        # units in the group
        self.cost = 0        # estimated tokens of its summary line (upper bound, all units dropped)


class Unit:
    """View lines kept or dropped together, counted in ``group`` when dropped."""

    __slots__ = ("lines", "group", "info")

    def __init__(self, lines: "list[int] | tuple[int, ...] | range", group: Group | None,
                 info: Any = None) -> None:
        # (read only: a tuple is kept as it is, so a one-line unit costs no list)
        self.lines = lines if type(lines) is tuple else list(lines)
        self.group = group
        self.info = info     # whatever the group's summary needs (e.g. +/- line counts)


def room(ctx: Context) -> tuple[int, int]:
    """``(max_lines, max_tokens)`` a distilled view should meet, leaving room for the footer."""
    return ctx.budget["max_lines"] - 1, ctx.budget["max_tokens"] - FOOTER_ROOM


class LineCosts:
    """Estimated tokens of each line, newline included, computed when first asked for.

    Huge outputs (100k lines) need only the costs of the lines the selection looks at.
    """

    __slots__ = ("lines", "cache")

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self.cache: dict[int, int] = {}

    def __getitem__(self, i: int) -> int:
        c = self.cache.get(i)
        if c is None:
            c = self.cache[i] = estimate(self.lines[i]) + 1
        return c

    def __len__(self) -> int:
        return len(self.lines)


def line_costs(lines: Sequence[str]) -> LineCosts:
    """Per-line token costs of ``lines`` (lazy; their sum bounds the joined estimate)."""
    return LineCosts(lines)


def fits(payload: Payload, ctx: Context) -> bool:
    """True when the whole view already meets the budget: nothing needs to go."""
    max_lines, max_tokens = room(ctx)
    return len(payload.lines) <= max_lines and payload.tokens() <= max_tokens


def over_budget_costs(payload: Payload, ctx: Context) -> LineCosts | None:
    """Per-line costs of an original view that exceeds the budget; ``None`` when there is nothing
    to do (an earlier stage already summarised it, it is empty, or it fits)."""
    if min(payload.origin, default=0) < 0 or not payload.lines or fits(payload, ctx):
        return None
    return line_costs(payload.lines)


def critical_lines(payload: Payload) -> set[int]:
    """View indices that must survive: error lines of a failing command (INV-6)."""
    if not payload.failed:
        return set()
    tiers = payload.tiers
    return {i for i, o in enumerate(payload.origin) if o >= 0 and tiers[o] == CRITICAL}


_GROUP = attrgetter("group")


def _grouped(units: list[Unit]) -> tuple[dict[int, Group], dict[int, list[Unit]]]:
    """The groups of ``units`` by ``id`` in order of first appearance, and each one's units."""
    groups: dict[int, Group] = {}
    members: dict[int, list[Unit]] = {}
    of = list(map(_GROUP, units))
    distinct = [g for g in dict.fromkeys(of) if g is not None]
    if len(distinct) == 1:   # the common case (one summary for a whole listing): no Python loop
        groups[id(distinct[0])] = distinct[0]
        members[id(distinct[0])] = list(compress(units, map(is_not, of, repeat(None))))
        return groups, members
    for u in units:
        if u.group is not None:
            groups[id(u.group)] = u.group
            members.setdefault(id(u.group), []).append(u)
    return groups, members


def _price_groups(units: list[Unit]) -> dict[int, Group]:
    """Every group of ``units`` with its size and the cost of its summary (all members dropped)."""
    groups, members = _grouped(units)
    for gid, g in groups.items():
        g.size = len(members[gid])
        text = g.render(members[gid])
        g.cost = estimate(text) + 1 if text else 0
    return groups


def floor(costs: list[int] | LineCosts, mandatory: set[int], units: list[Unit],
          groups: dict[int, Group] | None = None) -> tuple[int, int]:
    """``(tokens, lines)`` of the smallest view: mandatory lines and every group's summary."""
    groups = _price_groups(units) if groups is None else groups
    return (sum(costs[i] for i in mandatory) + sum(g.cost for g in groups.values()),
            len(mandatory) + sum(1 for g in groups.values() if g.cost))


_LINES = attrgetter("lines")


def select(costs: list[int] | LineCosts, mandatory: set[int], units: list[Unit], ctx: Context,
           prefix: bool = False) -> list[bool]:
    """Per unit: kept? Greedy in the given priority order, within the budget of ``ctx``.

    With ``prefix`` the first unit that does not fit ends the selection (for ordered histories,
    where a gap would mislead); otherwise smaller units further down may still be taken.
    """
    max_lines, max_tokens = room(ctx)
    forced = list(map(mandatory.issuperset, map(_LINES, units)))  # kept whatever the budget
    free = [u for u, f in zip(units, forced) if not f]
    groups = _price_groups(free)
    dropped = {gid: g.size for gid, g in groups.items()}
    tokens, lines = floor(costs, mandatory, free, groups)
    keep = []
    missed, misses = False, 0
    for k, (u, f) in enumerate(zip(units, forced)):
        if f:
            keep.append(True)
            continue
        if missed or lines >= max_lines or misses > GIVE_UP:  # full: the rest cannot fit
            keep.extend(forced[k:])   # (nothing changes from here on: forced units only)
            break
        extra = [i for i in u.lines if i not in mandatory]
        dl = len(extra)
        g = u.group
        saved = g.cost if g is not None and dropped[id(g)] == 1 and g.cost else 0   # its summary's
        if saved:
            dl -= 1
        # (a unit with more lines than the room left is not costed: its tokens cannot matter)
        dt = sum(costs[i] for i in extra) - saved if lines + dl <= max_lines else 0
        ok = lines + dl <= max_lines and tokens + dt <= max_tokens
        missed = prefix and not ok
        misses = 0 if ok else misses + 1
        keep.append(ok)
        if ok:
            tokens, lines = tokens + dt, lines + dl
            if g is not None:
                dropped[id(g)] -= 1
    return keep


def render(payload: Payload, mandatory: set[int], units: list[Unit], keep: list[bool]) -> Payload:
    """The view of the kept lines in input order, each group's summary after its anchor."""
    kept = set(mandatory)
    for u in compress(units, keep):
        kept.update(u.lines)
    groups, lost = _grouped(list(compress(units, map(not_, keep))))
    after: dict[int | None, list[str]] = {}
    for gid, members in lost.items():
        text = groups[gid].render(members)
        if text:
            after.setdefault(groups[gid].anchor, []).append(text)
    lines: list[str] = []
    origin: list[int] = []
    for text in after.get(-1, []):
        lines.append(text)
        origin.append(SYNTHETIC)
    n, view, where = len(payload.lines), payload.lines, payload.origin
    # only the kept lines and the anchors of summaries matter, in view order
    marks = sorted({i for i in kept if 0 <= i < n} | {a for a in after if a is not None and 0 <= a < n})
    for i in marks:
        if i in kept:
            lines.append(view[i])
            origin.append(where[i])
        for text in after.get(i, ()):
            lines.append(text)
            origin.append(SYNTHETIC)
    return payload.with_view(lines, origin)


def distill(payload: Payload, ctx: Context, mandatory: set[int], units: list[Unit],
            costs: list[int] | LineCosts | None = None, prefix: bool = False) -> Payload | None:
    """Select and render in one step; ``None`` when every unit fits (nothing would be dropped)."""
    costs = costs if costs is not None else line_costs(payload.lines)
    crit = critical_lines(payload)
    if crit:  # a unit holding an error line of a failing command stays whole
        mandatory = mandatory | crit
        for u in units:
            if not crit.isdisjoint(u.lines):
                mandatory.update(u.lines)
    keep = select(costs, mandatory, units, ctx, prefix)
    if all(keep):
        return None
    return render(payload, mandatory, units, keep)


def round_robin(sequences: list[list[Any]]) -> list[Any]:
    """Items of ``sequences`` interleaved: every first item, then every second item, and so on."""
    if len(sequences) == 1:
        return list(sequences[0])
    # depth by depth over the sequences still running: linear in the items (padding every row
    # to the longest sequence was quadratic on a listing of one big directory and many small)
    live = [seq if isinstance(seq, list) else list(seq) for seq in sequences]
    live = [seq for seq in live if seq]
    out, depth = [], 0
    while live:
        if len(live) == 1:   # the longest sequence's own tail
            out.extend(live[0][depth:])
            break
        short = min(map(len, live))   # until the shortest ends, every row holds every sequence
        out.extend(chain.from_iterable(zip(*[seq[depth:short] for seq in live])))
        depth = short
        live = [seq for seq in live if len(seq) > depth]
    return out


NAMES_TROUBLE_RE = re.compile(r"(?i)\b(?:errors?|fatal|warnings?|crit(?:ical)?|emerg|exceptions?|traceback)\b")
"""A row of an enumeration that names trouble (``error``, ``fatal``, ``warning``...), as a word."""

ANCHORS = (0, 1, 2, 3, 4)
"""Quarters of an enumeration whose row is kept before any other: the first, the one at each
quarter, the middle and the last (``k * (n - 1) // 4`` and ``n // 2``)."""


def spread(order: list[Unit], rows: Sequence[Unit], text: Callable[[Unit], str] | None = None,
           cap: int = 0) -> list[Unit]:
    """``order`` (a priority order over an enumeration's units) with the rows an agent may look
    for anywhere in the list put first: the first, quarter, middle and last row of ``rows`` (the
    rows in output order), then (with ``text``) up to ``cap`` rows naming trouble, in ``order``.

    The rest keeps its order (the water-fill), so a budget cut spreads over the whole list instead
    of losing every row past the head: the middle and the end of a long listing stay in sight."""
    n = len(rows)
    if not n:
        return order
    first = [rows[k * (n - 1) // 4] for k in ANCHORS] + [rows[n // 2]]
    if text is not None and cap > 0:
        first += [u for u in order if NAMES_TROUBLE_RE.search(text(u))][:cap]
    seen: set[int] = set()
    lead = []
    for u in first:
        if id(u) not in seen:
            seen.add(id(u))
            lead.append(u)
    return lead + [u for u in order if id(u) not in seen]


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 match"`` / ``"3 matches"``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def done(view: Payload | None) -> Out | None:
    """A structural distiller's result leaves through ``done`` (straight to Route: its view keeps
    whole hunks/rows, which a generic head-and-tail trim would break); ``None`` stays ``None`` so
    the graph's fallback (trim) handles shapes the distiller does not know."""
    return None if view is None else Out("done", view)
