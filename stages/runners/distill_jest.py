"""distill-jest: JavaScript test runs (jest, vitest, mocha) without the rows of passing tests.

What an agent needs from a run is every failing test with its assertion diff, code frame and the
stack frames in the project's own files, and the counts. A verbose run prints one row per test;
over the budget the passing ones fold per group, the first row staying verbatim (:mod:`thresher.stages.lib.passing_rows`)::

    ✓ add 0 + 1 (2 ms)
    [thresher: 24 more passing tests of src/calc1.test.js › calc batch 1 not shown]

A group is the test file and the describe blocks around the row (by indentation: jest's and mocha's
nesting), or the ``file > describe >`` path vitest prints on the row itself. What each runner's
declarative filter already drops before this stage in the jest graph (``PASS file`` rows, vitest's
per-file rows, mocha's ``✔`` rows, node-internal stack frames: graphs/filters/javascript.yaml) is
not done again here. Kept byte-exact: ``FAIL`` rows, failing rows (``✕``, ``×``, ``1)``), every
line under a failure, the summary (``Tests:``, ``Test Files``, ``N passing``/``N failing``).
"""

from __future__ import annotations

import re

from thresher.stages.declare import Param, Stage
from thresher.stages.lib import passing_rows
from thresher.stages.lib.common import build, critical_flags, over_budget

STAGE = Stage("distill-jest", "distill",
              "jest/vitest/mocha over budget: fold passing test rows per file and describe block "
              "(counted); failures, their diffs and frames, and the counts byte-exact",
              params={"min_group": Param(3, ge=2, doc="passing rows a group needs before it folds")},
              emits_summaries=True)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

PASS_ROW_RE = re.compile(r"^(?P<ind>\s*)[✓✔√] (?P<name>.*?)(?: \(\d+(?:\.\d+)? ?m?s\)| \d+ ?m?s)?$")
FILE_RE = re.compile(r"^(?:PASS|FAIL) +(?P<file>\S+)")
OTHER_ROW_RE = re.compile(r"^(?:[✕×✗○↓] |\d+\) )")
"""A failing, skipped or pending row (not a describe title)."""
FILE_ROW_RE = re.compile(r" \(\d+ tests?(?: \| \d+ \w+)*\)$")


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The run with its passing rows folded, or ``None`` (within budget: a verbose run is what
    was asked for; or no group to fold)."""
    if not over_budget(payload.lines, ctx.budget):
        return None
    rows = _rows(payload, critical_flags(payload))
    sizes: dict[str, int] = {}
    for row in rows:
        sizes[row.group] = sizes.get(row.group, 0) + 1
    keep = [True] * len(payload.lines)
    summaries: dict[int, str] = {}
    if not passing_rows.fold([r for r in rows if sizes[r.group] >= params["min_group"]], keep,
                             summaries):
        return None
    return build(payload, keep, summaries)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _rows(payload: Payload, crit: list[bool]) -> list[passing_rows.Row]:
    """Passing rows of the view with their group label.

    Groups are read from the source lines (a filter before this stage may have dropped the
    ``PASS file`` header or a title that names a row's group), and looked up for each view row.
    """
    labels = _groups(payload.source)
    rows = []
    for i, (line, o) in enumerate(zip(payload.lines, payload.origin)):
        label = labels[o] if o >= 0 else None
        if label is None or crit[i] or line != payload.source[o]:
            continue
        rows.append(passing_rows.Row(i, label))
    return rows


def _groups(source: tuple[str, ...]) -> list[str | None]:
    """Per source line: the group label of a passing row, else ``None``."""
    out: list[str | None] = [None] * len(source)
    file = ""
    titles: list[tuple[int, str]] = []  # (indent, title) of the describe blocks around a row
    for i, line in enumerate(source):
        if m := FILE_RE.match(line):
            file, titles = m["file"], []
            continue
        stripped = line.strip()
        if not stripped:
            continue
        ind = _indent(line)
        titles = [t for t in titles if t[0] < ind]
        m = PASS_ROW_RE.match(line)
        if m is None:
            if ind and not OTHER_ROW_RE.match(stripped):
                titles.append((ind, stripped))
            continue
        name = m["name"]
        if FILE_ROW_RE.search(name):  # vitest's per-file row (`✓ a.test.js (25 tests) 4ms`): no test
            continue
        if " > " in name:  # vitest -verbose: the row carries its own file > describe > test path
            out[i] = "passing tests of " + name.rsplit(" > ", 1)[0].replace(" > ", " › ")
        else:
            path = " › ".join(([file] if file else []) + [t for _, t in titles])
            out[i] = "passing tests of " + (path or "the run")
    return out
