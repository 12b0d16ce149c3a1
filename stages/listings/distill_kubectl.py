"""distill-kubectl: ``kubectl get`` tables over the budget keep every row that is not healthy.

A ``get`` table is an enumeration: every row is the answer, so within the graph's budget the stage
declines and the table passes whole. Over the budget it keeps the header and every row that is
*not* healthy — a STATUS other than Running/Completed/Succeeded/Active/Bound/Ready, a READY count
``n/m`` with n < m, or a RESTARTS count above zero — and drops the healthy rows, writing one summary
line with their exact count (``[thresher: kubectl: 480 healthy rows (Running, all containers ready,
no restarts) not shown]``); the footer's handle brings them back. Columns are cut at the header's
offsets (kubectl left-aligns every cell under its header), so ``7 (2m ago)`` stays one cell.

It declines on anything else: ``describe``, ``logs`` (the log graph), errors, tables without a
STATUS/READY/RESTARTS column (services, configmaps: nothing says which rows are healthy, so only
the budget trim may cut them, and it counts them), and input whose rows do not line up with the
header.
"""

from __future__ import annotations

import re


from thresher.stages.lib.dropsum import drop

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_HEADER = re.compile(r"^(?:NAMESPACE\s+)?NAME\s{2,}\S")
_HEALTHY = frozenset({"Running", "Completed", "Succeeded", "Active", "Bound", "Ready", "Available", "True"})
_COLUMNS = ("STATUS", "READY", "RESTARTS")


def _offsets(header: str) -> dict[str, tuple[int, int]]:
    """Column name → (start, end) character span, from the header's word positions."""
    spans = [(m.start(), m.group().strip()) for m in re.finditer(r"\S+(?: \S+)*", header)]
    out = {}
    for k, (start, name) in enumerate(spans):
        end = spans[k + 1][0] if k + 1 < len(spans) else None
        out[name] = (start, end if end is not None else 1 << 30)
    return out


def _cell(row: str, span: tuple[int, int]) -> str | None:
    """The cell under ``span``, or ``None`` when the row does not line up (text across the edge)."""
    start, end = span
    if start > 0 and start <= len(row) and row[start - 1] != " ":
        return None
    return row[start:end].strip()


def healthy(row: str, cols: dict[str, tuple[int, int]]) -> bool | None:
    """True/False for a row of a table with health columns; ``None`` when the row does not parse."""
    got = {c: _cell(row, cols[c]) for c in _COLUMNS if c in cols}
    cells = {c: v for c, v in got.items() if v}
    if len(cells) != len(got):   # a cell that does not line up, or an empty one
        return None
    if "STATUS" in cells and cells["STATUS"] not in _HEALTHY:
        return False
    if "READY" in cells:
        m = re.fullmatch(r"(\d+)/(\d+)", cells["READY"])
        if m is None:
            return None if "STATUS" not in cells else True
        if int(m[1]) < int(m[2]) and cells.get("STATUS") not in ("Completed", "Succeeded"):
            return False
    if "RESTARTS" in cells:
        m = re.match(r"(\d+)", cells["RESTARTS"])
        if m is None:
            return None
        if int(m[1]) > 0:
            return False
    return True


def _over_budget(payload, budget: Budget) -> bool:
    return len(payload.lines) > budget["max_lines"] or payload.tokens() > budget["max_tokens"]


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """Healthy rows of an over-budget get table dropped (counted), or ``None``."""
    lines = payload.lines
    if not lines or not _HEADER.match(lines[0]) or any(o < 0 for o in payload.origin):
        return None
    cols = _offsets(lines[0])
    if not any(c in cols for c in _COLUMNS) or not _over_budget(payload, ctx.budget):
        return None
    kinds: list = [None]
    for row in lines[1:]:
        verdict = healthy(row, cols)
        if verdict is None and row.strip():
            return None  # a row we cannot read: never guess which rows matter
        kinds.append(params["healthy_label"] if verdict else None)
    return drop(payload, kinds, "kubectl")
