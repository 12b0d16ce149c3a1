"""Small helpers shared by the tool distillers: building a view, budget checks, command flags.

A distiller decides, per view line, keep or drop; some also write one declared summary line. The
helpers here turn such a decision into a payload, so every distiller builds its result the same way
and never rewrites a kept line (the executor would reject it anyway).
"""

from __future__ import annotations

from thresher.dataflow.payload import SYNTHETIC
from itertools import compress

from thresher.dataflow.tokens import estimate_joined

# what a distiller must never drop is the engine's definition (a filter asks it too): re-exported
from thresher.dataflow.errorscan import critical_flags  # noqa: F401 - re-exported

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from collections.abc import Iterable, Sequence
    from thresher.dataflow.payload import Payload
    from re import Pattern


def build(payload: Payload, keep: list[bool], summaries: dict[int, str] | None = None) -> Payload | None:
    """The view of ``payload`` keeping view lines where ``keep`` is true.

    ``summaries`` maps a view index to a summary line written just before that line (or at the end
    for ``len(payload.lines)``). Returns ``None`` when nothing would be dropped, or when the view
    would be larger than the input (a summary longer than the few lines it replaces; the executor
    rejects a distiller's larger output): the caller declines.
    """
    summaries = summaries or {}
    if all(keep) and not summaries:
        return None
    # the kept lines a segment at a time (itertools.compress, in C), a summary line before the
    # line at its index: a per-line loop cost ~0.2 s per 100k lines
    lines: list[str] = []
    origin: list[int] = []
    n, prev = len(payload.lines), 0
    if len(keep) < n:
        raise IndexError("keep is shorter than the view")
    for at in sorted(i for i in summaries if 0 <= i <= n):   # (as the view's line indices)
        lines += compress(payload.lines[prev:at], keep[prev:at])
        origin += compress(payload.origin[prev:at], keep[prev:at])
        lines.append(summaries[at])
        origin.append(SYNTHETIC)
        prev = at
    lines += compress(payload.lines[prev:], keep[prev:])
    origin += compress(payload.origin[prev:], keep[prev:])
    view = payload.with_view(lines, origin)
    return view if view.tokens() <= payload.tokens() else None


def over_budget(lines: list[str] | tuple[str, ...], budget: Budget) -> bool:
    """True when ``lines`` exceed the graph's line or token budget."""
    if len(lines) > budget.get("max_lines", 1 << 30):
        return True
    return estimate_joined(lines) > budget.get("max_tokens", 1 << 30)   # (no joined copy)


def has_flag(argv: tuple[str, ...] | list[str], pattern: Pattern[str]) -> bool:
    """True when any argument of the command line matches ``pattern`` (fully)."""
    return any(pattern.fullmatch(a) for a in argv)


def plural(n: int, word: str) -> str:
    """``"1 line"`` / ``"3 lines"``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def mark_kinds(lines: Sequence[str], crit: list[bool], keep: list[bool],
               kinds: Iterable[tuple[Pattern[str], str]]) -> dict[str, int]:
    """Unset ``keep`` for non-critical lines matching one of ``kinds`` (``(regex, name)`` pairs,
    first match wins); return how many lines of each kind were dropped."""
    totals: dict[str, int] = {}
    for i, line in enumerate(lines):
        if crit[i]:
            continue
        for regex, name in kinds:
            if regex.match(line):
                keep[i] = False
                totals[name] = totals.get(name, 0) + 1
                break
    return totals
