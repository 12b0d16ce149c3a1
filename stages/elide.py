"""Line-range elision shared by the line-preserving crushers (YAML, TOML).

A crusher decides which line ranges of the source to drop, each with a note on what they held
(``.paths: 40 keys, 12 shown; not shown: …``), and :func:`assemble` turns that into a view whose
kept lines are byte-exact source lines: the notes first, as one declared summary block outside
the document; in the document each dropped range is one elision line ``{indent}…A-B`` (source
lines A-B, the project's compact marker: ``thresher.dataflow.markers``), indented like what it
replaces; a last summary line spells the notation out and names the command that reads the
largest range. Route writes the one footer. Ranges that would drop a critical line of a failing
command are skipped, so INV-6 holds by construction.
"""

from __future__ import annotations

from thresher.dataflow.markers import elision
from thresher.dataflow.payload import CRITICAL, SYNTHETIC

from . import anomaly

LEAD = "[thresher: {what} shortened; kept lines are the input's own, each \u2026A-B line stands for source lines A-B; by path:]"


MAX_NOTES = 40  # summary lines at most; the rest are counted in one


class Plan:
    """Drops ``(start, end)`` (end exclusive, disjoint) and the notes of the summary block."""

    __slots__ = ("drops", "notes")

    def __init__(self) -> None:
        self.drops: list[tuple[int, int]] = []
        self.notes: list[str] = []

    def drop(self, start: int, end: int, note: str = "") -> None:
        """Drop source lines ``start..end-1`` (one elision line in their place), noting ``note``."""
        if end > start:
            self.drops.append((start, end))
            if note:
                self.notes.append(note)

    def note(self, text: str) -> None:
        """A summary line (a path's schema, counts) for the block above the document."""
        self.notes.append(text)


def assemble(payload, plan: Plan, what: str, handle: str) -> tuple[list[str], list[int]]:
    """The view of ``payload.source`` under ``plan`` (``what``: ``"YAML"``, ``"TOML"``)."""
    from .elision import follow_up
    src, tiers = payload.source, payload.tiers
    starts = {}
    for start, end in plan.drops:
        if payload.failed and any(tiers[i] == CRITICAL for i in range(start, end)):
            continue
        starts[start] = end
    if not starts:
        return list(src), list(range(len(src)))
    notes = list(dict.fromkeys(plan.notes))
    if len(notes) > MAX_NOTES:
        notes = notes[:MAX_NOTES - 1] + [f"{len(notes) - MAX_NOTES + 1} more paths with members "
                                         "left out (each at its \u2026A-B line)"]
    view = [LEAD.format(what=what)] + [f"[thresher: {n}]" for n in notes]
    origin, i = [SYNTHETIC] * len(view), 0
    while i < len(src):
        if i in starts:
            end = starts[i]
            first = next((k for k in range(i, end) if src[k].strip()), i)
            view.append(elision(indent_of(src[first]), i + 1, end))
            origin.append(SYNTHETIC)
            i = end
            continue
        view.append(src[i])
        origin.append(i)
        i += 1
    a, b = max(starts.items(), key=lambda kv: (kv[1] - kv[0], -kv[0]))
    gone = sum(e - s for s, e in starts.items())
    view.append(f"[thresher: {what} of {len(src)} lines, {gone} left out in {len(starts)} "
                f"range{'s' if len(starts) > 1 else ''} · read one with: "
                f"{follow_up(payload.command, handle, a + 1, b)}]")
    origin.append(SYNTHETIC)
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
