"""distill-go: go test/build/vet without the lines that only say a test started or had no files.

Dropped (one counted summary line): ``=== RUN``/``=== PAUSE``/``=== CONT``/``=== NAME`` banners
(the ``--- PASS``/``--- FAIL`` row of the same test says how it ended) unless the test's own output
follows the banner (``-v`` prints ``t.Errorf`` messages under it: the banner names the subtest the
message belongs to), ``?  pkg [no test files]``
rows and ``go: downloading``/``go: finding`` module progress. Kept byte-exact: every ``--- FAIL``
row and the test's output under it, ``--- SKIP`` rows, panics
and goroutine traces, ``FAIL``/``ok`` package lines, and every compiler or vet diagnostic
(``./x.go:3:2: …``). The ``--- PASS`` rows of ``-v`` fold per package: its first one stays, the
others go with one counted line (:mod:`passing_rows`); a row with log output under it stays.
``go test -json`` output (one JSON object a line) is left alone.
"""

from __future__ import annotations

import re

from thresher.stages.lib import passing_rows
from thresher.stages.lib.common import build, critical_flags, mark_kinds

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

BANNER_RE = re.compile(r"^\s*=== (?:RUN|PAUSE|CONT|NAME)\s+\S")
NO_FILES_RE = re.compile(r"^\?\s+\S+\s+\[no test files\]$")
RESULT_RE = re.compile(r"^\s*--- (?:PASS|FAIL|SKIP):")
MODULE_RE = re.compile(r"^go: (?:downloading|finding|extracting) \S")
PASS_ROW_RE = re.compile(r"^(?P<ind>\s*)--- PASS: \S")
PACKAGE_RE = re.compile(r"^(?:ok|FAIL)\s+(?P<pkg>[^\s\[]\S*)")

_KINDS = ((BANNER_RE, "RUN/PAUSE/CONT banners"), (NO_FILES_RE, "packages without test files"),
          (MODULE_RE, "module downloads"))


def run(payload: Payload, _params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The distilled go view, or ``None`` (JSON events, or nothing to drop)."""
    lines = payload.lines
    if sum(1 for line in lines[:20] if line.startswith("{")) > 2:
        return None   # go test -json: a program's input, not ours to cut
    crit = critical_flags(payload)
    keep = [True] * len(lines)
    totals = mark_kinds(lines, crit, keep, _KINDS)
    for i in range(len(lines) - 1):  # a banner with output under it names whose output that is
        if (not keep[i] and BANNER_RE.match(lines[i]) and not BANNER_RE.match(lines[i + 1])
                and not RESULT_RE.match(lines[i + 1])):
            keep[i] = True
            totals[_KINDS[0][1]] -= 1
    dropped = keep.count(False)
    summaries = {}
    if dropped:
        parts = ", ".join(f"{totals[name]} {name}" for _, name in _KINDS if totals.get(name))
        noun = "line" if dropped == 1 else "lines"
        summaries[keep.index(False)] = f"[thresher: {dropped} {noun} not shown ({parts})]"
    passing_rows.fold(_pass_rows(lines, crit), keep, summaries)
    return build(payload, keep, summaries)


def _pass_rows(lines, crit: list[bool]) -> list:
    """``--- PASS`` rows with the package whose ``ok``/``FAIL`` line closes their block.

    A row with output under it (indented deeper, not another row or banner) stays: that output is
    the test's log. Rows after the last package line (a killed run) have no group and stay.
    """
    rows: list[passing_rows.Row] = []
    pending: list[int] = []
    for i, line in enumerate(lines):
        if m := PACKAGE_RE.match(line):
            rows.extend(passing_rows.Row(k, f"--- PASS rows of {m['pkg']}") for k in pending)
            pending = []
        elif (m := PASS_ROW_RE.match(line)) and not crit[i]:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            logged = (len(nxt) - len(nxt.lstrip()) > len(m["ind"]) and not RESULT_RE.match(nxt)
                      and not BANNER_RE.match(nxt))
            if not logged:
                pending.append(i)
    return rows
