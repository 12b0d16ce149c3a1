"""html-outline: a long HTML page becomes its headings, anchors and most salient text, as markdown.

Rows are chosen, then shown as markdown: every heading row, every definition term (``<dt>``: the
entries of a Sphinx API page, structure like headings) and every row opening an element with an
``id`` (the page's own anchors) stay, then the token budget is filled with the rows whose visible
text scores best (``ranking.py``; script/style/head/nav dropped). A chosen row is shown as its
markdown (``html_doc.Doc.md_row``: ``#`` headings, backticked code, ``[text](href)`` links, ``- ``
items, ``<a id="..."></a>`` anchors, entities as written; every word and href of it is in the
input), so the markup of the rows kept is not paid for; a row of markup only is not shown.
Everything else is elided with exact source row ranges. ``thresher read page.html --mode
section:NAME`` slices the section under the heading (or term) NAME. Declines on short pages, input
that does not look like HTML, failures and already distilled views.
"""

from __future__ import annotations

from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.tokens import estimate

from thresher.stages.lib import html_doc
from thresher.stages.lib import markdown_doc
from thresher.stages.lib import ranking
from thresher.stages.documents.markdown_outline import query_words
from thresher.stages.lib.elide import elide, pristine, read_mode

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


def section_view(payload, doc, name: str, ctx):
    """Only the section under the heading called ``name``, the rest elided."""
    hs = [markdown_doc.Heading(r, lv, t) for r, lv, t in doc.headings]
    k = markdown_doc.find_section(hs, name)
    if k is None:
        return None
    a, b = html_doc.section_rows(doc, len(payload.source), k)
    shown = [a <= r < b for r in range(len(payload.source))]
    return as_markdown(doc, elide(payload, shown, ctx.handle, what=f"section {hs[k].title!r}"))


def as_markdown(doc, view):
    """``view`` with each shown source row replaced by its markdown form (a declared re-layout
    when it differs, dropped when the row is markup only); ``None`` stays ``None``."""
    if view is None:
        return None
    lines, origin = [], []
    for line, o in zip(view.lines, view.origin):
        if o >= 0:
            md = doc.md_row(o)
            if not md:
                continue
            if md != line:
                line, o = md, SYNTHETIC
        lines.append(line)
        origin.append(o)
    return view.with_view(lines, origin)


def anchor_rows(doc, shown: list[bool], max_lines: int, signatures: bool) -> list[bool]:
    """``shown`` plus the anchor rows in document order while they fit ``max_lines`` view lines;
    with ``signatures``, each anchor row without text of its own (``<p id="debounce">``) also
    shows the text row after it (the entry's signature)."""
    shown = list(shown)
    per, count = (3 if signatures else 2), sum(shown)
    for row, _ in doc.anchors:
        if 2 * count + per > max_lines:
            break
        shown[row] = True
        count += 1
        if signatures and not doc.text[row].strip():
            for r in range(row + 1, min(row + 3, len(doc.text))):
                if doc.text[r].strip():
                    shown[r] = True
                    count += 1
                    break
    return shown


def _fits(view, budget: Budget) -> bool:
    return len(view.lines) <= budget["max_lines"] and view.tokens() <= budget["max_tokens"]


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The outline view of a long HTML page, or ``None`` (declined)."""
    if payload.failed or not pristine(payload) or not payload.source:
        return None
    mode = read_mode(payload.command) or ""
    if mode and mode != "outline" and not mode.startswith("section:"):
        return None
    lines = payload.source
    full = payload.tokens()
    if not mode and len(lines) < params["min_lines"] and full < params["min_tokens"]:
        return None
    doc = html_doc.parse(lines)
    if doc is None:
        return None
    if mode.startswith("section:"):
        return section_view(payload, doc, mode[len("section:"):], ctx)
    heads = [False] * len(lines)
    for row, _, _ in doc.headings:
        heads[row] = True
    max_lines = int(ctx.budget["max_lines"] * 0.9)
    view = None
    # anchors with their signature rows, anchors alone, then the headings alone: a page whose
    # anchor rows are long (a whole <pre> of declarations on one row) still keeps every heading
    # instead of leaving the cut to trim's head and tail
    for signatures in (True, False, None):
        shown = heads if signatures is None else anchor_rows(doc, heads, max_lines, signatures)
        if mode != "outline" and signatures is not None:
            shown = fill(payload, doc, shown, full, params, ctx, max_lines)
        view = as_markdown(doc, elide(payload, shown, ctx.handle, what="html outline"))
        if view is None or _fits(view, ctx.budget):
            break
    if view is None or view.tokens() > full * (1 - params["min_saving"]):
        return None
    return view


def fill(payload, doc, shown: list[bool], full: int, params, ctx, max_lines: int) -> list[bool]:
    """``shown`` plus the best visible-text rows within the token budget left."""
    texts = {r: t for r, t in enumerate(doc.text) if t.strip() and not shown[r]}
    leads = {r + 1 for r, _, _ in doc.headings} | {r + 1 for r, _ in doc.anchors}
    query = query_words(payload.command) + [w for _, _, t in doc.headings for w in ranking.words(t)]
    base = as_markdown(doc, elide(payload, shown, ctx.handle, what="html outline"))
    used = estimate(base.text()) if base is not None else full
    budget = min(int(full * params["keep_share"]), int(ctx.budget["max_tokens"] * 0.85) - used)
    seen = tuple(doc.text[r] for r in range(len(shown)) if shown[r])
    raw = {r: doc.md_row(r) for r in texts}  # what the view will show for the row
    return ranking.choose(ranking.score(texts, query, leads), texts, max(budget, 0), shown, max_lines,
                        seen, raw)
