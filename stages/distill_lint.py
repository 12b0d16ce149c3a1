"""distill-lint: linters and type checkers (ruff, mypy, tsc, eslint, pylint, flake8) over budget.

Every finding of a linter is part of the answer, so nothing is dropped while the output fits the
budget. Over it, each diagnostic keeps its header (code and message), its ``file:line:col``
location and its notes/help lines, and loses only the code snippet that ruff's full format,
``mypy --pretty`` and ``tsc --pretty`` print under it (counted in one summary line). One-line
formats (ruff concise, plain mypy and tsc, eslint stylish, pylint) have no snippets: the
distiller declines and every row passes on.
"""

from __future__ import annotations

from .diagnostics import drop_snippets, snippet_summary
from .distill_common import build, critical_flags, over_budget


def run(payload, params, ctx):
    """The view without code snippets when over budget, else ``None``."""
    lines = payload.lines
    if not over_budget(lines, ctx.budget):
        return None
    keep = [True] * len(lines)
    diags, cut = drop_snippets(lines, keep, critical_flags(payload))
    if not cut:
        return None
    return build(payload, keep, {len(lines): snippet_summary(diags, cut)})
