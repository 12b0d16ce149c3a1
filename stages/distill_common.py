"""Small helpers shared by the tool distillers: building a view, budget checks, command flags.

A distiller decides, per view line, keep or drop; some also write one declared summary line. The
helpers here turn such a decision into a payload, so every distiller builds its result the same way
and never rewrites a kept line (the executor would reject it anyway).
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import CRITICAL, SYNTHETIC
from thresher.dataflow.tokens import estimate


def build(payload, keep: list[bool], summaries: dict[int, str] | None = None):
    """The view of ``payload`` keeping view lines where ``keep`` is true.

    ``summaries`` maps a view index to a summary line written just before that line (or at the end
    for ``len(payload.lines)``). Returns ``None`` when nothing would be dropped: the caller declines.
    """
    summaries = summaries or {}
    if all(keep) and not summaries:
        return None
    lines, origin = [], []
    for i, (line, o) in enumerate(zip(payload.lines, payload.origin)):
        if i in summaries:
            lines.append(summaries[i])
            origin.append(SYNTHETIC)
        if keep[i]:
            lines.append(line)
            origin.append(o)
    if len(payload.lines) in summaries:
        lines.append(summaries[len(payload.lines)])
        origin.append(SYNTHETIC)
    return payload.with_view(lines, origin)


def critical_flags(payload) -> list[bool]:
    """Per view line: did Score tier it critical? Distillers never drop those (INV-6 by design)."""
    tiers = payload.tiers
    return [o >= 0 and tiers[o] == CRITICAL for o in payload.origin]


def over_budget(lines: "list[str] | tuple[str, ...]", budget: dict) -> bool:
    """True when ``lines`` exceed the graph's line or token budget."""
    if len(lines) > budget.get("max_lines", 1 << 30):
        return True
    return estimate("\n".join(lines)) > budget.get("max_tokens", 1 << 30)


def has_flag(argv: "tuple[str, ...] | list[str]", pattern: "re.Pattern[str]") -> bool:
    """True when any argument of the command line matches ``pattern`` (fully)."""
    return any(pattern.fullmatch(a) for a in argv)


def plural(n: int, word: str) -> str:
    """``"1 line"`` / ``"3 lines"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
