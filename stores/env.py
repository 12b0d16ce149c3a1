"""The environment switches the stores obey themselves (``THRESHER_NO_LEDGER``, ``THRESHER_OFF``,
``THRESHER_DISABLE``): the primitives of :mod:`thresher.boundary.switches`, here so that the
stores, which sit below the boundary, read them without importing it."""

from __future__ import annotations

import os


def on(name: str) -> bool:
    """True when the environment variable ``name`` is set to anything but ``""``/0/false/no/off."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def switched_off() -> list[str]:
    """The names ``THRESHER_OFF`` lists (known or not, as written)."""
    return [n.strip().lower() for n in os.environ.get("THRESHER_OFF", "").split(",") if n.strip()]


def master_off() -> bool:
    """True when the master switch ``THRESHER_DISABLE`` turns every subsystem off."""
    return on("THRESHER_DISABLE")


def off(subsystem: str) -> bool:
    """True when ``subsystem`` is off, by itself (``THRESHER_OFF``) or by the master switch."""
    return master_off() or subsystem in switched_off()


def ledger_disabled() -> bool:
    """True when ``THRESHER_NO_LEDGER`` (or ``THRESHER_OFF=ledger``) turns both ledgers off."""
    return on("THRESHER_NO_LEDGER") or off("ledger")
