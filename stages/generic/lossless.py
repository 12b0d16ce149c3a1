"""The lossless tier: format-native transforms whose inverse gives back the input exactly.

Each transform returns its output *and is checked at run time*: the stage applies it only when
``inverse(output) == input`` byte for byte, and declines (the input passes on) on any mismatch —
e.g. when the input already contains a line shaped like one of our count lines, which would make
the inverse ambiguous.

- JSON compaction: whitespace between tokens removed (one member of the top-level container per
  line); the inverse re-indents with the input's indent unit, as ``json.dumps``/jq/npm print it.
- JSON table: a top-level array of objects that all have the same keys and scalar values becomes a
  header of keys and one row of value lexemes per object (keys are no longer repeated per row).
- Run collapse: a run of identical lines becomes the first line plus a line with the exact count.
- Blank-run collapse: the same for runs of empty lines, with its own count line.
- ANSI strip (``dataflow/escapes.py``, applied at emission): SGR (colour/style) sequences only;
  they never change the characters a terminal shows,
  so the visible text is unchanged. Any other escape (cursor moves, erases) makes it decline.

A gzip-ratio probe (:func:`compressibility`) tells the crushers when input is incompressible (hashes,
base64, already-dense data): there sampling would drop unique information, so they skip their
aggressive modes.
"""

from __future__ import annotations

import re
import zlib
from itertools import compress, islice
from operator import eq

from thresher.dataflow.payload import CRITICAL, SYNTHETIC
from thresher.dataflow.tokens import estimate, estimate_joined

from thresher.stages.lib import jsontree as jt

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

RUN_LINE = "[thresher: previous line repeated {n} more times]"
BLANK_LINE = "[thresher: {n} more blank lines]"
TABLE_HEAD = "[thresher: JSON array of {n} objects as a table: the keys, then one row of values per object]"
_RUN_RE = re.compile(r"^\[thresher: previous line repeated (\d+) more times\]$")
_BLANK_RE = re.compile(r"^\[thresher: (\d+) more blank lines\]$")
_TABLE_RE = re.compile(r"^\[thresher: JSON array of (\d+) objects as a table: the keys, then one row "
                       r"of values per object\]$")
_PROBE_BYTES = 256 * 1024


def compressibility(text: str) -> float:
    """zlib-compressed size / raw size of (the first 256 KiB of) ``text``: low = redundant."""
    data = text[:_PROBE_BYTES].encode("utf-8", "surrogatepass")
    if not data:
        return 1.0
    return len(zlib.compress(data, 6)) / len(data)


# -- text transforms over lines ----------------------------------------------------------------

def collapse_runs(lines: list[str], min_run: int = 3, blank: bool = False,
                  frozen: "set[int] | None" = None) -> list[tuple[str, int]] | None:
    """``(line, index-or-SYNTHETIC)`` pairs with runs of ``min_run``+ identical lines folded
    (only empty lines when ``blank``, only non-empty ones otherwise); ``None`` if nothing folds.
    Lines whose index is in ``frozen`` are never folded away (each starts a run of its own).

    The runs are found in C: one byte per pair of neighbours (1: equal), a frozen line's byte
    cleared, and a regex over those bytes for the runs long enough; Python touches only them."""
    n = len(lines)
    if min_run < 2:
        raise ValueError("min_run must be at least 2")
    same = bytearray(map(eq, lines, islice(lines, 1, None)))  # same[k]: line k+1 repeats line k
    for j in frozen or ():
        if 1 <= j < n:
            same[j - 1] = 0
    out: list[tuple[str, int]] = []
    pos = 0
    for m in re.finditer(b"\x01{%d,}" % (min_run - 1), same):
        i, j = m.start(), m.end() + 1     # lines i .. j-1 are one run
        if (lines[i] == "") != blank:
            continue
        out.extend(zip(lines[pos:i + 1], range(pos, i + 1)))
        out.append(((BLANK_LINE if blank else RUN_LINE).format(n=j - i - 1), SYNTHETIC))
        pos = j
    if not out:
        return None
    out.extend(zip(lines[pos:], range(pos, n)))
    return out


def expand_runs(lines: list[str]) -> list[str]:
    """The inverse of :func:`collapse_runs` (both count-line kinds)."""
    out: list[str] = []
    for line in lines:
        m = _RUN_RE.match(line) or _BLANK_RE.match(line)
        if m and out:
            out.extend([out[-1]] * int(m.group(1)))
        else:
            out.append(line)
    return out


# -- JSON transforms -------------------------------------------------------------------------

def json_compact(text: str, root=None) -> tuple[list[str], str] | None:
    """``(lines, indent)``: ``text`` compacted, one top-level member per line, with the indent unit
    its inverse needs; ``None`` unless ``json_uncompact(lines, indent) == text``. ``root``: the
    already parsed tree of ``text``, if any."""
    indent = jt.detect_indent(text)
    root = jt.parse(text) if root is None else root
    if indent is None or root is None or not isinstance(root, (jt.Obj, jt.Arr)) or not root:
        return None
    if isinstance(root, jt.Obj):
        body = [f"{k}:{jt.minify(v)}," for k, v in root]
        lines = ["{", *body, "}"]
    else:
        lines = ["[", *(jt.minify(v) + "," for v in root), "]"]
    lines[-2] = lines[-2][:-1]
    if json_uncompact(lines, indent, jt.detect_colon(text)) != text:
        return None
    return lines, indent


def json_uncompact(lines: list[str], indent: str, colon: str = ": ") -> str | None:
    """The inverse of :func:`json_compact`: the document pretty-printed with ``indent``/``colon``."""
    toks = jt.tokens("\n".join(lines))
    return None if toks is None else jt.pretty(toks, indent, colon)


def json_table(text: str, root=None) -> tuple[list[str], str] | None:
    """``(lines, indent)``: a top-level array of 2+ objects with identical keys and scalar values as a
    table; ``None`` when the shape differs or ``json_untable(lines, indent) != text``."""
    indent = jt.detect_indent(text)
    root = jt.parse(text) if root is None else root
    if indent is None or not isinstance(root, jt.Arr) or len(root) < 2:
        return None
    if not all(isinstance(r, jt.Obj) and r for r in root):
        return None
    keys = [k for k, _ in root[0]]
    for row in root:
        if [k for k, _ in row] != keys or any(not isinstance(v, str) for _, v in row):
            return None
    lines = [TABLE_HEAD.format(n=len(root)), ",".join(keys)]
    lines += [",".join(v for _, v in row) for row in root]
    if json_untable(lines, indent, jt.detect_colon(text)) != text:
        return None
    return lines, indent


def json_untable(lines: list[str], indent: str, colon: str = ": ") -> str | None:
    """The inverse of :func:`json_table`."""
    m = _TABLE_RE.match(lines[0]) if lines else None
    keys = jt.tokens(lines[1]) if m and len(lines) > 1 else None
    if keys is None or m is None or int(m.group(1)) != len(lines) - 2:
        return None
    keys = [k for k in keys if k != ","]
    toks = ["["]
    for row in lines[2:]:
        vals = [v for v in (jt.tokens(row) or []) if v != ","]
        if len(vals) != len(keys):
            return None
        toks.append("{")
        for k, v in zip(keys, vals):
            toks += [k, ":", v, ","]
        toks[-1] = "}"
        toks.append(",")
    toks[-1] = "]"
    return jt.pretty(toks, indent, colon)


# -- the stage -------------------------------------------------------------------------------

def _fits(lines, budget: Budget) -> bool:
    return len(lines) <= budget["max_lines"] and estimate_joined(lines) <= budget["max_tokens"]


def _json_view(payload, params, ctx):
    """The JSON table or compact form of the whole source, or ``None``."""
    text = "\n".join(payload.source)
    if len(text) > params["max_json_bytes"] or (payload.failed and CRITICAL in payload.tiers):
        return None
    root = jt.parse_shared(text, ctx)
    if root is None:
        return None
    for transform in (json_table, json_compact):
        done = transform(text, root)
        if done is not None:
            return payload.with_view(done[0], [SYNTHETIC] * len(done[0]))
    return None


def _text_view(payload, params):
    """The view with runs of identical lines (and of blank lines) folded, or ``None``."""
    lines, origin = list(payload.lines), list(payload.origin)
    tiers = payload.tiers
    frozen = set(compress(range(len(origin)), map((0).__gt__, origin)))   # summary lines
    if payload.failed:
        frozen.update(i for i, o in enumerate(origin) if o >= 0 and tiers[o] == CRITICAL)
    pairs = None
    for blank, min_run in ((False, params["min_run"]), (True, params["min_blank_run"])):
        step = collapse_runs(lines, min_run, blank, frozen)
        if step is None:
            continue
        pairs = [(t, origin[i] if i >= 0 else SYNTHETIC) for t, i in step] if pairs is None else \
            [(t, pairs[i][1] if i >= 0 else SYNTHETIC) for t, i in step]
        frozen = {k for k, (_, i) in enumerate(step) if i < 0 or i in frozen}
        lines = [t for t, _ in step]
    if pairs is None or expand_runs(lines) != list(payload.lines):
        return None
    return payload.with_view(lines, [o for _, o in pairs])


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The input in a lossless shorter form when the view is over budget, else ``None``."""
    if _fits(payload.lines, ctx.budget):
        return None
    best = None
    if params["json_forms"]:
        best = _json_view(payload, params, ctx)
    if best is None and params["runs"]:
        best = _text_view(payload, params)
    if best is None or estimate(best.text()) >= payload.tokens():
        return None
    return best
