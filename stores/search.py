"""Full-text search over the archive (``thresher expand --search``), SQLite FTS5, built lazily.

Nothing is indexed on the hot path: a payload costs what it cost before. The first search of a
scope indexes that scope's live archived outputs, each later search only the new ones (and drops
what expired or was evicted since), one short write transaction per output so agent shells writing
at the same time are never held up. What is indexed is the text an agent would see from
``thresher expand``: secrets masked as its class masks them (the caller passes the masking),
escape codes removed, the first :data:`INDEX_BYTES` of an output only (cut at a line end; results
say so), binary outputs not at all (counted).

Words, not substrings: FTS5's ``unicode61`` tokenizer (letters and digits; case-insensitive), so
``--search "connection refused"`` finds outputs holding both words, ``Modul*`` is a prefix, and a
word like ``test_login`` matches those tokens in sequence. Lines are then found in the indexed text
itself: those holding every word, else (words on different lines) those holding any.

The FTS table is contentless (``content=''``); the indexed text is kept zlib-compressed beside it
(``search_docs.body_z``), which is what lets a stale document be deleted after its archive entry
is gone, and what line numbers are read from. Without FTS5 in this Python's SQLite,
:class:`SearchUnavailable` says so.
"""

from __future__ import annotations

import re
import zlib

from thresher.dataflow.errors import ThresherError

from .archive import SqliteArchive, _unpack, clock, ttl_seconds

INDEX_BYTES = 1 << 20
"""The most of one output that is indexed (a bounded prefix: a 60 MB log costs 1 MiB)."""
ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
"""Escape sequences (CSI, OSC) that carry no text: removed before indexing and matching."""
_TOKEN = re.compile(r"[^\W_]+")
_FTS = ("CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(body, content='', "
        "tokenize='unicode61 remove_diacritics 0')")
_NOT_TOKEN = r"(?<![^\W_])"


class SearchUnavailable(ThresherError):
    """This Python's SQLite has no FTS5 module."""


class SearchError(ThresherError):
    """The search text has no word to look for."""


class Query:
    """A parsed ``--search`` text: the FTS5 MATCH expression and one line regex per word."""

    def __init__(self, text: str) -> None:
        phrases, self.patterns, self.greps = [], [], []
        for word in text.split():
            prefix = word.endswith("*")
            tokens = _TOKEN.findall(word)
            if not tokens:
                continue  # punctuation alone: no token to look for
            phrases.append('"' + " ".join(tokens) + '"' + ("*" if prefix else ""))
            body = r"[\W_]+".join(re.escape(t) for t in tokens)
            self.patterns.append(re.compile(_NOT_TOKEN + body + ("" if prefix else r"(?![^\W_])"),
                                            re.IGNORECASE))
            self.greps.append(r"\b" + body + ("" if prefix else r"\b"))
        if not phrases:
            raise SearchError(f"--search {text!r} has no word to look for (letters or digits)")
        self.match = " AND ".join(phrases)

    def lines(self, text: str) -> tuple[list[tuple[int, str]], bool]:
        """``(number, line)`` of the lines holding every word, else of those holding any; and
        whether they hold every word."""
        numbered = list(enumerate(text.split("\n"), 1))
        every = [(n, ln) for n, ln in numbered if all(p.search(ln) for p in self.patterns)]
        if every or len(self.patterns) == 1:
            return every, True
        return [(n, ln) for n, ln in numbered if any(p.search(ln) for p in self.patterns)], False

    def grep(self, every: bool) -> str:
        """A ``thresher expand --grep`` regex for the same lines (every word, or any)."""
        if len(self.greps) == 1:
            return "(?i)" + self.greps[0]
        if every:
            return "(?i)^" + "".join(f"(?=.*{g})" for g in self.greps)
        return "(?i)" + "|".join(self.greps)


def _ensure_fts(conn) -> None:
    import sqlite3
    try:
        conn.execute(_FTS)
    except sqlite3.OperationalError as exc:
        if "fts5" in str(exc).lower():
            raise SearchUnavailable(
                f"archive search needs SQLite's FTS5 module, which this Python's sqlite3 "
                f"(SQLite {sqlite3.sqlite_version}) lacks: use a Python built with FTS5 (python.org "
                "and Debian builds have it), or `thresher expand HANDLE --grep` on one output"
                ) from exc
        raise


def indexable_text(raw: bytes) -> tuple[str | None, str]:
    """The text to index of ``raw`` and a note: ``(None, "binary")``, or the prefix's text with
    ``"first N bytes"`` when it was cut."""
    head = raw[:8192]
    if b"\x00" in head or head.decode("utf-8", "replace").count("\ufffd") * 20 > len(head):
        return None, "binary"
    note = ""
    if len(raw) > INDEX_BYTES:
        cut = raw.rfind(b"\n", 0, INDEX_BYTES)
        raw, note = raw[:cut if cut > 0 else INDEX_BYTES], f"first {INDEX_BYTES} bytes"
    lines = [ANSI.sub(b"", line) for line in raw.split(b"\n")]
    return b"\n".join(lines).decode("utf-8", "replace"), note


class ArchiveSearch:
    """The search index over one thresher database's archive."""

    def __init__(self, folder: str | None = None, prepare=None) -> None:
        self.archive = SqliteArchive(folder)
        self.db = self.archive.db
        self.prepare = prepare or (lambda raw, meta: raw)  # e.g. secret masking, line for line

    def candidates(self, scope: str | None) -> list[dict]:
        """Live archived outputs of ``scope`` (every scope for ``None``), newest event first."""
        live = "a.data IS NOT NULL AND a.gone IS NULL AND a.accessed >= ?"
        cutoff = clock() - ttl_seconds()
        if scope is None:
            sql = (f"SELECT a.handle, coalesce((SELECT max(id) FROM events e WHERE e.handle = "
                   f"a.handle), 0), a.created, a.size FROM archive a WHERE {live}")
            args: tuple = (cutoff,)
        else:
            sql = (f"SELECT e.handle, max(e.id), a.created, a.size FROM events e JOIN archive a "
                   f"ON a.handle = e.handle WHERE e.scope = ? AND {live} GROUP BY e.handle")
            args = (scope, cutoff)
        rows = self.db.run(lambda c: c.execute(sql, args).fetchall())
        rows.sort(key=lambda r: (-r[1], -r[2], r[0]))
        return [{"handle": h, "event": ev, "size": size} for h, ev, _, size in rows]

    def sync(self, handles: list[str]) -> dict:
        """Drop the documents of entries gone from the archive, index those of ``handles`` not yet
        indexed; return counts (``indexed``, ``dropped``, ``busy``: left for the next search)."""
        from .db import StoreBusy
        self.db.write(_ensure_fts)
        stale = self.db.run(lambda c: c.execute(
            "SELECT s.handle FROM search_docs s LEFT JOIN archive a ON a.handle = s.handle "
            "WHERE a.data IS NULL OR a.gone IS NOT NULL").fetchall())
        for (handle,) in stale:
            self.db.write(lambda c, h=handle: _drop(c, h))
        done = {r[0] for r in self.db.run(lambda c: c.execute(
            "SELECT handle FROM search_docs").fetchall())}
        counts = {"indexed": 0, "dropped": len(stale), "busy": 0}
        for handle in handles:
            if handle in done:
                continue
            try:
                self._index(handle)
                counts["indexed"] += 1
            except StoreBusy:
                counts["busy"] += 1
        return counts

    def _index(self, handle: str) -> None:
        row = self.db.run(lambda c: c.execute(
            "SELECT data, codec, size FROM archive WHERE handle = ? AND data IS NOT NULL",
            (handle,)).fetchone())
        if row is None:
            return
        raw = self.prepare(_unpack(row[0], row[1]), self.archive.meta(handle))
        text, note = indexable_text(raw)

        def txn(conn):
            if conn.execute("SELECT 1 FROM search_docs WHERE handle = ?", (handle,)).fetchone():
                return  # another search indexed it meanwhile
            doc = 0
            if text is not None:
                doc = conn.execute("INSERT INTO search_fts (body) VALUES (?)", (text,)).lastrowid
            conn.execute(
                "INSERT INTO search_docs (handle, doc, size, note, body_z) "
                "VALUES (?, ?, ?, ?, ?)", (handle, doc, row[2], note,
                                           zlib.compress(text.encode(), 1) if text else None))
        self.db.write(txn)

    def search(self, text: str, scope: str | None, limit: int) -> dict:
        """Index what is new, then the outputs of ``scope`` matching ``text``, newest first."""
        query = Query(text)
        cands = self.candidates(scope)
        counts = self.sync([c["handle"] for c in cands])
        order = {c["handle"]: i for i, c in enumerate(cands)}
        hits = self.db.run(lambda c: c.execute(
            "SELECT s.handle, s.note, s.body_z FROM search_fts f JOIN search_docs s ON s.doc = "
            "f.rowid WHERE search_fts MATCH ?", (query.match,)).fetchall())
        hits = sorted((h for h in hits if h[0] in order), key=lambda h: order[h[0]])
        skipped = {"binary": 0, "cut": 0}  # of this search's outputs: not indexed, or in part
        for handle, note in self.db.run(lambda c: c.execute(
                "SELECT handle, note FROM search_docs WHERE note != ''").fetchall()):
            if handle in order:
                skipped["binary" if note == "binary" else "cut"] += 1
        results = []
        for handle, note, body_z in hits[:limit]:
            body = zlib.decompress(body_z).decode()
            lines, every = query.lines(body)
            results.append({"handle": handle, "note": note, "lines": lines,
                            "grep": query.grep(every),
                            "total_lines": body.count("\n") + (not body.endswith("\n")),
                            "command": str(self.archive.meta(handle).get("command") or "")})
        return {"results": results, "matched": len(hits), "searched": len(cands),
                **counts, **skipped}


def _drop(conn, handle: str) -> None:
    """Delete ``handle``'s document (a contentless FTS5 delete names the text it indexed)."""
    row = conn.execute("SELECT doc, body_z FROM search_docs WHERE handle = ?", (handle,)).fetchone()
    if row is None:
        return
    if row[0] and row[1] is not None:
        conn.execute("INSERT INTO search_fts (search_fts, rowid, body) VALUES ('delete', ?, ?)",
                     (row[0], zlib.decompress(row[1]).decode()))
    conn.execute("DELETE FROM search_docs WHERE handle = ?", (handle,))
