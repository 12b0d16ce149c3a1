"""Markdown structure: headings (ATX and setext), sections, and slicing a section by name.

Headings are found by CommonMark's block rules, which are line-based: an ATX heading is ``#``..
``######`` then a space (up to three spaces of indent); a setext heading is a paragraph line
underlined by ``===`` (level 1) or ``---`` (level 2). Fenced code blocks (```` ``` ```` or ``~~~``,
closed by a fence of the same character at least as long) and front matter are skipped, so a
``# comment`` in a shell example is never taken for a heading.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BREAK = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BLOCK_START = re.compile(r"^ {0,3}(?:[-*+>](?:\s|$)|\d+[.)](?:\s|$)|#|<|\|)")


class Heading:
    """One heading: its row, level (1-6), title text and the rows it spans (2 for setext)."""

    __slots__ = ("row", "level", "title", "span")

    def __init__(self, row: int, level: int, title: str, span: int = 1) -> None:
        self.row, self.level, self.title, self.span = row, level, title, span

    def __repr__(self) -> str:
        return f"Heading({self.row}, {self.level}, {self.title!r})"


def fenced_rows(lines: Sequence[str]) -> list[bool]:
    """Per row: inside a fenced code block (fence lines included) or YAML front matter."""
    inside = [False] * len(lines)
    fence = None
    start = 0
    if lines and lines[0].strip() == "---":  # front matter: up to the next --- line
        for i in range(1, min(len(lines), 200)):
            if lines[i].strip() in ("---", "..."):
                inside[:i + 1] = [True] * (i + 1)
                start = i + 1
                break
    for i in range(start, len(lines)):
        line = lines[i]
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                inside[i] = True
            continue
        inside[i] = True
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                and not line.strip().strip(fence[0]):
            fence = None
    return inside


def headings(lines: Sequence[str]) -> list[Heading]:
    """Every heading of a markdown document, in order."""
    fenced = fenced_rows(lines)
    out: list[Heading] = []
    for i, line in enumerate(lines):
        if fenced[i]:
            continue
        m = _ATX.match(line)
        if m:
            out.append(Heading(i, len(m.group(1)), (m.group(2) or "").strip()))
            continue
        if i + 1 < len(lines) and not fenced[i + 1] and line.strip() and not line.startswith("    "):
            u = _SETEXT.match(lines[i + 1])
            prev_blank = i == 0 or not lines[i - 1].strip() or (out and out[-1].row + out[-1].span == i)
            if u and prev_blank and not _BLOCK_START.match(line) and not _BREAK.match(line):
                out.append(Heading(i, 1 if u.group(1)[0] == "=" else 2, line.strip(), 2))
    return out


def sections(hs: list[Heading], n: int) -> list[tuple[int, int]]:
    """``(start, end)`` rows (end exclusive) of each heading's section, sub-sections included."""
    spans = []
    for k, h in enumerate(hs):
        end = n
        for later in hs[k + 1:]:
            if later.level <= h.level:
                end = later.row
                break
        spans.append((h.row, end))
    return spans


def find_section(hs: list[Heading], name: str) -> int | None:
    """Index of the heading called ``name``: exact (case-insensitive), else the first whose title
    starts with it, else the first containing it; ``None`` when none matches."""
    want = _norm(name)
    titles = [_norm(h.title) for h in hs]
    for test in (lambda t: t == want, lambda t: t.startswith(want), lambda t: want in t):
        for k, t in enumerate(titles):
            if want and test(t):
                return k
    return None


def _norm(title: str) -> str:
    """A title compared loosely: lower case, markup and quotes dropped, spaces collapsed."""
    return " ".join(re.sub(r"[`*_\[\]'\"]", "", title).split()).strip(":").lower()
