"""crush-json: a JSON document over budget, re-laid out small enough to read, nothing made up.

What the reader gets (every line declared SYNTHETIC; every value shown is an input lexeme, or a
verbatim prefix of one with the exact count of characters cut):
- the structure, indented, with short containers on one line;
- long arrays and objects sampled: the first items, the last one, and *every anomalous item* (see
  ``anomaly.py``: a 404 among 200s, a null among values, an outlier, a rare key), the items between
  replaced by one line with the exact count and index range not shown;
- a schema line for sampled arrays of objects: each key with its kinds and counts, and the values of
  low-cardinality keys with their counts (``"status" num 10; 200 ×6, 201 ×2, ...``);
- for a key that only part of a sampled array's objects carry (a sparse key, too common to be an
  anomaly), the names of the objects on the smaller side — with it, or without it — listed once
  in the summary while they fit the level's byte budget (``"official_name" absent (76): ...``);
- arrays of flat objects with identical keys as a table: the keys once, then one row per object;
- long strings cut (prose sooner than identifiers and URLs), deep containers summarised.
Levels go from gentle to aggressive; the first that fits the graph budget wins, so the output is a
pure function of input + budget (deterministic, byte-stable). On incompressible input (gzip probe)
only the gentle levels run: sampling would drop unique information. Leaves via the ``crushed`` port
(straight to Route: a line trimmer must not cut a re-laid-out document).
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import CRITICAL, SYNTHETIC, Out
from thresher.dataflow.tokens import estimate

from thresher.stages.lib import anomaly
from thresher.stages.lib import jsontree as jt
from thresher.stages.lib.text import spans
from thresher.stages.generic.lossless import compressibility
from thresher.stages.lib.common import over_budget

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

# items per array, chars of prose strings, chars of other strings, depth, anomalies kept per array,
# Strings without spaces (ids, URLs, paths, versions) are facts and are cut late, prose early.
# keys per object (objects are records more often than maps: they keep more members than arrays),
# chars of the item names listed per sparse key (see :func:`_sparse`)
LEVELS = ((50, 400, 300, 16, 60, 200, 6000), (20, 200, 240, 10, 40, 100, 4000),
          (10, 120, 200, 8, 30, 60, 3000), (6, 80, 200, 6, 20, 40, 2000), (3, 60, 160, 5, 12, 25, 1200),
          (2, 40, 160, 4, 8, 15, 600), (1, 30, 120, 3, 5, 10, 300))
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
    get = memo.get
    obj, arr = jt.Obj, jt.Arr   # (a node is exactly one of these or a lexeme str: type() tests)
    for k, v in node:
        t = type(v)
        if t is obj:
            row[k] = _OBJ
            for k2, v2 in v:
                t = type(v2)
                row[k + "." + k2] = _OBJ if t is obj else _ARR if t is arr else get(v2) or _cell(v2, memo)
        elif t is arr:
            row[k] = _ARR
        else:   # a scalar lexeme: its cell from the memo when seen before (the common case)
            row[k] = get(v) or _cell(v, memo)
    return row


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NAME_CHARS = 200  # longest name listed for the items carrying a sparse key (the listing has a budget)
MAX_NOTES = 40   # summary lines about elided members (groups past it are counted in one line)
LEAD = "[thresher: a JSON sample (it parses): members not shown are left out, cut strings end in …; by path:]"


def _key(path: str, k: str) -> str:
    """``path`` extended by the object key lexeme ``k`` (jq syntax: ``.name`` or ``["a b"]``)."""
    name = k[1:-1]
    if _IDENT.match(name):
        return f"{'' if path == '.' else path}.{name}"
    return f"{path}[{k}]"


def _index(path: str, i: "int | str") -> str:
    return f"{path}[{i}]"


def _ranges(idx: list[int]) -> str:
    """``#0-#47, #120, #397`` for sorted indices."""
    return ", ".join(spans(idx, prefix="#"))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Renderer:
    """Lays out one tree at one level as valid JSON; what it leaves out is recorded by path (and by
    path with array indices generalised, ``.[].owner``) for the summary lines above the document.
    Anomaly analyses are cached across levels by the caller."""

    def __init__(self, level: tuple, cache: dict) -> None:
        self.items, self.prose, self.ident, self.depth, self.anomalies, self.keys, self.sparse = level
        self.cache = cache
        self.notes: dict[tuple, list] = {}

    def note(self, kind: str, gpath: str, path: str, *info) -> None:
        self.notes.setdefault((kind, gpath) + (info[-1:] if kind == "table" else ()), []) \
            .append((path,) + info)

    def scalar(self, lex: str, where: "tuple | None" = None, cuts: "list | None" = None) -> str:
        """A scalar lexeme, or a verbatim prefix of a long string closed by ``…"`` (still a JSON
        string); the cut is recorded in ``cuts`` as ``(path, gpath, chars cut)``."""
        limit = self.prose if " " in lex else self.ident
        if lex[0] != '"' or len(lex) <= limit + 12:
            return lex
        cut = limit
        back = lex.rfind("\\", max(1, cut - 6), cut)
        if back != -1:
            cut = back  # never split an escape sequence
        if cuts is not None and where is not None:
            cuts.append(where[:2] + (len(lex) - 1 - cut,))
        return f'{lex[:cut]}…"'

    def inline(self, node, depth: int, room: int, where: tuple, cuts: list) -> str | None:
        """``node`` on one line if it needs no elision and fits in ``room`` chars, else ``None``."""
        if not isinstance(node, (jt.Obj, jt.Arr)):
            return self.scalar(node, where, cuts)
        if node and (len(node) > self.cap(node) + 1 or depth >= self.depth):
            return None
        parts = []
        obj = isinstance(node, jt.Obj)
        for i, member in enumerate(node):
            k, v = member if obj else ("", member)
            at = (_key(where[0], k), _key(where[1], k)) if obj else (_index(where[0], i), _index(where[1], ""))
            s = self.inline(v, depth + 1, room, at, cuts)
            if s is None:
                return None
            parts.append(f"{k}:{s}" if k else s)
            room -= len(parts[-1]) + len(k) + 1
            if room < 0:
                return None
        return ("{%s}" if obj else "[%s]") % ",".join(parts)

    def emit(self, node, prefix: str, depth: int, ind: str, comma: str, out: list[str],
             where: tuple = (".", ".", ".")) -> None:
        """Append the lines of ``node`` (shown after ``prefix``, e.g. ``"key": ``) to ``out``;
        ``where`` is its path, its generalised path, and that of its siblings (``.parent[]``)."""
        cuts: list = []
        flat = self.inline(node, depth, INLINE - len(ind) - len(prefix), where, cuts)
        if flat is not None:
            for path, gpath, chars in cuts:
                self.note("cut", gpath, path, chars)
            out.append(f"{ind}{prefix}{flat}{comma}")
            return
        obj = isinstance(node, jt.Obj)
        if depth >= self.depth:
            self.note("deep", where[2], where[0], obj, len(node))
            out.append(f"{ind}{prefix}{'{}' if obj else '[]'}{comma}")
            return
        out.append(f"{ind}{prefix}{'{' if obj else '['}")
        inner = ind + IND
        values = [v for _, v in node] if obj else list(node)
        keep = self.choose(node, values, where)
        table = self.table(values)
        if table is not None and len(keep) == len(values):
            self.note("table", where[1], where[0], len(values), ",".join(table))
        last = keep[-1]
        for i in keep:
            end = "" if i == last else ","
            at: tuple[str, ...] = (_key(where[0], node[i][0]), _key(where[1], node[i][0])) if obj else \
                (_index(where[0], i), _index(where[1], ""))
            at += (_index(where[1], ""),)
            p = f"{node[i][0]}: " if obj else ""
            if table is not None:  # a member of an object keeps its key before its row
                cells = []
                for k, v in values[i]:
                    cuts = []
                    cells.append(self.scalar(v, (_key(at[0], k), _key(at[1], k)), cuts))
                    for path, gpath, chars in cuts:
                        self.note("cut", gpath, path, chars)
                out.append(inner + p + "[" + ",".join(cells) + "]" + end)
            else:
                self.emit(values[i], p, depth + 1, inner, end, out, at)
        out.append(f"{ind}{'}' if obj else ']'}{comma}")

    def cap(self, node) -> int:
        """How many members of ``node`` may be shown before sampling."""
        return self.keys if isinstance(node, jt.Obj) else self.items

    def choose(self, node, values: list, where: tuple) -> list[int]:
        """Indices of the members to show (all, or head + last + anomalies); a sampled container is
        noted with what it shows (and, for an array of objects, its schema)."""
        n = len(values)
        if n <= self.cap(node) + 1:
            return list(range(n))   # every item shown: a schema line would only repeat them
        key = id(node)
        if key not in self.cache:   # rows and anomalies once per node, for every level tried
            memo: dict = {}
            rows = [_row(v, memo) for v in values] \
                if n >= 3 and all(isinstance(v, jt.Obj) for v in values) else None
            self.cache[key] = (rows, anomaly.find(rows if rows is not None else
                                                  [{"value": _cell(v, memo)} for v in values]),
                               _ident(rows), _ident(rows, NAME_CHARS, False) or _ident(rows))
        rows, found, ident, named = self.cache[key]
        odd = anomaly.ranked(found, self.anomalies)
        head = max(self.cap(node) - 1, 1)
        keep = sorted(set(range(head)) | {n - 1} | set(odd))
        if isinstance(node, jt.Obj):
            gone = [k for i, (k, _) in enumerate(node) if i not in set(keep)]
            names = ", ".join(gone)
            shown = names if len(names) <= 240 else f"{gone[0]} … {gone[-1]}"
            self.note("keys", where[1], where[0], n, len(keep), shown)
        else:
            table = self.table(values)
            self.note("items", where[1], where[0], n, keep, (len(found), len(set(found) & set(keep))),
                      self.schema(rows, key) if rows is not None else "",
                      ",".join(table) if table is not None else "", _unshown(rows, keep, ident),
                      _sparse(rows, keep, named, self.sparse, self._parts(rows, key)))
        return keep

    def schema(self, rows: list[dict], key: "int | None" = None) -> str:
        """The schema of an array of objects (top-level keys, kinds and counts, values); ``key``:
        the node's cache key (the schema is the same at every level)."""
        if key is not None and ("schema", key) in self.cache:
            return self.cache["schema", key]
        cols = [c for c in anomaly.columns(rows) if '"."' not in c]  # top-level keys only
        text = "keys: " + " | ".join(f"{c} {anomaly.profile(rows, c)}" for c in cols)
        if key is not None:
            self.cache["schema", key] = text
        return text

    def _parts(self, rows: "list[dict] | None", key: int) -> "list[tuple[str, list[int], str]]":
        """:func:`_sparse_parts` of ``rows``, once per node for every level tried."""
        if ("sparse", key) not in self.cache:
            self.cache["sparse", key] = _sparse_parts(rows)
        return self.cache["sparse", key]

    def table(self, values: list) -> list[str] | None:
        """The keys of an array of flat objects with identical keys (3 or more), else ``None``."""
        if len(values) < 3 or not all(isinstance(v, jt.Obj) and v for v in values):
            return None
        keys = [k for k, _ in values[0]]
        for v in values:
            if [k for k, _ in v] != keys or not all(isinstance(x, str) for _, x in v):
                return None
        return keys

    def summary(self) -> list[str]:
        """One line per elision (or per generalised path when it recurs), lead line first."""
        lines = [self.group(kind, gpath, recs) for (kind, gpath, *_), recs in self.notes.items()]
        if not lines:
            return []
        if len(lines) > MAX_NOTES:
            rest = len(lines) - MAX_NOTES + 1
            lines = lines[:MAX_NOTES - 1] + [f"[thresher: {rest} more paths with members left out "
                                             f"or cut (expand for the whole document)]"]
        return [LEAD] + lines

    @staticmethod
    def group(kind: str, gpath: str, recs: list) -> str:
        """The summary line of the elisions of one kind at one (generalised) path."""
        m = len(recs)
        if kind == "items":
            if m == 1:
                path, n, keep, odd, schema, table, unshown, sparse = recs[0]
                parts = [f"{path}: {n} {'objects' if schema else 'items'}, {len(keep)} shown ({_ranges(keep)})"]
                if odd[0]:
                    parts.append(f"{odd[0]} anomalous, " + ("all shown" if odd[1] == odd[0] else f"{odd[1]} shown"))
                parts += [schema] if schema else []
                parts += [f"rows are the values of {table}"] if table else []
                parts += [unshown] if unshown else []
                parts += sparse
                return f"[thresher: {'; '.join(parts)}]"
            n, k = sum(r[1] for r in recs), sum(len(r[2]) for r in recs)
            return f"[thresher: {gpath} ({m} arrays): {n} items, {k} shown]"
        if kind == "keys":
            if m == 1:
                path, n, k, names = recs[0]
                return f"[thresher: {path}: {n} keys, {k} shown; not shown: {names}]"
            n, k = sum(r[1] for r in recs), sum(r[2] for r in recs)
            return f"[thresher: {gpath} ({m} objects): {n} keys, {k} shown]"
        if kind == "table":
            if m == 1:
                return f"[thresher: {recs[0][0]}: {recs[0][1]} objects as rows of the values of {recs[0][2]}]"
            return f"[thresher: {gpath} ({m} arrays): objects as rows of the values of {recs[0][2]}]"
        if kind == "deep":
            obj = recs[0][1]
            what, members = ("object", "keys") if obj else ("array", "items")
            if m == 1:
                return f"[thresher: {recs[0][0]}: {what} of {_plural(recs[0][2], members[:-1])} not shown]"
            kinds = {r[1] for r in recs}
            what = f"{what}s" if len(kinds) == 1 else "containers"
            return f"[thresher: {gpath} ({m} {what}): contents not shown ({sum(r[2] for r in recs)} members)]"
        if m == 1:
            return f"[thresher: {recs[0][0]}: string cut (+{recs[0][1]} chars)]"
        return f"[thresher: {gpath} ({m} strings): cut (+{sum(r[1] for r in recs)} chars)]"


_LEXEME = re.compile(r'"(?:[^"\\]|\\.)*"')
_NAMES = ('"name"', '"id"', '"key"', '"title"', '"path"', '"filename"', '"package"', '"slug"')


def _ident(rows: "list[dict] | None", longest: int = 62, distinct: bool = True) -> str | None:
    """The first column that names every object (scalars of at most ``longest`` chars, distinct
    unless ``distinct`` is false, and then a name/id-like key only; name/id-like keys first), or
    ``None``."""
    if not rows:
        return None
    cols = sorted((c for c, cell in rows[0].items() if cell.kind in ("str", "num")
                   and (distinct or c.endswith(_NAMES))), key=lambda c: not c.endswith(_NAMES))
    for col in cols:
        texts = set()
        for r in rows:
            cell = r.get(col)
            if cell is None or cell.kind not in ("str", "num") or len(cell.text) > longest \
                    or distinct and cell.text in texts:
                break
            texts.add(cell.text)
        else:
            return col
    return None


def _unshown(rows: "list[dict] | None", keep: list[int], col: "str | None", limit: int = 400) -> str:
    """``not shown (.metadata.name): a, b`` — the names (column ``col``, see :func:`_ident`) of
    the objects a sample leaves out, so a dropped item can still be found; ``""`` when there is
    no such column or the list is too long."""
    if not rows or col is None:
        return ""
    kept = set(keep)
    names = ", ".join(r[col].text for i, r in enumerate(rows) if i not in kept)
    path = "."
    for k in _LEXEME.findall(col):
        path = _key(path, k)
    return f"not shown ({path}): {names}" if len(names) <= limit else ""


def _sparse_parts(rows: "list[dict] | None") -> "list[tuple[str, list[int], str]]":
    """For every top-level key that only part of ``rows`` carry (first-seen order): the key, the
    indices of the smaller part (the objects with it, or those without it) and which part that is
    (``present``/``absent``)."""
    if not rows:
        return []
    n, out = len(rows), []
    for key in anomaly.columns(rows):
        if '"."' in key:
            continue
        have = [i for i, r in enumerate(rows) if key in r]
        if len(have) == n:
            continue
        part, what = (have, "present") if 2 * len(have) <= n else \
            ([i for i in range(n) if key not in rows[i]], "absent")
        out.append((key, part, what))
    return out


def _sparse(rows: "list[dict] | None", keep: list[int], col: "str | None", limit: int,
            parts: "list[tuple[str, list[int], str]] | None" = None) -> list[str]:
    """``"official_name" absent (76): "Aruba", "Anguilla"`` — for every top-level key that only
    part of the objects carry, the names (column ``col``, else the indices) of the smaller part:
    the objects with the key, or those without it — when the sample does not already show all of
    them and the names fit ``limit`` characters (keys in first-seen order, until ``limit`` is
    spent). A key in a third of the items is not an anomaly, yet which items carry it is a fact.
    ``parts``: :func:`_sparse_parts` of ``rows``, when known."""
    if not rows:
        return []
    kept, out = set(keep), []
    for key, part, what in _sparse_parts(rows) if parts is None else parts:
        if kept.issuperset(part):
            continue
        names = ", ".join(rows[i][col].text for i in part) if col is not None else _ranges(part)
        if len(names) > limit:
            continue
        limit -= len(names)
        out.append(f"{key} {what} ({len(part)}): {names}")
    return out


def render(root, level: tuple, cache: dict) -> list[str]:
    """The lines of ``root`` laid out at ``level``: the summary lines, then a JSON sample."""
    out: list[str] = []
    r = Renderer(level, cache)
    r.emit(root, "", 0, "", "", out)
    return r.summary() + out



def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
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
