"""prose: the residual for documents no typed transform recognised (text files, manual pages).

Keeps byte-exact: heading lines (markdown headings, or the column-0 section titles of a manual page
whose body is indented), definition terms (option lines such as ``  -t     sort by time``; with
``every_term`` all of them whatever the line budget, else while they fit; with it, also the
description lines an option-like token leads under an option, ``option_leads``), then
the best remaining lines by prose scoring (``ranking.py``: BM25 against the command's words and the
headings, position, salience, near-duplicates skipped) within ``keep_share`` of the tokens and the
budget. Everything else is elided with exact ranges. Whole lines are chosen, so code, URLs, paths,
versions, numbers and identifiers in them are never altered. Declines on short inputs, inputs that
are not prose (fewer than ``min_prose`` of the non-blank lines read as sentences: logs, tables,
data), failures and already distilled views.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import CRITICAL
from thresher.dataflow.tokens import estimate

from thresher.stages.lib import markdown_doc
from thresher.stages.lib import ranking
from thresher.stages.documents.markdown_outline import query_words
from thresher.stages.lib.elide import elide, pristine, read_mode

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

# A sentence starts where a word starts (the lookbehind): tried from every letter of a long word,
# `[a-z']+` rescanned the rest of it (quadratic: seconds on one 8,000-letter line).
_SENTENCE = re.compile(r"(?<![A-Za-z'])[A-Za-z][a-z']+(?:[ ,;:]+[A-Za-z(][\w'()-]*){3,}")
# A definition term: an option (`-a, --all`, `--block-size=SIZE`, `-#`, `-?`, `-:`, `--http1.1`,
# less's `-+`, `--+` and `-"cc`,
# `+N`; flush left too, as `python3 --help` prints them), one made only of punctuation (`--` and
# `-` alone, followed by a column gap, a comma or nothing: a `- item` list line is not one), or an
# indented environment-variable name. `[ \t]`, not `\s`: a term never spans lines.
OPTION = (r'^[ \t]{0,12}(?:--?|\+)(?:[\w?@#:!%^*./~+"][^\s,=\[]*(?:[ ,=\[]|$)|(?:,|[ \t]{2,}|$))'
          # nested deeper (a shell builtin's options under its entry): the option alone, with one
          # argument word, or before a column gap -- not a description line that starts with one
          r"|^[ \t]{13,16}--?[\w?@#][\w-]*(?:[ \t]{2,}\S| [\w<>\[\]=.-]+$|$)")
"""An option line (graphs/man.default.yaml marks these critical with the same pattern)."""
TERM_RE = re.compile(OPTION + r"|^[ \t]{1,12}[A-Z][A-Z0-9_]{2,}(?:[ ,=\[]|$)")
_OPTION_RE = re.compile(OPTION)
_LEADING_OPTION = re.compile(r"^([ \t]+)--?[\w?@#+=][^\s,]*")
"""An indented line led by an option-like token (``-Pm changes the medium prompt.``)."""


def option_leads(lines) -> list[int]:
    """Rows of description lines, under an entry, that an option-like token leads: the
    sub-options an option lists (less's ``-Pm``/``-PM`` under ``-P``), its examples (``-x9,17
    will set tabs ...``) and the flags a command's entry explains (tmux's ``-a is given, ...``
    under ``kill-session [-aC]``) name options as much as a term line does. "Under" is
    structural: deeper than the entry's head (an option line, or the indented line a deeper block
    follows), with no line at or left of that head's column in between; lines at the head's own
    depth (shallow option-led lines are option lines already) and column-0 titles are not."""
    rows, col = [], -1
    for r, line in enumerate(lines):
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if col >= 0 and indent > col:
            if not _OPTION_RE.match(line) and _LEADING_OPTION.match(line):
                rows.append(r)  # (a deeper option line is nested in the open entry: the entry
            continue            # stays, or its column would end it at its siblings' rows)
        col = indent if indent or _OPTION_RE.match(line) else -1
    return rows


def looks_like_prose(lines, share: float) -> bool:
    """True when at least ``share`` of the non-blank lines carry a run of four or more words."""
    body = [line for line in lines if line.strip()]
    return bool(body) and sum(1 for line in body if _SENTENCE.search(line)) >= share * len(body)


def heading_rows(lines) -> set[int]:
    """Markdown heading rows; failing those, column-0 titles of an indented document (man)."""
    hs = markdown_doc.headings(lines)
    if hs:
        return {h.row + k for h in hs for k in range(h.span)}
    body = [line for line in lines if line.strip()]
    flush = [r for r, line in enumerate(lines) if line.strip() and not line[0].isspace()]
    if body and len(flush) <= 0.25 * len(body):
        return {r for r in flush if len(lines[r]) <= 80}
    return set()


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The extractive view of a long prose document, or ``None`` (declined)."""
    if payload.failed or not pristine(payload) or not payload.source:
        return None
    if read_mode(payload.command) not in (None, "outline"):
        return None
    lines = payload.source
    full = payload.tokens()
    if len(lines) < params["min_lines"] and full < params["min_tokens"]:
        return None
    if not looks_like_prose(lines, params["min_prose"]):
        return None
    heads = heading_rows(lines)
    max_lines = int(ctx.budget["max_lines"] * 0.9)
    shown = [r in heads for r in range(len(lines))]
    if params["terms"]:
        count = sum(shown)
        for r, line in enumerate(lines):  # definition terms: all of them, or while they fit
            if TERM_RE.match(line) and (params["every_term"] or 2 * count + 2 <= max_lines):
                shown[r] = True
                count += 1
    leads_opt = option_leads(lines) if params["terms"] and params["every_term"] else []
    for r in leads_opt:
        shown[r] = True
    texts = {r: line for r, line in enumerate(lines) if line.strip() and not shown[r]}
    leads = {r + 1 for r in heads} | {r + 1 for r in range(len(lines)) if not lines[r].strip()}
    query = query_words(payload.command) + [w for r in sorted(heads) for w in ranking.words(lines[r])]
    base = elide(payload, shown, ctx.handle, what="extract")
    used = estimate(base.text()) if base is not None else 0
    budget = min(int(full * params["keep_share"]), int(ctx.budget["max_tokens"] * 0.85) - used)
    seen = tuple(lines[r] for r in range(len(lines)) if shown[r])
    shown = ranking.choose(ranking.score(texts, query, leads), texts, max(budget, 0), shown,
                         max_lines, seen)
    view = elide(payload, shown, ctx.handle, what="extract")
    if view is None or view.tokens() > full * (1 - params["min_saving"]):
        return None
    if leads_opt and view.tiers:  # kept by any trim after, like the option lines Score marks
        rows = set(leads_opt)
        view = view.evolve(tiers=tuple(CRITICAL if r in rows else t
                                       for r, t in enumerate(view.tiers)))
    return view
