"""Literal prefilters for regexes: the substrings of which every match must contain at least one.

``needles(r"(?:^|\\s)(?:env|printenv)(?:\\s|$)")`` is ``["env", "printenv"]`` (or a shorter set
that still bounds it): a text holding none of them cannot match, so the regex need not be compiled
or run for it. The classify table is searched on every command and most commands match few of its
~50 rules, so checking needles first (``str.__contains__``) keeps ``re`` out of a start-up that
has no rule to run. Computed once, in the control plane, from the parsed pattern; ``None`` when
no literal is required (``\\A\\s*[\\[{]``) or the pattern ignores case (the check must be exact).
"""

from __future__ import annotations

from re import _constants as C  # type: ignore[attr-defined]  # noqa: N812 - the sre opcodes (no stubs)
from re import _parser as P  # type: ignore[attr-defined]  # noqa: N812 - sre_parse (deprecated alias)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

_REPEATS = tuple(getattr(C, n) for n in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(C, n))
_ZERO_WIDTH = (C.AT,)


def needles(pattern: str, flags: int = 0) -> list[str] | None:
    """Sorted substrings one of which every match of ``pattern`` contains, or ``None``."""
    parsed = P.parse(pattern, flags)
    if parsed.state.flags & C.SRE_FLAG_IGNORECASE:
        return None
    found = _seq(list(parsed))
    return sorted(found) if found else None


def _score(found: frozenset[str]) -> tuple[int, int]:
    """Better needles are longer (fewer chance hits) and fewer (fewer ``in`` checks)."""
    return min(map(len, found)), -len(found)


def _seq(items: list) -> frozenset[str] | None:
    """Needles of a sequence: its best required literal run or required sub-item."""
    best: frozenset[str] | None = None
    run = ""

    def offer(cand: frozenset[str] | None) -> None:
        nonlocal best
        if cand and all(cand) and (best is None or _score(cand) > _score(best)):
            best = cand

    for op, av in items:
        if op is C.LITERAL:
            run += chr(av)
            continue
        if op in _ZERO_WIDTH:
            continue  # an anchor between two literals leaves them adjacent in the text
        offer(frozenset([run]) if run else None)
        run = ""
        offer(_item(op, av))
    offer(frozenset([run]) if run else None)
    return best


def _item(op: Any, av: Any) -> frozenset[str] | None:
    """Needles one match of a single (non-literal) item must contain, or ``None``."""
    if op is C.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        return None if add_flags & C.SRE_FLAG_IGNORECASE else _seq(list(sub))
    if op is getattr(C, "ATOMIC_GROUP", None):
        return _seq(list(av))
    if op is C.BRANCH:
        union: set[str] = set()
        for alt in av[1]:
            found = _seq(list(alt))
            if not found:
                return None  # one way to match without any literal
            union |= found
        return frozenset(union)
    if op in _REPEATS:
        low, _high, sub = av
        return _seq(list(sub)) if low >= 1 else None
    return None  # classes, any, lookarounds, back-references: no literal required


# --- digit blindness -------------------------------------------------------------------------

_DIGITS = range(ord("0"), ord("9") + 1)
_CATEGORY_DIGITS = {"CATEGORY_DIGIT": True, "CATEGORY_NOT_DIGIT": False, "CATEGORY_WORD": True,
                    "CATEGORY_NOT_WORD": False, "CATEGORY_SPACE": False, "CATEGORY_NOT_SPACE": True,
                    "CATEGORY_LINEBREAK": False, "CATEGORY_NOT_LINEBREAK": True}
"""Whether each class category holds the ASCII digits (all of them, or none)."""


def digit_blind(pattern: str, flags: int = 0) -> bool:
    """True when ``pattern`` cannot tell the ASCII digits apart: every literal, class and category
    in it holds all ten or none, and it has no back-reference. Then it matches a text exactly when
    it matches the text with every digit made ``0`` (same length, same answer at every position), so
    lines that differ only in their digits can be searched once. ``False`` when not sure."""
    try:
        return _blind(list(P.parse(pattern, flags)))
    except Exception:  # noqa: BLE001 - an unknown parser shape: not known blind
        return False


def _class_digits(items: list) -> int:
    """How many ASCII digits one ``[...]`` class (its parsed items) matches."""
    held: set[int] = set()
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            held.update({av} & set(_DIGITS))
        elif op is C.RANGE:
            held.update(d for d in _DIGITS if av[0] <= d <= av[1])
        elif op is C.CATEGORY:
            if str(av) not in _CATEGORY_DIGITS:
                return -1
            if _CATEGORY_DIGITS[str(av)]:
                held.update(_DIGITS)
        else:
            return -1   # an unknown class item: not known
    n = len(held)
    return 10 - n if negate else n


def _blind(items: list) -> bool:
    for op, av in items:
        if op in (C.LITERAL, C.NOT_LITERAL):
            if av in _DIGITS:
                return False
        elif op is C.IN:
            if _class_digits(av) not in (0, 10):
                return False
        elif op in (C.ANY, C.AT):
            continue
        elif op is C.SUBPATTERN:
            if not _blind(list(av[3])):
                return False
        elif op is C.BRANCH:
            if not all(_blind(list(alt)) for alt in av[1]):
                return False
        elif op in _REPEATS:
            if not _blind(list(av[2])):
                return False
        elif op in (C.ASSERT, C.ASSERT_NOT):
            if not _blind(list(av[1])):
                return False
        elif op is getattr(C, "ATOMIC_GROUP", None):
            if not _blind(list(av)):
                return False
        else:   # back-references, conditionals, anything unknown
            return False
    return True
