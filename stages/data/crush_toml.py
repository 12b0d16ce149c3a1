"""crush-toml: a TOML document over budget, shortened by dropping whole line ranges.

Kept lines are byte-exact (comments as written), and only they make the document part of the
view, so that it parses as TOML (checked with ``tomllib``; a level whose sample does not is not
used). What was dropped is said once above the document, by table, with exact counts and source
line ranges (``elide.assemble``):
- arrays of tables (``[[package]]`` of a lock file, ``[[bin]]``): the first entries, the last,
  and *every anomalous entry* (``anomaly.py``: a missing or rare key, a differing source or
  status, an outlier), with a schema line (keys, kinds, counts, values); an entry's sub-tables
  (``[package.dependencies]``) go with it;
- runs of sibling tables (``[pkg.cargo.target.x]``, ``[pkg.cargo.target.y]``, … each with its
  sub-tables) like arrays of tables: the first, the last and every anomalous one, one note with
  the schema, the exact count and the names of the tables not shown; a later run with the same
  table names and keys (the next package's targets) shows only its anomalous tables and says so.
  When the sample leaves room in the budget, the tables left out keep their header lines (their
  bodies dropped, counted by the note), in document order while they fit: a table's name is
  the line an agent looks for;
- long multi-line arrays (``dependencies = [`` … ``]``): the first lines and the closing one;
- long sections: the first key lines.
Table headers are found by a line scan that skips multi-line strings and arrays, and are checked
against ``tomllib``'s parse of the same text: any disagreement declines. Levels go from gentle to
aggressive; the first that fits the budget wins (deterministic).
"""

from __future__ import annotations

import re

from thresher.dataflow.tokens import estimate

from thresher.stages.lib import anomaly
from thresher.stages.lib import elide
from thresher.stages.lib.text import spans
from thresher.stages.generic.lossless import compressibility
from thresher.stages.lib.common import over_budget

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_PART = r"""(?:[A-Za-z0-9_\-]++|"(?:[^"\\]|\\.)*+"|'[^']*+')"""
HEADER_RE = re.compile(rf"^\s*(\[\[?)\s*({_PART}(?:\s*\.\s*{_PART})*)\s*\]\]?\s*(?:#.*)?$")
PART_RE = re.compile(_PART)
# entries per array of tables, lines per multi-line array, key lines per section, anomalies
LEVELS = ((50, 40, 80, 60), (20, 20, 40, 40), (10, 10, 25, 30), (6, 6, 15, 20), (3, 4, 10, 12),
          (2, 3, 6, 8), (1, 2, 4, 5))
GENTLE = 2


def _depth_change(line: str) -> int:
    """Net ``[`` minus ``]`` outside quoted strings and comments (for multi-line arrays)."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", line).split("#", 1)[0]
    return line.count("[") - line.count("]")


def _parts(name: str) -> tuple[str, ...]:
    """The keys of a dotted table name (``a."b.c".d`` → ``("a", "b.c", "d")``)."""
    import json
    out = []
    for p in PART_RE.findall(name):
        out.append(json.loads(p) if p[0] == '"' else p[1:-1] if p[0] == "'" else p)
    return tuple(out)


def _label(name: tuple[str, ...]) -> str:
    """A table name as written in a header (quoted where a key needs it)."""
    import json
    return ".".join(k if re.fullmatch(r"[A-Za-z0-9_\-]+", k) else json.dumps(k) for k in name)


def scan(lines: list[str]) -> list[tuple[int, tuple, bool]] | None:
    """``(line, name keys, is_array)`` of every table header; ``None`` when unsure."""
    out, in_str, depth = [], None, 0
    for i, line in enumerate(lines):
        if in_str:
            if line.count(in_str) % 2:
                in_str = None
            continue
        for q in ('"""', "'''"):
            if line.count(q) % 2:
                in_str = q
        if depth == 0:
            m = HEADER_RE.match(line)
            if m and in_str is None:
                out.append((i, _parts(m.group(2)), m.group(1) == "[["))
                continue
        depth = max(0, depth + _depth_change(line)) if in_str is None else depth
    return out


def _lookup(doc, name: tuple):
    """The value at table ``name``; through an array of tables, in any of its entries."""
    nodes = [doc]
    for part in name:
        nxt = []
        for node in nodes:
            for item in (node if isinstance(node, list) else [node]):
                if isinstance(item, dict) and part in item:
                    nxt.append(item[part])
        if not nxt:
            return None
        nodes = nxt
    return nodes[0]


def _row(entry) -> dict:
    row = {}
    for k, v in entry.items() if isinstance(entry, dict) else ():
        if isinstance(v, dict):
            row[k] = anomaly.Cell("obj", "{}")
        elif isinstance(v, list):
            row[k] = anomaly.Cell("arr", "[]")
        else:
            row[k] = anomaly.text_cell(str(v).lower() if isinstance(v, bool) else str(v))
    return row


class _Plan(elide.Plan):
    """A plan that may name up to ``names`` sibling tables it leaves out by their header lines
    (their bodies dropped), in the order the runs are planned; ``heads`` are the header lines of
    every sibling table it leaves out, in that order (what more room could name)."""

    __slots__ = ("names", "heads")

    def __init__(self, names: int = 0) -> None:
        super().__init__()
        self.names = names
        self.heads: list[int] = []


def _plan(lines, headers, doc, level, cache, names: int = 0) -> _Plan:
    """The drops of one level, each noted by table."""
    plan = _Plan(names)
    bounds = [h[0] for h in headers] + [len(lines)]
    _tables(lines, headers, bounds, doc, level, cache, plan, 0, len(headers), {})
    first = bounds[0] if headers else len(lines)
    _section(lines, plan, 0, first, level[1], level[2], "(top level)")
    return plan


def _extent(headers, i: int, hi: int) -> int:
    """The index past the last header of table ``i``'s sub-tables (headers ``i..hi-1`` only)."""
    name, j = headers[i][1], i + 1
    while j < hi and len(headers[j][1]) > len(name) and headers[j][1][:len(name)] == name:
        j += 1
    return j


def _tables(lines, headers, bounds, doc, level, cache, plan, lo: int, hi: int, seen: dict) -> None:
    """Plan the tables of headers ``lo..hi-1``: arrays of tables and runs of sibling tables
    (``[pkg.a.target.x]``, ``[pkg.a.target.y]``, … with their sub-tables) are sampled; the
    sections of the tables shown are cut (:func:`_section`)."""
    entries, arrays, keys_cap, _ = level
    i = lo
    while i < hi:
        start, name, is_array = headers[i]
        if is_array:
            group = [i]  # the entries of this array of tables, each with its sub-tables
            j = i + 1
            while j < hi and headers[j][1][:len(name)] == name:
                if headers[j][1] == name and headers[j][2]:
                    group.append(j)
                j += 1
            starts = [headers[g][0] for g in group]
            ends = starts[1:] + [bounds[j]]
            _entries(lines, plan, doc, name, starts, ends, level, cache)
            i = j
            continue
        members, k = [], i  # sibling tables: one parent, each with its sub-tables
        while k < hi and not headers[k][2] and len(headers[k][1]) == len(name) \
                and headers[k][1][:-1] == name[:-1]:
            members.append((k, _extent(headers, k, hi)))
            k = members[-1][1]
        if len(members) < SIBLINGS or len(members) <= entries + 1:
            _section(lines, plan, start + 1, bounds[i + 1], arrays, keys_cap, f"[{_label(name)}]")
            i += 1
            continue
        keep = _siblings(plan, doc, headers, bounds, members, level, cache, seen)
        for m in keep:
            a, b = members[m]
            _section(lines, plan, headers[a][0] + 1, bounds[a + 1], arrays, keys_cap,
                     f"[{_label(headers[a][1])}]")
            _tables(lines, headers, bounds, doc, level, cache, plan, a + 1, b, seen)
        i = k


SIBLINGS = 4  # sibling tables sampled like an array of tables from this many on


def _siblings(plan, doc, headers, bounds, members: list, level, cache, seen: dict) -> list[int]:
    """Sample a run of sibling tables like an array of tables: the first ones, the last, every
    anomalous one; one note with the schema of their keys and the keys of the tables not shown
    (said once when another run left out the same ones). Returns the member indices kept."""
    entries, _, _, cap = level
    n, parent = len(members), headers[members[0][0]][1][:-1]
    label = f"[{_label(parent)}.*]"
    key = ("siblings", headers[members[0][0]][0])
    if key not in cache:
        rows = [_row(_lookup(doc, headers[a][1])) for a, _ in members]
        cache[key] = rows, anomaly.find(rows)
    rows, found = cache[key]
    names = ", ".join(_label(headers[a][1][-1:]) for a, _ in members)
    shape = (names, tuple(anomaly.columns(rows)))
    like = seen.get(shape)
    # a run with the table names and keys of one shown before: only its anomalous tables
    keep = anomaly.ranked(found, cap) if like else elide.sample(n, entries, found, cap)
    kept = set(keep)
    dropped = [m for m in range(n) if m not in kept]
    plan.heads.extend(headers[members[m][0]][0] for m in dropped)
    named = set(dropped[:max(plan.names, 0)])
    plan.names -= len(named)
    parts = [f"{label}: {n} tables, {len(keep)} shown" + (f" ({', '.join(spans(keep, prefix='#'))})"
                                                           if keep else "")]
    if named:
        parts.append(f"{len(named)} more by their header lines only ({', '.join(spans(sorted(named), prefix='#'))}"
                     "), bodies not shown")
    if found:
        parts.append(f"{len(found)} anomalous, {len(set(found) & kept)} shown")
    if like:
        parts.append(f"the same table names and keys as {like}")
    else:
        seen[shape] = label
        parts.append("keys: " + " | ".join(f"{c} {anomaly.profile(rows, c)}"
                                           for c in anomaly.columns(rows)))
        gone = ", ".join(_label(headers[members[m][0]][1][-1:]) for m in dropped if m not in named)
        if not gone:
            pass
        elif gone in seen:
            parts.append(f"not shown: the same {n - len(keep)} as {seen[gone]}")
        elif len(gone) <= 1200:
            seen[gone] = label
            parts.append(f"not shown: {gone}")
    held = plan.note("; ".join(parts))
    for a, b in elide.gaps(keep, n):
        run = a  # the first member of the current run of wholly dropped ones
        for m in range(a, b + 1):
            if m in named:  # its header line stays, its body and sub-tables go
                plan.drop(headers[members[run][0]][0], headers[members[m][0]][0], held)
                plan.drop(headers[members[m][0]][0] + 1, bounds[members[m][1]], held)
                run = m + 1
        if run <= b:
            plan.drop(headers[members[run][0]][0], bounds[members[b][1]], held)
    return keep


def _entries(lines, plan, doc, name: tuple, starts: list, ends: list, level, cache) -> None:
    """Sample the entries of one array of tables (``[[package]]``)."""
    entries, arrays, _, cap = level
    n, label = len(starts), f"[[{_label(name)}]]"
    if n > entries + 1 and name not in cache:
        values = _lookup(doc, name)
        cache[name] = anomaly.find([_row(e) for e in values]) if isinstance(values, list) \
            and len(values) == n else {}
    found = cache.get(name, {})
    keep = elide.sample(n, entries, found, cap)
    if len(keep) < n:
        rows = [_row(e) for e in _lookup(doc, name) or []]
        parts = [f"{label}: {n} entries, {len(keep)} shown ({', '.join(spans(keep, prefix='#'))})"]
        if found:
            parts.append(f"{len(found)} anomalous, {len(set(found) & set(keep))} shown")
        if len(rows) == n:
            parts.append("keys: " + " | ".join(f"{c} {anomaly.profile(rows, c)}"
                                               for c in anomaly.columns(rows)))
            ident = anomaly.ident_column(rows)
            gone = ", ".join(rows[k][ident].text for k in range(n) if k not in set(keep)) \
                if ident else ""
            if gone and len(gone) <= 600:
                parts.append(f"not shown ({ident}): {gone}")
        held = plan.note("; ".join(parts))
        for a, b in elide.gaps(keep, n):
            plan.drop(starts[a], ends[b], held)
    for k in keep:
        _section(lines, plan, starts[k] + 1, ends[k], arrays, 10 ** 6, f"{label}#{k}")


_KEY_RE = re.compile(r"^\s*([^=\s#][^=]*?)\s*=")


def _section(lines, plan, start: int, end: int, arrays: int, keys_cap: int, label: str) -> None:
    """Cut long multi-line arrays inside one section, then its key lines beyond ``keys_cap``."""
    i, shown = start, 0
    while i < end:
        line = lines[i]
        if shown >= keys_cap and line.strip() and not line.lstrip().startswith("#"):
            last = end
            while last > i and not lines[last - 1].strip():
                last -= 1
            gone = _keys(lines, i, last)
            names = ", ".join(gone)
            listed = names if len(names) <= 400 else f"{gone[0]} … {gone[-1]}" if gone else ""
            plan.drop(i, last, f"{label}: {shown + len(gone)} keys, {shown} shown"
                      + (f"; not shown: {listed}" if listed else ""))
            return
        depth, j = _depth_change(line), i + 1
        while depth > 0 and j < end:
            depth += _depth_change(lines[j])
            j += 1
        m = _KEY_RE.match(line)
        if j - i > arrays + 2:  # a multi-line array: keep its head and its closing line
            plan.drop(i + 1 + arrays, j - 1, f"{label}.{m.group(1) if m else '?'}: array of "
                      f"{j - 2 - i} lines, {arrays} shown")
        shown += 1 if line.strip() and not line.lstrip().startswith("#") else 0
        i = j


def _keys(lines, start: int, end: int) -> list[str]:
    """The keys set on lines ``start..end-1`` at array depth 0 (one per multi-line value)."""
    out, depth = [], 0
    for line in lines[start:end]:
        if depth == 0:
            m = _KEY_RE.match(line)
            if m:
                out.append(m.group(1))
        depth = max(0, depth + _depth_change(line))
    return out


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The shortened document, or ``None`` (fits the budget, or not TOML we can address)."""
    if not over_budget(list(payload.lines), ctx.budget):
        return None
    text = "\n".join(payload.source)
    if len(text) > params["max_bytes"]:
        return None
    try:
        import tomllib
        doc = tomllib.loads(text)
    except Exception:  # noqa: BLE001 - not TOML (any parse failure, or no tomllib): the graph goes on
        return None
    lines = list(payload.source)
    headers = scan(lines)
    if not headers and not doc or headers is None:
        return None
    if any(_lookup(doc, name) is None for _, name, _ in headers):
        return None
    levels = LEVELS if compressibility(text) <= params["max_ratio"] else LEVELS[:GENTLE]
    cache: dict = {}
    chosen = None
    for k, level in enumerate(levels):
        plan = _plan(lines, headers, doc, level, cache)
        view, origin = elide.assemble(payload, plan, "TOML", ctx.handle)
        fits = not over_budget(view, ctx.budget)
        if (fits or k == len(levels) - 1) and _parses(elide.shown_text(payload, origin)):
            chosen = view, origin
            if fits and plan.heads:
                chosen = _named(payload, lines, headers, doc, level, cache, plan, view, ctx) or chosen
            break
    if chosen is None:
        return None
    out = payload.with_view(*chosen)
    return out if estimate(out.text()) < payload.tokens() else None


NOTE_ROOM = 40
"""Tokens kept free for the longer summary lines of a view that names tables by header."""


def _named(payload, lines, headers, doc, level, cache, plan: _Plan, view, ctx):
    """The view of ``level`` with as many left-out sibling tables as the room left allows named
    by their header lines (bodies dropped, counted), in planning order; ``None`` when none fit."""
    max_lines = ctx.budget.get("max_lines", 1 << 30)
    max_tokens = ctx.budget.get("max_tokens", 1 << 30)
    lines_left = max_lines - len(view) - 1
    tokens_left = max_tokens - estimate("\n".join(view)) - NOTE_ROOM
    n = 0
    for i in plan.heads:
        cost = estimate(lines[i]) + 1
        if cost > tokens_left or lines_left < 1:
            break
        tokens_left, lines_left, n = tokens_left - cost, lines_left - 1, n + 1
    for _ in range(4):  # the notes grow with what they name: shrink until the view fits
        if n <= 0:
            return None
        named, origin = elide.assemble(payload, _plan(lines, headers, doc, level, cache, n), "TOML",
                                       ctx.handle)
        if not over_budget(named, ctx.budget) and _parses(elide.shown_text(payload, origin)):
            return named, origin
        n = n * 3 // 4
    return None


def _parses(text: str) -> bool:
    """True when the shown part of a view is TOML still."""
    import tomllib
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True
