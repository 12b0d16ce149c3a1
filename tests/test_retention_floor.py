"""The retention floor: a footer's handle stays valid 30 minutes whatever the TTL or size cap."""

from __future__ import annotations

import os

import pytest

from thresher.dataflow.api import handle_of
from thresher.dataflow.errors import ArchiveError
from thresher.stores import archive as archive_mod
from thresher.stores.archive import RETENTION_FLOOR_S, default_archive

from .store_util import Clock, patch_clock


@pytest.fixture
def clock(monkeypatch) -> Clock:
    return patch_clock(monkeypatch)


def _put(raw: bytes) -> str:
    handle = handle_of(raw)
    default_archive().put(handle, raw, {"command": "test"})
    return handle


def test_a_tiny_ttl_still_keeps_entries_for_the_floor(monkeypatch, clock):
    monkeypatch.setenv("THRESHER_ARCHIVE_TTL_DAYS", "0.00001")  # 0.86 s as set
    raw = b"collected 3 items\n" * 40
    handle = _put(raw)
    clock.now += 2  # the 2 s after which the seed saw this entry expire
    assert default_archive().evict()["expired"] == 0
    assert default_archive().get(handle) == raw  # the read refreshes its last use
    clock.now += RETENTION_FLOOR_S - 1
    assert default_archive().evict()["expired"] == 0
    assert default_archive().get(handle, touch=False) == raw
    clock.now += 2  # now past the floor since its last use
    with pytest.raises(ArchiveError, match="kept 0.5 hours after last use"):
        default_archive().get(handle)
    assert default_archive().evict()["expired"] == 1


def test_the_floor_holds_against_the_size_cap_and_the_overshoot_is_reported(monkeypatch, clock):
    monkeypatch.setenv("THRESHER_ARCHIVE_MAX_MB", str(16 / 1024))  # 16 KiB
    monkeypatch.setattr(archive_mod, "EVICT_EVERY", 1)
    blobs = [os.urandom(8192) for _ in range(6)]  # 48 KiB incompressible, all put at one time
    handles = [_put(b) for b in blobs]
    stats = default_archive().stats()
    assert stats["entries"] == 6 and stats["young_entries"] == 6
    assert stats["over_cap_bytes"] == stats["stored_bytes"] - 16 * 1024 > 0
    assert default_archive().evict()["over_cap"] == stats["over_cap_bytes"]
    for h, b in zip(handles, blobs):
        assert default_archive().get(h, touch=False) == b  # none evicted: all under the floor
    clock.now += RETENTION_FLOOR_S + 1
    default_archive().get(handles[-1])  # used again: young once more, so it stays
    result = default_archive().evict()
    assert result["evicted"] >= 4 and result["over_cap"] == 0
    assert default_archive().stats()["over_cap_bytes"] == 0
    assert default_archive().get(handles[-1]) == blobs[-1]
    with pytest.raises(ArchiveError, match="size cap"):
        default_archive().get(handles[0])


def test_young_entries_are_kept_even_if_only_part_of_the_cap_can_be_met(monkeypatch, clock):
    monkeypatch.setenv("THRESHER_ARCHIVE_MAX_MB", str(16 / 1024))
    old = [_put(os.urandom(8192)) for _ in range(2)]
    clock.now += RETENTION_FLOOR_S + 1
    young = [(_put(b), b) for b in [os.urandom(8192) for _ in range(3)]]
    # every put this large runs retention: the old entries went, the young stay over the cap
    assert default_archive().evict()["over_cap"] == 3 * 8192 - 16 * 1024
    for h in old:
        with pytest.raises(ArchiveError, match="size cap"):
            default_archive().get(h)
    for h, b in young:
        assert default_archive().get(h, touch=False) == b


def test_doctor_says_when_the_floor_keeps_the_archive_over_its_cap(monkeypatch, clock):
    from thresher.cmd_doctor import archive_retention
    _put(b"small output\n" * 10)
    assert archive_retention().status == "ok"
    monkeypatch.setenv("THRESHER_ARCHIVE_MAX_MB", str(16 / 1024))
    for _ in range(3):
        _put(os.urandom(8192))
    check = archive_retention()
    assert check.status == "warn"
    assert "over" in check.detail and "last 30 minutes" in check.detail
    assert "THRESHER_ARCHIVE_MAX_MB" in check.fix
    clock.now += RETENTION_FLOOR_S + 1
    default_archive().evict()
    assert archive_retention().status == "ok"
