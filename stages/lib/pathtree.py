"""Path lists as a directory tree, and a fair priority order over it.

``find``, ``fd``, ``rg --files``, ``grep -l``, ``git ls-files`` and ``du`` print one path per line.
Under a budget the useful view is the *shape* of the tree: every directory shows its shallowest
entries before any directory shows many. :func:`fair_order` gives that order (a directory's own
line, then its entries round-robin: files first, then the first entry of each subdirectory, then
the second, ...), so keeping its first N entries is a water-fill over the whole tree.
"""

from __future__ import annotations

import re
from itertools import compress, repeat
from operator import contains, is_, itemgetter

from thresher.stages.lib.budget import round_robin

TOOL_MESSAGE_RE = re.compile(r"^(?:find|fd|fdfind|ls|du|rg|grep|tree|git|xargs): ")
"""A tool's own message line mixed into the listing (``find: '/x': Permission denied``)."""


class Node:
    """One directory or file of the listing: its own line (if printed) and its children."""

    __slots__ = ("own", "children", "first", "weight")

    def __init__(self) -> None:
        self.own: int | None = None                 # view index of this entry's own line
        self.children: dict[str, Node] = {}
        self.first = -1                             # first view index in this subtree
        self.weight = 0.0                           # ordering key (du: size), larger first


def split(path: str) -> list[str]:
    """Path components; a trailing slash (``ls -F``, ``fd``) marks a directory, not a component."""
    path = path.rstrip("/") or "/"
    return path.split("/")


def build(entries: list[tuple[int, str]], weights: dict[int, float] | None = None) -> Node:
    """The tree of ``(view index, path)`` entries."""
    root = Node()
    # a listing names a directory's entries one after another: the node of a parent path (its
    # text before the last "/") is remembered, so most paths cost one lookup, not one per part
    parents: dict[str, Node] = {}
    for index, path in entries:
        path = path.rstrip("/") or "/"
        head, sep, name = path.rpartition("/")
        node = parents.get(head) if sep else root
        if node is None:
            node = root
            for part in head.split("/"):
                child = node.children.get(part)
                if child is None:
                    child = node.children[part] = Node()
                    child.first = index
                node = child
            parents[head] = node
        child = node.children.get(name)
        if child is None:
            child = node.children[name] = Node()
            child.first = index
        node = child
        node.own = index
        if weights is not None:
            node.weight = weights.get(index, 0.0)
    return root


def fair_order(node: Node, by_weight: bool = False) -> list[int]:
    """View indices of ``node``'s subtree, best first (see the module docstring)."""
    kids = list(node.children.values())
    files = [c for c in kids if not c.children]
    dirs = [c for c in kids if c.children]
    if by_weight:  # du: the largest entries are the answer
        files.sort(key=lambda c: -c.weight)
        dirs.sort(key=lambda c: -c.weight)
    # a file is a sequence of one: the round-robin takes every file first, then the directories'
    # orders interleaved (so the files need no round-robin of their own)
    head = [node.own] if node.own is not None else []
    return head + [c.own for c in files if c.own is not None] + round_robin(
        [fair_order(c, by_weight) for c in dirs])


def path_order(paths: list[str]) -> list[int]:
    """``fair_order(build(list(enumerate(paths))))`` (the order without weights) as positions in
    ``paths``, the tree held as flat tables instead of a :class:`Node` per path (a 10 MB ``find``
    has 140k paths: the objects cost more time and memory than the order itself).

    A node is a number (0: the root), named in ``ids`` by its path as :func:`split` reads it,
    components joined by "/" (that text is the path itself: no new string per path). Nodes are
    numbered as they are created, so a directory's children in ``kids`` are in the order
    :func:`build` inserts them; a node whose ``kids`` is ``None`` is a file."""
    own = [-1]                    # node -> position of its own line (the last if repeated; -1: none)
    kids: list[list[int] | None] = [None]   # node -> its children in creation order (None: a file)
    ids: dict[str, int] = {}
    for k, path in enumerate(paths):
        path = path.rstrip("/") or "/"
        node = ids.get(path)
        if node is not None:              # printed again, or a directory named after its entries
            own[node] = k
            continue
        head, sep, _ = path.rpartition("/")
        parent = ids.get(head) if sep else 0
        if parent is None:                # its directory not seen yet: create the missing ones
            parent, key = 0, None
            for part in head.split("/"):
                key = part if key is None else f"{key}/{part}"
                node = ids.get(key)
                if node is None:
                    node = ids[key] = len(own)
                    own.append(-1)
                    kids.append(None)
                    _adopt(kids, parent, node)
                parent = node
        node = ids[path] = len(own)
        own.append(k)
        kids.append(None)
        children = kids[parent]           # (inline: the loop's hot path)
        if children is None:
            kids[parent] = [node]
        else:
            children.append(node)
    return _flat_order(0, own, kids)


def _adopt(kids: list[list[int] | None], parent: int, node: int) -> None:
    children = kids[parent]
    if children is None:
        kids[parent] = [node]
    else:
        children.append(node)


def _flat_order(node: int, own: list[int], kids: list[list[int] | None]) -> list[int]:
    """:func:`fair_order` over the tables of :func:`path_order`."""
    children: list[int] = kids[node]  # type: ignore[assignment]
    head = own[node]
    files = [own[c] for c in children if kids[c] is None]
    dirs = [_flat_order(c, own, kids) for c in children if kids[c] is not None]
    return ([] if head < 0 else [head]) + files + round_robin(dirs)


def looks_like_paths(lines: list[str], paths: list[str] | None = None) -> bool:
    """True when every line (tool messages aside: ``paths``, when the caller has them) could be a path.

    Code, prose and ``ls -l`` rows are told apart by runs of spaces, which real file names almost
    never hold; a single name with such a run makes the distiller decline (the safe side).
    """
    if paths is None:
        paths = list(compress(lines, map(is_, map(TOOL_MESSAGE_RE.match, lines), repeat(None))))
    if not paths:
        return False
    # each test over every line at once, in C
    if not all(paths) or max(map(len, paths)) > 4096:
        return False
    if any(map(str.isspace, map(itemgetter(0), paths))) or any(map(str.endswith, paths, repeat(" "))):
        return False
    return not any(map(contains, paths, repeat("\t"))) and not any(map(contains, paths, repeat("  ")))
