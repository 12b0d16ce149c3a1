"""Score: give every source line a tier — critical (the answer), important, or noise.

Critical: error/failure/assertion/traceback lines, and on a failing command also ``file:line``
locations. Noise: lines matching the graph's noise regexes (never a critical line). A graph may
name ``not_critical`` shapes: lines that only *mention* failure words (``✔ handles errors``, a
passing test row) are then tiered as if the error regex had not matched.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import CRITICAL, IMPORTANT, NOISE

from .text import LOCATION_RE, error_candidates, is_error_line

_CACHE: dict[tuple, re.Pattern | None] = {}


def _union(patterns: list[str]) -> re.Pattern | None:
    key = tuple(patterns)
    if key not in _CACHE:
        _CACHE[key] = re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None
    return _CACHE[key]


def tier(line: str, failed: bool, extra: re.Pattern | None, noise: re.Pattern | None,
         locations: bool, exempt: re.Pattern | None = None, maybe_error: bool = True) -> int:
    """The tier of one line (``maybe_error=False``: the line is known not to match ERROR_RE)."""
    if exempt is None or not exempt.search(line):
        if (maybe_error and is_error_line(line)) or (extra is not None and extra.search(line)):
            return CRITICAL
        # both location shapes need a ':' or 'line ': a substring test spares most regex searches
        if failed and locations and (":" in line or "line " in line) and LOCATION_RE.search(line):
            return CRITICAL
    if noise is not None and noise.search(line):
        return NOISE
    return IMPORTANT


def run(payload, params, ctx):
    """The payload with ``tiers`` set; ``None`` when every line is merely important."""
    extra, noise = _union(params["critical"]), _union(params["noise"])
    exempt = _union(params.get("not_critical") or [])
    failed, loc = payload.failed, params["locations_on_failure"]
    src = payload.source
    cands = error_candidates(src)   # one pass of str.find per error word over the whole text
    tiers = tuple(tier(s, failed, extra, noise, loc, exempt, cands is None or i in cands)
                  for i, s in enumerate(src))
    if all(t == IMPORTANT for t in tiers):
        return None
    return payload.evolve(tiers=tiers)
