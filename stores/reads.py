"""The read-stub cache behind ``thresher read``: re-reads cost a line, edits cost a diff.

For one reader scope (see ``sessions.py``) and one file, :meth:`ReadCache.check` answers:
- ``stub``: this scope was delivered exactly this content before →
  ``[unchanged since you read it: PATH, 143 lines · --fresh to re-read]``;
- ``diff``: this scope was delivered an older version → a unified diff against *that* version
  (what this reader saw, not what some other reader saw), unless more than ``MAX_DIFF_LINES``
  lines changed;
- ``full``: anything else — no scope, another scope or subagent, a new session, a scope dropped at
  compaction, ``fresh=True``, or a version too large to keep for diffing.

The cache learns only from :meth:`ReadCache.delivered`, which the caller invokes *after* it wrote
the answer, and only for answers that gave the reader the whole current content (a full read, or a
diff against a version it had). A partial delivery forgets the file for that scope, so the next
read is full. Stubs are therefore never sent to a reader that lacks the content.
"""

from __future__ import annotations

import os
import time

from blake3 import blake3

from .db import database

MAX_DIFF_LINES = 120
"""Above this many changed (added + removed) lines, the full file is cheaper to read than a diff."""
MAX_KEEP_BYTES = 2 * 1024 * 1024
"""Versions larger than this are remembered by digest only (stub possible, diff not)."""
STUB = "[unchanged since you read it: {path}, {lines} lines · --fresh to re-read]"


class Reply:
    """What to show for a read: ``kind`` (full / stub / diff) and the ``text`` (None for full)."""

    __slots__ = ("kind", "text", "lines", "changed")

    def __init__(self, kind: str, text: str | None = None, lines: int = 0, changed: int = 0) -> None:
        self.kind = kind
        self.text = text
        self.lines = lines
        self.changed = changed

    def __repr__(self) -> str:
        return f"Reply({self.kind!r}, lines={self.lines}, changed={self.changed})"


def _digest(content: bytes) -> str:
    return blake3(content).hexdigest()


def _count_lines(content: bytes) -> int:
    return content.count(b"\n") + (1 if content and not content.endswith(b"\n") else 0)


def norm_path(path: str) -> str:
    """The key a file is remembered under: its absolute, symlink-resolved path."""
    return os.path.realpath(path)


def unified(old: bytes, new: bytes, path: str) -> tuple[str, int]:
    """A unified diff from ``old`` to ``new`` and the number of changed lines."""
    import difflib
    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, f"{path} (as you read it)", f"{path} (now)", n=3))
    changed = sum(1 for line in lines[2:] if line[:1] in "+-")
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    return text, changed


class ReadCache:
    """Per-scope memory of the file versions each reader was delivered (the ``reads`` table)."""

    def __init__(self, folder: str | None = None) -> None:
        self.db = database(folder)

    def last(self, scope: str, path: str) -> tuple[str, int, bytes | None] | None:
        """``(digest, lines, content or None)`` of the version ``scope`` last saw of ``path``."""
        row = self.db.run(lambda c: c.execute(
            "SELECT digest, lines, content FROM reads WHERE scope = ? AND path = ? "
            "ORDER BY id DESC LIMIT 1", (scope, norm_path(path))).fetchone())
        if row is None or row[0] == "":
            return None  # never read, or forgotten after a partial delivery
        content = row[2]
        if content is not None:
            import zlib
            content = zlib.decompress(content)
        return row[0], row[1], content

    def check(self, scope: str, path: str, content: bytes, *, fresh: bool = False,
              shown_path: str | None = None) -> Reply:
        """What ``scope`` should be shown for ``path`` whose current bytes are ``content``."""
        n = _count_lines(content)
        if not scope or fresh:
            return Reply("full", lines=n)
        seen = self.last(scope, path)
        if seen is None:
            return Reply("full", lines=n)
        digest, _, old = seen
        label = shown_path or path
        if digest == _digest(content):
            return Reply("stub", STUB.format(path=label, lines=n), lines=n)
        if old is None:
            return Reply("full", lines=n)
        text, changed = unified(old, content, label)
        if changed > MAX_DIFF_LINES:
            return Reply("full", lines=n, changed=changed)
        return Reply("diff", text, lines=n, changed=changed)

    def delivered(self, scope: str, path: str, content: bytes, *, complete: bool = True) -> None:
        """Record what ``scope`` now has of ``path`` (call after the answer was written).

        ``complete=False`` (the reader got only part of it) makes the cache forget the file for
        this scope, so the next read is full.
        """
        if not scope:
            return
        row = (scope, norm_path(path), _digest(content) if complete else "",
               _count_lines(content), self._keep(content) if complete else None, time.time())
        self.db.write(lambda c: c.execute(
            "INSERT INTO reads (scope, path, digest, lines, content, ts) VALUES (?, ?, ?, ?, ?, ?)",
            row))

    @staticmethod
    def _keep(content: bytes) -> bytes | None:
        if len(content) > MAX_KEEP_BYTES:
            return None
        import zlib
        return zlib.compress(content, 1)

    def read(self, scope: str, path: str, content: bytes, *, fresh: bool = False,
             shown_path: str | None = None) -> Reply:
        """:meth:`check` and, assuming the reply is delivered whole, :meth:`delivered` in one go."""
        reply = self.check(scope, path, content, fresh=fresh, shown_path=shown_path)
        if reply.kind != "stub":
            self.delivered(scope, path, content)
        return reply
