"""Linter findings that repeat one message: every location kept, the message said once per group.

A *finding* is one row of a one-line format (``path:line[:col]: message`` of flake8, pylint, ruff
concise, mypy notes, shellcheck ``-f gcc``; ``  line:col  warning  message  rule`` under a file
heading in eslint's stylish format) or one block of ruff's full format (the ``CODE message`` header,
its ``--> path:line:col`` arrow and its ``help:`` lines). A *group* is the findings of one file
(path or stylish heading) whose message text, help lines included, is identical.

Over budget a group becomes its first finding, verbatim, followed by one declared summary line::

    bottle.py:212:23: E701 multiple statements on one line (colon)
    [thresher: the finding above recurs at 82 more locations] bottle.py:214:30 bottle.py:218:26 ...

Why this keeps INV-3 (no fabrication) cleanly: the summary line is the only written line; its count
is the number of findings it stands for and each location in it is copied character for character
from the removed row as the tool wrote it (``path:line:col``, ruff's ``--> path:line:col``, or the
stylish ``line:col`` under the file heading above it), in input order. Nothing else of a removed row differs from the first row,
because the group key *is* the rest of the row: the removed text is exactly the repeated message.
Every location stays; ``thresher expand`` gives the rows back.

What never groups: a row or block with an error line (Score's error words or the core scan: on a
failing command INV-6 keeps each byte-exact), so ``error`` findings of eslint/mypy/tsc and messages
naming a failure always stay whole. Rows that differ in any character of their message (``line too
long (88 > 79 characters)`` vs ``(80 > 79 …)``, each unused import's name) are different groups.
Groups are applied largest saving first, and only until the view fits the budget: a view within
budget keeps every row verbatim.
"""

from __future__ import annotations

import re

from thresher.dataflow.errorscan import CORE_ERROR_RE
from thresher.dataflow.payload import CRITICAL, IMPORTANT
from thresher.dataflow.tokens import estimate

from thresher.stages.lib.diagnostics import RUST_HEAD_RE
from thresher.stages.lib.text import is_error_line

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.payload import Payload
    from thresher.dataflow.shapes import Budget
    from collections.abc import Callable, Sequence

PATH_ROW_RE = re.compile(r"^(?P<loc>(?P<path>[^\s:][^:]*):\d+(?::\d+)?):\s*(?P<msg>\S.*)$")
STYLISH_ROW_RE = re.compile(r"^\s+(?P<loc>\d+:\d+)\s+(?P<msg>(?:error|warning)\s+\S.*)$")
STYLISH_HEAD_RE = re.compile(r"^(?:[A-Za-z]:)?[^\s:]\S*\.\w+$")
ARROW_RE = re.compile(r"^\s*(?P<loc>--> (?P<path>\S+):\d+:\d+)$")
MIN_GROUP = 2
"""A group needs this many findings: the first stays, the rest are one summary line."""


def _blocked(line: str) -> bool:
    """True for a line that must stay byte-exact (an error line by either scan)."""
    return is_error_line(line) or CORE_ERROR_RE.search(line, 0, 4096) is not None


def _ruff_block(lines: Sequence[str], rows: list[int], k: int) -> tuple[int, str, tuple] | None:
    """``(last row index, location, key)`` of the ruff full-format block whose header is
    ``rows[k]``, or ``None`` when the next kept line is not its ``-->`` arrow."""
    if k + 1 >= len(rows):
        return None
    arrow = ARROW_RE.match(lines[rows[k + 1]])
    if arrow is None:
        return None
    last, tail = k + 1, []
    while last + 1 < len(rows):
        nxt = lines[rows[last + 1]]
        if not nxt.strip() or RUST_HEAD_RE.match(nxt) or ARROW_RE.match(nxt):
            break
        tail.append(nxt)
        last += 1
    return last, arrow["loc"], (arrow["path"], lines[rows[k]], tuple(tail))


def findings(lines: Sequence[str], keep: list[bool]) -> list[tuple[list[int], str, tuple]]:
    """Every finding among the kept view lines: ``(view indices, location, group key)``."""
    rows = [i for i, k in enumerate(keep) if k]
    out, heading, k = [], None, 0
    while k < len(rows):
        i = rows[k]
        line = lines[i]
        if RUST_HEAD_RE.match(line):
            block = _ruff_block(lines, rows, k)
            if block is not None:
                last, loc, key = block
                out.append((rows[k:last + 1], loc, key))
                k = last + 1
                continue
        m = PATH_ROW_RE.match(line)
        if m:
            out.append(([i], m["loc"], (m["path"], m["msg"])))
        elif STYLISH_HEAD_RE.match(line):
            heading = line
        elif heading is not None and (m := STYLISH_ROW_RE.match(line)):
            out.append(([i], m["loc"], (heading, m["msg"])))
        elif not line.strip():
            heading = None
        k += 1
    return out


GCC_ROW_RE = re.compile(r"^(?P<loc>(?P<path>[^\s:][^:]*):\d+(?::\d+)?): (?P<msg>(?P<kind>warning|note|remark): \S.*)$")


SCOPE_RE = re.compile(r"^[^\s:][^:]*: (?:In (?:function|member function|constructor|destructor|"
                      r"instantiation|static member function|lambda function)\b|At top level:$)")


def compiler_findings(lines: Sequence[str], keep: list[bool]) -> list[tuple[list[int], str, tuple]]:
    """Every gcc/clang warning among the kept view lines with the ``note:`` rows right under it
    (a macro's expansion chain, "previous declaration here"): ``(view indices, location, key)``.

    The location is that of the block's last row, where a chain ends in the code that used the
    macro; the key is the rest of the block and the function it is in (gcc's last ``In function``
    line), so two blocks group only when they differ in that one location within one function
    (a standalone warning: the same message in the same file and function). A note outside a
    warning's block, an error row and any other line end a block and are never part of one."""
    rows = [i for i, k in enumerate(keep) if k]
    out, k, scope = [], 0, ""
    while k < len(rows):
        m = GCC_ROW_RE.match(lines[rows[k]])
        if m is None or m["kind"] != "warning":
            if SCOPE_RE.search(lines[rows[k]]):
                scope = lines[rows[k]]
            k += 1
            continue
        block, last = [rows[k]], m
        while k + 1 < len(rows) and (n := GCC_ROW_RE.match(lines[rows[k + 1]])) and n["kind"] == "note":
            k += 1
            block.append(rows[k])
            last = n
        out.append((block, last["loc"], (scope, *(lines[i] for i in block[:-1]), last["path"], last["msg"])))
        k += 1
    return out


def summary(n: int, locations: list[str]) -> str:
    """The declared line standing for ``n`` removed findings at ``locations``."""
    what = "location" if n == 1 else "locations"
    return f"[thresher: the finding above recurs at {n} more {what}] " + " ".join(locations)


def group(lines: Sequence[str], keep: list[bool], budget: Budget,
          finder: Callable[[Sequence[str], list[bool]], list[tuple[list[int], str, tuple]]] = findings,
          whole_block: bool = False, min_group: int = MIN_GROUP) -> tuple[dict[int, str], list[int]]:
    """Groups to fold until the kept view fits ``budget``, largest saving first.

    Unsets ``keep`` for the folded findings; returns ``{view index: summary}`` (each summary goes
    right after that line: the location line of its group's first finding, or with
    ``whole_block`` its last line) and the folded view indices. ``finder`` names the findings
    (:func:`findings` for linters, :func:`compiler_findings` for gcc/clang); a group needs
    ``min_group`` findings.
    """
    groups: dict[tuple, list] = {}
    for idx, loc, key in finder(lines, keep):
        if not any(_blocked(lines[i]) for i in idx):
            groups.setdefault(key, []).append((idx, loc))
    kept = [i for i, k in enumerate(keep) if k]
    tokens = estimate("\n".join(lines[i] for i in kept))
    n_lines = len(kept)
    plans = []
    for members in groups.values():
        if len(members) < min_group:
            continue
        rest = members[1:]
        line = summary(len(rest), [loc for _, loc in rest])
        gone = [i for idx, _ in rest for i in idx]
        saving = sum(estimate(lines[i]) for i in gone) - estimate(line)
        if saving > 0:
            # after the first finding's location line: a help line after it may be trimmed later, and a
            # summary stays only with the line it follows
            first = members[0][0]
            plans.append((-saving, first[-1] if whole_block else first[min(1, len(first) - 1)], line, gone))
    plans.sort()
    out: dict[int, str] = {}
    folded: list[int] = []
    for neg, after, line, gone in plans:
        if tokens <= budget.get("max_tokens", 1 << 30) and n_lines <= budget.get("max_lines", 1 << 30):
            break
        out[after] = line
        folded.extend(gone)
        for i in gone:
            keep[i] = False
        tokens += neg
        n_lines -= len(gone) - 1
    return out, sorted(folded)


def demote(payload: Payload, view: Payload, folded: list[int]) -> Payload:
    """``view`` with the input lines behind ``folded`` view indices of ``payload`` no longer
    critical: a group line holds their locations, so the rows are not to be kept one by one."""
    if not folded:
        return view
    tiers = list(payload.tiers)
    for i in folded:
        o = payload.origin[i]
        if o >= 0 and tiers[o] == CRITICAL:
            tiers[o] = IMPORTANT
    return view.evolve(tiers=tuple(tiers))
