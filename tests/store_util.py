"""Helpers shared by the store tests: a clock the archive reads instead of the wall clock."""

from __future__ import annotations


class Clock:
    """A settable clock (no test sleeps): patch it over ``thresher.stores.archive.clock``."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def patch_clock(monkeypatch) -> Clock:
    """Make the archive read a fresh :class:`Clock`; return it."""
    from thresher.stores import archive
    fake = Clock()
    monkeypatch.setattr(archive, "clock", fake)
    return fake
