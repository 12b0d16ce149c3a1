"""crush-toml: a TOML document over budget, shortened by dropping whole line ranges.

Kept lines are byte-exact (comments as written); each dropped range is one line with the exact
count:
- arrays of tables (``[[package]]`` of a lock file, ``[[bin]]``): the first entries, the last,
  and *every anomalous entry* (``anomaly.py``: a missing or rare key, a differing source or
  status, an outlier), with a schema line (keys, kinds, counts, values); an entry's sub-tables
  (``[package.dependencies]``) go with it;
- long multi-line arrays (``dependencies = [`` … ``]``): the first lines and the closing one;
- long sections: the first key lines.
Table headers are found by a line scan that skips multi-line strings and arrays, and are checked
against ``tomllib``'s parse of the same text: any disagreement declines. Levels go from gentle to
aggressive; the first that fits the budget wins (deterministic).
"""

from __future__ import annotations

import re

from thresher.dataflow.tokens import estimate

from . import anomaly, elide
from .lossless import compressibility
from .distill_common import over_budget

HEADER_RE = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_\-.\"' ]+?)\s*\]\]?\s*(?:#.*)?$")
# entries per array of tables, lines per multi-line array, key lines per section, anomalies
LEVELS = ((50, 40, 80, 60), (20, 20, 40, 40), (10, 10, 25, 30), (6, 6, 15, 20), (3, 4, 10, 12),
          (2, 3, 6, 8), (1, 2, 4, 5))
GENTLE = 2


def _depth_change(line: str) -> int:
    """Net ``[`` minus ``]`` outside quoted strings and comments (for multi-line arrays)."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', "", line).split("#", 1)[0]
    return line.count("[") - line.count("]")


def scan(lines: list[str]) -> list[tuple[int, str, bool]] | None:
    """``(line, dotted name, is_array)`` of every table header; ``None`` when unsure."""
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
                name = ".".join(p.strip().strip("\"'") for p in m.group(2).split("."))
                out.append((i, name, m.group(1) == "[["))
                continue
        depth = max(0, depth + _depth_change(line)) if in_str is None else depth
    return out


def _lookup(doc, name: str):
    """The value at dotted ``name``; through an array of tables, in any of its entries."""
    nodes = [doc]
    for part in name.split("."):
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


def _plan(lines, headers, doc, level, cache) -> elide.Plan:
    """The drops of one level."""
    entries, arrays, keys_cap, cap = level
    plan = elide.Plan()
    bounds = [h[0] for h in headers] + [len(lines)]
    i = 0
    while i < len(headers):
        start, name, is_array = headers[i]
        if not is_array:
            _section(lines, plan, start + 1, bounds[i + 1], arrays, keys_cap)
            i += 1
            continue
        group = [i]  # the entries of this array of tables, each with its sub-tables
        j = i + 1
        while j < len(headers) and (headers[j][1] == name or headers[j][1].startswith(name + ".")):
            if headers[j][1] == name and headers[j][2]:
                group.append(j)
            j += 1
        starts = [headers[g][0] for g in group]
        ends = starts[1:] + [bounds[j]]
        n = len(group)
        if n > entries + 1 and name not in cache:
            values = _lookup(doc, name)
            cache[name] = anomaly.find([_row(e) for e in values]) if isinstance(values, list) \
                and len(values) == n else {}
        keep = elide.sample(n, entries, cache.get(name, {}), cap)
        rows = [_row(e) for e in _lookup(doc, name) or []] if len(keep) < n else []
        if len(rows) != n:
            rows = []
        ident = anomaly.ident_column(rows)
        if rows:
            parts = " | ".join(f"{c} {anomaly.profile(rows, c)}" for c in anomaly.columns(rows))
            plan.insert(starts[0], f"[thresher: {n} [[{name}]] entries; keys: {parts}]")
        for a, b in elide.gaps(keep, n):
            what = f"#{a}" if a == b else f"#{a}-#{b}"
            plan.drop(starts[a], ends[b], f"[thresher: {b - a + 1} more [[{name}]] "
                      f"entr{'ies' if b > a else 'y'} not shown ({what})"
                      f"{anomaly.listing(rows, ident, a, b)}]")
        for k in keep:
            _section(lines, plan, starts[k] + 1, ends[k], arrays, 10 ** 6)
        i = j
    first = bounds[0] if headers else len(lines)
    _section(lines, plan, 0, first, arrays, keys_cap)
    return plan


def _section(lines, plan, start: int, end: int, arrays: int, keys_cap: int) -> None:
    """Cut long multi-line arrays inside one section, then its key lines beyond ``keys_cap``."""
    i, shown = start, 0
    while i < end:
        line = lines[i]
        if shown >= keys_cap and line.strip() and not line.lstrip().startswith("#"):
            last = end
            while last > i and not lines[last - 1].strip():
                last -= 1
            plan.drop(i, last, f"[thresher: {last - i} more lines of this table not shown]")
            return
        depth, j = _depth_change(line), i + 1
        while depth > 0 and j < end:
            depth += _depth_change(lines[j])
            j += 1
        if j - i > arrays + 2:  # a multi-line array: keep its head and its closing line
            ind = elide.indent_of(lines[i + 1])
            plan.drop(i + 1 + arrays, j - 1, f"{ind}[thresher: {j - 2 - i - arrays} more lines of "
                      "this array not shown]")
        shown += 1 if line.strip() and not line.lstrip().startswith("#") else 0
        i = j



def run(payload, params, ctx):
    """The shortened document, or ``None`` (fits the budget, or not TOML we can address)."""
    if not over_budget(list(payload.lines), ctx.budget):
        return None
    text = "\n".join(payload.source)
    if len(text) > params["max_bytes"]:
        return None
    try:
        import tomllib
        doc = tomllib.loads(text)
    except Exception:  # not TOML (or no tomllib before Python 3.11): let the graph go on
        return None
    lines = list(payload.source)
    headers = scan(lines)
    if not headers and not doc or headers is None:
        return None
    if any(_lookup(doc, name) is None for _, name, _ in headers):
        return None
    levels = LEVELS if compressibility(text) <= params["max_ratio"] else LEVELS[:GENTLE]
    cache: dict = {}
    for level in levels:
        view, origin = elide.assemble(payload, _plan(lines, headers, doc, level, cache))
        if not over_budget(view, ctx.budget):
            break
    out = payload.with_view(view, origin)
    return out if estimate(out.text()) < payload.tokens() else None
