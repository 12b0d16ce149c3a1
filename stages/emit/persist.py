"""Persist: store the raw original in the archive before any marker naming its handle is shown.

On success it tells the executor (``ctx.archived``); on failure it raises, the executor fails
open, and a lossy emission then falls back to raw (INV-7).
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

    from thresher.dataflow.contract import Context, Params, Payload, StageResult


def run(payload: Payload, params: Params, ctx: Context) -> StageResult:
    """Archive ``payload.raw`` under ``ctx.handle``; always declines (the payload is unchanged)."""
    if not params["enabled"]:
        return None
    archive = ctx.archive
    if archive is None:
        from thresher.stores.archive import default_archive
        archive = default_archive()
    # an archive that packs an Original a piece at a time is given it: the bytes are then
    # never rebuilt whole when its owner let them go (thresher.dataflow.payload.Original)
    raw: Any = payload.original if getattr(archive, "takes_original", False) else payload.raw
    archive.put(ctx.handle, raw, {"command": payload.command, "exit_code": payload.exit_code,
                                          "class": payload.pclass, "graph": ctx.graph_id,
                                          "stream": payload.stream})
    ctx.archived = True
    return None
