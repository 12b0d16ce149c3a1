"""Kill switches, measure-only mode and the ledgers' hooks, shared by ``thresher run`` and ``pipe``.

- ``THRESHER_DISABLE=1``: pure passthrough everywhere (exit codes still exact).
- ``THRESHER_RAW=1`` (per command, e.g. ``THRESHER_RAW=1 pytest``) or ``thresher run --raw``: the
  same for one command.
- ``THRESHER_MEASURE_ONLY=1``: compress as usual to learn what would be saved, record it in the
  savings ledger as a *measure-only* event (``thresher gain`` reports them apart), but emit the raw
  output — the cautious way to start.
- ``THRESHER_NO_LEDGER=1``: record no savings events and fold nothing already shown (the archive,
  which ``thresher expand`` needs, still runs).
- ``THRESHER_SESSION`` / ``THRESHER_AGENT``: the reader scope of the session ledger (see
  ``thresher.stores.sessions``); without a session nothing is folded as "already shown".
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


def ledger_disabled() -> bool:
    """True when ``THRESHER_NO_LEDGER`` turns the session and savings ledgers off."""
    return _on("THRESHER_NO_LEDGER")


def scope() -> str:
    """The current reader scope ("" without a session id)."""
    if not os.environ.get("THRESHER_SESSION", "").strip():
        return ""  # the common case: no session, and no store modules imported for it
    from thresher.stores.sessions import scope_from_env
    return scope_from_env()


def session_ledger(reader_scope: str):
    """The session ledger to hand to ``compress`` for ``reader_scope``, or ``None``.

    None in measure-only mode too: the reader then gets the raw output, not what the ledger
    would have folded, so nothing may be folded against it later either.
    """
    if not reader_scope or ledger_disabled() or measure_only():
        return None
    try:
        from thresher.stores.sessions import SessionLedger
        return SessionLedger()
    except Exception:  # noqa: BLE001 - no ledger means no folding, never a failure
        return None


def record(result, raw: bytes, **event: object) -> None:
    """Archive ``raw`` if needed and append its savings event (never raises).

    ``result`` is the engine's ``Result``, or ``None`` for output passed through untouched.
    """
    try:
        from thresher.stores.savings import record_payload
        record_payload(result, raw, **event)
    except Exception:  # noqa: BLE001 - recording must never disturb the command
        pass
