"""filter: apply the first declarative filter whose ``match`` hits the command (see README).

The generic graphs run this stage, so every command without a native payload class goes through
the declarative filters (project (trusted), user, shipped — first match wins); native distillers
win because their classes have their own graphs. The filters come from a ``marshal`` cache
(``thresher.filters.runtime``): this stage never imports yaml or pydantic on a warm cache.
Declines when no filter matches, when the filter changes nothing, or when it would not save.
"""

from __future__ import annotations

from thresher.filters import engine, runtime

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The payload as the matching filter shapes it, or ``None``."""
    if not params["enabled"] or not payload.command:
        return None
    f = engine.first_match(runtime.load().filters, payload.command)
    return None if f is None else engine.apply(f, payload)
