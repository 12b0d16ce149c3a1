"""Ledger: a block this reader was already delivered becomes one line naming where to see it again.

Runs after trim/collapse, before route. For a reader scope (``payload.scope``) and a session ledger
(``ctx.ledger``, see ``SessionLedger`` in ``thresher.dataflow.contract``), windows of the
view whose fingerprints the ledger knows are merged into runs; each run of at least ``min_run``
consecutive source lines becomes

    [thresher: 57 lines already shown above · thresher expand <handle> --lines A-B]

where A-B are the run's line numbers in this payload's original (archived by Persist before the
marker is shown). Never folded: critical lines (errors, failures), summary lines, and outputs of
fewer than ``floor`` lines. Without a scope or a ledger the stage declines, so output is
deterministic given the scope's state. The executor counts folded lines as omitted in the footer.
"""

from __future__ import annotations

from thresher.dataflow.blocks import WINDOW, block_keys
from thresher.dataflow.payload import CRITICAL, SYNTHETIC

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.contract import Context, LedgerStore, Params, Payload, StageResult

MARKER = "[thresher: {n} lines already shown above · thresher expand {handle} --lines {a}-{b}]"


def _covered(payload: Payload, ledger: LedgerStore) -> list[bool]:
    """Per view line: inside some window this scope was already delivered."""
    usable = [o != SYNTHETIC for o in payload.origin]
    keys = block_keys(payload.lines, usable)
    if not keys:
        return [False] * len(payload.lines)
    known = ledger.known(payload.scope, [k for _, k in keys])
    covered = [False] * len(payload.lines)
    for start, key in keys:
        if key in known:
            for i in range(start, start + WINDOW):
                covered[i] = True
    return covered


def _runs(payload: Payload, covered: list[bool], min_run: int) -> list[tuple[int, int]]:
    """``(start, end)`` view ranges to fold: covered, not critical, consecutive source lines."""
    origin, tiers, n = payload.origin, payload.tiers, len(payload.origin)
    runs, start = [], None
    for i in range(n + 1):
        ok = i < n and covered[i] and origin[i] >= 0 and tiers[origin[i]] != CRITICAL
        # A gap in the source (trim dropped lines) ends a run: the --lines range must stay exact.
        contiguous = ok and start is not None and origin[i] == origin[i - 1] + 1
        if start is not None and not contiguous:
            if i - start >= min_run:
                runs.append((start, i))
            start = None
        if ok and start is None:
            start = i
    return runs


def run(payload: Payload, params: Params, ctx: Context) -> StageResult:
    """The view with already-delivered runs folded, or ``None`` when nothing qualifies."""
    ledger = ctx.ledger
    if ledger is None or not payload.scope or len(payload.source) < params["floor"]:
        return None
    covered = _covered(payload, ledger)
    runs = _runs(payload, covered, max(params["min_run"], WINDOW))
    if not runs:
        return None
    lines: list[str] = []
    origin: list[int] = []
    pos = 0
    for start, end in runs:
        lines.extend(payload.lines[pos:start])
        origin.extend(payload.origin[pos:start])
        a, b = payload.origin[start] + 1, payload.origin[end - 1] + 1
        lines.append(MARKER.format(n=end - start, handle=ctx.handle, a=a, b=b))
        origin.append(SYNTHETIC)
        pos = end
    lines.extend(payload.lines[pos:])
    origin.extend(payload.origin[pos:])
    return payload.with_view(lines, origin)
