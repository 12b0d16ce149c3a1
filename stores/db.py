"""The one SQLite database behind every store: location, pragmas, schema migrations, recovery.

``$THRESHER_HOME/thresher.db`` (default ``~/.local/share/thresher``), created 0600 in a 0700
folder, in WAL mode so many agent shells can write at once (writers queue on a busy timeout instead
of failing). One file rather than one per store: one connection per process on the hot path, one
schema version, one recovery path.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[i]`` upgrades version ``i`` to
``i + 1`` inside one ``BEGIN IMMEDIATE`` transaction, so concurrent first opens migrate once. A
database from a newer thresher is left alone (the stores then fail, and outputs go out raw).

A corrupt database (not a database, malformed image) is moved aside as ``thresher.db.corrupt-*``
and recreated under a lock file, so the command's output is still delivered; the old file stays
for inspection. A missing or replaced file is noticed by inode and reopened.
"""

from __future__ import annotations

import os
import time

from thresher.dataflow.errors import ThresherError

DB_NAME = "thresher.db"
BUSY_TIMEOUT_S = 10.0
"""How long a writer waits for another process's transaction (WAL: short, one writer at a time)."""

MIGRATIONS = (
    # v1: the archive of raw payloads (data NULL + gone set = a tombstone, so expand can say why).
    """
    CREATE TABLE archive (
        handle TEXT PRIMARY KEY, data BLOB, codec TEXT NOT NULL DEFAULT 'raw',
        size INTEGER NOT NULL, stored INTEGER NOT NULL, created REAL NOT NULL,
        accessed REAL NOT NULL, meta TEXT NOT NULL DEFAULT '{}', gone TEXT);
    CREATE INDEX archive_accessed ON archive (accessed);
    """,
    # v2: the session ledger (delivered line-run keys per reader scope) and the read-stub cache.
    """
    CREATE TABLE delivered (
        scope TEXT NOT NULL, key INTEGER NOT NULL, ts REAL NOT NULL,
        PRIMARY KEY (scope, key)) WITHOUT ROWID;
    CREATE TABLE reads (
        id INTEGER PRIMARY KEY, scope TEXT NOT NULL, path TEXT NOT NULL, digest TEXT NOT NULL,
        lines INTEGER NOT NULL, content BLOB, ts REAL NOT NULL);
    CREATE INDEX reads_scope_path ON reads (scope, path, id);
    """,
    # v3: the savings ledger, one event per payload.
    """
    CREATE TABLE events (
        id INTEGER PRIMARY KEY, ts REAL NOT NULL, command TEXT NOT NULL, tool TEXT NOT NULL,
        class TEXT NOT NULL, graph TEXT NOT NULL, role TEXT NOT NULL, stream TEXT NOT NULL,
        decision TEXT NOT NULL, transforms TEXT NOT NULL, exit_code INTEGER, scope TEXT NOT NULL,
        handle TEXT NOT NULL, bytes_in INTEGER NOT NULL, bytes_out INTEGER NOT NULL,
        tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, exact_in INTEGER,
        exact_out INTEGER, tokenizer TEXT NOT NULL DEFAULT 'estimate', ms REAL NOT NULL,
        measure_only INTEGER NOT NULL DEFAULT 0, bounces INTEGER NOT NULL DEFAULT 0,
        bounce_tokens INTEGER NOT NULL DEFAULT 0, output_z BLOB);
    CREATE INDEX events_handle ON events (handle);
    CREATE INDEX events_ts ON events (ts);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(ThresherError):
    """The database cannot be opened or used (the caller fails open)."""


def home() -> str:
    """thresher's data folder: ``$THRESHER_HOME``, else ``$XDG_DATA_HOME/thresher``."""
    return os.environ.get("THRESHER_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "thresher")


def is_corruption(exc: BaseException) -> bool:
    """True for errors that mean a damaged file, not a busy or unwritable one."""
    import sqlite3
    if isinstance(exc, sqlite3.OperationalError):
        return False  # locked, read-only, disk full, cannot open: not the file's fault
    return isinstance(exc, sqlite3.DatabaseError)


def _ensure_file(path: str) -> None:
    """Create the folder (0700) and an empty database file (0600) if missing.

    SQLite gives its -wal and -shm files the mode of the main file, so they are 0600 too.
    """
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not os.path.exists(path):
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))


def migrate(conn) -> int:
    """Bring the schema up to :data:`SCHEMA_VERSION`; return the version found before."""
    found = conn.execute("PRAGMA user_version").fetchone()[0]
    if found == SCHEMA_VERSION:
        return found
    if found > SCHEMA_VERSION:
        raise StoreError(f"database schema v{found} is newer than this thresher (v{SCHEMA_VERSION})")
    conn.execute("BEGIN IMMEDIATE")
    try:
        found = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
        for version in range(found, SCHEMA_VERSION):
            for statement in MIGRATIONS[version].split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return found


def rollback(conn) -> None:
    """Roll back if a transaction is open (SQLite may already have rolled it back itself)."""
    try:
        conn.execute("ROLLBACK")
    except Exception:  # noqa: BLE001 - "no transaction is active"
        pass


def _open(path: str):
    import sqlite3
    _ensure_file(path)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                           check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        # No fsync: NORMAL costs ~2 ms on a process's first commit and ~2 ms more at exit (the
        # closing checkpoint), on every agent command. In WAL mode OFF still survives a crash of
        # thresher itself; only an OS crash or power loss can damage the file, and a damaged file
        # is moved aside and recreated (the archive is a 7-day cache, outputs are never at risk).
        conn.execute("PRAGMA synchronous=OFF")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def move_aside(path: str) -> str:
    """Rename a damaged database (and its -wal/-shm) out of the way; return the new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.corrupt-{stamp}-{os.getpid()}"
    for suffix in ("", "-wal", "-shm"):
        try:
            os.replace(path + suffix, target + suffix)
        except FileNotFoundError:
            pass
    return target


def _recover(path: str):
    """Open ``path``, moving a corrupt file aside first; serialised by a lock file."""
    import fcntl
    _ensure_file(path)
    with open(path + ".lock", "a+b") as lock:
        os.chmod(path + ".lock", 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:  # another process may already have recreated it
            return _open(path)
        except Exception as exc:  # noqa: BLE001 - decide below
            if not is_corruption(exc):
                raise
        move_aside(path)
        return _open(path)


class Database:
    """A lazily opened connection to ``thresher.db`` that survives corruption and replacement."""

    def __init__(self, folder: str | None = None) -> None:
        self.path = os.path.join(folder or home(), DB_NAME)
        self._conn = None
        self._ino = None

    def connect(self):
        """The open connection (reopened when the file was removed or replaced)."""
        try:
            ino = os.stat(self.path).st_ino
        except FileNotFoundError:
            ino = None
        if self._conn is None or ino != self._ino:
            self.close()
            try:
                self._conn = _open(self.path)
            except Exception as exc:  # noqa: BLE001 - recover only from a damaged file
                if not is_corruption(exc):
                    raise
                self._conn = _recover(self.path)
            self._ino = os.stat(self.path).st_ino
        return self._conn

    def run(self, fn):
        """``fn(conn)``; on a corrupt database, move it aside, recreate it, and retry once."""
        try:
            return fn(self.connect())
        except Exception as exc:  # noqa: BLE001
            if not is_corruption(exc):
                raise
        self.close()
        self._conn = _recover(self.path)
        self._ino = os.stat(self.path).st_ino
        return fn(self._conn)

    def write(self, fn):
        """``fn(conn)`` inside one ``BEGIN IMMEDIATE`` transaction (with :meth:`run`'s recovery)."""
        def txn(conn):
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = fn(conn)
                conn.execute("COMMIT")
                return result
            except BaseException:
                rollback(conn)
                raise
        return self.run(txn)

    def close(self) -> None:
        """Close the connection (reopened on next use)."""
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001
                pass
            self._conn = None


_OPEN: dict[str, Database] = {}


def database(folder: str | None = None) -> Database:
    """The process-wide :class:`Database` for ``folder`` (default: :func:`home`)."""
    key = os.path.abspath(folder or home())
    db = _OPEN.get(key)
    if db is None:
        db = _OPEN[key] = Database(key)
    return db
