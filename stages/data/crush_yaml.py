"""crush-yaml: a YAML document over budget, shortened by dropping whole line ranges.

Kept lines are byte-exact source lines (comments and quoting as written), and only they make the
document part of the view, so that it parses as YAML (checked; a level whose sample does not parse,
say an anchor left out while an alias is kept, is not used). What was dropped is said once above
the document, by path, with exact counts and source line ranges (``elide.assemble``):
- long block sequences: the first items, the last, and *every anomalous item* (``anomaly.py``:
  an item missing a key the others have, a rare key, a status that differs, an outlier), with a
  schema line for a sequence of mappings (keys, kinds, counts, values);
- long block mappings: the first keys and the last, the names of the others listed;
- long block scalars (``|``/``>`` text): the first lines.
Levels go from gentle to aggressive; the first that fits the budget wins (deterministic). On
incompressible input only the gentle levels run. Declines on input PyYAML cannot compose.
"""

from __future__ import annotations

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

# depth shown (deeper collections fold into one counted line), items per sequence, keys per
# mapping, lines per text block, anomalies per sequence. Nodes at depth 0-1 get four times the
# items and keys: the top of a document is its table of contents.
LEVELS = ((99, 50, 80, 60, 60), (99, 20, 40, 30, 40), (8, 20, 40, 20, 40), (6, 10, 25, 15, 30),
          (5, 10, 25, 10, 30), (4, 6, 15, 8, 20), (3, 6, 15, 5, 20), (3, 3, 10, 3, 12),
          (2, 3, 10, 3, 12), (2, 2, 6, 2, 8), (1, 1, 4, 2, 5))
GENTLE = 2


def _end(node, col: int) -> int:
    """Exclusive end line of ``node`` (a block collection ends where a less indented token starts)."""
    m = node.end_mark
    return m.line if m.column <= col else m.line + 1


def _cell(node) -> anomaly.Cell:
    import yaml
    if isinstance(node, yaml.MappingNode):
        return anomaly.Cell("obj", "{}")
    if isinstance(node, yaml.SequenceNode):
        return anomaly.Cell("arr", "[]")
    if not node.style:  # plain scalar (None, or "" from the C loader): the text says its kind
        return anomaly.text_cell(node.value)
    return anomaly.Cell("str" if node.value else "empty", node.value)


def _row(node) -> dict:
    import yaml
    row = {}
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            row[k.value] = _cell(v)
            if isinstance(v, yaml.MappingNode):
                for k2, v2 in v.value:
                    row[f"{k.value}.{k2.value}"] = _cell(v2)
    else:
        row["value"] = _cell(node)
    return row


def _key(path: str, key: str) -> str:
    """``path`` extended by mapping key ``key`` (jq-like: ``.jobs.test``, ``.paths["/pets"]``)."""
    return f"{'' if path == '.' else path}.{key}" if key.replace("-", "_").isidentifier() \
        else f"{path}[{key!r}]".replace("'", '"')


def _names(names: list[str], limit: int = 240) -> str:
    text = ", ".join(names)
    return text if len(text) <= limit else f"{names[0]} … {names[-1]}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


class Walker:
    """Plans the drops of one level over the composed documents; each drop is noted by path."""

    def __init__(self, lines: list[str], level: tuple, cache: dict) -> None:
        self.lines = lines
        self.depth, self.items, self.keys, self.block, self.anomalies = level
        self.cache = cache
        self.plan = elide.Plan()
        self.seen: set[int] = set()

    def node(self, node, depth: int, path: str = ".") -> None:
        """Plan ``node`` (at ``path``) and, recursively, the members it keeps; a node met again
        through an alias (``*b``) was planned at its anchor."""
        import yaml
        if id(node) in self.seen:
            return
        self.seen.add(id(node))
        if isinstance(node, yaml.SequenceNode) and not node.flow_style:
            self.sequence(node, depth, path)
        elif isinstance(node, yaml.MappingNode) and not node.flow_style:
            self.mapping(node, depth, path)
        elif isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            self.text(node, path)

    def member(self, node, first: int, end: int, depth: int, path: str) -> None:
        """Plan a kept member spanning lines ``first..end-1``: fold it below its first line when
        it is a collection at the depth limit, else descend."""
        import yaml
        end = self.content_end(first, end)
        if depth < self.depth or not isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) \
                or node.flow_style or end - first <= 2:
            self.node(node, depth, path)
            return
        if isinstance(node, yaml.MappingNode):
            names = [k.value for k, _ in node.value if k.start_mark.line > first]
            what = f"{_plural(len(node.value), 'key')} not shown: {_names(names)}"
        else:
            what = f"{_plural(len(node.value), 'item')} not shown"
        self.plan.drop(first + 1, end, f"{path}: {what}")

    def content_end(self, start: int, end: int) -> int:
        """``end`` moved up past trailing blank and comment lines (they introduce what follows)."""
        while end > start + 1 and (not self.lines[end - 1].strip()
                                   or self.lines[end - 1].lstrip().startswith("#")):
            end -= 1
        return end

    def _starts(self, items) -> list[int]:
        starts = []
        for item in items:
            line = item.start_mark.line
            if not self.lines[line].lstrip().startswith("-") and line and \
                    self.lines[line - 1].strip() == "-":
                line -= 1  # "-" alone on its line, the item below it
            starts.append(line)
        return starts

    def sequence(self, node, depth: int, path: str) -> None:
        import yaml
        items = node.value
        n = len(items)
        if not n:
            return
        starts = self._starts(items)
        if len(set(starts)) != n:  # several items on one line: not line-addressable
            return
        cap = self.items * (4 if depth <= 1 else 1)
        found = {}
        if n > cap + 1:
            if id(node) not in self.cache:
                self.cache[id(node)] = anomaly.find([_row(i) for i in items])
            found = self.cache[id(node)]
        keep = elide.sample(n, cap, found, self.anomalies)
        ends = starts[1:] + [self.content_end(starts[-1], _end(items[-1], items[-1].start_mark.column))]
        if len(keep) < n:
            rows = [_row(i) for i in items]
            parts = [f"{path}[]: {n} items, {len(keep)} shown ({', '.join(spans(keep, prefix='#'))})"]
            if found:
                parts.append(f"{len(found)} anomalous, {len(set(found) & set(keep))} shown")
            if all(isinstance(i, yaml.MappingNode) for i in items):
                cols = [c for c in anomaly.columns(rows) if "." not in c]
                parts.append("keys: " + " | ".join(f"{c} {anomaly.profile(rows, c)}" for c in cols))
                ident = anomaly.ident_column(rows)
                gone = [i for i in range(n) if i not in set(keep)]
                listed = ", ".join(rows[i][ident].text for i in gone) if ident else ""
                if listed and len(listed) <= 400:
                    parts.append(f"not shown ({ident}): {listed}")
            held = self.plan.note("; ".join(parts))
            for a, b in elide.gaps(keep, n):
                self.plan.drop(starts[a], ends[b], held)
        for i in keep:
            self.member(items[i], starts[i], ends[i], depth + 1, f"{path}[{i}]")

    def mapping(self, node, depth: int, path: str) -> None:
        pairs = node.value
        n = len(pairs)
        if not n:
            return
        starts = [k.start_mark.line for k, _ in pairs]
        if len(set(starts)) != n:
            return
        keep = elide.sample(n, self.keys * (4 if depth <= 1 else 1), {}, 0)
        last_k, last_v = pairs[-1]
        ends = starts[1:] + [self.content_end(starts[-1], _end(last_v, last_k.start_mark.column))]
        if len(keep) < n:
            gone = [pairs[i][0].value for i in range(n) if i not in set(keep)]
            held = self.plan.note(f"{path}: {n} keys, {len(keep)} shown; not shown: {_names(gone, 400)}")
            for a, b in elide.gaps(keep, n):
                self.plan.drop(starts[a], ends[b], held)
        for i in keep:
            self.member(pairs[i][1], starts[i], ends[i], depth + 1, _key(path, pairs[i][0].value))

    def text(self, node, path: str) -> None:
        first = node.start_mark.line + 1  # the line after the `|` / `>` indicator
        end = _end(node, 0)
        while end > first and not self.lines[end - 1].strip():
            end -= 1
        if end - first > self.block + 1:
            self.plan.drop(first + self.block, end, f"{path}: text of {end - first} lines, "
                           f"{self.block} shown")



def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The shortened document, or ``None`` (fits the budget, or not composable YAML)."""
    if not over_budget(list(payload.lines), ctx.budget):
        return None
    text = "\n".join(payload.source)
    if len(text) > params["max_bytes"]:
        return None
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = [d for d in yaml.compose_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError:
        return None
    if not docs or all(isinstance(d, yaml.ScalarNode) for d in docs):
        return None
    lines = list(payload.source)
    levels = LEVELS if compressibility(text) <= params["max_ratio"] else LEVELS[:GENTLE]
    cache: dict = {}
    chosen = None
    for k, level in enumerate(levels):
        walker = Walker(lines, level, cache)
        for doc in docs:
            walker.node(doc, 0)
        view, origin = elide.assemble(payload, walker.plan, "YAML", ctx.handle)
        if (not over_budget(view, ctx.budget) or k == len(levels) - 1) \
                and _parses(elide.shown_text(payload, origin), loader):
            chosen = view, origin
            break
    if chosen is None:
        return None
    out = payload.with_view(*chosen)
    return out if estimate(out.text()) < payload.tokens() else None


def _parses(text: str, loader) -> bool:
    """True when the shown part of a view is YAML still (aliases need their anchors)."""
    import yaml
    try:
        for _ in yaml.compose_all(text, Loader=loader):
            pass
    except yaml.YAMLError:
        return False
    return True
