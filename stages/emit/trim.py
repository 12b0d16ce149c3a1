"""trim: when the view is still over budget, keep every critical line plus head, middle and tail lines.

The line budget (``max_lines``, from the graph budget unless overridden) is shared between critical
lines, the head and the tail (the few lines at the middle stay too); the token budget then shrinks
head and tail until the view fits or only critical lines are left. A summary line stays only with the line it summarises. Nothing is
written: the omitted lines are counted by the executor in the single footer.
"""

from __future__ import annotations

from itertools import compress

from thresher.dataflow.payload import CRITICAL

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


MIDDLE = 3
"""Lines either side of the middle line that stay with it: the row at the middle of a long
enumeration or log is as likely to be the one looked for as its first and last (a few either side,
as a header of a few lines moves the middle of the rows off the middle of the output)."""


def _critical(payload) -> "list[int] | None":
    """The view indices of critical lines, in C (``None`` when the view has summary lines)."""
    origin, tiers = payload.origin, payload.tiers
    if origin and min(origin) < 0:
        return None
    return list(compress(range(len(origin)), map(CRITICAL.__eq__, map(tiers.__getitem__, origin))))


def _select(payload, head: int, tail: int, crit: "list[int] | None" = None) -> list[int]:
    n, origin, tiers = len(payload.lines), payload.origin, payload.tiers
    lo, hi = n // 2 - MIDDLE, n // 2 + MIDDLE
    if crit is not None:   # no summary line: the critical lines with head, middle and tail
        return sorted(set(crit).union(range(min(head, n)), range(max(n - tail, 0), n),
                                      range(max(lo, 0), min(hi, n - 1) + 1)))
    keep: list[int] = []
    for i in range(n):
        o = origin[i]
        if o < 0:
            if keep and keep[-1] == i - 1:
                keep.append(i)
        elif i < head or i >= n - tail or lo <= i <= hi or tiers[o] == CRITICAL:
            keep.append(i)
    return keep


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The trimmed view, or ``None`` when the view already fits the budget."""
    max_lines = params["max_lines"] or ctx.budget["max_lines"]
    max_tokens = ctx.budget["max_tokens"]
    n = len(payload.lines)
    if n <= max_lines and payload.tokens() <= max_tokens:
        return None
    at = _critical(payload)
    crit = len(at) if at is not None else \
        sum(1 for o in payload.origin if o >= 0 and payload.tiers[o] == CRITICAL)
    room = max(max_lines - crit, 4)
    head = max(int(room * params["head_share"]), 2)
    tail = max(room - head - (2 * MIDDLE + 1), 2)   # the middle's lines come out of the tail's share
    while True:
        keep = _select(payload, head, tail, at)
        view = payload.select(keep)
        if view.tokens() <= max_tokens or head + tail <= 4:
            break
        head, tail = max(head // 2, 2), max(tail // 2, 2)
    return view if len(keep) < n else None
