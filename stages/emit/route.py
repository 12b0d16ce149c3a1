"""Route: the graph's guardrail — how much of the estimated tokens the emission must save.

Route hands the executor ``min_saving`` (``ctx.min_saving``) and changes nothing. The executor owns
the emission (``thresher.dataflow.finalize``): it writes the one footer and enforces never-worse,
and with Route's guardrail it emits the full source instead of a view that, footer included, does
not save at least ``min_saving`` of the source's tokens — unless the view hides a secret
(``redacted``). A graph without Route gets never-worse alone.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.contract import Context, Params, Payload, StageResult


def run(payload: Payload, params: Params, ctx: Context) -> StageResult:  # noqa: ARG001 - the Stage signature
    """Declare the guardrail for the final emission; always declines (the view is unchanged)."""
    ctx.min_saving = params["min_saving"]
    return None
