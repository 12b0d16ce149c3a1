"""drop-noise: a minimal distiller that drops the lines Score marked as noise.

Tool-specific distillers (issue 4) plug in at the same phase; this one only removes what the
graph's own noise patterns named, so it never summarises anything it did not understand.
"""

from __future__ import annotations

from thresher.dataflow.payload import NOISE

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The view without noise lines, or ``None`` when fewer than ``min_lines`` would go."""
    tiers = payload.tiers
    keep = [i for i, o in enumerate(payload.origin) if o < 0 or tiers[o] != NOISE]
    if len(payload.lines) - len(keep) < params["min_lines"]:
        return None
    return payload.select(keep)
