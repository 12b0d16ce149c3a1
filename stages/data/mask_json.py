"""The ``mask-json`` stage: credential values in a JSON document masked in their lines.

What counts as a credential, and how a line is masked, is :mod:`thresher.stages.lib.secrets`
(shared with ``distill-http`` and ``thresher expand``).
"""

from __future__ import annotations

from thresher.dataflow.payload import Out

from thresher.stages.lib.secrets import json_candidates, mask_json_line, mask_view

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload


def run(payload: Payload, _params: dict[str, Any], _ctx: Context) -> Out | None:
    """mask-json: credential values masked; leaves through ``masked`` (past the re-layout stages,
    which rebuild the document from the unmasked source) or declines."""
    if min(payload.origin, default=0) < 0:   # a summary line in the view (min: one C pass)
        return None
    # masking is a function of the line, and a pretty-printed document repeats its lines (an
    # array of records: the same members, the same indentation): the candidates are searched
    # among the distinct lines only (one hashing pass), and the view is rebuilt only when one of
    # them is masked
    distinct = list(dict.fromkeys(payload.lines))
    masked = {}
    for i in (range(len(distinct)) if (only := json_candidates(distinct)) is None else only):
        line = distinct[i]
        new = mask_json_line(line)
        if new is not None and new != line:
            masked[line] = new
    if not masked:
        return None
    view = mask_view(payload, masked.get, only=[i for i, line in enumerate(payload.lines) if line in masked])
    return None if view is None else Out("masked", view)
