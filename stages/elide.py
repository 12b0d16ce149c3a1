"""Line-range elision shared by the line-preserving crushers (YAML, TOML).

A crusher decides which line ranges of the source to drop (each with one count line written in
its place) and which summary lines to insert before a given source line; :func:`assemble` turns
that into a view whose kept lines are byte-exact source lines. Ranges that would drop a critical
line of a failing command are skipped, so INV-6 holds by construction.
"""

from __future__ import annotations

from thresher.dataflow.payload import CRITICAL, SYNTHETIC

from . import anomaly


class Plan:
    """Drops ``(start, end, marker)`` (end exclusive, disjoint) and insertions ``line -> [text]``."""

    __slots__ = ("drops", "inserts")

    def __init__(self) -> None:
        self.drops: list[tuple[int, int, str]] = []
        self.inserts: dict[int, list[str]] = {}

    def drop(self, start: int, end: int, marker: str) -> None:
        """Drop source lines ``start..end-1``, showing ``marker`` in their place."""
        if end > start:
            self.drops.append((start, end, marker))

    def insert(self, line: int, text: str) -> None:
        """Show ``text`` just before source line ``line``."""
        self.inserts.setdefault(line, []).append(text)


def assemble(payload, plan: Plan) -> tuple[list[str], list[int]]:
    """The view of ``payload.source`` under ``plan``."""
    src, tiers = payload.source, payload.tiers
    starts = {}
    for start, end, marker in plan.drops:
        if payload.failed and any(tiers[i] == CRITICAL for i in range(start, end)):
            continue
        starts[start] = (end, marker)
    view, origin, i = [], [], 0
    while i < len(src):
        for text in plan.inserts.get(i, ()):
            view.append(text)
            origin.append(SYNTHETIC)
        if i in starts:
            end, marker = starts[i]
            view.append(marker)
            origin.append(SYNTHETIC)
            i = end
            continue
        view.append(src[i])
        origin.append(i)
        i += 1
    return view, origin


def sample(n: int, shown: int, found: dict, cap: int) -> list[int]:
    """Indices of ``n`` members to show: the first ``shown - 1``, the last, and up to ``cap``
    anomalous ones (all when ``n <= shown + 1``)."""
    if n <= shown + 1:
        return list(range(n))
    return sorted(set(range(max(shown - 1, 1))) | {n - 1} | set(anomaly.ranked(found, cap)))


def gaps(keep: list[int], n: int) -> list[tuple[int, int]]:
    """Inclusive ``(first, last)`` index runs of ``range(n)`` not in ``keep``."""
    out, prev = [], -1
    for i in keep + [n]:
        if i > prev + 1:
            out.append((prev + 1, i - 1))
        prev = i
    return out


def indent_of(line: str) -> str:
    """The leading whitespace of ``line``."""
    return line[:len(line) - len(line.lstrip())]
