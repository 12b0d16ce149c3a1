"""One payload's writes to ``thresher.db``, committed in one transaction.

A payload touches three tables: its raw original (``archive``, written by the Persist stage or,
for output passed through untouched, by the savings record), what its reader was delivered
(``delivered``, the session ledger) and its savings event (``events``). :class:`PayloadWrites`
collects the three as rows — checked and packed when they are staged, so a payload the archive
cannot take is refused at once, as :meth:`SqliteArchive.put` refuses it — and :meth:`commit`
writes them in one ``BEGIN IMMEDIATE`` transaction: all of them or none.

It is the :class:`thresher.dataflow.shapes.ArchiveStore` the engine is handed (``put``), so
Persist's "archived" means "stored with this payload's transaction", which the boundary
(``thresher.boundary.deliver``) commits before any output naming the handle is written (INV-7:
if the commit fails, the raw output goes out instead). :class:`StagedLedger` is the session
ledger the engine is handed: it reads as the real one, and what the engine records as delivered
is staged here. Reads (the ledger's known windows, the bounce counts) stay outside: they come
before the graph runs, and a write lock must not be held while it does.
"""

from __future__ import annotations

from .archive import ArchiveRow, PackedFile, after_insert, archive_row, insert_archive
from .db import database

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

    from thresher.dataflow.shapes import LedgerStore


class PayloadWrites:
    """The archive row, delivered rows and savings event of one payload, not yet written."""

    def __init__(self, folder: str | None = None) -> None:
        self.folder = folder
        self.archive: ArchiveRow | None = None
        self.delivered: list[tuple[str, int, float]] = []
        self.event: dict[str, Any] | None = None
        self.file: PackedFile | None = None

    takes_original = True
    """:meth:`put` takes a :class:`thresher.dataflow.payload.Original` too (packed a piece at a
    time: Persist hands over the payload's, whose bytes may have been let go of)."""

    def put(self, handle: str, raw: Any, meta: dict[str, object]) -> None:
        """Stage ``raw`` (bytes or an ``Original``) under ``handle`` (the first row staged for a
        handle stands, as the first insert's metadata does in the table); raises like
        :meth:`SqliteArchive.put` when the archive could not take it."""
        row = archive_row(handle, raw, meta)
        if self.archive is None or self.archive[0] != row[0]:
            self.archive = row

    def put_file(self, handle: str, path: str, size: int, meta: dict[str, object]) -> None:
        """Stage the original at ``path`` (too big for memory: packed into a temporary file now,
        written into its row by the commit); raises like :meth:`SqliteArchive.put_file`."""
        self.close()
        self.file = PackedFile(handle, path, size, meta)

    def close(self) -> None:
        """Drop a staged file's temporary copy (after the commit, or when there is none)."""
        if self.file is not None:
            self.file.close()
            self.file = None

    def archives(self, handle: str) -> bool:
        """True when ``handle``'s original is staged."""
        return ((self.archive is not None and self.archive[0] == handle)
                or (self.file is not None and self.file.handle == handle))

    def deliver(self, scope: str, lines: list[str]) -> None:
        """Stage ``lines`` as what ``scope`` was delivered (replacing what was staged before)."""
        from .sessions import delivered_rows  # (a payload with no reader scope never needs it)
        self.delivered = delivered_rows(scope, lines)

    def record(self, res: Any, raw: bytes, *, command: str = "", stream: str = "stdout",
               role: str = "default", exit_code: int | None = None, scope: str = "",
               measure_only: bool = False, size: int | None = None) -> str:
        """Stage what :func:`thresher.stores.savings.record_payload` writes: ``raw`` archived if
        the engine did not, and its savings event (none with the ledger off). Returns the handle
        (``""`` when nothing is staged). Never raises: a payload the archive refuses has no
        event either, as before."""
        if not raw:
            return ""
        from .savings import disabled, event_row
        try:
            from thresher.dataflow.api import handle_of
            handle = (res.handle if res is not None else "") or handle_of(raw)
            if (res is None or not res.archived) and not self.archives(handle):
                self.put(handle, raw, {"command": command, "exit_code": exit_code,
                                       "stream": stream})
            if not disabled():
                self.event = event_row(res, raw, command=command, stream=stream, role=role,
                                       exit_code=exit_code, scope=scope, measure_only=measure_only,
                                       handle=handle, size=size)
            return handle
        except Exception:  # noqa: BLE001 - the ledger must never disturb the command
            return ""

    @property
    def empty(self) -> bool:
        """True when nothing is staged."""
        return (self.archive is None and self.file is None and not self.delivered
                and self.event is None)

    def commit(self) -> None:
        """Write everything staged in one transaction (nothing staged: no transaction); raises
        (``StoreError``, ``sqlite3.Error``, ``OSError``) when it cannot, and then nothing of it
        is written. Retention may follow a new archive entry, in transactions of its own."""
        if self.empty:
            return
        archive, delivered, event, file = self.archive, self.delivered, self.event, self.file

        def txn(conn: Any) -> int | None:
            rowid = insert_archive(conn, archive) if archive is not None else None
            if file is not None:
                file.insert(conn)
            if delivered:
                from .sessions import insert_delivered
                insert_delivered(conn, delivered)
            if event is not None:
                from .savings import insert_event_row
                insert_event_row(conn, event)
            return rowid
        db = database(self.folder)
        try:
            rowid = db.write(txn)
        finally:
            self.close()
        if archive is not None:
            from .archive import SqliteArchive
            after_insert(SqliteArchive(self.folder), rowid, archive[4])
        if file is not None:  # as put_file: retention after every spooled original
            from .archive import SqliteArchive
            try:
                SqliteArchive(self.folder).evict()
            except Exception:  # noqa: BLE001 - retention is housekeeping, never the command's problem
                pass


class StagedLedger:
    """The session ledger as the engine reads it (``known``, ``budget_adapt``), with what the
    engine records as delivered staged in ``writes`` instead of written at once."""

    def __init__(self, ledger: LedgerStore, writes: PayloadWrites) -> None:
        self.ledger, self.writes = ledger, writes
        self.recorded = False

    def known(self, scope: str, keys: list[int]) -> set[int]:
        """The subset of ``keys`` already delivered to ``scope``."""
        return self.ledger.known(scope, keys)

    def budget_adapt(self, scope: str, command: str) -> dict[str, Any] | None:
        """The bounce-adaptive budget of ``command`` for ``scope``."""
        return self.ledger.budget_adapt(scope, command)

    def record(self, scope: str, lines: list[str]) -> None:
        """Stage ``lines`` as delivered to ``scope``."""
        self.writes.deliver(scope, lines)
        self.recorded = True
