"""distill-unittest: drop unittest's passing progress marks, keep every failure and the closing lines.

unittest prints a line of marks (``.`` ok, ``s`` skipped, ``x`` expected failure, ``u`` unexpected
success, ``F``/``E`` failure/error), or with ``-v`` one ``name (module.Class.name) ... ok`` row per
test, then one block per failure or error, then ``Ran N tests in Xs`` and ``OK``/``FAILED (...)``.
Lines made only of passing marks go, replaced by one summary line with the exact counts. Of the
``-v`` rows, every one that is not ``ok`` (FAIL, ERROR, ``skipped '…'``, ``expected failure``,
``unexpected success``, or a row a test printed into) stays where it is; the ``ok`` rows of each
test module fold to the module's first one and a counted line (:mod:`passing_rows`). Over the
graph budget, the ``=====``/``-----`` rules framing each ``FAIL:``/``ERROR:`` block (and the blank
line before each block) go too, counted, so the budget trim never has to cut into the tracebacks
themselves. Declines when the closing ``Ran N tests`` + result pair is missing (a killed or
crashed run is never summarised).
"""

from __future__ import annotations

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache

from thresher.stages.lib import passing_rows
from thresher.stages.lib.common import build, critical_flags, over_budget, plural

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from re import Match
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

RAN_RE = re.compile(r"^Ran \d+ tests? in [\d.]+s$")
RESULT_RE = re.compile(r"^(?:OK|FAILED|NO TESTS RAN)(?: \(.*\))?$")
MARKS_RE = re.compile(r"^[.sxu]+$")
BLOCK_HEAD_RE = re.compile(r"^(?:FAIL|ERROR|UNEXPECTED SUCCESS): \S")
RULE_RE = re.compile(r"^(?:={20,}|-{20,})$")
# a -v row: `test_x (module.Class.test_x) ... ok` (Python 3.11+; before, `(module.Class)`); with a
# docstring the name is alone on its line and the docstring's first line carries the verdict
ROW_NAME = r"(?P<name>\w+) \((?P<where>\w+(?:\.\w+)*)\)"
OK_ROW_RE = re.compile(r"^" + ROW_NAME + r" \.\.\. ok$")
NAME_LINE_RE = re.compile(r"^" + ROW_NAME + r"$")
DOC_OK_RE = re.compile(r"^\S.* \.\.\. ok$")

_MARKS = {".": "passed", "s": "skipped", "x": "expected failures", "u": "unexpected successes"}


def _closing(lines: tuple[str, ...]) -> bool:
    """True when the output ends with ``Ran N tests in Xs`` followed by the result line."""
    tail = [line for line in lines[-6:] if line.strip()]
    return len(tail) >= 2 and RAN_RE.match(tail[-2]) is not None and RESULT_RE.match(tail[-1]) is not None


def run(payload: Payload, _params: dict[str, Any], ctx: Context) -> Payload | None:
    """The view without passing progress, or ``None`` when this is not a finished unittest run."""
    return distill(payload, ctx.budget if ctx is not None else None)


def _drop_rules(lines, crit: list[bool], keep: list[bool]) -> int:
    """Unset ``keep`` for the rules around each failure header and the blank line before it."""
    cut = 0
    for i, line in enumerate(lines):
        if not BLOCK_HEAD_RE.match(line):
            continue
        for k in (i - 1, i + 1):
            if 0 <= k < len(lines) and RULE_RE.match(lines[k]) and keep[k] and not crit[k]:
                keep[k] = False
                cut += 1
        if i >= 2 and not keep[i - 1] and not lines[i - 2].strip() and keep[i - 2] and not crit[i - 2]:
            keep[i - 2] = False
            cut += 1
    return cut


def _group(m: Match[str]) -> str:
    """The module of a row: ``(module.Class)``, or ``(module.Class.name)`` on Python 3.11+."""
    where, name = m["where"], m["name"]
    if where.endswith("." + name):
        where = where[:-len(name) - 1]
    return where.rsplit(".", 1)[0] if "." in where else where


def _fold_rows(lines, crit: list[bool], keep: list[bool], summaries: dict[int, str]) -> None:
    """-v runs: per test module, its first ``... ok`` row stays, the others go (counted)."""
    rows = []
    for i, line in enumerate(lines):
        if crit[i]:
            continue
        if m := OK_ROW_RE.match(line):
            rows.append(passing_rows.Row(i, f"ok rows of {_group(m)}"))
        elif (i > 0 and DOC_OK_RE.match(line) and not crit[i - 1] and not OK_ROW_RE.match(line)
              and (m := NAME_LINE_RE.match(lines[i - 1]))):
            rows.append(passing_rows.Row(i, f"ok rows of {_group(m)}", (i - 1,)))
    passing_rows.fold(rows, keep, summaries)


def distill(payload, budget: Budget | None = None):
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
    summaries = {}
    if dropped:
        parts = ", ".join(f"{totals[k]} {k}" for k in _MARKS.values() if totals.get(k))
        summaries[keep.index(False)] = f"[thresher: {plural(dropped, 'progress line')} not shown ({parts})]"
    _fold_rows(lines, crit, keep, summaries)
    if budget and over_budget([line for line, k in zip(lines, keep) if k], budget):
        before = keep.copy()
        rules = _drop_rules(lines, crit, keep)
        if rules:
            at = next(i for i, (a, b) in enumerate(zip(before, keep)) if a != b)
            summaries[at] = (f"[thresher: {plural(rules, 'line')} framing the failure blocks not shown "
                             f"(===/--- rules, blank lines)]")
    return build(payload, keep, summaries)
