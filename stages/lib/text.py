"""Text patterns shared by stages: escape sequences, error and location lines, line skeletons."""

from __future__ import annotations

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache
from thresher.dataflow.rxcache import remembered

from itertools import compress, repeat
from operator import is_not

# escape sequences are the engine's (a filter strips them too): re-exported for the stages
from thresher.dataflow.escapes import ANSI_RE  # noqa: F401 - re-exported

# The error-line definition lives in the engine (the executor's fallback view needs it too).
from thresher.dataflow.errorscan import ERROR_RE, candidate_mask, candidate_masks, candidates, combine, error_candidates, is_error_line, ones  # noqa: F401 - re-exported

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from re import Match
    from typing import Any

LOCATION_RE = re.compile(r"(?:^|[\s(\"'])[\w./\\-]+\.\w{1,8}:\d+(?::\d+)?\b|\bline \d+\b")
"""``file.ext:line[:col]`` and ``line N`` locations."""

NUMBER_RE = re.compile(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{7,}|\d+(?:[.:,]\d+)*")
"""Numbers, hashes and hex: the parts :func:`skeleton` masks."""


def skeleton(line: str) -> str:
    """``line`` with numbers, hashes and hex masked, so that similar lines compare equal."""
    return NUMBER_RE.sub("#", line.strip())


def _starts_at_beginning(items: list[tuple[Any, Any]]) -> bool:
    """True when every way through the parsed pattern ``items`` starts with ``^``."""
    from thresher.dataflow.regex_needles import C as _C  # the parser re.compile uses
    if not items:
        return False
    op, av = items[0]
    if op is _C.AT:
        return av is _C.AT_BEGINNING
    if op is _C.BRANCH:
        return all(_starts_at_beginning(list(b)) for b in av[1])
    if op is _C.SUBPATTERN:
        return _starts_at_beginning(list(av[3]))
    return False


@remembered  # (parsing a pattern costs about what compiling it does: kept across starts)
def anchored(pattern: str) -> bool:
    """True when ``pattern`` can only match at the start of a line (every branch opens with
    ``^``); ``False`` when that cannot be told."""
    from thresher.dataflow.regex_needles import P as _P
    try:
        return _starts_at_beginning(list(_P.parse(pattern)))
    except Exception:  # noqa: BLE001 - unknown parser shape: treat as unanchored (still correct)
        return False


@remembered
def needed_literals(pattern: str) -> "frozenset[str] | None":
    """Case-sensitive literals one of which is in every line ``pattern`` can match (a prefilter:
    a line without any cannot match), or ``None`` when none can be told
    (:func:`thresher.dataflow.regex_needles.needles`)."""
    from thresher.dataflow.regex_needles import needles
    try:
        found = needles(pattern)
    except Exception:  # noqa: BLE001 - unknown parser shape: no prefilter (still correct)
        return None
    return frozenset(found) if found else None


@remembered
def digit_blind(pattern: str) -> bool:
    """True when ``pattern`` cannot tell ASCII digits apart
    (:func:`thresher.dataflow.regex_needles.digit_blind`): it answers the same for a line and its
    digit key (:func:`thresher.dataflow.errorscan.digit_keys`)."""
    from thresher.dataflow.regex_needles import digit_blind as blind
    return blind(pattern)


class LinePatterns:
    """A union of a graph's line patterns, searched faster than ``re.compile("a|b|...")``.

    ``search(line)`` is true exactly when one pattern's ``re.search`` matches the line (a line has
    no newline, so ``^`` means its start). Patterns anchored with ``^`` are joined into one union
    tried at position 0 only (``match``); Python's ``search`` of a mixed union would try every
    branch at every position of the line. :meth:`scan` answers for many lines at once: the other
    patterns are searched only on lines that hold one of the literals they need
    (:func:`needed_literals`), found by one ``str.find`` pass per literal over the whole text.
    """

    __slots__ = ("_start", "_any", "_each", "_bare_start", "_rest")

    def __init__(self, patterns: "list[str] | tuple[str, ...]") -> None:
        start = [p for p in patterns if anchored(p)]
        rest = [p for p in patterns if p not in start]
        self._start = _union(start, "match")
        self._any = _union(rest, "search")
        # for scan: each pattern with the literals it needs alone (an anchored one tried at
        # position 0 only), the others as one union of each kind
        needs = {p: needed_literals(p) for p in patterns}
        self._each = tuple((getattr(re.compile(p), "match" if p in start else "search"), tuple(sorted(n)))
                           for p, n in needs.items() if n)
        self._bare_start = _union([p for p in start if not needs[p]], "match")
        self._rest = _union([p for p in rest if not needs[p]], "search")

    def search(self, line: str) -> bool:
        return (self._start is not None and self._start(line) is not None) or \
            (self._any is not None and self._any(line) is not None)

    def scan(self, lines: "list[str] | tuple[str, ...]") -> list[bool]:
        """``[self.search(line) for line in lines]``, in fewer regex searches (:meth:`mask`)."""
        return [b == 1 for b in self.mask(lines)]

    def mask(self, lines: "list[str] | tuple[str, ...]") -> bytearray:
        """:meth:`scan` as one byte per line (1: a hit): a pattern that needs literals is searched
        only on the lines holding one (one ``str.find`` pass per literal) and not already hit;
        the searches run in C (``map``), Python only touches the hits."""
        n = len(lines)
        hits = bytearray(n)
        for search in (self._bare_start, self._rest):
            if search is not None:
                _searched(search, lines, range(n), hits)
        masks = candidate_masks(lines, [(lits, "", False) for _search, lits in self._each])
        for (search, _lits), cands in zip(self._each, masks):
            if cands is None:   # any line may match
                todo: "range | list[int]" = range(n)
            else:   # the candidates not yet hit: (cands AND NOT hits), byte-wise, as big integers
                todo = list(ones(combine(cands, hits, keep_b=False)))
            _searched(search, lines, todo, hits)
        return hits


def _searched(search: "Callable[[str], Match[str] | None]", lines: "list[str] | tuple[str, ...]",
              todo: "range | list[int]", hits: bytearray) -> None:
    """Set ``hits[i]`` for each ``i`` of ``todo`` whose line ``search`` matches."""
    found = map(is_not, map(search, map(lines.__getitem__, todo)), repeat(None))
    for i in compress(todo, found):
        hits[i] = 1


def _union(patterns: list[str], method: str) -> Callable[[str], Match[str] | None] | None:
    """The ``match``/``search`` method of one pattern joining ``patterns``; ``None`` when empty."""
    return getattr(re.compile("|".join(f"(?:{p})" for p in patterns)), method) if patterns else None


def spans(indices: Iterable[int], shift: int = 0, prefix: str = "") -> list[str]:
    """Sorted ``indices`` as runs: ``["#0-#47", "#120"]`` (``prefix="#"``), or with ``shift=1``
    ``["1-48", "121"]``."""
    from more_itertools import consecutive_groups
    out = []
    for group in consecutive_groups(indices):
        run = list(group)
        first, last = f"{prefix}{run[0] + shift}", f"{prefix}{run[-1] + shift}"
        out.append(first if len(run) == 1 else f"{first}-{last}")
    return out
