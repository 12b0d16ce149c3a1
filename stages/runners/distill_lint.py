"""distill-lint: linters and type checkers (ruff, mypy, tsc, eslint, pylint, flake8, shellcheck) over budget.

Every finding of a linter is part of the answer, so nothing is dropped while the output fits the
budget. Over it, two steps, each only as far as needed:

1. each diagnostic keeps its header (code and message), its ``file:line:col`` location and its
   notes/help lines, and loses only the code snippet that ruff's full format, ``mypy --pretty``
   and ``tsc --pretty`` print under it (counted in one summary line);
2. still over budget, a file's findings that repeat one message are said once: the first stays
   verbatim and the other locations follow it on one counted line (:mod:`.lint_groups`, which
   explains why that line is no fabrication). Error lines never group. The findings a group line
   stands for are no longer critical lines: their locations are in that line.
"""

from __future__ import annotations

from thresher.dataflow.payload import SYNTHETIC

from thresher.stages.lib import lint_groups
from thresher.stages.lib.diagnostics import drop_snippets, snippet_summary
from thresher.stages.lib.common import critical_flags, over_budget

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The view without code snippets and with repeated findings grouped, when over budget;
    else ``None``."""
    lines = payload.lines
    if not over_budget(lines, ctx.budget):
        return None
    keep = [True] * len(lines)
    diags, cut = drop_snippets(lines, keep, critical_flags(payload))
    groups: dict[int, str] = {}
    folded: list[int] = []
    if params.get("group", True) and over_budget([s for s, k in zip(lines, keep) if k], ctx.budget):
        groups, folded = lint_groups.group(lines, keep, ctx.budget)
    if not cut and not groups:
        return None
    out, origin = [], []
    for i, (line, o) in enumerate(zip(lines, payload.origin)):
        if keep[i]:
            out.append(line)
            origin.append(o)
        if i in groups:
            out.append(groups[i])
            origin.append(SYNTHETIC)
    if cut:
        out.append(snippet_summary(diags, cut))
        origin.append(SYNTHETIC)
    return lint_groups.demote(payload, payload.with_view(out, origin), folded)
