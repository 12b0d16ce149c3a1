"""Extractive scoring of prose lines: BM25 against the query, plus position and salience.

Documents are reduced by *choosing whole lines*, never by rewriting them, so fenced code, inline
code, URLs, paths, version numbers, numbers and identifiers in a chosen line pass byte-exact. A
line's score is its BM25 relevance (``rank_bm25``) to the query — the words of the command or of
``thresher read --query`` plus the document's own heading words, which stand for what the document
is about — plus bonuses for position (the lead line of a section, the top of the document) and for
salience (inline code, command-line flags, list items, definition terms, numbers and versions).
Near-duplicates of a chosen line (same words, or the same line shape) are skipped.

``rank_bm25`` imports numpy (about half a second): it is imported inside :func:`score`, never when
this module is imported, so graphs that do not reach a prose stage never pay for it.
"""

from __future__ import annotations

import re

from thresher.dataflow.tokens import estimate

from thresher.stages.lib.text import skeleton

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)*")
_STOP = frozenset("""a an and are as at be by for from has have how i if in into is it its of on or
that the their then there these this to was were when which will with you your can do does not
use used using md txt cat head thresher read mode query lines""".split())
_INLINE_CODE = re.compile(r"`[^`]+`|<(?:code|tt|kbd)>")
_FLAG = re.compile(r"(?:^|[\s(`'\"])--?[A-Za-z][\w-]*")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S")
_PROMPT = re.compile(r"^\s*[$%>]\s+\S")
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b")
# `(?:[-=*...]+\s*)+` spelled without the nested quantifier (exponential on a long rule line
# that ends in a letter): one markup character, then any mix of markup and spaces.
_MARKUP_ONLY = re.compile(r"^\s*[-=*_|:#>`~][-=*_|:#>`~\s]*$|^\s*</?[A-Za-z][^>]*>\s*$|^\s*\[!\[")


def words(text: str) -> list[str]:
    """Lower-case content words of ``text``; an identifier counts whole and by its ``_`` parts
    (``BUILD_TLS`` matches a question about ``tls``)."""
    out = []
    for m in _WORD.finditer(text):
        w = m.group(0).lower()
        if w not in _STOP:
            out.append(w)
        if "_" in w.strip("_"):
            out.extend(p for p in w.split("_") if p and p not in _STOP)
    return out


def salience(line: str) -> float:
    """How much a line looks like an answer an agent needs, whatever the question."""
    s = 0.0
    if _INLINE_CODE.search(line):
        s += 1.0
    if _FLAG.search(line):
        s += 1.0
    if _LIST_ITEM.match(line):
        s += 0.5
    if _PROMPT.match(line):  # a command to type: how-to answers live there
        s += 1.0
    if _VERSION.search(line):
        s += 0.5
    if _MARKUP_ONLY.match(line):
        s -= 3.0
    return s


def score(texts: dict[int, str], query: list[str], leads: set[int], top: int = 5) -> dict[int, float]:
    """Score each candidate row (``texts`` maps row → the text scored for it).

    ``leads`` are rows that open a section or paragraph; rows below ``top`` (by order) get a
    bonus for opening the document.
    """
    rows = sorted(r for r, t in texts.items() if t.strip())
    if not rows:
        return {}
    docs = [words(texts[r]) or ["_"] for r in rows]
    rel = [0.0] * len(rows)
    if query:
        from rank_bm25 import BM25Okapi  # numpy: only here, never on the hot path
        rel = list(BM25Okapi(docs).get_scores(sorted(set(query))))
    peak = max(rel) or 1.0
    out = {}
    for k, (r, rv) in enumerate(zip(rows, rel)):
        s = 3.0 * rv / peak + salience(texts[r])
        if r in leads:
            s += 1.5
        if k < top:
            s += 1.0
        out[r] = s
    return out


def choose(scores: dict[int, float], texts: dict[int, str], budget_tokens: int,
           shown: list[bool], max_lines: int | None = None, seen: tuple = (),
           shown_as: dict[int, str] | None = None) -> list[bool]:
    """``shown`` plus the best rows within ``budget_tokens`` and ``max_lines`` view lines
    (near-duplicates of each other and of the ``seen`` texts, e.g. headings, skipped).
    ``shown_as`` gives the line the view will show for a row when it differs from the scored
    text (HTML: the raw row, tags and all), so the budget is charged what the reader pays.

    Each new island of shown rows costs about one elision line, which is charged to both budgets
    so that scattered picks do not overrun them.
    """
    shown = list(shown)
    spent = sum(estimate(texts.get(r, "")) for r, s in enumerate(shown) if s)
    used = sum(shown) * 2  # a shown row and, at worst, the elision after it
    max_lines = len(shown) * 2 if max_lines is None else max_lines
    seen_words: list[frozenset] = [frozenset(words(t)) for t in seen]
    index: dict[str, list[int]] = {}  # word → seen lines holding it (only those can be similar)
    for k, ws in enumerate(seen_words):
        for w in ws:
            index.setdefault(w, []).append(k)
    seen_shapes: set[str] = set()
    for r in sorted(scores, key=lambda r: (-scores[r], r)):
        if spent + 4 > budget_tokens or used + 1 > max_lines:
            break  # nothing more fits: stop before scoring the long tail
        if shown[r] or scores[r] <= 0:
            continue
        text = texts[r]
        island = not (r > 0 and shown[r - 1]) and not (r + 1 < len(shown) and shown[r + 1])
        cost = estimate(shown_as[r] if shown_as else text) + (12 if island else 0)
        if spent + cost > budget_tokens or used + 1 + island > max_lines:
            continue
        ws, shape = frozenset(words(text)), skeleton(text)
        if shape in seen_shapes or _duplicate(ws, seen_words, index):
            continue
        shown[r] = True
        spent += cost
        used += 1 + island
        k = len(seen_words)
        seen_words.append(ws)
        for w in ws:
            index.setdefault(w, []).append(k)
        seen_shapes.add(shape)
    return shown


def _duplicate(ws: frozenset, seen_words: list[frozenset], index: dict[str, list[int]]) -> bool:
    """True when ``ws`` is a near-duplicate of a seen line sharing at least one of its words."""
    cands = {k for w in ws for k in index.get(w, ())}
    return any(_similar(ws, seen_words[k]) for k in cands)


def _similar(a: frozenset, b: frozenset) -> bool:
    """Near-duplicate: no word of its own (2+ words, all in the other line), or at least 80% of
    the words in common (Jaccard, lines of 4+ words) — a table of contents repeats its headings."""
    if len(a) >= 2 and a <= b:
        return True
    if len(a) < 4 or len(b) < 4:
        return False
    return len(a & b) / len(a | b) >= 0.8
