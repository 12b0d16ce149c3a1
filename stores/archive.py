"""A minimal file archive of raw payloads, keyed by handle (blake3 prefix of the content).

Files live under ``$THRESHER_HOME/archive`` (default ``~/.local/share/thresher``), mode 0600, written
atomically. The SQLite archive with TTL and size cap replaces this behind the same two methods.
"""

from __future__ import annotations

import json
import os

from thresher.dataflow.errors import ArchiveError


def home() -> str:
    """thresher's data folder."""
    return os.environ.get("THRESHER_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "thresher")


class FileArchive:
    """Raw payloads as files: ``<handle>.raw`` plus ``<handle>.json`` metadata."""

    def __init__(self, root: str | None = None) -> None:
        self.root = root or os.path.join(home(), "archive")

    def _path(self, handle: str, ext: str) -> str:
        if not handle or not all(c in "0123456789abcdef" for c in handle):
            raise ArchiveError(f"not a thresher handle: {handle!r}")
        return os.path.join(self.root, f"{handle}.{ext}")

    def put(self, handle: str, raw: bytes, meta: dict) -> None:
        """Store ``raw`` (idempotent: the same handle is the same content)."""
        path = self._path(handle, "raw")
        if os.path.exists(path):
            return
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        for ext, blob in (("json", json.dumps(meta, sort_keys=True).encode()), ("raw", raw)):
            target = self._path(handle, ext)
            tmp = f"{target}.{os.getpid()}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(blob)
            os.replace(tmp, target)

    def get(self, handle: str) -> bytes:
        """The original bytes of ``handle``; :class:`ArchiveError` when unknown."""
        try:
            with open(self._path(handle, "raw"), "rb") as fh:
                return fh.read()
        except FileNotFoundError:
            raise ArchiveError(f"unknown or expired handle {handle!r}") from None

    def meta(self, handle: str) -> dict:
        """The metadata stored with ``handle`` (empty when absent)."""
        try:
            with open(self._path(handle, "json"), encoding="utf-8") as fh:
                return json.load(fh)
        except (FileNotFoundError, ValueError):
            return {}


def default_archive() -> FileArchive:
    """The archive under ``$THRESHER_HOME``."""
    return FileArchive()
