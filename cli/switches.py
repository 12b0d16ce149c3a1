"""Kill switches and measure-only mode, shared by ``thresher run`` and ``thresher pipe``.

- ``THRESHER_DISABLE=1``: pure passthrough everywhere (exit codes still exact).
- ``THRESHER_RAW=1`` (per command, e.g. ``THRESHER_RAW=1 pytest``) or ``thresher run --raw``: the
  same for one command.
- ``THRESHER_MEASURE_ONLY=1``: compress as usual to learn what would be saved, record it in
  ``$THRESHER_HOME/measure.jsonl``, but emit the raw output — the cautious way to start.
"""

from __future__ import annotations

import os


def _on(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def disabled() -> bool:
    """True when thresher must not touch any output."""
    return _on("THRESHER_DISABLE") or _on("THRESHER_RAW")


def measure_only() -> bool:
    """True when thresher should measure but emit raw output."""
    return _on("THRESHER_MEASURE_ONLY")


def record_measurement(result, command: str, stream: str) -> None:
    """Append what ``result`` would have saved to the measure log (never raises)."""
    try:
        import json
        import time

        from thresher.stores.archive import home
        em = result.emission
        row = {"ts": round(time.time(), 3), "command": command, "stream": stream,
               "class": result.pclass, "graph": result.graph_id, "decision": em.decision,
               "tokens_in": em.tokens_in, "tokens_out": em.tokens_out,
               "bytes_in": len(result.output) if em.decision != "compressed" else None}
        os.makedirs(home(), exist_ok=True)
        with open(os.path.join(home(), "measure.jsonl"), "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
    except Exception:  # noqa: BLE001 - measuring must never disturb the command
        pass
