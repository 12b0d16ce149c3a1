"""markdown-outline: a long markdown document becomes its headings, its salient lines, and
elisions that count every section's hidden lines.

Every heading line stays byte-exact (the outline of the document, each followed by an elision
line whose range and count give the section's size); the remaining token budget is filled with the
best lines by prose scoring (``ranking.py``: BM25 against the command's words and the headings, lead
lines, inline code, flags, list items). ``thresher read F --mode outline`` shows headings only;
``--mode section:NAME`` shows one section (with its sub-sections) and elides the rest. Declines on
small documents, documents without headings, failures and already distilled views.
"""

from __future__ import annotations

from thresher.dataflow.tokens import estimate

from thresher.stages.lib import markdown_doc
from thresher.stages.lib import ranking
from thresher.stages.lib.elide import elide, numbering, pristine, read_mode, target_file

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


def query_words(command: str) -> list[str]:
    """Words of the question: ``--query`` of ``thresher read``, else the command's operands."""
    import shlex
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    for i, w in enumerate(argv):
        if w == "--query" and i + 1 < len(argv):
            return ranking.words(argv[i + 1])
        if w.startswith("--query="):
            return ranking.words(w[len("--query="):])
    path = target_file(command) or ""
    return ranking.words(path.rsplit("/", 1)[-1].rsplit(".", 1)[0])


def heading_rows(hs, level: int = 6) -> set[int]:
    """Rows of headings at most ``level`` deep (both rows of a setext heading)."""
    return {h.row + k for h in hs if h.level <= level for k in range(h.span)}


def section_view(payload, lines, hs, name: str, ctx, first: int):
    """Only the section called ``name`` (sub-sections included), the rest elided."""
    k = markdown_doc.find_section(hs, name)
    if k is None:
        return None
    a, b = markdown_doc.sections(hs, len(lines))[k]
    shown = [a <= r < b for r in range(len(lines))]
    return elide(payload, shown, ctx.handle, first, what=f"section {hs[k].title!r}")


def fill(lines, shown: list[bool], query: list[str], leads: set[int], budget: int,
         max_lines: int) -> list[bool]:
    """``shown`` plus the best-scoring other lines within ``budget`` tokens and ``max_lines``."""
    texts = {r: line for r, line in enumerate(lines) if not shown[r] and line.strip()}
    seen = tuple(line for r, line in enumerate(lines) if shown[r])
    return ranking.choose(ranking.score(texts, query, leads), texts, budget, shown, max_lines, seen)


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The outline view of a long markdown document, or ``None`` (declined)."""
    if payload.failed or not pristine(payload) or not payload.source:
        return None
    mode = read_mode(payload.command) or ""
    if mode and mode != "outline" and not mode.startswith("section:"):
        return None
    nb = numbering(payload.source)
    first, lines = nb if nb else (1, list(payload.source))
    hs = markdown_doc.headings(lines)
    if not hs:
        return None
    if mode.startswith("section:"):
        return section_view(payload, lines, hs, mode[len("section:"):], ctx, first)
    full = estimate("\n".join(lines))
    if not mode and len(lines) < params["min_lines"] and full < params["min_tokens"]:
        return None
    max_lines = ctx.budget["max_lines"]
    level = 6
    while level > 1 and 2 * len(heading_rows(hs, level)) > max_lines * 0.8:
        level -= 1  # too many headings for the budget: keep the upper levels of the tree
    rows = heading_rows(hs, level)
    shown = [r in rows for r in range(len(lines))]
    if mode != "outline":
        leads = set()
        for h in hs:
            r = h.row + h.span
            while r < len(lines) and not lines[r].strip():
                r += 1
            leads.add(r)
        query = query_words(payload.command) + [w for h in hs for w in ranking.words(h.title)]
        budget = min(int(full * params["keep_share"]), int(ctx.budget["max_tokens"] * 0.8))
        shown = fill(lines, shown, query, leads, budget, int(max_lines * 0.9))
    view = elide(payload, shown, ctx.handle, first, what="markdown outline")
    if view is None or view.tokens() > payload.tokens() * (1 - params["min_saving"]):
        return None
    return view
