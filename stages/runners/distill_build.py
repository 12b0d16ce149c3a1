"""distill-build: make / gcc / clang / cmake / ninja builds without the lines that only say "working".

Dropped (one counted summary line): ``make: Entering/Leaving directory`` lines, cmake/ninja progress
(``[ 42%] Building C object …``, ``[3/9] Building …``) and kbuild-style ``  CC  foo.o`` lines.
Commands make echoes (``gcc … -c x.c``) stay: they are what ran, with the flags an agent needs to
reproduce one compile (the graph lets trim cut them, counted, only when over budget). Every diagnostic (``file:line:col: error|warning|note:``),
``In function`` context, include chains, linker errors and make's ``***`` error lines stay
byte-exact. Over the budget, diagnostics lose their code snippets (counted); still over it, a
warning that recurs at 4 or more places of one function (one macro expanded over and over, one
conversion in a long routine) is said once: its first block (the warning and the ``note:`` rows
of its expansion chain) stays verbatim, and one counted line after it names every other place, as
:mod:`..lib.lint_groups` does for linters. Error rows never group; a warning repeated once per
function stays whole in each.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import CRITICAL

from thresher.stages.lib import lint_groups
from thresher.stages.lib.diagnostics import CARET_RE, drop_snippets, snippet_summary
from thresher.stages.lib.common import build, critical_flags, mark_kinds, over_budget

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

DIR_RE = re.compile(r"^g?make(?:\[\d+\])?: (?:Entering|Leaving) directory ")
CMAKE_RE = re.compile(r"^\[\s*\d+%\] (?:Building|Linking|Built target|Scanning|Generating)\b"
                      r"|^\[\d+/\d+\] (?:Building|Linking|Generating|Compiling)\b")
KBUILD_RE = re.compile(r"^\s+(?:CC|CXX|LD|AR|AS|CCLD|CXXLD|GEN|HOSTCC|HOSTLD|INSTALL|OBJCOPY)\s+\S+$")
COMPILER_MIN_GROUP = 4
"""A warning folds only when it recurs this often: a few recurrences are a few distinct places
(each under its own ``In function`` line), and saying them once would save little."""
_KINDS = ((DIR_RE, "directory changes"), (CMAKE_RE, "build progress"),
          (KBUILD_RE, "build progress"))


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The distilled build view, or ``None`` when there is nothing to drop."""
    lines = payload.lines
    crit = critical_flags(payload)
    keep = [True] * len(lines)
    totals = mark_kinds(lines, crit, keep, _KINDS)
    summaries = {}
    dropped = keep.count(False)
    if dropped:
        parts = ", ".join(f"{v} {k}" for k, v in totals.items())
        noun = "line" if dropped == 1 else "lines"
        summaries[keep.index(False)] = f"[thresher: {dropped} {noun} of build progress not shown ({parts})]"
    if params["snippets_over_budget"] and over_budget([ln for ln, k in zip(lines, keep) if k], ctx.budget):
        # a bare caret (javac, clang) points into the code line above it: unless Score made it
        # critical, it is part of the snippet and goes with that line
        crit = [c and not (o >= 0 and payload.tiers[o] != CRITICAL and CARET_RE.match(ln))
                for c, ln, o in zip(crit, lines, payload.origin)]
        diags, cut = drop_snippets(lines, keep, crit)
        if cut:
            summaries[len(lines)] = snippet_summary(diags, cut)
    folded: list[int] = []
    if params["group"] and over_budget([ln for ln, k in zip(lines, keep) if k], ctx.budget):
        groups, folded = lint_groups.group(lines, keep, ctx.budget, lint_groups.compiler_findings,
                                           whole_block=True, min_group=COMPILER_MIN_GROUP)
        for after, line in groups.items():
            at = after + 1   # (a summary line goes before the line at its index)
            summaries[at] = f"{line} · {summaries[at]}" if at in summaries else line
    view = build(payload, keep, summaries)
    return None if view is None else lint_groups.demote(payload, view, folded)
