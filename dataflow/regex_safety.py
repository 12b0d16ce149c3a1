"""A deterministic safety rule for regexes that users and projects supply (classify rules, filters,
graph params): shapes known to backtrack catastrophically are refused when the file is loaded.

Python's ``re`` backtracks, so a pattern such as ``^(\\w+\\s?)*$`` takes exponential time on a line
that almost matches (89 s on ``echo`` output of 40 words). A timer cannot be the defence: it makes
the outcome depend on the machine's load (DESIGN.md §2b). Instead the parsed pattern is checked for
the two shapes behind exponential backtracking:

1. *Nested quantifier*: a repetition inside a repeated group that can split the same text in many
   ways, because nothing in the group's iteration delimits it (``(\\w+\\s?)*``, ``(a+)+``,
   ``(.*,)*``). A sibling that must match at least one character the inner repetition cannot match
   (``(\\w+\\s)*``, ``(\\d+\\.)+``) delimits it; a possessive (``\\w++``) or atomic (``(?>...)``)
   inner repetition cannot be re-split.
2. *Overlapping alternation* under a repetition: two alternatives that can match the same text
   (``(\\w|\\d)+``, ``(a|a)*``, ``(.|\\s)*``).

The check is over-approximate on purpose (a rare safe pattern may be refused, with a fix that keeps
its meaning); it is not a proof of linear time: polynomial shapes (``\\s+$`` searched on a long run
of spaces) stay the business of the shipped-regex test (tests/test_regex_safety.py).
"""

from __future__ import annotations

import re
from re import _constants as C  # type: ignore[attr-defined]  # noqa: N812 - the sre opcodes (no stubs)
from re import _parser as P  # type: ignore[attr-defined]  # noqa: N812 - sre_parse (deprecated alias)

from .regex_render import render as _render

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_ALPHABET = tuple(chr(i) for i in range(128)) + tuple("\x85\xa0éÉλß…\u2028\u3000\x9b")
"""Characters that stand for every class a pattern can name (ASCII, Latin-1, other scripts)."""
_ANY = frozenset(_ALPHABET)
_CATEGORIES = {name: frozenset(c for c in _ALPHABET if re.match(rx, c)) for name, rx in (
    ("CATEGORY_DIGIT", r"\d"), ("CATEGORY_NOT_DIGIT", r"\D"), ("CATEGORY_SPACE", r"\s"),
    ("CATEGORY_NOT_SPACE", r"\S"), ("CATEGORY_WORD", r"\w"), ("CATEGORY_NOT_WORD", r"\W"),
    ("CATEGORY_LINEBREAK", r"\n"), ("CATEGORY_NOT_LINEBREAK", r"."))}
_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT)
_FIX = ("make the inner repetition possessive (`\\w++`) or atomic (`(?>...)`), or let each "
        "iteration end with a character the repetition cannot match (`(\\w+\\s)*` not `(\\w+\\s?)*`)")
_FIX_ALT = "make the alternatives start with different characters, or merge them into one class"


class UnsafeRegex(ValueError):
    """A regex with a catastrophic-backtracking shape; ``str()`` says what and how to fix it."""

    def __init__(self, pattern: str, problem: str, fix: str) -> None:
        self.pattern, self.problem, self.fix = pattern, problem, fix
        super().__init__(f"regex {pattern!r} can take exponential time: {problem}; fix: {fix}")


def check(pattern: str, flags: int = 0) -> None:
    """Raise :class:`UnsafeRegex` when ``pattern`` has a catastrophic shape (``re.error`` when it
    does not compile)."""
    problem = find_problem(pattern, flags)
    if problem is not None:
        raise UnsafeRegex(pattern, *problem)


def find_problem(pattern: str, flags: int = 0) -> tuple[str, str] | None:
    """``(problem, fix)`` of the first catastrophic shape in ``pattern``, else ``None``."""
    tree = P.parse(pattern, flags)
    out: list[tuple[str, str]] = []
    _scan(list(tree), tree.state.flags, out)
    return out[0] if out else None


# ---- character sets (over-approximated on the sample alphabet) ------------------------------

def _cased(chars: frozenset, flags: int) -> frozenset:
    if not flags & re.IGNORECASE:
        return chars
    return chars | {c.swapcase() for c in chars} | {c.lower() for c in chars}


def _class_chars(items: list, flags: int) -> frozenset:
    out: set[str] = set()
    negate = False
    for op, av in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            out.add(chr(av))
        elif op is C.RANGE:
            out.update(c for c in _ALPHABET if av[0] <= ord(c) <= av[1])
        elif op is C.CATEGORY:
            out |= _CATEGORIES.get(str(av), _ANY)
        else:
            return _ANY
    chars = _cased(frozenset(out), flags)
    return _ANY - chars if negate else chars


def _atom(op: Any, av: Any, flags: int) -> frozenset | None:
    """Characters one single-character item can match, or ``None`` for a compound item."""
    if op is C.LITERAL:
        return _cased(frozenset(chr(av)), flags)
    if op is C.NOT_LITERAL:
        return _ANY - _cased(frozenset(chr(av)), flags)
    if op is C.ANY:
        return _ANY if flags & re.DOTALL else _ANY - {"\n"}
    if op is C.IN:
        return _class_chars(av, flags)
    return None


def _chars(seq: list, flags: int) -> frozenset:
    """Every character a match of ``seq`` may contain."""
    out: frozenset = frozenset()
    for op, av in seq:
        atom = _atom(op, av, flags)
        if atom is not None:
            out |= atom
        elif op in _REPEATS or op is C.POSSESSIVE_REPEAT:
            out |= _chars(list(av[2]), flags)
        elif op is C.SUBPATTERN:
            out |= _chars(list(av[3]), (flags | av[1]) & ~av[2])
        elif op is C.BRANCH:
            for alt in av[1]:
                out |= _chars(list(alt), flags)
        elif op is C.ATOMIC_GROUP:
            out |= _chars(list(av), flags)
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            return _ANY
    return out


def _width(item: Any) -> tuple[int, int]:
    return P.SubPattern(P.State(), [item]).getwidth()


def _first(seq: list, flags: int) -> frozenset:
    """Characters a non-empty match of ``seq`` may start with."""
    out: frozenset = frozenset()
    for item in seq:
        op, av = item
        atom = _atom(op, av, flags)
        if atom is not None:
            return out | atom
        if op in _REPEATS or op is C.POSSESSIVE_REPEAT:
            out |= _first(list(av[2]), flags)
        elif op is C.SUBPATTERN:
            out |= _first(list(av[3]), (flags | av[1]) & ~av[2])
        elif op is C.BRANCH:
            for alt in av[1]:
                out |= _first(list(alt), flags)
        elif op is C.ATOMIC_GROUP:
            out |= _first(list(av), flags)
        elif op in (C.GROUPREF, C.GROUPREF_EXISTS):
            return _ANY
        if _width(item)[0] > 0:
            return out
    return out


# ---- the two shapes ----------------------------------------------------------------------

def _scan(seq: list, flags: int, out: list) -> None:
    """Check every repeated group in ``seq`` (depth first), appending problems to ``out``."""
    for op, av in seq:
        if op in _REPEATS or op is C.POSSESSIVE_REPEAT:
            body = list(av[2])
            if av[1] > 1:
                _check_repeat((op, av), body, flags, out)
            _scan(body, flags, out)
        elif op is C.SUBPATTERN:
            _scan(list(av[3]), (flags | av[1]) & ~av[2], out)
        elif op is C.BRANCH:
            for alt in av[1]:
                _scan(list(alt), flags, out)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            _scan(list(av[1]), flags, out)
        elif op is C.ATOMIC_GROUP:
            _scan(list(av), flags, out)
        elif op is C.GROUPREF_EXISTS:
            for part in av[1:]:
                if part is not None:
                    _scan(list(part), flags, out)


def _inner_repeats(seq: list, flags: int, path: list) -> Iterator[tuple[Any, int, list, bool]]:
    """``(item, flags, path, optional)`` of each variable-length item the iteration ``seq`` may
    split differently: repetitions, and optional items (``x?``, ``(?:|x)`` as ``a|aa`` parses);
    ``path`` lists ``(sequence, index)`` from the repeated group's body down to the item."""
    for i, item in enumerate(seq):
        op, av = item
        here = path + [(seq, i)]
        if op in _REPEATS:
            if av[0] != av[1]:
                yield item, flags, here, av[1] == 1
            yield from _inner_repeats(list(av[2]), flags, here)
        elif op is C.SUBPATTERN:
            yield from _inner_repeats(list(av[3]), (flags | av[1]) & ~av[2], here)
        elif op is C.BRANCH:
            if any(not alt for alt in av[1]):
                yield item, flags, here, True
            for alt in av[1]:
                yield from _inner_repeats(list(alt), flags, here)
        # possessive repeats, atomic groups and lookarounds never give text back: not re-split


def _delimited(chars: frozenset, path: list, flags: int) -> bool:
    """True when some sibling on ``path`` must match a character outside ``chars``."""
    return any(j != i and _width(s[j])[0] > 0 and not _first([s[j]], flags) & chars
               for s, i in path for j in range(len(s)))


def _flat(seq: list) -> list:
    out: list = []
    for op, av in seq:
        out += _flat(list(av[3])) if op is C.SUBPATTERN else [(op, av)]
    return out


def _check_repeat(outer: Any, body: list, flags: int, out: list) -> None:
    start = _first(body, flags)
    for item, iflags, path, optional in _inner_repeats(body, flags, []):
        if optional and not _first([item], iflags) & start:
            continue  # present or not, what follows it cannot start the next iteration
        if not _delimited(_chars([item], iflags), path, iflags):
            out.append((f"`{_render([item])}` repeats inside the repeated `{_render([outer])}` and "
                        f"nothing in each iteration delimits it (nested quantifier)", _FIX))
            return
    for op, av in _flat(body):
        if op is not C.BRANCH:
            continue
        alts = [list(a) for a in av[1]]
        starts = frozenset().union(*(_first(a, flags) for a in alts))
        for i, a in enumerate(alts):
            for b in alts[i + 1:]:
                if _same_text(a, b, flags, starts):
                    out.append((f"alternatives `{_render(a)}` and `{_render(b)}` of the repeated "
                                f"`{_render([outer])}` can match the same text", _FIX_ALT))
                    return


def _runs(seq: list, flags: int) -> list[tuple[Any, int, int]] | None:
    """``seq`` as runs ``(characters, min, max)`` when it is a chain of single-character items
    and their repetitions (anchors ignored), an optional chain as ``(its runs, 0, 1)``; else
    ``None``."""
    out: list[tuple[Any, int, int]] = []
    for op, av in _flat(seq):
        atom = _atom(op, av, flags)
        if atom is not None:
            out.append((atom, 1, 1))
        elif op in _REPEATS and len(av[2]) == 1 and _atom(av[2][0][0], av[2][0][1], flags) is not None:
            out.append((_atom(av[2][0][0], av[2][0][1], flags), av[0], min(av[1], av[0] + 4)
                        if av[1] != C.MAXREPEAT else -1))
        elif op in _REPEATS and (av[0], av[1]) == (0, 1) and _runs(list(av[2]), flags):
            out.append((_runs(list(av[2]), flags), 0, 1))  # an optional chain
        elif op is not C.AT:
            return None
    return out


def _nfa(runs: list) -> tuple[list, int]:
    """A small NFA (edges ``(from, characters or None, to)``) and its final state (state 0 is
    the start)."""
    edges, s = [], 0
    for chars, lo, hi in runs:
        if isinstance(chars, list):  # an optional chain: its own states, and a way around them
            sub, end = _nfa(chars)
            edges += [(f + s, c, t + s) for f, c, t in sub] + [(s, None, s + end)]
            s += end
            continue
        for _ in range(lo):
            edges.append((s, chars, s + 1))
            s += 1
        if hi < 0:
            edges.append((s, chars, s))
        for _ in range(max(hi - lo, 0)):
            edges += [(s, chars, s + 1), (s, None, s + 1)]
            s += 1
    return edges, s


def _intersect(a: list, b: list) -> bool:
    """True when the two run chains match some text in common (a product-automaton search)."""
    (ea, fa), (eb, fb) = _nfa(a), _nfa(b)
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        p, q = todo.pop()
        if (p, q) == (fa, fb):
            return True
        nxt = [(t, q) for f, c, t in ea if f == p and c is None]
        nxt += [(p, t) for f, c, t in eb if f == q and c is None]
        nxt += [(t, u) for f, c, t in ea if f == p and c for g, d, u in eb if g == q and d and c & d]
        for st in nxt:
            if st not in seen:
                seen.add(st)
                todo.append(st)
    return False


def _same_text(a: list, b: list, flags: int, starts: frozenset) -> bool:
    """True when alternatives ``a`` and ``b`` may match the same text, in one iteration, or as a
    single character the other's iterations may also spell (``a|b|ab``)."""
    if not _first(a, flags) & _first(b, flags):
        return False
    ra, rb = _runs(a, flags), _runs(b, flags)
    if ra is None or rb is None:
        return True  # not chains of characters: assume the worst
    if _intersect(ra, rb):
        return True
    short, other = (ra, rb) if len(ra) < len(rb) else (rb, ra)
    one_char = len(short) == 1 and short[0][1:] == (1, 1) and not isinstance(short[0][0], list)
    return one_char and all(isinstance(c, list) or c & starts for c, _, _ in other)
