"""Collapse, the fallback: fold runs of near-identical lines, but only when the view is over budget.

Within the graph's budget the lines are the answer (25 ``run N: 0.09 s`` timings are the numbers
the user asked for), so only exact repeats fold, losslessly: the first line, then
``[thresher: previous line repeated N more times]``. Over the budget two lines are similar when
they are equal after masking numbers, hashes and hex (or exactly equal, with ``exact_only``); a
run of at least ``min_run`` similar lines keeps its first line, followed by one counted line that
also says what varied: ``[thresher: N similar lines folded; numbers that vary: #1 2..25, #3
0.08..0.11]`` (``#k`` is the k-th number of the line; min..max, or the values when they are few).
Critical lines and existing summary lines are never folded. With ``keep_last`` the run's last line
stays too (after the summary): in a log, first and last line give the span the folded lines cover.
"""

from __future__ import annotations

from thresher.dataflow.payload import CRITICAL, SYNTHETIC
from thresher.dataflow.tokens import estimate

from thresher.stages.lib.budget import fits, room
from thresher.stages.generic.lossless import RUN_LINE
from thresher.stages.lib.text import NUMBER_RE, skeleton

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

SUMMARY = "[thresher: {n} similar lines folded]"
VARIED = "[thresher: {n} similar lines folded; numbers that vary: {what}]"
FEW = 3
"""At most this many distinct values of a number are listed; more are given as min..max."""


def _runs(payload, exact: bool) -> list[tuple[int, int]]:
    """``(start, end)`` view index ranges of similar, non-critical lines (end exclusive)."""
    lines, origin, tiers = payload.lines, payload.origin, payload.tiers
    keys = [None if o < 0 or tiers[o] == CRITICAL else (line if exact else skeleton(line))
            for line, o in zip(lines, origin)]
    runs, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] is None or keys[i] != keys[start]:
            if keys[start] is not None:
                runs.append((start, i))
            start = i
    return runs


def _value(lexeme: str) -> float | None:
    try:
        return float(lexeme)
    except ValueError:
        return None   # a hash, hex, a time like 12:30:01 or 1,234


def varied(folded) -> str:
    """What differs among ``folded`` (lines of one skeleton): ``#k min..max`` (or the values)
    for each number position k whose values are not all equal; ``""`` when none differ."""
    slots = list(zip(*(NUMBER_RE.findall(line.strip()) for line in folded)))
    parts = []
    for k, values in enumerate(slots, 1):
        distinct = list(dict.fromkeys(values))
        if len(distinct) == 1:
            continue
        nums = [_value(v) for v in values]
        if len(distinct) <= FEW:
            parts.append(f"#{k} " + ", ".join(distinct))
        elif None in nums:
            parts.append(f"#{k} {len(distinct)} distinct ({values[0]}..{values[-1]} in order)")
        else:
            known = [x for x in nums if x is not None]   # (all of them, here)
            parts.append(f"#{k} {values[nums.index(min(known))]}..{values[nums.index(max(known))]}")
    return "; ".join(parts)


def summary(folded) -> str:
    """The counted line that replaces ``folded``: a lossless repeat line, or what varied."""
    if all(line == folded[0] for line in folded):
        return RUN_LINE.format(n=len(folded))
    what = varied(folded)
    return VARIED.format(n=len(folded), what=what) if what else SUMMARY.format(n=len(folded))


def _fold(folded) -> str | None:
    """The summary of ``folded`` when it is cheaper than the lines it replaces (blank runs are
    not), else ``None``."""
    text = summary(folded)
    return text if estimate("\n".join(folded)) > estimate(text) else None


def _within_budget(payload, ctx) -> bool:
    """True when the view meets the budget (the line count first: it needs no token estimate)."""
    max_lines, _ = room(ctx)
    return len(payload.lines) <= max_lines and fits(payload, ctx)


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The folded view, or ``None`` when no run is long enough (or none may fold: within the
    budget only exact repeats do, after the first line of each)."""
    last = 1 if params.get("keep_last") else 0
    exact = params["exact_only"] or _within_budget(payload, ctx)
    folds = [(s, e, _fold(payload.lines[s + 1:e - last])) for s, e in _runs(payload, exact)
             if e - s >= params["min_run"] + last]
    runs = [(s, e, text) for s, e, text in folds if text is not None]
    if not runs:
        return None
    lines: list[str] = []
    origin: list[int] = []
    pos = 0
    for start, end, text in runs:
        lines.extend(payload.lines[pos:start + 1])
        origin.extend(payload.origin[pos:start + 1])
        lines.append(text)
        origin.append(SYNTHETIC)
        pos = end - last
    lines.extend(payload.lines[pos:])
    origin.extend(payload.origin[pos:])
    return payload.with_view(lines, origin)
