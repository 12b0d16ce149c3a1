"""Persist: store the raw original in the archive before any marker naming its handle is shown.

On success it tells the executor (``ctx.archived``); on failure it raises, the executor fails
open, and a lossy emission then falls back to raw (INV-7).
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.contract import Context, Params, Payload, StageResult


def run(payload: Payload, params: Params, ctx: Context) -> StageResult:
    """Archive ``payload.raw`` under ``ctx.handle``; always declines (the payload is unchanged)."""
    if not params["enabled"]:
        return None
    archive = ctx.archive
    if archive is None:
        from thresher.stores.archive import default_archive
        archive = default_archive()
    archive.put(ctx.handle, payload.raw, {"command": payload.command, "exit_code": payload.exit_code,
                                          "class": payload.pclass, "graph": ctx.graph_id,
                                          "stream": payload.stream})
    ctx.archived = True
    return None
