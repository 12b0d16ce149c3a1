"""Collapse: fold runs of near-identical lines into the first line and one counted summary line.

Two lines are similar when they are equal after masking numbers, hashes and hex (or exactly equal,
with ``exact_only``). A run of at least ``min_run`` similar lines keeps its first line, followed by
``[thresher: N similar lines folded]`` where N is the exact number of lines not shown. Critical
lines and existing summary lines are never folded. With ``keep_last`` the run's last line stays
too (after the summary): in a log, first and last line give the span the folded lines cover.
"""

from __future__ import annotations

from thresher.dataflow.payload import CRITICAL, SYNTHETIC

from thresher.dataflow.tokens import estimate

from .text import skeleton

SUMMARY = "[thresher: {n} similar lines folded]"


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


def _worth_folding(folded: "tuple[str, ...]") -> bool:
    """True when the summary line is cheaper than the lines it would replace (blank runs are not)."""
    return estimate("\n".join(folded)) > estimate(SUMMARY.format(n=len(folded)))


def run(payload, params, ctx):
    """The folded view, or ``None`` when no run is long enough."""
    last = 1 if params.get("keep_last") else 0
    runs = [r for r in _runs(payload, params["exact_only"]) if r[1] - r[0] >= params["min_run"] + last
            and _worth_folding(payload.lines[r[0] + 1:r[1] - last])]
    if not runs:
        return None
    lines, origin = [], []
    pos = 0
    for start, end in runs:
        lines.extend(payload.lines[pos:start + 1])
        origin.extend(payload.origin[pos:start + 1])
        lines.append(SUMMARY.format(n=end - start - 1 - last))
        origin.append(SYNTHETIC)
        pos = end - last
    lines.extend(payload.lines[pos:])
    origin.extend(payload.origin[pos:])
    return payload.with_view(lines, origin)
