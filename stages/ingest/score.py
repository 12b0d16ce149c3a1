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
from thresher.stages.lib.text import LOCATION_RE, LinePatterns, candidate_mask, error_candidates, is_error_line, ones

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_CACHE: dict[tuple, LinePatterns | None] = {}


def _union(patterns: list[str]) -> LinePatterns | None:
    key = tuple(patterns)
    if key not in _CACHE:
        _CACHE[key] = LinePatterns(patterns) if patterns else None
    return _CACHE[key]


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


def _frame_code(src, tiers: list, exempt: set) -> None:
    """A critical Python traceback frame (``File "x.py", line 14, in f``) keeps its source line:
    the next line, indented deeper, unless the graph exempts it (``exempt``: the lines its
    ``not_critical`` shapes match)."""
    last = len(src) - 1
    for i in [i for i, t in enumerate(tiers) if t == CRITICAL]:
        while i < last and tiers[i + 1] != CRITICAL and src[i + 1] not in exempt \
                and "File" in src[i]:
            m = _FRAME.match(src[i])
            nxt = src[i + 1]
            if not (m and nxt.startswith(m[1] + " ") and nxt.strip()):
                break
            tiers[i + 1] = CRITICAL   # now critical itself: it may be a frame line in turn
            i += 1


def _message_under(src, tiers: list, heads: LinePatterns) -> None:
    """A header line (a ``critical_next`` shape) makes the next non-blank line critical: the
    message a tool prints under it (``thread 't' panicked at src/lib.rs:9:5:`` then the panic's
    text, which has no shape of its own)."""
    for i in ones(heads.mask(src)):
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
           ) -> tuple[list[int], bytearray]:
    """``tier`` of every line of ``lines`` and their exempt mask (``errors``: the
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
    return tiers, ex


def _not(mask: bytearray) -> bytearray:
    """The 0/1 mask with every byte flipped (one C translate)."""
    return mask.translate(_FLIP)


_FLIP = bytes([1, 0]) + bytes(254)


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The payload with ``tiers`` set; ``None`` when every line is merely important."""
    extra, noise = _union(params["critical"]), _union(params["noise"])
    exempt = _union(params.get("not_critical") or [])
    src = payload.source
    # a line's tier depends on its text alone (but for a frame's source line, set below): each
    # distinct line is scored once (tool output repeats lines: test rows, code, log bodies), with
    # the source's error-word scan the executor's scans share (errorscan.source_scan)
    scan = source_scan(payload)
    uniq: list[str] | tuple[str, ...] = scan.uniq
    if len(uniq) * 4 > len(src) * 3:   # few repeats: not worth a line -> tier map's memory
        uniq, errors = src, error_candidates(src)
    else:
        errors = scan.error_mask()
    found, ex = _tiers(uniq, payload.failed, params["locations_on_failure"], extra, noise, exempt, errors)
    if uniq is src:
        tiers = found
    else:
        tier_of = dict(zip(uniq, found))
        tiers = [tier_of[s] for s in src]
    exempt_lines = {uniq[i] for i in ones(ex)}
    _frame_code(src, tiers, exempt_lines)
    heads = _union(params.get("critical_next") or [])
    if heads is not None:
        _message_under(src, tiers, heads)
    if tiers.count(IMPORTANT) == len(tiers):
        return None
    return payload.evolve(tiers=tuple(tiers))
