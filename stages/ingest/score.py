"""Score: give every source line a tier — critical (the answer), important, or noise.

Critical: error/failure/assertion/traceback lines (a critical Python frame with its source line,
a ``critical_next`` header with the message under it),
and on a failing command also ``file:line`` locations. Noise: lines matching the graph's noise regexes (never a critical line). A graph may
name ``not_critical`` shapes: lines that only *mention* failure words (``✔ handles errors``, a
passing test row) are then tiered as if the error regex had not matched.
"""

from __future__ import annotations

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache

from thresher.dataflow.payload import CRITICAL, IMPORTANT, NOISE

from thresher.dataflow.errorscan import source_scan
from thresher.stages.lib.text import LOCATION_RE, LinePatterns, candidate_mask, digit_blind, error_candidates, is_error_line, ones

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_CACHE: dict[tuple, LinePatterns | None] = {}


def _union(patterns: "list[str] | tuple[str, ...]") -> LinePatterns | None:
    key = tuple(patterns)
    if key not in _CACHE:
        _CACHE[key] = LinePatterns(patterns) if patterns else None
    return _CACHE[key]


class _Set:
    """One of a graph's pattern lists (``critical``, ``noise``, ...): the union of all, and split
    into the patterns that cannot tell digits apart (searched on digit keys, see
    :func:`~thresher.dataflow.errorscan.digit_keys`) and the others (searched on the lines)."""

    __slots__ = ("all", "blind", "other")

    def __init__(self, patterns: "list[str] | None") -> None:
        patterns = patterns or []
        self.all = _union(patterns)
        self.blind = _union([p for p in patterns if digit_blind(p)])
        self.other = _union([p for p in patterns if not digit_blind(p)])


_SETS: dict[tuple, _Set] = {}


def _set(patterns: "list[str] | None") -> _Set:
    key = tuple(patterns or ())
    if key not in _SETS:
        _SETS[key] = _Set(patterns)
    return _SETS[key]


def tier(line: str, failed: bool, extra: int, noise: int, locations: bool, exempt: int = False,
         maybe_error: int = True) -> int:
    """The tier of one line, given whether the graph's ``critical``, ``noise`` and ``not_critical``
    patterns match it (``maybe_error=False``: the line is known not to match ERROR_RE)."""
    if not exempt:
        if extra or (maybe_error and is_error_line(line)):
            return CRITICAL
        # both location shapes need a ':' or 'line ': a substring test spares most regex searches
        if failed and locations and (":" in line or "line " in line) and LOCATION_RE.search(line):
            return CRITICAL
    return NOISE if noise else IMPORTANT


_FRAME = re.compile(r'^(\s*)File "[^"\n]*", line \d+')


def _frame_code(src, tiers: list, exempt: "Callable[[int], Any]") -> None:
    """A critical Python traceback frame (``File "x.py", line 14, in f``) keeps its source line:
    the next line, indented deeper, unless the graph exempts it (``exempt(i)``: true when line
    ``i`` matches one of its ``not_critical`` shapes)."""
    last = len(src) - 1
    for i in [i for i, t in enumerate(tiers) if t == CRITICAL]:
        while i < last and tiers[i + 1] != CRITICAL and not exempt(i + 1) \
                and "File" in src[i]:
            m = _FRAME.match(src[i])
            nxt = src[i + 1]
            if not (m and nxt.startswith(m[1] + " ") and nxt.strip()):
                break
            tiers[i + 1] = CRITICAL   # now critical itself: it may be a frame line in turn
            i += 1


def _message_under(src, tiers: list, heads: "Iterable[int]") -> None:
    """A header line (a ``critical_next`` shape) makes the next non-blank line critical: the
    message a tool prints under it (``thread 't' panicked at src/lib.rs:9:5:`` then the panic's
    text, which has no shape of its own); ``heads``: the header lines' indices."""
    for i in heads:
        j = i + 1
        while j < len(src) and not src[j].strip():
            j += 1
        if j < len(src) and j - i <= 2:
            tiers[j] = CRITICAL


_LOCATION_NEEDS = tuple(f":{d}" for d in "0123456789") + ("line ",)
"""Every match of LOCATION_RE holds one of these (``:14``, ``line 14``)."""


def _mask(patterns: LinePatterns | None, lines) -> bytearray:
    return patterns.mask(lines) if patterns is not None else bytearray(len(lines))


def _either(a: bytearray, b: bytearray) -> bytearray:
    """The byte-wise OR of two 0/1 masks of the same length (one big-integer OR, in C)."""
    n = len(a)
    return bytearray((int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(n, "little"))


def _tiers(lines, failed: bool, loc: bool, extra, noise, exempt, errors: bytearray | None
           ) -> tuple[list[int], bytearray, bytearray, bytearray]:
    """``tier`` of every line of ``lines`` and their exempt, noise and critical-pattern masks (the
    last one set on lines not exempt only) (``errors``: the
    :func:`error_candidates` of ``lines``). An exempt line is noise or important by the noise mask
    alone, so the other patterns are searched on the rest only; of those, only lines that can be
    critical are looked at one by one: the error-word candidates, the graph's ``critical`` hits and,
    on a failing command, lines holding a location's ``:`` or ``line ``."""
    n = len(lines)
    ex, no = _mask(exempt, lines), _mask(noise, lines)
    tiers = [IMPORTANT] * n
    for i in ones(no):
        tiers[i] = NOISE
    if 1 in ex:   # the lines the graph does not exempt, and where they are
        at: range | list[int] = list(ones(_not(ex)))
        rest = [lines[i] for i in at]
        cands = None if errors is None else bytearray(map(errors.__getitem__, at))
    else:
        at, rest, cands = range(n), lines, errors
    m = len(rest)
    cr = _mask(extra, rest)
    if cands is None:
        check = bytearray(b"\1") * m
    else:
        check = _either(cands, cr)
        if failed and loc:
            locs = candidate_mask(rest, _LOCATION_NEEDS, fold=False)
            check = bytearray(b"\1") * m if locs is None else _either(check, locs)  # None: any line
    for j in ones(check):
        i = at[j]
        tiers[i] = tier(lines[i], failed, cr[j], no[i], loc, False, cands is None or cands[j])
    if at is not range(n) and 1 in cr:   # the critical hits where the lines are
        full = bytearray(n)
        for j in ones(cr):
            full[at[j]] = 1
        cr = full
    return tiers, ex, no, cr


def _not(mask: bytearray) -> bytearray:
    """The 0/1 mask with every byte flipped (one C translate)."""
    return mask.translate(_FLIP)


_FLIP = bytes([1, 0]) + bytes(254)


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The payload with ``tiers`` set; ``None`` when every line is merely important."""
    extra, noise = _set(params["critical"]), _set(params["noise"])
    exempt, heads = _set(params.get("not_critical")), _set(params.get("critical_next"))
    src, failed, loc = payload.source, payload.failed, params["locations_on_failure"]
    # a line's tier depends on its text alone (but for a frame's source line, set below), and for
    # every pattern that cannot tell digits apart on its digit key alone: each distinct key is
    # scored once (tool output repeats lines that differ in numbers: log records, test rows),
    # lines are searched only by the graph's patterns that read digits (an HTTP status class)
    scan = source_scan(payload)
    keyed = scan.digit_keys()
    if keyed is not None:
        tiers, is_exempt = _keyed_tiers(src, keyed, failed, loc, extra, noise, exempt)
        hk = _mask(heads.blind, keyed[0])
        head_at: "Iterable[int]" = ones(_either(bytearray(map(hk.__getitem__, keyed[1])),
                                                _mask(heads.other, src)))
    else:
        tiers, is_exempt = _plain_tiers(src, scan, failed, loc, extra, noise, exempt)
        head_at = ones(_mask(heads.all, src))
    _frame_code(src, tiers, is_exempt)
    if heads.all is not None:
        _message_under(src, tiers, head_at)
    if tiers.count(IMPORTANT) == len(tiers):
        return None
    return payload.evolve(tiers=tuple(tiers))


def _plain_tiers(src, scan, failed: bool, loc: bool, extra: _Set, noise: _Set, exempt: _Set
                 ) -> "tuple[list[int], Callable[[int], Any]]":
    """The tiers of ``src`` scored line by line (each distinct line once when lines repeat), and
    a test of whether line ``i`` is exempt."""
    # few repeats (as sampled by the digit keys' decision, or counted): not worth a line -> tier
    # map's memory, nor the time to make it
    uniq: list[str] | tuple[str, ...] = src if scan.few_repeats else scan.uniq
    if len(uniq) * 4 > len(src) * 3:
        uniq, errors = src, error_candidates(src)
    else:
        errors = scan.error_mask()
    found, ex, _no, _cr = _tiers(uniq, failed, loc, extra.all, noise.all, exempt.all, errors)
    if uniq is src:
        return found, ex.__getitem__
    tier_of = dict(zip(uniq, found))
    exempt_lines = {uniq[i] for i in ones(ex)}
    return [tier_of[s] for s in src], lambda i: src[i] in exempt_lines


def _keyed_tiers(src, keyed: "tuple[list[str], list[int]]", failed: bool, loc: bool, extra: _Set,
                 noise: _Set, exempt: _Set) -> "tuple[list[int], Callable[[int], Any]]":
    """The tiers of ``src`` from its digit keys: every test but the graph's digit-reading
    patterns is digit-blind (the error words, ``LOCATION_RE``), so each key is scored once with
    the blind patterns, and only lines a digit-reading pattern hits are scored again, alone."""
    keys, index = keyed
    kt, kex, kno, kcr = _tiers(keys, failed, loc, extra.blind, noise.blind, exempt.blind,
                               error_candidates(keys))
    tiers = list(map(kt.__getitem__, index))
    ex = bytearray(map(kex.__getitem__, index))
    if extra.other is None and noise.other is None and exempt.other is None:
        return tiers, ex.__getitem__
    lex, lno, lcr = _mask(exempt.other, src), _mask(noise.other, src), _mask(extra.other, src)
    for i in ones(_either(_either(lex, lno), lcr)):
        j = index[i]
        if lex[i]:
            ex[i] = 1
        if ex[i]:
            tiers[i] = NOISE if kno[j] or lno[i] else IMPORTANT
        else:
            tiers[i] = tier(src[i], failed, kcr[j] or lcr[i], kno[j] or lno[i], loc)
    return tiers, ex.__getitem__
