"""listing: ls, find, fd, tree, du, git ls-files — rows byte-exact, shrunk only over budget.

The rows are the answer, so nothing goes while the listing fits the graph's budget. Over it:
- ``find`` / ``fd`` / ``ls -1`` / ``git ls-files`` paths and ``tree`` drawings keep the shallowest
  entries of every directory first (a water-fill over the tree: each directory shows its own line,
  its files, then the first entry of each subdirectory, ...), with one line counting what went;
- ``du`` keeps the largest entries of every directory first;
- ``ls -l`` (and ``ls -R`` sections) keep ``total`` lines and section headers, directory rows
  first, then rows in order, round-robin across sections, one counted line per cut section;
  plain ``ls -R`` (names only, ``dir:`` headers) the same way, so no row is ever shown without
  the header of the directory it is in.
Ahead of those orders (not for ``tree``, whose rows need their parents): the first, quarter, middle
and last rows and the rows naming trouble (``error``, ``fatal``...), so a cut listing keeps rows
from its whole length. Tool messages (``find: '/x': Permission denied``) always stay. Anything else is declined.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import attrgetter, is_, mul, not_

from thresher.dataflow.tokens import estimate

from thresher.stages.lib import budget
from thresher.stages.lib.budget import Group, Unit, plural
from thresher.stages.lib.pathtree import TOOL_MESSAGE_RE, Node, build, fair_order, looks_like_paths, path_order
from thresher.stages.lib.text import candidate_mask, combine

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload, Out

LS_ROW_RE = re.compile(r"^[-dlcbpsDnC?][-rwxsStTlL]{9}[.+@]?\s+\d+\s")
TOTAL_RE = re.compile(r"^total \d+(?:[.,]\d+)?[KMGTPE]?$")
SECTION_RE = re.compile(r"^\S.*:$")
TREE_RE = re.compile(r"^((?:[│|][\s\xa0]{3}|[\s\xa0]{4})*)(?:[├└](?:──)|[|`]--)[\s\xa0](.*)$")
TREE_REPORT_RE = re.compile(r"^\d+ director(?:y|ies)(?:, \d+ files?)?$")
LS_NAME_RE = re.compile(r"\s(?:[A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{4}|\d{1,2}:\d\d)|\d{4}-\d\d-\d\d"
                        r"(?:\s\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:\s[+-]\d{4})?)?)\s(.+)$")
"""The name field of an ``ls -l`` row: what follows the date (default, long-iso or full-iso)."""
DU_RE = re.compile(r"^(?P<size>\d+(?:[.,]\d+)?)(?P<unit>[KMGTPE]?)i?B?\t(?P<path>.+)$")
_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40, "P": 2 ** 50, "E": 2 ** 60}


def _shallow_summary(total: int, what: str, nested: bool = True):
    why = "; the shallowest entries of every directory are kept first" if nested else ""
    return lambda d: f"[thresher: {len(d)} of {total} {what} not shown{why}]"


def _tree_nodes(lines: list[str]) -> tuple[Node, set[int]] | None:
    """The drawing of ``tree`` as nodes (by indentation), and its mandatory lines; or ``None``."""
    root, mandatory = Node(), set()
    stack: list[Node] = [root]
    for i, line in enumerate(lines):
        m = TREE_RE.match(line)
        if m is None:
            if not line or TREE_REPORT_RE.match(line) or TOOL_MESSAGE_RE.match(line):
                mandatory.add(i)
                continue
            if line[0].isspace():
                return None  # a continuation or wrapped line: not a drawing we understand
            node = Node()    # a root line (``.`` or a path); its entries follow
            node.own = i
            root.children[str(i)] = node
            stack = [root, node]
            continue
        depth = len(m.group(1)) // 4 + 1
        if depth >= len(stack):
            return None
        node = Node()
        node.own = i
        stack[depth].children[str(i)] = node
        del stack[depth + 1:]
        stack.append(node)
    if not any(TREE_REPORT_RE.match(lines[i]) for i in mandatory) and not root.children:
        return None
    return root, mandatory


def tree_view(payload, ctx):
    """``tree`` output water-filled by depth."""
    lines = list(payload.lines)
    parsed = _tree_nodes(lines)
    if parsed is None or not any(TREE_RE.match(s) for s in lines):
        return None
    root, mandatory = parsed
    order = [i for i in fair_order(root) if i not in mandatory]
    group = Group(-1, _shallow_summary(len(order), "entries"))
    # prefix: a drawn entry without its parent's line would sit under the wrong directory
    return budget.distill(payload, ctx, mandatory, [Unit([i], group) for i in order], prefix=True)


def paths_view(payload, ctx, du: bool = False):
    """``find``-style path lists (or ``du`` rows, largest first) water-filled by depth."""
    if not du:
        return _find_view(payload, ctx)
    lines = list(payload.lines)
    entries, weights = [], {}
    for i, s in enumerate(lines):
        if ": " in s and TOOL_MESSAGE_RE.match(s):   # (a tool's message holds ": ")
            continue
        m = DU_RE.match(s)
        if m is None:
            return None
        weights[i] = float(m["size"].replace(",", ".")) * _UNITS[m["unit"]]
        entries.append((i, m["path"]))
    if not entries:
        return None
    order = fair_order(build(entries, weights), by_weight=True)
    mandatory = set(range(len(lines))) - set(order)
    nested = any("/" in p.rstrip("/") for _, p in entries)
    group = Group(-1, _shallow_summary(len(order), "paths" if nested else "entries", nested))
    return budget.distill(payload, ctx, mandatory, _spread([Unit([i], group) for i in order], lines, ctx))


def _find_view(payload, ctx):
    """:func:`paths_view` of a path list (not ``du``): the same view, built for 100k-line inputs
    (a 10 MB ``find``): the order comes from :func:`path_order` (no node objects), every step
    over all rows is a C-level ``map``/``compress``, and each unit carries the text its trouble
    test reads (see :func:`_spread`)."""
    lines = list(payload.lines)
    is_row = list(map(is_, map(TOOL_MESSAGE_RE.match, lines), repeat(None)))  # not a tool's message
    paths = list(compress(lines, is_row))
    if not paths or not looks_like_paths(lines, paths):
        return None
    at = list(compress(range(len(lines)), is_row))          # path k is view line at[k]
    order = path_order(paths)
    mandatory = set(compress(range(len(lines)), map(not_, is_row)))
    if len(order) < len(paths):   # a repeated path: only its last line is in the order
        mandatory.update(set(at).difference(map(at.__getitem__, order)))
    nested = any("/" in p.rstrip("/") for p in paths)
    group = Group(-1, _shallow_summary(len(order), "paths" if nested else "entries", nested))
    maybe = _trouble_mask(lines)
    # the text of each row's trouble test: the row, or "" when it cannot name trouble (str * 0)
    texts = paths if maybe is None else list(map(mul, paths, compress(maybe, is_row)))
    # the units made in priority order, the order every later pass walks them in (made in line
    # order and then permuted, the passes hop through memory: select took twice as long);
    # zip gives each line index as a 1-tuple
    units = list(map(Unit, zip(map(at.__getitem__, order)), repeat(group), map(texts.__getitem__, order)))
    rows = list(map(units.__getitem__, sorted(range(len(order)), key=order.__getitem__)))  # line order
    return budget.distill(payload, ctx, mandatory, _spread(units, lines, ctx, rows, _INFO))


_INFO = attrgetter("info")


def ls_name(row: str) -> str:
    """The entry name of an ``ls -l`` row (a symlink without its target), quoted as GNU ls
    quotes a name with a space in it; the last field when the date is not one we know."""
    m = LS_NAME_RE.search(row)
    name = m.group(1) if m else row.rsplit(" ", 1)[-1]
    if row[0] == "l" and " -> " in name:
        name = name.split(" -> ", 1)[0]
    return f"'{name}'" if " " in name and not name.startswith(("'", '"')) else name


def names_summary(lines, where: str, cap: int):
    """The counted line for dropped ``ls -l`` rows that still names them: the rows are the
    answer, so a row that does not fit keeps its name, in order, while the names take at most
    ``cap`` tokens (the line then counts the rows it does not name)."""
    def render(dropped) -> str:
        names, cost = [], 0
        for u in dropped:
            name = ls_name(lines[u.lines[0]])
            cost += estimate(name) + 1
            if cost > cap:
                break
            names.append(name)
        rest = len(dropped) - len(names)
        tail = f"; {rest} more not named" if rest else ""
        return (f"[thresher: {plural(len(dropped), 'more entry', 'more entries')}{where} shown by "
                f"name only: {' '.join(names)}{tail}]")
    return render


def _ls_sections(lines: list[str], plain: bool = False) -> list[tuple[int, list[int]]] | None:
    """``ls -l`` / ``ls -R`` as (header index or -1, row indices) sections; ``None`` if not ls.

    ``plain``: names-only ``ls -R``, where every line that is not a header is a row."""
    sections: list[tuple[int, list[int]]] = [(-1, [])]
    for i, line in enumerate(lines):
        if SECTION_RE.match(line) and (i == 0 or not lines[i - 1]):
            sections.append((i, []))
        elif LS_ROW_RE.match(line) or (plain and line and not TOOL_MESSAGE_RE.match(line)):
            sections[-1][1].append(i)
        elif not (not line or TOTAL_RE.match(line) or TOOL_MESSAGE_RE.match(line)):
            return None
    sections = [s for s in sections if s[1]]
    return sections or None


def _plain_recursive(lines) -> bool:
    """Names-only ``ls -R``: starts with a ``dir:`` header and has a second one after a blank."""
    return bool(lines) and SECTION_RE.match(lines[0]) is not None and any(
        SECTION_RE.match(lines[i]) and not lines[i - 1] for i in range(1, len(lines)))


def ls_view(payload, params, ctx):
    """``ls -l`` rows: directories first, then in order; round-robin across ``-R`` sections, each
    keeping its header and ``total`` line, unless those alone would take half the view: then
    :func:`sections_view`."""
    lines = list(payload.lines)
    sections = _ls_sections(lines)
    if sections is None:
        return None
    seqs, rows = [], set()
    cap = 2 * budget.room(ctx)[1] // (3 * len(sections))   # names take at most 2/3 of the view
    for head, idx in sections:
        rows.update(idx)
        name = lines[head][:-1] if head >= 0 else ""
        where = f" in {name}" if name else ""
        group = Group(idx[-1], names_summary(lines, where, cap))

        def rank(i: int) -> tuple:
            name_part = lines[i].rsplit(" ", 1)[-1]
            dots = name_part in (".", "..")
            is_dir = params["dirs_first"] and lines[i][0] == "d"
            return (dots, not is_dir, i)
        seqs.append([Unit([i], group) for i in sorted(idx, key=rank)])
    mandatory = set(range(len(lines))) - rows
    if len(sections) > 1 and sections[0][0] >= 0 and 2 * (len(mandatory) + len(sections)) > budget.room(ctx)[0]:
        return sections_view(payload, ctx, sections, rank)   # the headers alone would fill the view
    return budget.distill(payload, ctx, mandatory, _spread(budget.round_robin(seqs), lines, ctx))


def _spread(order: list[Unit], lines: list[str], ctx, rows: list[Unit] | None = None,
            text: "Callable[[Unit], str] | None" = None) -> list[Unit]:
    """``order`` led by the first, middle and last rows and those naming trouble (see
    :func:`budget.spread`): a cut listing keeps rows from its whole length, not only its head.

    ``rows``: ``order`` in line order, when known; ``text``: each unit's text for the trouble
    test, when its units carry it (else the line, or "" where :func:`_trouble_mask` rules it out)."""
    if rows is None:
        rows = sorted(order, key=lambda u: u.lines[0])
    if text is None:
        maybe = _trouble_mask(lines)
        text = lambda u: lines[u.lines[0]] if maybe is None or maybe[u.lines[0]] else ""  # noqa: E731
    return budget.spread(order, rows, text, budget.room(ctx)[0] // 4)


def _trouble_mask(lines: list[str]) -> "bytes | bytearray | None":
    """1 for each line that may name trouble, 0 where it cannot; ``None``: search every line.

    NAMES_TROUBLE_RE needs one of these stems in an ASCII line once lower-cased (a non-ASCII line
    may match through case folding: always searched); one find pass per stem spares the search
    on every other row (an empty text matches nothing)."""
    maybe: "bytes | bytearray | None" = candidate_mask(lines, _TROUBLE_STEMS)
    if maybe is not None:
        maybe = combine(maybe, bytes(map(not_, map(str.isascii, lines))))
    return maybe


_TROUBLE_STEMS = ("error", "fatal", "warning", "crit", "emerg", "exception", "traceback")
"""Every word :data:`budget.NAMES_TROUBLE_RE` matches holds one of these (tests/test_distill_listing.py)."""


def sections_view(payload, ctx, sections, rank=None):
    """``ls -R`` / ``ls -lR`` / ``ls dir1 dir2``: the first directory's rows one by one (in ``rank``
    order), interleaved with whole listings of the other directories, shallowest first, so a row
    never shows without its directory's header and the headers alone never fill the budget."""
    lines = list(payload.lines)
    (head, idx), rest = sections[0], sections[1:]
    name = lines[head][:-1] if head >= 0 else ""
    first = Group(idx[-1], names_summary(lines, f" in {name}" if name else "", budget.room(ctx)[1] // 4)
                  if LS_ROW_RE.match(lines[idx[0]]) else
                  lambda d: f"[thresher: {plural(len(d), 'more entry', 'more entries')}"
                            f"{f' in {name}' if name else ''} not shown]")
    whole = Group(len(lines) - 1, lambda d: (
        f"[thresher: {len(d)} of {len(rest)} directory listings not shown "
        f"({plural(sum(u.info for u in d), 'entry', 'entries')}); the shallowest are kept first]"))
    units = []
    for h, rows in sorted(rest, key=lambda s: (lines[s[0]].count("/"), s[0])):
        start = h - 1 if h > 0 and not lines[h - 1] else h
        units.append(Unit(range(start, rows[-1] + 1), whole, info=len(rows)))
    covered = set(idx).union(*(u.lines for u in units))
    mandatory = set(range(len(lines))) - covered
    order = budget.round_robin([[Unit([i], first) for i in sorted(idx, key=rank)], units])
    return budget.distill(payload, ctx, mandatory, order)


def _distill(payload, params, ctx):
    """The budgeted listing, or ``None`` (fits already, or a shape this does not know)."""
    if budget.over_budget_costs(payload, ctx) is None:
        return None
    lines = payload.lines
    if any(TREE_RE.match(s) for s in lines[:50]):
        return tree_view(payload, ctx)
    if any(LS_ROW_RE.match(s) for s in lines[:50]):
        return ls_view(payload, params, ctx)
    if _plain_recursive(lines):
        sections = _ls_sections(list(lines), plain=True)
        return sections_view(payload, ctx, sections) if sections and len(sections) > 1 else None
    if DU_RE.match(lines[0]) or (len(lines) > 1 and DU_RE.match(lines[1])):
        return paths_view(payload, ctx, du=True)
    return paths_view(payload, ctx)


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
    """The budgeted listing, or ``None`` (fits already, or a shape this does not know)."""
    return budget.done(_distill(payload, params, ctx))
