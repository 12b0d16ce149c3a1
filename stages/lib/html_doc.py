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
from html import unescape
from html.parser import HTMLParser

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

_HIDDEN = frozenset(("script", "style", "head", "nav", "template", "svg", "noscript"))
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"))
_NAV_ATTR = re.compile(r"(?i)\b(?:nav|navbar|navigation|sidebar|menu|toc)\b")
_HEADING = re.compile(r"^h([1-6])$")


_CODE = frozenset(("code", "tt", "kbd", "samp"))
_FRAME = frozenset(("html", "body", "main", "article"))
_ANCHORS_FIRST = re.compile(r'^((?:<a id="[^"]*"></a> )+)(#{1,6} )')


class Doc:
    """What the parser learnt: per-row visible text, its markdown form, headings and anchors."""

    def __init__(self, n: int) -> None:
        self.text = [""] * n
        self.md = [""] * n                                # the row as markdown (entities kept)
        self.pre = [False] * n                            # rows inside <pre>: spacing is content
        self.headings: list[tuple[int, int, str]] = []   # (row, level, text); <dt> terms too
        self.anchors: list[tuple[int, str]] = []         # (row, id)

    def md_row(self, row: int) -> str:
        """Row ``row`` as markdown: headings and definition terms as ``#`` headings, inline code
        in backticks, links as ``[text](href)``, list items as ``- ``, anchors as
        ``<a id="..."></a>``, entities as written; ``""`` for a row of markup only."""
        md = self.md[row]
        if self.pre[row]:
            return md.rstrip()
        # `<section id="api"><h2>API`: the heading marker first, its anchors after it
        return _ANCHORS_FIRST.sub(r"\2\1", " ".join(md.split()), 1)


class _Parser(HTMLParser):
    def __init__(self, doc: Doc) -> None:
        super().__init__(convert_charrefs=False)  # entities reach handle_*ref: kept as written in md
        self.doc = doc
        self.stack: list[tuple[str, bool]] = []  # (tag, hides its content)
        self.heading: list | None = None          # [row, level, text parts, closing tag]
        self.level = 0                            # level of the last heading (a <dt> nests below)
        self.links: list[str] = []                # hrefs of the open <a> elements ("" = none)
        self.in_pre = 0

    def _md(self, part: str) -> None:
        row = self._row()
        if 0 <= row < len(self.doc.md):
            self.doc.md[row] += part

    def _row(self) -> int:
        return self.getpos()[0] - 1

    def _hidden(self) -> bool:
        return any(h for _, h in self.stack)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        cls = a.get("class") or ""
        # a page's own frame (`<body class="sidebar-visible">`, mdBook) is never navigation
        hides = tag in _HIDDEN or a.get("role") == "navigation" or (
            tag not in _FRAME and bool(_NAV_ATTR.search(f"{a.get('id') or ''} {cls}"))) \
            or "headerlink" in cls.split()
        if not self._hidden() and not hides:
            m = _HEADING.match(tag)
            if m or (tag == "dt" and self.heading is None):
                level = int(m.group(1)) if m else min(self.level + 1, 6)
                if m:
                    self.level = level
                self.heading = [self._row(), level, [], tag]
                self._md(" " + "#" * level + " ")
            if a.get("id") and tag not in ("input", "img", "meta", "link"):
                self.doc.anchors.append((self._row(), a["id"] or ""))
                self._md(f' <a id="{a["id"]}"></a> ')
            if m or tag == "dt":
                pass
            elif tag in _CODE and not self.in_pre:
                self._md("`")
            elif tag == "li":
                self._md(" - ")
            elif tag in ("p", "div", "tr", "br", "dd"):
                self._md(" ")
            elif tag in ("td", "th"):
                self._md(" | ")
            if tag == "a":
                href = a.get("href") or ""
                self.links.append("" if href.startswith(("javascript:", "#")) else href)
                if self.links[-1]:
                    self._md("[")
            if tag == "pre":
                self.in_pre += 1
                row = self._row()  # the blanks that opening tags left before it are no code
                if 0 <= row < len(self.doc.md) and not self.doc.md[row].strip():
                    self.doc.md[row] = ""
        if tag not in _VOID:
            self.stack.append((tag, hides and tag != "title"))

    def handle_endtag(self, tag: str) -> None:
        visible = not self._hidden()
        for k in range(len(self.stack) - 1, -1, -1):
            if self.stack[k][0] == tag:
                del self.stack[k:]
                break
        if visible:
            if tag in _CODE and not self.in_pre:
                self._md("`")
            elif tag == "a" and self.links:
                href = self.links.pop()
                if href:
                    self._md(f"]({href})")
            elif tag == "pre" and self.in_pre:
                self.in_pre -= 1
        if self.heading is not None and tag == self.heading[3]:
            row, level, parts, _ = self.heading
            self.doc.headings.append((row, level, " ".join("".join(parts).split())))
            self.heading = None

    def handle_entityref(self, name: str) -> None:
        self._text(unescape(f"&{name};"), f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._text(unescape(f"&#{name};"), f"&#{name};")

    def handle_data(self, data: str) -> None:
        self._text(data, data)

    def _text(self, data: str, md: str) -> None:
        visible = not self._hidden() or (self.stack and self.stack[-1][0] == "title")
        if not visible:
            return
        if self.heading is not None:
            self.heading[2].append(data)
        row = self._row()
        for k, (part, mpart) in enumerate(zip(data.split("\n"), md.split("\n"))):
            if 0 <= row + k < len(self.doc.text):
                if part.strip():
                    self.doc.text[row + k] += part
                self.doc.md[row + k] += mpart
                self.doc.pre[row + k] = self.doc.pre[row + k] or bool(self.in_pre)


def parse(lines: Sequence[str]) -> Doc | None:
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
