"""Find filter files and load the compiled filters (hot path: no yaml, no pydantic on a warm cache).

Search order (the first filter whose ``match`` hits wins): project (trusted only), user, shipped.
- project: ``.thresher/filters.{yaml,yml,toml}`` and ``.thresher/filters/*`` in the nearest
  ``.thresher`` folder at or above the working directory; each file's bytes are read once and
  hashed, and only bytes whose hash the user trusted (``thresher trust PATH``) go further;
- user: ``$THRESHER_CONFIG_HOME/filters/*`` (default ``~/.config/thresher/filters``);
- shipped: the ``filters/`` folder of the ``thresher.graphs`` package.
Discovery lives in ``thresher.dataflow.plan`` because the plan cache key covers these files too:
a change recompiles the plans and warms this cache in the control plane (``build.warm_filters``).

The compiled form (plain dicts, see :func:`thresher.filters.load.plain`) is cached as ``marshal``
data under the plan cache folder, keyed by a blake3 hash of the package and Python versions, the
loader's sources and every loaded file's origin, path and bytes. A stale key runs the control plane
(``load.compile_files``) once, on the same bytes that were hashed. Problems are reported on stderr
as one line per process (untrusted project files, files that failed to load), never on stdout.
"""

from __future__ import annotations

import marshal
import os
import sys

from thresher.dataflow.plan import (
    FILTER_SUFFIXES, _listing, _write_atomic, cache_dir, filter_files, project_filter_files,
    read_cache, seeded_hash, shipped_filter_dir, user_filter_dir)

_KEY_SOURCES = ("thresher.filters.load", "thresher.filters.model")
_WARNED: set[tuple[str, str]] = set()

# Discovery, re-exported under the names the CLI and tests use.
discover, project_files = filter_files, project_filter_files
shipped_dir, user_filter_dir = shipped_filter_dir, user_filter_dir


def listing(folder: str) -> list[str]:
    """Filter files in ``folder``, sorted by name."""
    return _listing(folder, FILTER_SUFFIXES)


def read_entries(files: list[tuple[str, str]]) -> tuple[list[tuple[str, str, bytes]],
                                                       list[tuple[str, str]]]:
    """``(origin, path, bytes)`` of every loadable file, and ``(path, hash)`` of the untrusted
    project files.

    Each file is read once; a project file's bytes are kept only when their hash is trusted, so
    what is later parsed is exactly what was checked.
    """
    entries, untrusted, records = [], [], {}
    if any(o == "project" for o, _ in files):
        from . import trust  # only projects with filter files pay for the trust records
        records = trust.load()
    for origin, path in files:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if origin == "project" and not trust.is_trusted(path, data, records):
            untrusted.append((path, trust.digest(data)))
            continue
        entries.append((origin, path, data))
    return entries, untrusted


def _key(entries: list[tuple[str, str, bytes]]) -> str:
    h = seeded_hash(_KEY_SOURCES)
    for origin, path, data in entries:
        h.update(f"\0{origin}\0{path}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:32]


class Loaded:
    """The compiled filters in search order, the load errors, and ``(path, hash)`` of the
    untrusted project files."""

    __slots__ = ("filters", "errors", "untrusted")

    def __init__(self, filters: list[dict], errors: list[str],
                 untrusted: list[tuple[str, str]]) -> None:
        self.filters = filters
        self.errors = errors
        self.untrusted = untrusted


def load(cwd: str | None = None, *, use_cache: bool = True, warn: bool = True) -> Loaded:
    """Every usable filter visible from ``cwd``, from the cache when it is fresh."""
    entries, untrusted = read_entries(discover(cwd))
    path = os.path.join(cache_dir(), f"filters-{_key(entries)}.marshal")
    data = None
    if use_cache:
        blob = read_cache(path)  # refuses a file that is not ours or that others can write
        try:
            data = marshal.loads(blob) if blob is not None else None
        except (ValueError, EOFError, TypeError):
            data = None
    if data is None:
        from .load import compile_files  # control plane: yaml, pydantic
        data = compile_files(entries)
        if use_cache:
            _write_atomic(path, marshal.dumps(data))
    loaded = Loaded(data["filters"], data["errors"], untrusted)
    if warn:
        warn_once(loaded)
    return loaded


def warn_once(loaded: Loaded) -> None:
    """One stderr line about untrusted project files and one about broken files, once per process."""
    if loaded.untrusted:
        names = " ".join(os.path.relpath(p) for p, _ in loaded.untrusted)
        _warn(f"thresher: ignoring untrusted project filters {names} (new or changed since "
              f"trusted); review, then run: thresher trust {names}",
              " ".join(h for _, h in loaded.untrusted))
    if loaded.errors:
        more = f" (+{len(loaded.errors) - 1} more)" if len(loaded.errors) > 1 else ""
        _warn(f"thresher: filter file ignored: {loaded.errors[0]}{more}; "
              "see: thresher filters check")


def _warn(line: str, token: str = "") -> None:
    """Write ``line`` to stderr unless this process already did (for the same ``token``)."""
    if (line, token) in _WARNED:
        return
    _WARNED.add((line, token))
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
