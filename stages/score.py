"""Score: give every source line a tier — critical (the answer), important, or noise.

Critical: error/failure/assertion/traceback lines (a critical Python frame with its source line),
and on a failing command also ``file:line`` locations. Noise: lines matching the graph's noise regexes (never a critical line). A graph may
name ``not_critical`` shapes: lines that only *mention* failure words (``✔ handles errors``, a
passing test row) are then tiered as if the error regex had not matched.
"""

from __future__ import annotations

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache

from thresher.dataflow.payload import CRITICAL, IMPORTANT, NOISE

from .text import LOCATION_RE, LinePatterns, error_candidates, is_error_line

_CACHE: dict[tuple, LinePatterns | None] = {}


def _union(patterns: list[str]) -> LinePatterns | None:
    key = tuple(patterns)
    if key not in _CACHE:
        _CACHE[key] = LinePatterns(patterns) if patterns else None
    return _CACHE[key]


def tier(line: str, failed: bool, extra: bool, noise: bool, locations: bool, exempt: bool = False,
         maybe_error: bool = True) -> int:
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


def _frame_code(src, tiers: list, exempt: list) -> None:
    """A critical Python traceback frame (``File "x.py", line 14, in f``) keeps its source line:
    the next line, indented deeper, unless the graph exempts it (its ``not_critical`` shapes)."""
    for i in range(len(src) - 1):
        if tiers[i] == CRITICAL and tiers[i + 1] != CRITICAL and not exempt[i + 1] \
                and "File" in src[i]:
            m = _FRAME.match(src[i])
            nxt = src[i + 1]
            if m and nxt.startswith(m[1] + " ") and nxt.strip():
                tiers[i + 1] = CRITICAL


def _hits(patterns: LinePatterns | None, lines) -> list[bool]:
    return patterns.scan(lines) if patterns is not None else [False] * len(lines)


def run(payload, params, ctx):
    """The payload with ``tiers`` set; ``None`` when every line is merely important."""
    extra, noise = _union(params["critical"]), _union(params["noise"])
    exempt = _union(params.get("not_critical") or [])
    failed, loc = payload.failed, params["locations_on_failure"]
    src = payload.source
    cands = error_candidates(src)   # one pass of str.find per error word over the whole text
    ex, no, cr = _hits(exempt, src), _hits(noise, src), _hits(extra, src)
    tiers = [tier(s, failed, cr[i], no[i], loc, ex[i], cands is None or cands[i])
             for i, s in enumerate(src)]
    _frame_code(src, tiers, ex)
    tiers = tuple(tiers)
    if all(t == IMPORTANT for t in tiers):
        return None
    return payload.evolve(tiers=tiers)
