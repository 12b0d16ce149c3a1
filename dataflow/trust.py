"""Trust of project files by content hash (hot path: only ``os`` and ``blake3``).

A project's ``.thresher/`` files (graphs, the classify table, filters, prefixes) are written by
whoever wrote the repository, and they shape what the agent sees: a graph could mark every line
noise. So they are used only after the user said so: ``thresher trust PATH`` hashes the file's
bytes with blake3 and records ``hash<TAB>absolute path`` in ``$THRESHER_CONFIG_HOME/
trusted-filters``. A file is trusted while its *current* bytes hash to the recorded value for its
path; an edited file needs trusting again. Callers hash the bytes they will parse.
"""

from __future__ import annotations

import os
import sys

from blake3 import blake3

def trust_path() -> str:
    """Where the trust records live (``plan.TRUST_FILE`` under the config home)."""
    from .plan import TRUST_FILE, config_home  # plan imports this module: resolve at call time
    return os.path.join(config_home(), TRUST_FILE)


def digest(data: bytes) -> str:
    """The content hash a trust record holds."""
    return blake3(data).hexdigest()


def load() -> dict[str, str]:
    """Absolute path → trusted hash (empty when nothing was ever trusted)."""
    try:
        with open(trust_path(), encoding="utf-8") as fh:
            rows = [line.rstrip("\n").split("\t", 1) for line in fh]
    except OSError:
        return {}
    return {row[1]: row[0] for row in rows if len(row) == 2}


def is_trusted(path: str, data: bytes, records: dict[str, str] | None = None) -> bool:
    """True when ``data`` (the bytes read from ``path``) is what the user trusted for ``path``."""
    records = load() if records is None else records
    return records.get(os.path.abspath(path)) == digest(data)


def read_trusted(path: str, records: dict[str, str] | None = None) -> tuple[bytes | None, str]:
    """``(bytes, hash)`` of ``path``: bytes only when trusted (``None`` otherwise, or unreadable)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return None, ""
    return (data if is_trusted(path, data, records) else None), digest(data)


_WARNED: set[str] = set()


def warn_untrusted(kind: str, untrusted: list[tuple[str, str]]) -> None:
    """One stderr line per process and kind naming ignored project files and the command that
    trusts them (after review). Never raises: a closed stderr must not break the command."""
    if not untrusted or kind in _WARNED:
        return
    _WARNED.add(kind)
    try:
        names = " ".join(os.path.relpath(p) for p, _ in untrusted)
    except ValueError:
        names = " ".join(p for p, _ in untrusted)
    try:
        sys.stderr.write(f"thresher: ignoring untrusted project {kind} {names} (new or changed "
                         f"since trusted); review, then run: thresher trust {names}\n")
    except (OSError, ValueError):
        pass
