"""The one SQLite database behind every store: location, pragmas, schema migrations, recovery.

``$THRESHER_HOME/thresher.db`` (default ``~/.local/share/thresher``), created 0600 in a 0700
folder, in WAL mode so many agent shells can write at once (writers queue on a busy timeout instead
of failing). One file rather than one per store: one connection per process on the hot path, one
schema version, one recovery path.

A held lock (another process inside a long transaction, a stuck ``sqlite3`` shell) never delays
the agent by more than :data:`BUSY_TIMEOUT_S` per process: the operation that met the lock fails
(its caller fails open: raw output, no event), the skip is appended to ``store-skips`` next to the
database (``thresher doctor`` counts them), and until one operation succeeds again this process
does not wait at all.

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[i]`` upgrades version ``i`` to
``i + 1`` inside one ``BEGIN IMMEDIATE`` transaction, so concurrent first opens migrate once.

A database that is not thresher's — a ``user_version`` this thresher does not know (a newer
thresher, another program) or tables missing for the version it claims — is moved aside like a
corrupt one (``thresher.db.foreign-*``), so the stores work again instead of failing forever.

A corrupt database (not a database, malformed image) is moved aside as ``thresher.db.corrupt-*``
and recreated under a lock file, so the command's output is still delivered; the old file stays
for inspection, 0600 whatever mode it had (it holds raw tool outputs). A missing or replaced file is noticed by inode and reopened.
"""

from __future__ import annotations

import os
import sys
import time

from thresher.dataflow.errors import ThresherError
from thresher.dataflow.paths import under_home


TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

DB_NAME = "thresher.db"
BUSY_TIMEOUT_S = 1.0
"""How long an operation waits for another process's transaction (WAL: writers hold it for
milliseconds) before it is skipped; the bound on what a held lock costs one command."""

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
    # v4: bounce-adaptive budgets: the factor each payload's budget ran with, and the index that
    # finds a scope's latest compressed payloads of one command (read before every payload).
    """
    ALTER TABLE events ADD COLUMN budget_factor REAL NOT NULL DEFAULT 1;
    CREATE INDEX events_scope_tool ON events (scope, tool, decision, measure_only);
    """,
    # v5: archive search: one row per indexed archive entry — its document in the FTS5 table
    # (created on first search, since not every SQLite has FTS5; 0 = not indexed, e.g. binary),
    # a note ("binary", or the prefix indexed), and the indexed text compressed (line numbers,
    # and deleting the document once the entry is gone).
    """
    CREATE TABLE search_docs (
        handle TEXT PRIMARY KEY, doc INTEGER NOT NULL, size INTEGER NOT NULL,
        note TEXT NOT NULL DEFAULT '', body_z BLOB);
    CREATE INDEX search_docs_doc ON search_docs (doc);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(ThresherError):
    """The database cannot be opened or used (the caller fails open)."""


class ForeignDatabase(StoreError):
    """``thresher.db`` is not a thresher database this version can use: moved aside and recreated."""


class StoreBusy(StoreError):
    """Another process holds the database lock: the operation was skipped (and counted)."""


def _tables(statements: str) -> set[str]:
    return {part.split(None, 1)[0] for part in statements.split("CREATE TABLE ")[1:]}


REQUIRED_TABLES = tuple(frozenset().union(*(_tables(m) for m in MIGRATIONS[:v]))
                        for v in range(SCHEMA_VERSION + 1))
"""The tables a database of each schema version must have."""


def sqlite():
    """The SQLite module: ``sqlite3``'s C core ``_sqlite3`` (``connect``, the connection and the
    error classes are the very objects ``sqlite3`` re-exports). ``sqlite3`` itself adds date and
    time adapters no store uses, and imports ``datetime`` for them (~2 ms of every payload's
    archive write). ``_sqlite3`` is imported without ``functools`` (:func:`_import_core`)."""
    core = sys.modules.get("_sqlite3")
    if core is not None:
        return core
    try:
        return _import_core()
    except ImportError:  # pragma: no cover - an interpreter that has only the package
        import sqlite3
        return sqlite3


def _statement_cache(maxsize: int | None = 128, _typed: bool = False) -> Any:
    """What ``_sqlite3`` asks of ``functools.lru_cache``: ``lru_cache(n)(connection)`` is the
    connection's statement cache, a callable from SQL text to the prepared statement that
    ``connection(sql)`` makes. The same mapping, kept in a dict (emptied when full)."""
    def wrap(make: Any) -> Any:
        if maxsize is not None and maxsize <= 0:
            return make
        cache: dict = {}

        def statement(sql: str) -> Any:
            found = cache.get(sql)
            if found is None:
                if maxsize is not None and len(cache) >= maxsize:
                    cache.clear()
                found = cache[sql] = make(sql)
            return found
        return statement
    return wrap


def _import_core() -> Any:
    """``import _sqlite3`` without importing ``functools``.

    The C module looks up ``functools.lru_cache`` once, when it is first imported, for the
    statement cache of every connection; ``functools`` (and the ``collections`` it imports) costs
    ~5 ms, a quarter of what a bare interpreter takes to start, on every payload's archive write.
    Unless ``functools`` is already loaded, a module holding only :func:`_statement_cache` stands in
    for it during that one import and is taken out of ``sys.modules`` right after, so a later
    ``import functools`` anywhere loads the real one."""
    if "functools" in sys.modules:
        import _sqlite3
        return _sqlite3
    stand_in = type(sys)("functools")
    stand_in.lru_cache = _statement_cache  # type: ignore[attr-defined]  # a module made here
    sys.modules["functools"] = stand_in
    try:
        import _sqlite3
    finally:
        if sys.modules.get("functools") is stand_in:
            del sys.modules["functools"]
    return _sqlite3


def home() -> str:
    """thresher's data folder: ``$THRESHER_HOME``, else ``$XDG_DATA_HOME/thresher``."""
    return os.environ.get("THRESHER_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or under_home(".local", "share"), "thresher")


def is_corruption(exc: BaseException) -> bool:
    """True for errors that mean a damaged or foreign file, not a busy or unwritable one."""
    sqlite3 = sqlite()
    if isinstance(exc, ForeignDatabase):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        return False  # locked, read-only, disk full, cannot open: not the file's fault
    return isinstance(exc, sqlite3.DatabaseError)


def is_locked(exc: BaseException) -> bool:
    """True for SQLite's "database is locked" / "busy" errors (another process holds the lock)."""
    sqlite3 = sqlite()
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


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
    check_schema(conn, found)
    if found == SCHEMA_VERSION:
        return found
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


def check_schema(conn, version: int) -> None:
    """Raise :class:`ForeignDatabase` unless ``conn`` holds a thresher schema of ``version``."""
    if not 0 <= version <= SCHEMA_VERSION:
        raise ForeignDatabase(f"database user_version {version} is not a thresher schema this "
                              f"version knows (v0-v{SCHEMA_VERSION})")
    tables = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    missing = REQUIRED_TABLES[version] - tables
    if missing or (version == 0 and tables):
        raise ForeignDatabase(f"database claims schema v{version} but has tables "
                              f"{sorted(tables)} (missing {sorted(missing)})")


def rollback(conn) -> None:
    """Roll back if a transaction is open (SQLite may already have rolled it back itself)."""
    try:
        conn.execute("ROLLBACK")
    except Exception:  # noqa: BLE001 - "no transaction is active"
        pass


def _open(path: str, timeout: float = BUSY_TIMEOUT_S):
    sqlite3 = sqlite()
    _ensure_file(path)
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
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


def move_aside(path: str, why: str = "corrupt") -> str:
    """Rename a damaged (or foreign) database and its -wal/-shm out of the way, 0600; return the
    new name."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.{why}-{stamp}-{os.getpid()}"
    for suffix in ("", "-wal", "-shm"):
        try:
            os.replace(path + suffix, target + suffix)
            os.chmod(target + suffix, 0o600)  # raw tool outputs: never readable by others
        except FileNotFoundError:
            pass
    return target


def _recover(path: str, timeout: float = BUSY_TIMEOUT_S):
    """Open ``path``, moving a corrupt or foreign file aside first; serialised by a lock file
    (waited for at most ``timeout``, like the database's own lock)."""
    import fcntl
    sqlite3 = sqlite()
    _ensure_file(path)
    with open(path + ".lock", "a+b") as lock:
        os.chmod(path + ".lock", 0o600)
        waited = 0.0
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if waited >= timeout:  # a message SQLite's own busy errors share: counted as a skip
                    raise sqlite3.OperationalError(
                        "database is locked (recovery in progress)") from None
                time.sleep(0.02)
                waited += 0.02
        try:  # another process may already have recreated it
            return _open(path, timeout)
        except Exception as exc:
            if not is_corruption(exc):
                raise
            why = "foreign" if isinstance(exc, ForeignDatabase) else "corrupt"
        move_aside(path, why)
        return _open(path, timeout)


class Database:
    """A lazily opened connection to ``thresher.db`` that survives corruption and replacement,
    and gives up quickly (counted) on a database another process keeps locked."""

    def __init__(self, folder: str | None = None) -> None:
        self.folder = folder or home()
        self.path = os.path.join(self.folder, DB_NAME)
        self._conn = None
        self._ino = None
        self._timeout = BUSY_TIMEOUT_S  # 0 after a lock was met, until an operation succeeds

    def connect(self):
        """The open connection (reopened when the file was removed or replaced)."""
        try:
            ino = os.stat(self.path).st_ino
        except FileNotFoundError:
            ino = None
        if self._conn is None or ino != self._ino:
            self.close()
            try:
                self._conn = _open(self.path, self._timeout)
            except Exception as exc:
                if not is_corruption(exc):
                    raise
                self._conn = _recover(self.path, self._timeout)
            self._ino = os.stat(self.path).st_ino
        return self._conn

    def run(self, fn, op: str = "read"):
        """``fn(conn)``; on a corrupt database, move it aside, recreate it, and retry once.

        A locked database raises :class:`StoreBusy` after at most one busy wait per process.
        """
        try:
            result = self._run(fn)
        except Exception as exc:
            if not is_locked(exc):
                raise
            self._set_timeout(0.0)  # do not wait again while the lock is held
            from .skips import note_skip  # (only when a lock was met)
            note_skip(self.folder, op)
            raise StoreBusy(f"{self.path} is locked by another process: {op} skipped") from exc
        if self._timeout != BUSY_TIMEOUT_S:
            self._set_timeout(BUSY_TIMEOUT_S)
        return result

    def _run(self, fn):
        try:
            return fn(self.connect())
        except Exception as exc:
            if not is_corruption(exc):
                raise
        self.close()
        self._conn = _recover(self.path, self._timeout)
        self._ino = os.stat(self.path).st_ino
        return fn(self._conn)

    def _set_timeout(self, seconds: float) -> None:
        self._timeout = seconds
        if self._conn is not None:
            try:
                self._conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
            except Exception:  # noqa: BLE001 - the next open sets it
                self.close()

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
        return self.run(txn, "write")

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
