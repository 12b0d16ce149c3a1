"""crush-json: a JSON document over budget, re-laid out small enough to read, nothing made up.

What the reader gets (every line declared SYNTHETIC; every value shown is an input lexeme, or a
verbatim prefix of one with the exact count of characters cut):
- the structure, indented, with short containers on one line;
- long arrays and objects sampled: the first items, the last one, and *every anomalous item* (see
  ``anomaly.py``: a 404 among 200s, a null among values, an outlier, a rare key), the items between
  replaced by one line with the exact count and index range not shown;
- a schema line for sampled arrays of objects: each key with its kinds and counts, and the values of
  low-cardinality keys with their counts (``"status" num 10; 200 ×6, 201 ×2, ...``);
- arrays of flat objects with identical keys as a table: the keys once, then one row per object;
- long strings cut (prose sooner than identifiers and URLs), deep containers summarised.
Levels go from gentle to aggressive; the first that fits the graph budget wins, so the output is a
pure function of input + budget (deterministic, byte-stable). On incompressible input (gzip probe)
only the gentle levels run: sampling would drop unique information. Leaves via the ``crushed`` port
(straight to Route: a line trimmer must not cut a re-laid-out document).
"""

from __future__ import annotations

from thresher.dataflow.payload import CRITICAL, SYNTHETIC, Out
from thresher.dataflow.tokens import estimate

from . import anomaly
from . import jsontree as jt
from .lossless import compressibility
from .distill_common import over_budget

# items per array, chars of prose strings, chars of other strings, depth, anomalies kept per array,
# keys per object (objects are records more often than maps: they keep more members than arrays)
# Strings without spaces (ids, URLs, paths, versions) are facts and are cut late, prose early.
LEVELS = ((50, 400, 300, 16, 60, 200), (20, 200, 240, 10, 40, 100), (10, 120, 200, 8, 30, 60),
          (6, 80, 200, 6, 20, 40), (3, 60, 160, 5, 12, 25), (2, 40, 160, 4, 8, 15),
          (1, 30, 120, 3, 5, 10))
GENTLE = 2
INLINE = 100
IND = " "


_OBJ, _ARR = anomaly.Cell("obj", "{}"), anomaly.Cell("arr", "[]")  # cells are never changed


def _cell(node, memo: "dict | None" = None) -> anomaly.Cell:
    """The cell of one value (``memo``: scalar lexeme -> its cell, shared by the rows of a table)."""
    if isinstance(node, jt.Obj):
        return _OBJ
    if isinstance(node, jt.Arr):
        return _ARR
    cell = memo.get(node) if memo is not None else None
    if cell is None:
        c = node[0]
        kind = ("str" if node != '""' else "empty") if c == '"' else \
            "null" if node == "null" else "bool" if c in "tf" else "num"
        cell = anomaly.Cell(kind, node)
        if memo is not None:
            memo[node] = cell
    return cell


def _row(node, memo: dict) -> dict:
    """An object flattened two levels deep into ``column -> Cell`` (keys as lexemes)."""
    row = {}
    for k, v in node:
        row[k] = _cell(v, memo)
        if isinstance(v, jt.Obj):
            for k2, v2 in v:
                row[k + "." + k2] = _cell(v2, memo)
    return row


class Renderer:
    """Lays out one tree at one level; anomaly analyses are cached across levels by the caller."""

    def __init__(self, level: tuple, cache: dict) -> None:
        self.items, self.prose, self.ident, self.depth, self.anomalies, self.keys = level
        self.cache = cache

    def scalar(self, lex: str) -> str:
        """A scalar lexeme, or a verbatim prefix of a long string with the count of chars cut."""
        limit = self.prose if " " in lex else self.ident
        if lex[0] != '"' or len(lex) <= limit + 12:
            return lex
        cut = limit
        back = lex.rfind("\\", max(1, cut - 6), cut)
        if back != -1:
            cut = back  # never split an escape sequence
        return f'{lex[:cut]}…" (+{len(lex) - cut} chars)'

    def inline(self, node, depth: int, room: int) -> str | None:
        """``node`` on one line if it needs no elision and fits in ``room`` chars, else ``None``."""
        if not isinstance(node, (jt.Obj, jt.Arr)):
            return self.scalar(node)
        if len(node) > self.cap(node) + 1 or depth >= self.depth:
            return None
        parts = []
        for member in node:
            k, v = member if isinstance(node, jt.Obj) else ("", member)
            s = self.inline(v, depth + 1, room)
            if s is None:
                return None
            parts.append(f"{k}:{s}" if k else s)
            room -= len(parts[-1]) + len(k) + 1
            if room < 0:
                return None
        return ("{%s}" if isinstance(node, jt.Obj) else "[%s]") % ",".join(parts)

    def emit(self, node, prefix: str, depth: int, ind: str, comma: str, out: list[str]) -> None:
        """Append the lines of ``node`` (shown after ``prefix``, e.g. ``"key": ``) to ``out``."""
        flat = self.inline(node, depth, INLINE - len(ind) - len(prefix))
        if flat is not None:
            out.append(f"{ind}{prefix}{flat}{comma}")
            return
        kind = "keys" if isinstance(node, jt.Obj) else "items"
        if depth >= self.depth:
            out.append(f"{ind}{prefix}{'{' if kind == 'keys' else '['}…{len(node)} {kind}"
                       f"{'}' if kind == 'keys' else ']'}{comma}")
            return
        out.append(f"{ind}{prefix}{'{' if kind == 'keys' else '['}")
        inner = ind + IND
        values = [v for _, v in node] if kind == "keys" else list(node)
        keep = self.choose(node, values, inner, out)
        table = self.table(values)
        if table is not None:
            out.append(f"{inner}[thresher: table of {len(values)} objects; columns: {','.join(table)}]")
        last, prev = keep[-1], -1
        for i in keep:
            if i > prev + 1:
                out.append(self.gap(node, prev + 1, i - 1, inner))
            end = "" if i == last and last == len(values) - 1 else ","
            if table is not None:
                out.append(inner + ",".join(self.scalar(v) for _, v in values[i]) + end)
            else:
                p = f"{node[i][0]}: " if kind == "keys" else ""
                self.emit(values[i], p, depth + 1, inner, end, out)
            prev = i
        if prev < len(values) - 1:
            out.append(self.gap(node, prev + 1, len(values) - 1, inner))
        out.append(f"{ind}{'}' if kind == 'keys' else ']'}{comma}")

    def cap(self, node) -> int:
        """How many members of ``node`` may be shown before sampling."""
        return self.keys if isinstance(node, jt.Obj) else self.items

    def gap(self, node, lo: int, hi: int, ind: str) -> str:
        """The count line for members ``lo..hi`` (inclusive) not shown."""
        n = hi - lo + 1
        if isinstance(node, jt.Obj):
            names = ", ".join(k for k, _ in node[lo:hi + 1])
            shown = f": {names}" if len(names) <= 240 else f": {node[lo][0]} … {node[hi][0]}"
            return f"{ind}[thresher: {n} more key{'s' if n > 1 else ''} not shown{shown}]"
        where = f"#{lo}" if n == 1 else f"#{lo}-#{hi}"
        return f"{ind}[thresher: {n} more item{'s' if n > 1 else ''} not shown ({where})]"

    def choose(self, node, values: list, ind: str, out: list[str]) -> list[int]:
        """Indices of the members to show (all, or head + last + anomalies); writes the schema line
        of a sampled array of objects first."""
        n = len(values)
        if n <= self.cap(node) + 1:
            return list(range(n))   # every item shown: a schema line would only repeat them
        key = id(node)
        if key not in self.cache:   # rows and anomalies once per node, for every level tried
            memo: dict = {}
            rows = [_row(v, memo) for v in values] \
                if n >= 3 and all(isinstance(v, jt.Obj) for v in values) else None
            self.cache[key] = (rows, anomaly.find(rows if rows is not None else
                                                  [{"value": _cell(v, memo)} for v in values]))
        rows, found = self.cache[key]
        if rows is not None and isinstance(node, jt.Arr):
            out.append(self.schema(rows, found, ind))
        odd = anomaly.ranked(found, self.anomalies)
        head = max(self.cap(node) - 1, 1)
        return sorted(set(range(head)) | {n - 1} | set(odd))

    def schema(self, rows: list[dict], found, ind: str) -> str:
        """The schema line of an array of objects (top-level keys, kinds and counts, values)."""
        cols = [c for c in anomaly.columns(rows) if '"."' not in c]  # top-level keys only
        odd = f"; {len(found)} anomalous" if found else ""
        parts = [f"{c} {anomaly.profile(rows, c)}" for c in cols]
        return f"{ind}[thresher: {len(rows)} objects{odd}; keys: {' | '.join(parts)}]"

    def table(self, values: list) -> list[str] | None:
        """The keys of an array of flat objects with identical keys (3 or more), else ``None``."""
        if len(values) < 3 or not all(isinstance(v, jt.Obj) and v for v in values):
            return None
        keys = [k for k, _ in values[0]]
        for v in values:
            if [k for k, _ in v] != keys or not all(isinstance(x, str) for _, x in v):
                return None
        return keys


def render(root, level: tuple, cache: dict) -> list[str]:
    """The lines of ``root`` laid out at ``level``."""
    out: list[str] = []
    Renderer(level, cache).emit(root, "", 0, "", "", out)
    return out



def run(payload, params, ctx):
    """``Out("crushed", ...)`` with the crushed view, or ``None`` (fits, not JSON, or a failure's
    error lines that a re-laid-out view could not keep byte-exact)."""
    if not over_budget(payload.lines, ctx.budget) or (payload.failed and CRITICAL in payload.tiers):
        return None
    text = "\n".join(payload.source)
    if len(text) > params["max_bytes"]:
        return None
    root = jt.parse_shared(text, ctx)
    if root is None or not isinstance(root, (jt.Obj, jt.Arr)):
        return None
    levels = LEVELS if compressibility(text) <= params["max_ratio"] else LEVELS[:GENTLE]
    cache: dict = {}
    for level in levels:
        lines = render(root, level, cache)
        if not over_budget(lines, ctx.budget):
            break
    out = payload.with_view(lines, [SYNTHETIC] * len(lines))
    return Out("crushed", out) if estimate(out.text()) < payload.tokens() else None
