"""distill-unittest: drop unittest's passing progress marks, keep every failure and the closing lines.

unittest prints a line of marks (``.`` ok, ``s`` skipped, ``x`` expected failure, ``u`` unexpected
success, ``F``/``E`` failure/error), or with ``-v`` one ``name (module.Class.name) ... ok`` row per
test, then one block per failure or error, then ``Ran N tests in Xs`` and ``OK``/``FAILED (...)``.
Lines made only of passing marks go, replaced by one summary line with the exact counts; ``-v``
rows are what the user asked for and stay. Declines when the closing ``Ran N tests`` + result pair
is missing (a killed or crashed run is never summarised).
"""

from __future__ import annotations

import re

from .distill_common import build, critical_flags, plural

RAN_RE = re.compile(r"^Ran \d+ tests? in [\d.]+s$")
RESULT_RE = re.compile(r"^(?:OK|FAILED|NO TESTS RAN)(?: \(.*\))?$")
MARKS_RE = re.compile(r"^[.sxu]+$")

_MARKS = {".": "passed", "s": "skipped", "x": "expected failures", "u": "unexpected successes"}


def _closing(lines: tuple[str, ...]) -> bool:
    """True when the output ends with ``Ran N tests in Xs`` followed by the result line."""
    tail = [line for line in lines[-6:] if line.strip()]
    return len(tail) >= 2 and RAN_RE.match(tail[-2]) is not None and RESULT_RE.match(tail[-1]) is not None


def run(payload, params, ctx):
    """The view without passing progress, or ``None`` when this is not a finished unittest run."""
    return distill(payload)


def distill(payload):
    """:func:`run` without params (distill-pytest hands over output that has no pytest shape)."""
    lines = payload.lines
    if not _closing(lines):
        return None
    crit = critical_flags(payload)
    keep = [True] * len(lines)
    totals: dict[str, int] = {}
    for i, line in enumerate(lines):
        if not crit[i] and MARKS_RE.match(line):
            keep[i] = False
            for ch in line:
                totals[_MARKS[ch]] = totals.get(_MARKS[ch], 0) + 1
    dropped = keep.count(False)
    if not dropped:
        return None
    parts = ", ".join(f"{totals[k]} {k}" for k in _MARKS.values() if totals.get(k))
    first = keep.index(False)
    return build(payload, keep, {first: f"[thresher: {plural(dropped, 'progress line')} not shown ({parts})]"})
