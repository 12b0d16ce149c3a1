"""code-outline: a large source file read whole becomes its outline, parsed with tree-sitter.

Shown byte-exact: imports, every class/function/method signature row, the first line of each
docstring or doc comment, members of classes and structs; every function body becomes one elision
line with its exact range (format and rationale in ``elision.py``), and a last summary line names
the command that reads an elided range. If the full outline is over the graph budget, the
signatures-only view is tried, then one row per definition (the most detailed level that fits and
saves wins); when even that is over the budget, its rows become critical lines, which the graph's
trim keeps whatever else it cuts (and a file over the budget gets that outline even when it saves
less than ``min_saving``: trimming the file itself would drop declarations). Declines on: small files (below the size gate they pass whole, unless
``thresher read --mode outline|signatures`` asked), an unknown language, a file that does not
parse, a failing command (its errors are the answer), an already distilled view, or a view that
would not save at least ``min_saving`` of the tokens.
"""

from __future__ import annotations

from thresher.dataflow.payload import CRITICAL
from thresher.dataflow.plan import content_member

from thresher.stages.lib import code_langs
from thresher.stages.lib.elide import elide, numbering, pristine, read_mode, target_file

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_MODES = {"outline": 2, "signatures": 1}


def _fits(view, budget: Budget) -> bool:
    return len(view.lines) <= budget["max_lines"] and view.tokens() <= budget["max_tokens"]


def language_of(payload, params) -> str | None:
    """The language of the file shown: the graph's fixed choice, the extension (of the file a
    content mode prints too: ``git show REV:a.py``, ``tar -xOf x.tgz a.py``), or a ``#!``."""
    if params.get("language"):
        return params["language"]
    first = payload.source[0] if payload.source else ""
    return code_langs.detect(target_file(payload.command) or content_member(payload.command or ""),
                             first)


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The outline view of a large source file, or ``None`` (declined)."""
    if payload.failed or not pristine(payload) or not payload.source:
        return None
    mode = read_mode(payload.command)
    asked = _MODES.get(mode or "")
    if mode is not None and asked is None:
        return None  # full, lines:, section:, anchored: not ours to shorten
    full = payload.source_tokens()
    if asked is None and len(payload.source) < params["min_lines"] and full < params["min_tokens"]:
        return None
    name = language_of(payload, params)
    lang = code_langs.load(name) if name in code_langs.SPECS else None
    if lang is None:
        return None
    return outline_view(payload, lang, asked, ctx, params)


def outline_view(payload, lang, asked: int | None, ctx, params):
    """The outline at the asked level, or the most detailed level that fits the budget."""
    from thresher.stages.lib import outline
    nb = numbering(payload.source)
    first, body = nb if nb else (1, list(payload.source))
    tree = outline.parse(lang, "\n".join(body))
    if tree is None:
        return None
    levels = [asked] if asked else [outline.OUTLINE, outline.SIGNATURES,
                                    outline.NAMES]
    view = o = None
    for level in levels:
        o = outline.outline(lang, tree, body, level)
        if not o.defs:
            return None  # nothing defined here: an outline would only hide text
        view = elide(payload, o.shown, ctx.handle, first, what=f"{lang.name} outline")
        if view is not None and _fits(view, ctx.budget) and _saves(view, payload, params):
            return view
    if view is None or o is None or view.tokens() >= payload.tokens() or (
            not _saves(view, payload, params) and _fits(payload, ctx.budget)):
        return None  # a file that fits passes whole rather than as an outline saving little
    # Even one row per definition is over the budget (a header of hundreds of prototypes): those
    # rows are the answer, so they become critical lines that the graph's trim keeps.
    names = {row for row, _ in o.defs}
    return view.evolve(tiers=tuple(CRITICAL if i in names else t
                                   for i, t in enumerate(view.tiers)))


def _saves(view, payload, params) -> bool:
    return view.tokens() <= payload.tokens() * (1 - params["min_saving"])
