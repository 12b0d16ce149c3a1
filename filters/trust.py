"""Trust of project filter files by content hash (hot path: only ``os`` and ``blake3``).

A project's ``.thresher/filters.yaml`` is code-like input written by whoever wrote the repository,
so it runs only after the user said so: ``thresher trust PATH`` reads the file's bytes once, hashes
them with blake3 and records ``hash<TAB>absolute path`` in ``$THRESHER_CONFIG_HOME/trusted-filters``.
A file is trusted when its *current* bytes hash to the recorded value for its path; an edited file
therefore needs re-trust. Callers hash the bytes they will parse, never re-read the file.
"""

from __future__ import annotations

import os

from blake3 import blake3

from thresher.dataflow.plan import TRUST_FILE, config_home


def trust_path() -> str:
    """Where the trust records live."""
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


def _save(records: dict[str, str]) -> None:
    path = trust_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.writelines(f"{h}\t{p}\n" for p, h in sorted(records.items()))
    os.replace(tmp, path)


def record(path: str, data: bytes) -> str:
    """Trust ``data`` as the content of ``path``; return its hash."""
    records = load()
    h = records[os.path.abspath(path)] = digest(data)
    _save(records)
    return h


def revoke(path: str) -> bool:
    """Forget the trust record of ``path``; False when there was none."""
    records = load()
    if records.pop(os.path.abspath(path), None) is None:
        return False
    _save(records)
    return True
