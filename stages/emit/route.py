"""Route: choose the emission against the guardrail and write the one footer.

If the compressed view does not save at least ``min_saving`` of the estimated tokens, the full
source goes on (the executor then emits the original bytes) — unless the view hides a secret
(``redacted``). Otherwise, when lines were omitted or
clipped, one footer line states the exact counts and the handle to get the original back.
"""

from __future__ import annotations

from thresher.dataflow.markers import footer, omitted_span
from thresher.dataflow.payload import SYNTHETIC


def run(payload, params, ctx):
    """The view with its footer, the full source when not worth it, or ``None`` if unchanged."""
    kept, omitted, clipped = payload.counts()
    synthetic = any(o == SYNTHETIC for o in payload.origin)
    if not omitted and not clipped and not synthetic:
        return None
    n = len(payload.source)
    full = payload.source_tokens()
    line = footer(omitted, n, ctx.handle, clipped, omitted_span(payload.origin, n))
    view = payload.with_view(payload.lines + (line,), payload.origin + (SYNTHETIC,))
    if not payload.redacted and view.tokens() > full * (1 - params["min_saving"]):
        # the footer costs tokens too; a view that hides a secret goes on regardless
        return payload.with_view(payload.source, range(n))
    return view
