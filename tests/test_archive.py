"""The SQLite archive: round trip, handles by prefix, TTL, size cap, schema migrations, recovery."""

from __future__ import annotations

import os
import sqlite3
import stat
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thresher.cmd_expand import select, split_lines
from thresher.dataflow.api import compress, handle_of
from thresher.dataflow.errors import ArchiveError
from thresher.stores import archive as archive_mod
from thresher.stores.archive import SqliteArchive, default_archive
from thresher.stores.db import MIGRATIONS, SCHEMA_VERSION, database
from thresher.stores.savings import record_payload

from .store_util import Clock, patch_clock


def _put(raw: bytes) -> str:
    handle = handle_of(raw)
    default_archive().put(handle, raw, {"command": "test"})
    return handle


def _db_path() -> str:
    return os.path.join(os.environ["THRESHER_HOME"], "thresher.db")


def test_round_trip_by_full_handle_and_by_unique_prefix():
    raw = b"".join(b"line %d of a long output\n" % i for i in range(400))
    handle = _put(raw)
    assert default_archive().get(handle) == raw
    assert default_archive().get(handle[:4]) == raw
    assert default_archive().meta(handle)["command"] == "test"


def test_unknown_ambiguous_and_malformed_handles_say_so():
    with pytest.raises(ArchiveError, match="unknown or expired handle"):
        default_archive().get("abcdef123456")
    with pytest.raises(ArchiveError, match="not a thresher handle"):
        default_archive().get("xyz")
    handles = {_put(b"payload %d\n" % i) for i in range(40)}
    shared = next(c for c in "0123456789abcdef" if sum(h[0] == c for h in handles) > 1)  # 40 > 16
    with pytest.raises(ArchiveError, match="ambiguous"):
        default_archive().get(shared)


def test_database_and_its_wal_are_private():
    _put(b"secret output\n" * 100)
    folder = os.environ["THRESHER_HOME"]
    for name in os.listdir(folder):
        if name.startswith("thresher.db"):
            assert stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode) == 0o600, name
    conn = sqlite3.connect(_db_path())
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_entries_expire_after_the_ttl_and_say_so(monkeypatch):
    handle = _put(b"old output\n" * 50)
    monkeypatch.setenv("THRESHER_ARCHIVE_TTL_DAYS", "1")
    database().connect().execute("UPDATE archive SET accessed = accessed - 2 * 86400")
    with pytest.raises(ArchiveError, match="expired handle"):
        default_archive().get(handle)
    assert default_archive().evict()["expired"] == 1
    with pytest.raises(ArchiveError, match="expired"):
        default_archive().get(handle)  # the tombstone still explains it
    _put(b"old output\n" * 50)  # the same output again: archived anew
    assert default_archive().get(handle) == b"old output\n" * 50


@pytest.fixture
def clock(monkeypatch) -> Clock:
    return patch_clock(monkeypatch)


def test_size_cap_evicts_least_recently_used(monkeypatch, clock):
    monkeypatch.setenv("THRESHER_ARCHIVE_MAX_MB", str(64 / 1024))  # 64 KiB
    monkeypatch.setattr(archive_mod, "EVICT_EVERY", 1)
    blobs = [os.urandom(8192) for _ in range(20)]  # incompressible: 8 KiB each stored
    handles = []
    for i, blob in enumerate(blobs):
        handles.append(_put(blob))
        if i == 2:
            default_archive().get(handles[0])  # used recently: survives longer than 1 and 2
        clock.now += archive_mod.RETENTION_FLOOR_S  # each entry is old by the time the next comes
    assert default_archive().stats()["stored_bytes"] <= 64 * 1024
    assert default_archive().get(handles[-1]) == blobs[-1]
    with pytest.raises(ArchiveError, match="size cap"):
        default_archive().get(handles[1])


def test_a_v1_database_is_migrated_and_keeps_its_entries():
    folder = os.environ["THRESHER_HOME"]
    conn = sqlite3.connect(os.path.join(folder, "thresher.db"))
    conn.executescript(MIGRATIONS[0])
    conn.execute("INSERT INTO archive (handle, data, size, stored, created, accessed) "
                 "VALUES (?, ?, 3, 3, ?, ?)", (handle_of(b"v1\n"), b"v1\n", time.time(), time.time()))
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    assert default_archive().get(handle_of(b"v1\n")) == b"v1\n"
    assert database().connect().execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def _foreign_newer(conn):
    conn.execute("CREATE TABLE archive (handle TEXT PRIMARY KEY, data BLOB)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


def _foreign_app(conn):  # another program's database at thresher's path, user_version left at 0
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")


def _foreign_claims_current(conn):  # claims our version but lacks our tables
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@pytest.mark.parametrize("make", [_foreign_newer, _foreign_app, _foreign_claims_current])
def test_a_foreign_database_is_moved_aside_0600_and_the_stores_work_again(make):
    conn = sqlite3.connect(_db_path())
    make(conn)
    conn.commit()
    conn.close()
    os.chmod(_db_path(), 0o644)
    text = "".join(f"row {i} of something long enough to be trimmed away\n" for i in range(900))
    res = compress(text, command="mytool")
    assert res.emission.decision == "compressed"  # archived: the footer's handle works
    assert default_archive().get(res.emission.handle) == text.encode()
    folder = os.environ["THRESHER_HOME"]
    aside = [n for n in os.listdir(folder) if ".foreign-" in n]
    assert aside and all(stat.S_IMODE(os.stat(os.path.join(folder, n)).st_mode) == 0o600
                         for n in aside)
    kept = sqlite3.connect(os.path.join(folder, min(aside)))
    assert kept.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] >= 1  # left intact
    kept.close()


def test_a_corrupt_database_is_moved_aside_and_output_still_delivered():
    _put(b"before corruption\n")
    database().close()
    with open(_db_path(), "wb") as fh:
        fh.write(b"this is not a database at all" * 100)
    os.chmod(_db_path(), 0o644)  # e.g. restored from a backup: the copy moved aside is still 0600
    for suffix in ("-wal", "-shm"):
        if os.path.exists(_db_path() + suffix):
            os.remove(_db_path() + suffix)
    text = "".join(f"row {i} of something long enough to be trimmed away\n" for i in range(900))
    res = compress(text, command="mytool")
    assert res.emission.decision == "compressed"
    assert default_archive().get(res.emission.handle) == text.encode()
    folder = os.environ["THRESHER_HOME"]
    aside = [n for n in os.listdir(folder) if ".corrupt-" in n]
    assert aside, "the damaged file is kept for inspection"
    assert all(stat.S_IMODE(os.stat(os.path.join(folder, n)).st_mode) == 0o600 for n in aside)


def test_a_deleted_database_is_recreated_in_the_same_process():
    handle = _put(b"first\n")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(_db_path() + suffix):
            os.remove(_db_path() + suffix)
    with pytest.raises(ArchiveError):
        default_archive().get(handle)
    assert default_archive().get(_put(b"second\n")) == b"second\n"


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=5000))
def test_round_trip_property_any_bytes(raw):
    """For any payload, the archive returns the original bytes."""
    handle = handle_of(raw)
    SqliteArchive().put(handle, raw, {})
    assert SqliteArchive().get(handle) == raw


_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=60)


@settings(max_examples=40, deadline=None)
@given(st.lists(_LINE, min_size=0, max_size=300), st.sampled_from(["", "\n"]),
       st.sampled_from([None, 0, 1, 2]), st.sampled_from(["mytool", "pytest -q", "git status"]))
def test_round_trip_property_through_the_engine(lines, end, exit_code, command):
    """For any payload the CLI path handles, expand(handle) == the original, and slices agree."""
    raw = ("\n".join(lines) + end).encode()
    res = compress(raw, command=command, exit_code=exit_code)
    record_payload(res, raw, command=command, exit_code=exit_code)
    if not raw:
        return
    handle = res.handle or handle_of(raw)
    back = default_archive().get(handle)
    assert back == raw
    mid = max(len(split_lines(raw)) // 2, 1)
    head, tail = select(back, f"1-{mid}", None, False)[0], select(back, f"{mid + 1}-", None, False)[0]
    assert head + tail == raw
