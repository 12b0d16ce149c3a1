"""Route: choose the emission against the guardrail; the one footer comes with it.

Where the graph places Route, the view gets what the reader will see (``finalize.emission_view``,
the engine's one writer of the footer): when lines were omitted or clipped, or summary lines
written, the view plus the footer stating the exact counts and the handle that brings the original
back — or, when that does not save at least ``min_saving`` of the estimated tokens, the full
source (the executor then emits the original bytes), unless the view hides a secret
(``redacted``). The executor then applies never-worse and emits it, footer and all, without
deriving the footer again.
"""

from __future__ import annotations

from thresher.dataflow.finalize import emission_view

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.contract import Context, Params, Payload, StageResult


def run(payload: Payload, params: Params, ctx: Context) -> StageResult:
    """The view with its footer, the full source when not worth it, or ``None`` if unchanged."""
    return emission_view(payload, ctx.handle, params["min_saving"])
