"""The archive of raw payloads (CCR: compress, cache, retrieve), keyed by blake3 handle, in SQLite.

Every raw payload is stored — whatever its exit code, also when nothing was saved — under the
12-hex-digit handle a footer names, *before* any marker naming it is shown (the Persist stage; a
failed write means raw output, INV-7). ``thresher expand`` reads it back byte-exact: the handle is
re-derived from the bytes on every read, so a damaged entry can never be passed off as the original.

Retention: an entry expires ``THRESHER_ARCHIVE_TTL_DAYS`` (default 7) after it was last stored or
expanded, and the archive is kept under ``THRESHER_ARCHIVE_MAX_MB`` (default 512) by evicting the
least recently used entries. Neither ever removes an entry used in the last
:data:`RETENTION_FLOOR_S` (30 minutes): a footer's handle stays valid at least that long whatever
the settings. When only such young entries are left, the archive stays over its cap (``stats()``
says by how much; ``thresher doctor`` reports it) until they age. Evicted entries leave a small
tombstone for a while, so ``expand`` can say "expired" rather than "unknown". Bodies over 512 bytes are zlib-compressed (level 1: cheap
on the hot path, and tool output shrinks 5-10x).
"""

from __future__ import annotations

import os
import time

from thresher.dataflow.errors import ArchiveError

from .db import database, home

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ArchiveError", "FileArchive", "SqliteArchive", "default_archive", "home"]

HEX = frozenset("0123456789abcdef")
EVICT_EVERY = 32
"""Run retention after every this many new entries (by rowid): cheap, and bounded overshoot."""
TOMBSTONE_TTLS = 4
"""Tombstones are dropped after this many TTLs."""
RETENTION_FLOOR_S = 30 * 60
"""No entry used (stored or expanded) more recently than this is expired or evicted."""


def clock() -> float:
    """The time retention measures ages with (a function, so tests can move it)."""
    return time.time()


def ttl_seconds() -> float:
    """How long an entry lives after its last use (never less than the retention floor)."""
    return max(_env_float("THRESHER_ARCHIVE_TTL_DAYS", 7.0) * 86400, RETENTION_FLOOR_S)


def max_bytes() -> int:
    """The size cap of the stored (compressed) bodies."""
    return int(_env_float("THRESHER_ARCHIVE_MAX_MB", 512.0) * 1024 * 1024)


def _env_float(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
        return value if value > 0 else default
    except ValueError:
        return default


def _pack(raw: bytes) -> tuple[bytes, str]:
    if len(raw) > 512:
        import zlib
        packed = zlib.compress(raw, 1)
        if len(packed) < len(raw):
            return packed, "zlib"
    return raw, "raw"


def _pack_original(orig: Any) -> tuple[bytes, str]:
    """:func:`_pack` of a :class:`thresher.dataflow.payload.Original`: one whose bytes were let
    go of is compressed a piece at a time, so they are never rebuilt whole (the stream
    decompresses to the same bytes as :func:`_pack`'s)."""
    if orig.held or orig.size <= 512:
        return _pack(orig.tobytes())
    import zlib
    packer = zlib.compressobj(1)
    parts = [packer.compress(piece) for piece in orig.chunks()]
    parts.append(packer.flush())
    packed = b"".join(parts)
    del parts
    if len(packed) < orig.size:
        return packed, "zlib"
    return orig.tobytes(), "raw"


def _unpack(data: bytes, codec: str) -> bytes:
    if codec == "zlib":
        import zlib
        return zlib.decompress(data)
    return bytes(data)


def _check_handle(handle: str) -> str:
    h = (handle or "").strip().lower()
    if not h or not set(h) <= HEX:
        raise ArchiveError(f"not a thresher handle: {handle!r} (handles are the hex digits a "
                           "thresher footer names after `thresher expand`)")
    return h


def _ago(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:.1f} days" if days >= 1 else f"{seconds / 3600:.1f} hours"


ArchiveRow = tuple[str, bytes, str, int, int, float, float, str]
"""One ``archive`` row as :func:`archive_row` makes it (handle, data, codec, size, stored,
created, accessed, meta)."""


def archive_row(handle: str, raw: Any, meta: dict[str, object]) -> ArchiveRow:
    """The row that stores ``raw`` (bytes, or a :class:`thresher.dataflow.payload.Original`)
    under ``handle`` (checked, packed, within the cap); raises :class:`ArchiveError` like
    :meth:`SqliteArchive.put` when it cannot be stored."""
    handle = _check_handle(handle)
    if isinstance(raw, bytes):
        data, codec = _pack(raw)
        size = len(raw)
    else:
        data, codec = _pack_original(raw)
        size = raw.size
    if len(data) > max_bytes():
        raise ArchiveError(f"payload of {size} bytes exceeds the archive cap")
    now = clock()
    # repr, not json: the metadata is plain str/int/None, and json costs ~1 ms of imports on
    # the hot path; meta() reads it back with ast.literal_eval (never eval).
    return (handle, data, codec, size, len(data), now, now, repr(dict(sorted(meta.items()))))


def insert_archive(conn: Any, row: ArchiveRow) -> int | None:
    """Write ``row`` inside the caller's transaction (a re-put refreshes the entry's age and
    revives a tombstone); the new rowid."""
    cur = conn.execute(
        "INSERT INTO archive (handle, data, codec, size, stored, created, accessed, meta) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (handle) DO UPDATE SET "
        "accessed = excluded.accessed, data = coalesce(archive.data, excluded.data), "
        "codec = CASE WHEN archive.data IS NULL THEN excluded.codec ELSE archive.codec END, "
        "stored = CASE WHEN archive.data IS NULL THEN excluded.stored ELSE archive.stored END, "
        "gone = NULL", row)
    rowid: int | None = cur.lastrowid
    return rowid


def after_insert(archive: SqliteArchive, rowid: int | None, stored: int) -> None:
    """Retention after a new entry: every :data:`EVICT_EVERY` rowids, or after a large one
    (housekeeping in transactions of its own; never the command's problem)."""
    if rowid and rowid % EVICT_EVERY == 0 or stored > max_bytes() // 64:
        try:
            archive.evict()
        except Exception:  # noqa: BLE001 - retention is housekeeping, never the command's problem
            pass


class PackedFile:
    """An original too big to hold in memory, compressed a chunk at a time into a temporary file
    next to it (checked against the cap), ready to be written into its row inside a transaction
    (:meth:`insert`); a context manager that removes the temporary file."""

    def __init__(self, handle: str, path: str, size: int, meta: dict[str, object],
                 chunk: int = 1 << 20) -> None:
        import tempfile
        import zlib
        self.handle, self.chunk = _check_handle(handle), chunk
        packer = zlib.compressobj(1)
        self.packed = tempfile.TemporaryFile(dir=os.path.dirname(path) or None)
        try:
            with open(path, "rb") as src:
                while True:
                    block = src.read(chunk)
                    if not block:
                        break
                    self.packed.write(packer.compress(block))
            self.packed.write(packer.flush())
            stored = self.packed.tell()
            if stored > max_bytes():
                raise ArchiveError(f"payload of {size} bytes exceeds the archive cap")
        except BaseException:
            self.packed.close()
            raise
        self.now = clock()
        self.row = (self.handle, stored, size, stored, self.now, self.now,
                    repr(dict(sorted(meta.items()))))

    def __enter__(self) -> PackedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the temporary file."""
        self.packed.close()

    def insert(self, conn: Any) -> int | None:
        """Write the row and its blob inside the caller's transaction (an entry already holding
        the original is only refreshed); the new rowid, ``None`` when refreshed."""
        handle, now, chunk = self.handle, self.now, self.chunk
        have = conn.execute("SELECT rowid, data IS NOT NULL FROM archive WHERE handle = ?",
                            (handle,)).fetchone()
        if have and have[1]:
            conn.execute("UPDATE archive SET accessed = ?, gone = NULL WHERE handle = ?",
                         (now, handle))
            return None
        if have:
            conn.execute("DELETE FROM archive WHERE handle = ?", (handle,))
        rowid: int = conn.execute(
            "INSERT INTO archive (handle, data, codec, size, stored, created, accessed, meta) "
            "VALUES (?, zeroblob(?), 'zlib', ?, ?, ?, ?, ?)", self.row).lastrowid
        self.packed.seek(0)
        with conn.blobopen("archive", "data", rowid) as blob:
            while True:
                block = self.packed.read(chunk)
                if not block:
                    break
                blob.write(block)
        return rowid


class SqliteArchive:
    """Raw payloads in the ``archive`` table of ``thresher.db`` (same ``put``/``get`` as before)."""

    def __init__(self, folder: str | None = None) -> None:
        self.db = database(folder)

    def put(self, handle: str, raw: bytes, meta: dict[str, object]) -> None:
        """Store ``raw`` under ``handle`` (idempotent; a re-put refreshes the entry's age).

        Raises (``ArchiveError``, ``OSError``, ``sqlite3.Error``) when it cannot store: the caller
        then emits raw output.
        """
        row = archive_row(handle, raw, meta)
        rowid = self.db.write(lambda conn: insert_archive(conn, row))
        after_insert(self, rowid, row[4])

    def put_file(self, handle: str, path: str, size: int, meta: dict[str, object],
                 chunk: int = 1 << 20) -> None:
        """:meth:`put` for an original too big to hold in memory: the file at ``path`` (``size``
        bytes, hashed to ``handle`` by the caller) is compressed a chunk at a time into a temporary
        file next to it and written into its row through SQLite's incremental blob I/O, so memory
        stays bounded by ``chunk``. Raises like :meth:`put` when it cannot store."""
        with PackedFile(handle, path, size, meta, chunk) as packed:
            self.db.write(packed.insert)
        try:
            self.evict()
        except Exception:  # noqa: BLE001 - retention is housekeeping, never the command's problem
            pass

    def resolve(self, prefix: str) -> str:
        """The one handle starting with ``prefix``; :class:`ArchiveError` when none or several."""
        prefix = _check_handle(prefix)
        rows = self.db.run(lambda c: c.execute(
            "SELECT handle FROM archive WHERE handle >= ? AND handle < ? ORDER BY handle LIMIT 6",
            (prefix, prefix + "g")).fetchall())
        if not rows:
            raise ArchiveError(f"unknown or expired handle {prefix!r}: nothing is archived under "
                               "it (it may come from another machine or THRESHER_HOME, or have "
                               "expired long ago)")
        if len(rows) > 1:
            shown = ", ".join(r[0] for r in rows[:5])
            raise ArchiveError(f"handle prefix {prefix!r} is ambiguous: {shown}"
                               f"{', ...' if len(rows) > 5 else ''} (give more digits)")
        return rows[0][0]

    def get(self, handle: str, *, touch: bool = True) -> bytes:
        """The original bytes of ``handle`` (or a unique prefix of it); ``ArchiveError`` if gone.

        ``touch`` counts the read as a use (LRU and TTL); reports pass ``False``.
        """
        handle = self.resolve(handle)
        row = self.db.run(lambda c: c.execute(
            "SELECT data, codec, gone, created, accessed FROM archive WHERE handle = ?",
            (handle,)).fetchone())
        if row is None:
            raise ArchiveError(f"unknown handle {handle!r}")
        data, codec, gone, created, accessed = row
        now = clock()
        if gone or data is None or now - accessed > ttl_seconds():
            why = "evicted to keep the archive under its size cap" if gone == "evicted" else (
                f"expired: archives are kept {_ago(ttl_seconds())} after last use")
            raise ArchiveError(f"expired handle {handle!r}: no longer available ({why}; archived "
                               f"{_ago(now - created)} ago). Re-run the command to see its output.")
        raw = _unpack(data, codec)
        from thresher.dataflow.api import handle_of
        if handle_of(raw) != handle:
            raise ArchiveError(f"archived entry {handle!r} is damaged (content does not match)")
        if touch:
            try:
                self.db.write(lambda c: c.execute(
                    "UPDATE archive SET accessed = ? WHERE handle = ?", (now, handle)))
            except Exception:  # noqa: BLE001 - LRU bookkeeping only
                pass
        return raw

    def meta(self, handle: str) -> dict:
        """The metadata stored with ``handle`` (empty when absent)."""
        import ast
        try:
            row = self.db.run(lambda c: c.execute(
                "SELECT meta FROM archive WHERE handle = ?", (_check_handle(handle),)).fetchone())
            value = ast.literal_eval(row[0]) if row else {}
            return value if isinstance(value, dict) else {}
        except (ArchiveError, ValueError, SyntaxError):
            return {}

    def evict(self, now: float | None = None) -> dict:
        """Apply the TTL and the size cap, sparing entries younger than the retention floor.

        Returns how many entries expired and were evicted, and ``over_cap``: the stored bytes
        still over the cap because only entries under the floor were left to evict.
        """
        now = clock() if now is None else now
        ttl, cap = ttl_seconds(), max_bytes()

        def txn(conn):
            expired = conn.execute(
                "UPDATE archive SET data = NULL, stored = 0, gone = 'expired' "
                "WHERE gone IS NULL AND accessed < ?", (now - ttl,)).rowcount
            total = conn.execute("SELECT coalesce(sum(stored), 0) FROM archive").fetchone()[0]
            victims = []
            if total > cap:
                target = total - int(cap * 0.9)  # evict a little extra: not on every put
                for handle, stored in conn.execute(
                        "SELECT handle, stored FROM archive WHERE gone IS NULL AND accessed < ? "
                        "ORDER BY accessed", (now - RETENTION_FLOOR_S,)):
                    if target <= 0:
                        break
                    victims.append((handle,))
                    target -= stored
                    total -= stored
                conn.executemany("UPDATE archive SET data = NULL, stored = 0, gone = 'evicted' "
                                 "WHERE handle = ?", victims)
            conn.execute("DELETE FROM archive WHERE gone IS NOT NULL AND accessed < ?",
                         (now - TOMBSTONE_TTLS * ttl,))
            return {"expired": expired, "evicted": len(victims), "over_cap": max(0, total - cap)}
        result = self.db.write(txn)
        _housekeeping(self.db, now - ttl)
        return result

    def stats(self, now: float | None = None) -> dict:
        """What the archive holds now: entries, original and stored bytes, the cap, the bytes
        over it, and the entries the retention floor protects (used in the last 30 minutes)."""
        now = clock() if now is None else now
        row = self.db.run(lambda c: c.execute(
            "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(stored), 0), "
            "coalesce(sum(accessed >= ?), 0) FROM archive WHERE gone IS NULL",
            (now - RETENTION_FLOOR_S,)).fetchone())
        cap = max_bytes()
        return {"entries": row[0], "bytes": row[1], "stored_bytes": row[2], "cap_bytes": cap,
                "over_cap_bytes": max(0, row[2] - cap), "young_entries": row[3]}


def _housekeeping(db, cutoff: float) -> None:
    """Age out session state and the exact-count copies of old events (other stores' tables)."""
    def txn(conn):
        conn.execute("DELETE FROM delivered WHERE ts < ?", (cutoff,))
        conn.execute("DELETE FROM reads WHERE ts < ?", (cutoff,))
        conn.execute("UPDATE events SET output_z = NULL WHERE output_z IS NOT NULL AND ts < ?",
                     (cutoff,))
    db.write(txn)


FileArchive = SqliteArchive
"""The name of the archive before it moved to SQLite (``FileArchive(folder)`` still works)."""


def default_archive() -> SqliteArchive:
    """The archive under ``$THRESHER_HOME``."""
    return SqliteArchive()
