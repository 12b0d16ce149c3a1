"""Kill switches, measure-only mode and the reader's session ledger, shared by ``thresher run``,
``pipe``, the hooks, the shims and the MCP server (what is recorded per payload:
:mod:`thresher.boundary.deliver`).

- ``THRESHER_DISABLE=1``: the master switch: pure passthrough everywhere (exit codes still exact),
  every subsystem below off.
- ``THRESHER_OFF=hooks,shims,mcp,ledger,read-stubs`` (any of them, comma-separated): one
  subsystem off, the rest as usual. ``hooks``: the Claude Code hooks neither rewrite a command nor
  replace an output (a deny/ask rule for a ``thresher run`` line the agent typed is still
  applied); ``shims``: a PATH shim runs its real program directly; ``mcp``: ``thresher mcp``
  refuses to start; ``ledger``: as ``THRESHER_NO_LEDGER=1``; ``read-stubs``: ``thresher read``
  always sends the file, never an "unchanged" stub or a diff.
- ``THRESHER_RAW=1`` (per command, e.g. ``THRESHER_RAW=1 pytest``) or ``thresher run --raw``: the
  same as the master switch for one command.
- ``THRESHER_MEASURE_ONLY=1``: compress as usual to learn what would be saved, record it in the
  savings ledger as a *measure-only* event (``thresher gain`` reports them apart), but emit the raw
  output — the cautious way to start. Unset, the measure-first posture of the working folder
  decides (:mod:`thresher.boundary.rollout`); ``THRESHER_MEASURE_ONLY=0`` compresses anyway.
- ``THRESHER_NO_LEDGER=1``: record no savings events and fold nothing already shown (the archive,
  which ``thresher expand`` needs, still runs).
- ``THRESHER_SESSION`` / ``THRESHER_AGENT``: the reader scope of the session ledger (see
  ``thresher.stores.sessions``); without a session nothing is folded as "already shown".
"""

from __future__ import annotations

import os

from thresher.stores.env import ledger_disabled, master_off, off, switched_off
from thresher.stores.env import on as _on

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.stores.sessions import SessionLedger

__all__ = ["ROLLOUT_FILE", "SUBSYSTEMS", "disabled", "ledger_disabled", "master_off",
           "measure_only", "off", "read_stubs_off", "scope", "session_ledger",
           "switched_off"]

SUBSYSTEMS = ("hooks", "shims", "mcp", "ledger", "read-stubs")


def disabled() -> bool:
    """True when thresher must not touch any output."""
    return _on("THRESHER_DISABLE") or _on("THRESHER_RAW")


ROLLOUT_FILE = "rollout.json"
"""Under the data home: the measure-first roots (:mod:`thresher.boundary.rollout`)."""


def measure_only(cwd: str | None = None) -> bool:
    """True when thresher should measure but emit raw output (for work done in ``cwd``)."""
    if os.environ.get("THRESHER_MEASURE_ONLY", "").strip():
        return _on("THRESHER_MEASURE_ONLY")
    try:
        from thresher.stores.db import home
        if not os.path.exists(os.path.join(home(), ROLLOUT_FILE)):
            return False  # no root was ever recorded (the common case: rollout is not imported)
        from thresher.boundary.rollout import measuring
        return measuring(cwd or os.getcwd())
    except Exception:  # noqa: BLE001 - no readable posture: the install's default, compressing
        return False


def read_stubs_off() -> bool:
    """True when ``thresher read`` must send the file itself, never a stub or a diff
    (``THRESHER_OFF=read-stubs``, the master switch, or ``THRESHER_NO_LEDGER`` as before)."""
    return off("read-stubs") or _on("THRESHER_NO_LEDGER")


def scope() -> str:
    """The current reader scope ("" without a session id)."""
    if not os.environ.get("THRESHER_SESSION", "").strip():
        return ""  # the common case: no session, and no store modules imported for it
    from thresher.stores.sessions import scope_from_env
    return scope_from_env()


def session_ledger(reader_scope: str, measuring: bool | None = None) -> SessionLedger | None:
    """The session ledger to hand to ``compress`` for ``reader_scope``, or ``None``.

    None in measure-only mode too (``measuring``, else :func:`measure_only` here): the reader
    then gets the raw output, not what the ledger would have folded, so nothing may be folded
    against it later either.
    """
    if measuring is None:
        measuring = measure_only()
    if not reader_scope or ledger_disabled() or measuring:
        return None
    try:
        from thresher.stores.sessions import SessionLedger
        return SessionLedger()
    except Exception:  # noqa: BLE001 - no ledger means no folding, never a failure
        return None
