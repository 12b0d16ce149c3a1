"""HTML structure per source row: headings, anchors (``id=``), and the visible text of each row.

Parsed with the standard library's ``html.parser`` (tolerant of real-world markup, no extra
dependency), tracking source rows, so that a distiller can *choose* rows while every shown row stays
byte-exact. Text inside ``script``, ``style``, ``head`` (but ``title``), ``nav``, ``template``,
``svg`` and ``noscript`` is not visible text, and elements with a navigation role or a ``nav``/
``sidebar``/``menu``/``toc`` id or class count as navigation: their text is dropped too, as the
issue asks (a table of contents repeats the headings). ``text_of`` gives the markdown-like text of
each row (tags stripped, entities decoded), which is what prose scoring reads.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_HIDDEN = frozenset(("script", "style", "head", "nav", "template", "svg", "noscript"))
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"))
_NAV_ATTR = re.compile(r"(?i)\b(?:nav|navbar|navigation|sidebar|menu|toc)\b")
_HEADING = re.compile(r"^h([1-6])$")


class Doc:
    """What the parser learnt: per-row visible text, headings and anchors."""

    def __init__(self, n: int) -> None:
        self.text = [""] * n
        self.headings: list[tuple[int, int, str]] = []   # (row, level, text)
        self.anchors: list[tuple[int, str]] = []         # (row, id)


class _Parser(HTMLParser):
    def __init__(self, doc: Doc) -> None:
        super().__init__(convert_charrefs=True)
        self.doc = doc
        self.stack: list[tuple[str, bool]] = []  # (tag, hides its content)
        self.heading: list | None = None          # [row, level, text parts]

    def _row(self) -> int:
        return self.getpos()[0] - 1

    def _hidden(self) -> bool:
        return any(h for _, h in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        hides = tag in _HIDDEN or a.get("role") == "navigation" or bool(
            _NAV_ATTR.search(f"{a.get('id') or ''} {a.get('class') or ''}"))
        if not self._hidden():
            if a.get("id") and not hides and tag not in ("input", "img", "meta", "link"):
                self.doc.anchors.append((self._row(), a["id"] or ""))
            m = _HEADING.match(tag)
            if m:
                self.heading = [self._row(), int(m.group(1)), []]
        if tag not in _VOID:
            self.stack.append((tag, hides and tag != "title"))

    def handle_endtag(self, tag):
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break
        if self.heading is not None and _HEADING.match(tag):
            row, level, parts = self.heading
            self.doc.headings.append((row, level, " ".join("".join(parts).split())))
            self.heading = None

    def handle_data(self, data):
        visible = not self._hidden() or (self.stack and self.stack[-1][0] == "title")
        if not visible:
            return
        if self.heading is not None:
            self.heading[2].append(data)
        row = self._row()
        for k, part in enumerate(data.split("\n")):
            if part.strip() and 0 <= row + k < len(self.doc.text):
                self.doc.text[row + k] += part


def parse(lines) -> Doc | None:
    """The structure of an HTML document given as rows; ``None`` when it does not look like HTML."""
    head = "\n".join(lines[:50]).lower()
    if "<html" not in head and "<!doctype html" not in head and "<body" not in head \
            and not any(f"<{t}" in head for t in ("h1", "h2", "div", "p>", "table")):
        return None
    doc = Doc(len(lines))
    p = _Parser(doc)
    try:
        p.feed("\n".join(lines))
        p.close()
    except (AssertionError, ValueError):  # html.parser gives up on some broken markup
        return None
    return doc


def section_rows(doc: Doc, n: int, k: int) -> tuple[int, int]:
    """``(start, end)`` rows of the section opened by heading ``k`` (end exclusive)."""
    row, level, _ = doc.headings[k]
    for later, lv, _ in doc.headings[k + 1:]:
        if lv <= level:
            return row, later
    return row, n
