"""distill-log: a text log as its templates — each kind of line once, with its exact count and span.

Every line is reduced to a *template*: timestamps, numbers, hex ids, UUIDs, IP addresses, quoted
strings and paths become slots (``skeleton`` plus a few log-specific masks). Lines are grouped by
template across the whole log (not only in runs). Each template keeps its first line, byte-exact,
where it first occurs; when it repeats, one declared line right after it gives the exact number of
its lines not shown anywhere and the timestamp of the last one, copied from the input:
``[thresher: 57 more lines like the entry above, the last at 2026-11-29 23:13:30.615]``.

What always stays:
- on a failing command, every critical line (INV-6); otherwise an error/warning line is grouped
  only with lines that differ from it in timestamps, numbers and ids, never in its words, quoted
  names or paths — so each distinct error message keeps a verbatim instance (warnings repeated
  verbatim are deduplicated, with counts);
- a stack trace: the indented or ``Traceback``/``Caused by`` lines under a kept line stay whole;
- the entry just before the first instance of each error template, and the last ``tail`` entries
  (how the log ends: the crash, the shutdown).
Declines when the log is within budget, when it has too few repeats to be worth it (templates >
``max_template_share`` of lines), or when it is JSON Lines (``distill-jsonl`` handles those).
"""

from __future__ import annotations

import re
from collections import deque
from bisect import bisect_right
from itertools import compress, repeat
from operator import getitem, itemgetter, sub

from thresher.dataflow.tokens import estimate
from thresher.stages.lib.budget import FOOTER_ROOM
from thresher.stages.lib.common import build, critical_flags, over_budget
from thresher.stages.data.distill_jsonl import records as jsonl_records
from thresher.stages.lib.text import skeleton

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

TIMESTAMP_RE = re.compile(
    # Each alternative opens with the character class of its first character, and what it needs
    # before that (a word boundary) is a lookbehind after it: the pattern then starts with one
    # class, so ``re`` skips every position no timestamp can start at (twice as fast as the
    # ``\b``-first form; tests/test_data_plane.py checks both agree on every fixture line).
    r"[\d\[A-Z](?:"
    # a zone name, never a level word (` INFO`, ` SEVERE`) that follows the time
    r"(?<=\d)\d\d\d-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?"
    r"(?:Z|[+-]\d\d:?\d\d| (?:UTC|GMT|[A-Z]{1,2}[SD]T|MSK|JST|IST)\b)?"
    r"|(?<=[A-Z])(?<!\w[A-Z])[a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?"
    r"|(?<=\[)\d\d/[A-Z][a-z]{2}/\d{4}[: ]\d\d:\d\d:\d\d(?: [+-]\d{4})?\]"   # CLF, werkzeug
    r"|(?<=\d)(?<!\w\d)\d:\d\d:\d\d(?:[.,]\d+)?\b)")
_SLOTS_RE = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"   # UUID
    r"|\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"                                          # IPv4[:port]
    r"|\"[^\"]*\"|'[^']*'"                                                           # quoted
    r"|(?<![\w.])(?:/[\w.@%+-]+)+/?")                                                # paths
# a Java logger (java.util.logging, logback, log4j) writes the exception's qualified class name
# at column 0 on the line after the message: it belongs to that entry, like its frames
CONTINUATION_RE = re.compile(r"^\s+\S|^Traceback \(most recent call last\):|^Caused by: |^\s*\.\.\. \d+ more"
                             r"|^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)\b")
# the exception line that ends a Python traceback: any class name (``InvalidVersion: ...``,
# ``StopIteration``), the module path before it in lower case
# Python's chained exceptions: the note between two tracebacks (a blank line each side), and the
# second traceback's first line after it
CHAINED_RE = re.compile(r"^(?:During handling of the above exception, another exception occurred:"
                        r"|The above exception was the direct cause of the following exception:"
                        r"|Traceback \(most recent call last\):)$")
EXC_RE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)\b"
                    r"|^(?:[a-z_]\w*\.)*[A-Z]\w*(?::\s|$)")
# the status of an HTTP access-log line: a number that names a kind (a 502 is not a 500), so it
# stays in the template key of a critical line (the digit-shape memo cannot tell 500 from 502)
STATUS_RE = re.compile(r'"[A-Z]{3,7} \S* HTTP/[\d.]+" ([1-5]\d\d)\b')
SUMMARY = "[thresher: {n} more {noun} like the entry above{last}]"
ERRORS_SHARE = 0.5   # of the budget: room for every error entry whole


def template(line: str, critical: bool) -> str:
    """The template of ``line``: what stays when the variable parts are masked."""
    masked = TIMESTAMP_RE.sub("<ts>", line)
    if not critical:
        masked = _SLOTS_RE.sub("<v>", masked)
    return skeleton(masked)


_ONES = str.maketrans("23456789", "11111111")
"""Digits 1-9 as ``1`` (``0`` stays, for ``0x``): every mask above tests digit shapes, never
which digit, so lines equal under this map have the same template (tests check it). The map
keeps every character's length and class (a digit stays a digit, nothing else changes): a line
and its shape split into fields at the same offsets, and TIMESTAMP_RE matches the same spans."""


class _Memo(dict):
    """``shape -> template(shape, critical)``, filled on a miss: ``memo[shape]`` of a known shape
    stays in C (``map(memo.__getitem__, shapes)``)."""

    __slots__ = ("critical",)

    def __init__(self, critical: bool) -> None:
        super().__init__()
        self.critical = critical

    def __missing__(self, shape: str) -> str:
        t = self[shape] = template(shape, self.critical)
        return t


class Templates:
    """:func:`template` memoised by the line's digit shape: the lines of a log differ mostly in
    their digits (times, ids, sizes), so 90,000 access-log lines have a few dozen shapes and the
    masking regexes run once per shape (``str.translate`` is one C pass per line)."""

    __slots__ = ("memo",)

    def __init__(self) -> None:
        self.memo = (_Memo(False), _Memo(True))   # not critical, critical (indexed by the flag)

    def __call__(self, line: str, critical: bool) -> str:
        return self.of_shape(line.translate(_ONES), critical)

    def of_shape(self, shape: str, critical: bool) -> str:
        """The template of a line whose digit shape (``line.translate(_ONES)``) is ``shape``."""
        return self.memo[bool(critical)][shape]


_CHUNK = 4096


def digit_shapes(lines, indices) -> list[str]:
    """``lines[i].translate(_ONES)`` for each of ``indices``, in order, translated a chunk of
    lines at a time (one ``str.translate`` call per line costs more than the translation
    itself). Equal shapes are one object: the list holds a reference per line, the text of
    each distinct shape once."""
    canon: dict[str, str] = {}
    out: list[str] = []
    for base in range(0, len(indices), _CHUNK):
        part = list(map(lines.__getitem__, indices[base:base + _CHUNK]))
        shapes = "\n".join(part).translate(_ONES).split("\n")
        if len(shapes) != len(part):
            shapes = [line.translate(_ONES) for line in part]
        out += map(canon.setdefault, shapes, shapes)
    return out


def masked_times(lines, indices) -> dict[int, str]:
    """``TIMESTAMP_RE.sub("<ts>", lines[i])`` for each of ``indices``: the spans of the stamps
    are those of the line's digit shape (:data:`_ONES`), searched once per distinct shape."""
    indices = sorted(indices)
    return dict(zip(indices, _masked(lines, indices)))


def _masked(lines, indices: list[int], spans: dict[str, tuple[tuple[int, int], ...]] | None = None):
    """``TIMESTAMP_RE.sub("<ts>", lines[i])`` for each of ``indices``, in order (``spans``: a
    memo of each shape's stamp spans, shared between calls)."""
    if spans is None:
        spans = {}
    for base in range(0, len(indices), _CHUNK):
        part = indices[base:base + _CHUNK]
        for i, shape in zip(part, digit_shapes(lines, part)):
            found = spans.get(shape)
            if found is None:
                found = spans[shape] = tuple(m.span() for m in TIMESTAMP_RE.finditer(shape))
            line = lines[i]
            if not found:
                yield line
            elif len(found) == 1:
                (a, b), = found
                yield f"{line[:a]}<ts>{line[b:]}"
            else:
                cut, pieces = 0, list[str]()
                for a, b in found:
                    pieces += (line[cut:a], "<ts>")
                    cut = b
                pieces.append(line[cut:])
                yield "".join(pieces)


LOW_CARDINALITY = 8
"""A masked field with at most this many distinct values in a group tells kinds apart (an HTTP
status, a method, a level or exit word): it stays in the template key."""
KIND_REPEATS = 4
"""... as long as each value is seen this many times on average (a handful of lines with a few
distinct values is not a set of kinds)."""
_TIME_FIELD = re.compile(r"\d:\d\d")


def refine(groups: dict[str, list[int]], blocks, lines, first=None, starts=None) -> dict[str, list[int]]:
    """Split each large group by its low-cardinality fields.

    Fields are the whitespace-separated words of an entry's first line, by position (a field that
    looks like a time, ``1:23``, is never a kind). A position
    whose values differ across the group but take at most :data:`LOW_CARDINALITY` values, each
    seen four times on average, names a kind (``200``/``404``/``500``, ``"GET``/``"POST``): lines
    that differ there are different kinds, so each keeps a verbatim instance and its own count.
    Deterministic. ``first``: the digit shape of each block's first line, by block index
    (:func:`digit_shapes`), and ``starts`` each block's first line; computed when not given.
    The fields are read through the shapes (:func:`_kinds`).
    """
    if starts is None:
        starts = [start for start, _ in blocks]
    if first is None:
        first = digit_shapes(lines, starts)
    fields: dict[str, tuple[tuple[int, int], ...]] = {}
    out: dict[str, list[int]] = {}
    got_of: list[str] = []   # by block: its values at its group's kind positions
    for key, members in groups.items():
        by_shape = _by_shape(members, first) if len(members) >= 2 * KIND_REPEATS else {}
        const: dict[tuple[str, int], str | None] = {}
        kinds = _kinds(members, by_shape, lines, starts, fields, const) if by_shape else []
        if not kinds:
            out[key] = members
            continue
        # each member's values at the kind positions (a string, several joined by a space): the
        # value of a shape's members when they all agree there, else each line's, sliced at the
        # offsets of its shape's fields (in C)
        if not got_of:
            got_of = [""] * len(blocks)
        for shape, bs in by_shape.items():
            agreed = [const[shape, k] for k in kinds]
            if None not in agreed:
                values: Any = repeat(" ".join(agreed))  # type: ignore[arg-type]   # (" ".join of one value: the value)
            else:
                spans = fields[shape]
                values = map(itemgetter(*[slice(*spans[k]) for k in kinds]),
                             map(lines.__getitem__, map(starts.__getitem__, bs)))
                if len(kinds) > 1:
                    values = map(" ".join, values)
            deque(map(got_of.__setitem__, bs, values), maxlen=0)
        for base in range(0, len(members), _CHUNK):
            part = members[base:base + _CHUNK]
            got = list(map(got_of.__getitem__, part))
            kinds_seen = dict.fromkeys(got)   # (in order of first instance, as the keys go in)
            if len(kinds_seen) <= _FEW_KINDS:   # the members of each kind, one C pass per kind
                for value in kinds_seen:
                    out.setdefault(key + "\0" + value, []).extend(compress(part, map(value.__eq__, got)))
            else:
                for b, value in zip(part, got):
                    out.setdefault(key + "\0" + value, []).append(b)
    return out


_FEW_KINDS = 16


def _by_shape(members: list[int], first) -> dict[str, list[int]]:
    """``members`` by the digit shape of their first line (in order)."""
    out: dict[str, list[int]] = {}
    for b in members:
        out.setdefault(first[b], []).append(b)
    return out


def _field_spans(shape: str, memo: dict[str, tuple[tuple[int, int], ...]]) -> tuple[tuple[int, int], ...]:
    """``(start, end)`` of each of ``shape.split()``'s fields (memoised in ``memo``)."""
    spans = memo.get(shape)
    if spans is None:
        found, at = [], 0
        for word in shape.split():
            at = shape.index(word, at)   # (only whitespace before the field: its first place)
            found.append((at, at + len(word)))
            at += len(word)
        spans = memo[shape] = tuple(found)
    return spans


def _kind_fields(members: list[int], blocks, lines, first=None) -> list[int]:
    """The field positions of :func:`refine` that name a kind in this group (``first`` as
    there, by block index)."""
    starts = dict(zip(members, (blocks[b][0] for b in members)))
    if first is None:
        first = dict(zip(members, digit_shapes(lines, list(starts.values()))))
    return _kinds(members, _by_shape(members, first), lines, starts, {}, {})


def _kinds(members: list[int], by_shape: dict[str, list[int]], lines, starts,
           fields: dict[str, tuple[tuple[int, int], ...]],
           const: dict[tuple[str, int], str | None]) -> list[int]:
    """:func:`_kind_fields` of ``members`` grouped ``by_shape``, in few C passes.

    The lines of one digit shape have the same length and their fields at the same offsets
    (``fields``: a memo of :func:`_field_spans`). A field is one text in all of them when each
    of its columns is one character: a column where the shape has no ``1`` always is (it holds
    no digit 1-9, so it is the shape's character); the others are read as strided slices of the
    lines joined (``text[c::length]``: column ``c`` of every line). Only a field that differs
    between lines of one shape is sliced line by line. ``const`` gets, per ``(shape,
    position)`` read, the field's one text there, or ``None`` when it differs. A position is
    dropped once it has more than LOW_CARDINALITY values; lines are read a chunk at a time
    (memory stays bounded by a chunk and the fields)."""
    layouts = [(_field_spans(shape, fields), shape, bs) for shape, bs in by_shape.items()]
    width = min(len(spans) for spans, _, _ in layouts)
    values: list[set[str]] = [set() for _ in range(width)]
    live = list(range(width))
    for spans, shape, bs in layouts:
        length = len(shape)
        for base in range(0, len(bs), _CHUNK):
            if not live:
                return []
            rows: list[str] = []
            text = ""
            for pos in live:
                a, z = spans[pos]
                word = shape[a:z]
                value: str | None = word
                if "1" in word:
                    if not rows:
                        rows = list(map(lines.__getitem__, map(starts.__getitem__, bs[base:base + _CHUNK])))
                        text = "".join(rows)
                    n = len(rows)
                    columns = (text[c::length] for c in range(a, z) if word[c - a] == "1")
                    if all(col.count(col[0]) == n for col in columns):
                        value = rows[0][a:z]
                    else:
                        value = None
                        values[pos].update(map(itemgetter(slice(a, z)), rows))
                if value is not None:
                    values[pos].add(value)
                if const.get((shape, pos), value) != value:
                    value = None
                const[shape, pos] = value
            live = [pos for pos in live if len(values[pos]) <= LOW_CARDINALITY]
    return [pos for pos in live
            if 1 < len(values[pos]) and len(values[pos]) * KIND_REPEATS <= len(members)
            and not any(_TIME_FIELD.search(v) for v in values[pos])]


_MAYBE_GOES_ON = re.compile(r"\D|$")
"""A line that may continue an entry or end a traceback (every pattern above opens with a
non-digit, or it is blank): a line opening with a digit (a timestamp, an address) always starts
an entry, and leaves the traceback state as it was."""


def _blocks(lines, crit: list[bool]) -> list[tuple[int, int]]:
    """``(start, end)`` ranges: a line and the continuation lines (stack frames) under it; a
    Python traceback ends with (and includes) its exception line. Only the lines that may go on
    an entry (:data:`_MAYBE_GOES_ON`, found in one ``map``) take the per-line rules: a run of
    other lines is a run of one-line entries."""
    n = len(lines)
    out: list[tuple[int, int]] = []
    start, in_tb, todo = 0, lines[0].startswith("Traceback (") if lines else False, 1
    for i in compress(range(n), map(_MAYBE_GOES_ON.match, lines)):
        if i < todo:   # (line 0)
            continue
        if todo < i:   # lines todo .. i-1: each starts an entry
            out.append((start, todo))
            out.extend(zip(range(todo, i - 1), range(todo + 1, i)))
            start = i - 1
        todo = i + 1
        line = lines[i]
        if in_tb and EXC_RE.match(line):
            in_tb = False
            continue
        if CHAINED_RE.match(line) or not line and i + 1 < n and CHAINED_RE.match(lines[i + 1]):
            in_tb = in_tb or line.startswith("Traceback (")
            continue   # a chained exception: one traceback after another, one entry
        if not CONTINUATION_RE.match(line) or crit[i] and not crit[start] and not in_tb:
            out.append((start, i))
            start = i
        in_tb = in_tb or line.startswith("Traceback (")
    if n:
        if todo < n:
            out.append((start, todo))
            out.extend(zip(range(todo, n - 1), range(todo + 1, n)))
            start = n - 1
        out.append((start, n))
    return out


def _keys(payload: Payload, crit: list[bool], blocks, starts: list[int], sizes: list[int],
          first: list[str]) -> list[str]:
    """The template key of each block: its first line's template (an access-log status kept
    when the line is critical, :data:`STATUS_RE`), then, for a multi-line entry (a stack trace),
    its last line's; ``#b`` alone for a summary line of an earlier stage and for an error on a
    failing command. The memo's lookups run in C (``map``): Python touches only critical,
    multi-line and summary blocks."""
    lines, memo, nb = payload.lines, Templates().memo, len(blocks)
    keys = list(map(getitem, map(memo.__getitem__, map(crit.__getitem__, starts)), first))
    opening_crit = list(compress(range(nb), map(crit.__getitem__, starts)))
    for b, status in zip(opening_crit, map(STATUS_RE.search, map(lines.__getitem__, map(starts.__getitem__, opening_crit)))):
        if status:
            keys[b] += "\0" + status.group(1)
    multi = list(compress(range(nb), map((1).__lt__, sizes)))
    lasts = [blocks[b][1] - 1 for b in multi]
    for b, i, shape in zip(multi, lasts, digit_shapes(lines, lasts)):
        keys[b] += "\n" + memo[crit[i]][shape]
    origin = payload.origin
    alone: Any = compress(range(nb), map((0).__gt__, map(origin.__getitem__, starts))) \
        if origin and min(origin) < 0 else []   # (no summary line in the view: none to look for)
    if payload.failed:
        alone = sorted({*alone, *opening_crit})
    for b in alone:
        keys[b] = f"#{b}"
    return keys


def _grouped(keys: list[str]) -> dict[str, list[int]]:
    """The indices of ``keys`` by key, in order of first instance."""
    groups: dict[str, list[int]] = {}
    for b, key in enumerate(keys):
        groups.setdefault(key, []).append(b)
    return groups


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The templated log, or ``None`` when it fits, has few repeats, or is JSON Lines."""
    lines = payload.lines
    if not over_budget(lines, ctx.budget) or jsonl_records(lines) is not None:
        return None
    crit = critical_flags(payload)
    blocks = _blocks(lines, crit)
    starts = list(map(itemgetter(0), blocks))
    sizes = list(map(sub, map(itemgetter(1), blocks), starts))   # (a block holds at least a line)
    first = digit_shapes(lines, starts)
    groups = _grouped(_keys(payload, crit, blocks, starts, sizes, first))
    groups = refine(groups, blocks, lines, first, starts)
    if len(groups) > params["max_template_share"] * len(blocks):
        return None
    tally = _Tally(blocks, groups, sizes)
    shown = set(range(max(len(blocks) - params["tail"], 0), len(blocks)))   # how the log ends
    for members in groups.values():
        b = members[0]
        shown.add(b)
        if b and any(crit[i] for i in range(*blocks[b])):
            shown.add(b - 1)   # the entry just before an error: what led to it
    # every error/warning entry whole (job 77 *and* job 233 failed) when they all fit in a share of
    # the budget; folded by template only when there are too many of them
    # (the block of line i is the last one starting at or before it)
    hit = dict.fromkeys(map(bisect_right, repeat(starts), compress(range(len(lines)), crit)))
    hurt = [k - 1 for k in hit if k - 1 not in shown]
    stamps: dict[str, tuple[tuple[int, int], ...]] = {}   # (the memo of _masked, for both)
    seen = set(_timeless(lines, blocks, sorted(shown), stamps))
    errors = set()
    for b, text in zip(hurt, _timeless(lines, blocks, hurt, stamps)):   # an exact repeat (but for its
        if text not in seen:                                   # time) adds nothing
            errors.add(b)
            seen.add(text)
    if errors:
        # whole lines and tokens: n > int(x) exactly when n > x, for a count n and x >= 0
        room: Budget = {**ctx.budget, "max_lines": int(ctx.budget["max_lines"] * ERRORS_SHARE),
                        "max_tokens": int(ctx.budget["max_tokens"] * ERRORS_SHARE)}
        # (a view holds at least the lines of its blocks: too many of them cannot fit the share)
        if sum(end - start for start, end in (blocks[b] for b in shown | errors)) <= room["max_lines"]:
            wider = _view(payload, blocks, tally, shown | errors, crit)
            if wider is not None and not over_budget(wider.lines, room):
                return wider
    view = _view(payload, blocks, tally, shown, crit)
    if view is None:
        return view
    extra = _spread(lines, blocks, groups, shown, errors, view, ctx.budget)
    if extra:
        wider = _view(payload, blocks, tally, shown | extra, crit)
        if wider is not None and not over_budget(wider.lines, ctx.budget):
            return wider
    return view


_SPREAD = (lambda n: n - 1, lambda n: (n - 1) // 2, lambda n: n // 2)
"""Which of ``n`` entries :func:`_spread` adds at each step: the last and the middle (both, for
an even ``n``). Quarters too would fill the budget of every such log for little: a kind's first,
middle and last instances already show how it starts, persists and ends."""


def _spread(lines, blocks, groups, shown: set[int], errors: set[int], view: Payload,
            budget: Budget) -> set[int]:
    """Entries to show besides each template's first, while the view stays within ``budget``.

    A log is an enumeration of entries read for one that may be anywhere: first the entry at
    its middle. Then, when there are too many error entries to show whole, more instances of each
    error kind (a template group: its lines differ only in numbers, ids and times): the last
    instance of every kind, then its middle one (:data:`_SPREAD`), a kind after another at each
    step, the shortest entries first.
    What stays hidden is still counted by its template's summary line."""
    steps = [[pick(len(blocks)) for pick in _SPREAD[1:]]]
    kinds = [sample for sample in ([b for b in members if b in errors] for members in groups.values())
             if sample]   # (an error entry repeated verbatim but for its time adds nothing)
    steps += [sorted((members[pick(len(members))] for members in kinds),
                     key=lambda b: blocks[b][1] - blocks[b][0]) for pick in _SPREAD]
    max_lines, max_tokens = budget["max_lines"] - 1, budget["max_tokens"] - FOOTER_ROOM
    n_lines, tokens = len(view.lines), view.tokens()
    extra: set[int] = set()
    for step in steps:
        for b in step:
            if b in shown or b in extra:
                continue
            start, end = blocks[b]
            cost = sum(estimate(lines[i]) + 1 for i in range(start, end))
            if n_lines + end - start <= max_lines and tokens + cost <= max_tokens:
                extra.add(b)
                n_lines, tokens = n_lines + end - start, tokens + cost
    return extra


def _timeless(lines, blocks, chosen: list[int], stamps=None):
    """The lines of each block of ``chosen`` with their timestamps masked, as a tuple per block
    (:func:`_masked` a chunk of blocks at a time: memory stays a chunk's)."""
    for base in range(0, len(chosen), _CHUNK):
        part = [blocks[b] for b in chosen[base:base + _CHUNK]]
        timeless = list(_masked(lines, [i for start, end in part for i in range(start, end)], stamps))
        at = 0
        for start, end in part:
            yield tuple(timeless[at:at + end - start])
            at += end - start


class _Tally:
    """Per template group, computed once for every view of one log: its members, the block of
    each member's group, and the lines of its members after the first (the most it may hide)."""

    __slots__ = ("members", "of", "total")

    def __init__(self, blocks, groups, sizes: list[int] | None = None) -> None:
        self.members = list(groups.values())
        self.of = [0] * len(blocks)
        self.total = []
        of = self.of
        if sizes is None:
            sizes = [end - start for start, end in blocks]
        for g, members in enumerate(self.members):
            for b in members:
                of[b] = g
            # the lines of the members after the first (each block holds at least one line)
            self.total.append(sum(map(sizes.__getitem__, members)) - sizes[members[0]])


def _view(payload, blocks, tally: _Tally, shown: set[int], crit: list[bool]):
    """The view showing the blocks in ``shown``, each template's hidden members counted."""
    lines = payload.lines
    keep = [False] * len(lines)
    summaries = {}
    showing = [0] * len(tally.members)   # lines of each group's shown members after its first
    for b in shown:
        start, end = blocks[b]
        keep[start:end] = [True] * (end - start)
        members = tally.members[tally.of[b]]
        if b != members[0]:
            showing[tally.of[b]] += end - start
    for g, members in enumerate(tally.members):
        n = tally.total[g] - showing[g]
        if n:
            first = blocks[members[0]]
            last_hidden = next(b for b in reversed(members) if b not in shown)
            stamp = TIMESTAMP_RE.search(lines[blocks[last_hidden][0]])
            last = f", the last at {stamp.group(0).strip('[]')}" if stamp else ""
            summaries[first[1]] = SUMMARY.format(n=n, noun="line" if n == 1 else "lines", last=last)
    if payload.failed:   # critical lines of a failing command: never dropped (INV-6)
        keep = [k or c for k, c in zip(keep, crit)]
    return build(payload, keep, summaries)
