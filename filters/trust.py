"""Trust of project files by content hash: recording and revoking (the checks live in
``thresher.dataflow.trust``, shared with the graph loader).

A project's ``.thresher/filters.yaml`` is code-like input written by whoever wrote the repository,
so it runs only after the user said so: ``thresher trust PATH`` reads the file's bytes once, hashes
them with blake3 and records ``hash<TAB>absolute path`` in ``$THRESHER_CONFIG_HOME/trusted-filters``.
A file is trusted when its *current* bytes hash to the recorded value for its path; an edited file
therefore needs re-trust. Callers hash the bytes they will parse, never re-read the file.
"""

from __future__ import annotations

import os

from thresher.dataflow.trust import digest, is_trusted, load, trust_path

__all__ = ["digest", "is_trusted", "load", "record", "revoke", "trust_path"]


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
