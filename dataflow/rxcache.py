"""A start-up cache of compiled regular expressions: what ``re`` computes for a pattern, kept.

Compiling a regex is pure Python (``re._parser`` and ``re._compiler``): the ~40 patterns a
``thresher pipe`` of a test run needs cost ~6 ms of every start, more than its whole graph run.
What the compiler produces for one ``(pattern, flags)`` is the argument tuple of one
``_sre.compile`` call (the pattern, its flags, a list of code words, the group count and names):
plain data that ``marshal`` stores, and that rebuilds the identical pattern object in microseconds.

- :func:`prime` (called on the engine's path before its first regex) puts a lookup table in front
  of ``re``'s own pattern cache: a ``re.compile``/``re.search``/... of a pattern the table holds is
  served from its cached arguments, everything else compiles as usual. No caller changes: the
  stages' module-level ``re.compile`` calls hit the table.
- :func:`save` (called by the ``thresher`` command after the subcommand, when the output is out)
  adds the patterns this process compiled that the table lacked: each is compiled once more with
  ``re``'s own compiler, its ``_sre.compile`` arguments recorded, and kept only when the rebuilt
  pattern is equal to ``re``'s (``Pattern.__eq__`` compares flags, pattern and code words).

The table is one file in the cache folder, named by the interpreter's version and its regex
engine's magic number and code size (any other interpreter has another file), read only when it
is a private file of ours (``plan.read_cache``), each entry decoded only when its pattern is asked
for. Anything unexpected (another ``re`` layout, a damaged entry) falls back to compiling: the
table changes when a pattern is compiled, never what it matches.
"""

from __future__ import annotations

import marshal
import os
import sys

CAP = 1024
"""Entries kept in the table (those used by the saving process first)."""
LOCALE = 4
"""``re.LOCALE``: such a pattern's code depends on the locale it was compiled in (never cached)."""

_STATE: dict = {}


class _Table(dict):
    """``re``'s pattern cache, asked for a pattern it lacks: built from the cached arguments."""

    def __missing__(self, key):
        try:
            blob = _STATE["blobs"][key[1:]] if key[0] in (str, bytes) else None
        except (KeyError, TypeError):
            blob = None
        if blob is None:
            raise KeyError(key)
        import _sre
        try:
            compiled = _sre.compile(*marshal.loads(blob))
            ok = type(compiled.pattern) is key[0] and compiled.pattern == key[1]
        except Exception:  # noqa: BLE001 - a damaged entry: compiled by re as usual
            ok = False
        if not ok:
            _STATE["blobs"].pop(key[1:], None)  # (re-recorded by save from re's own compile)
            raise KeyError(key)
        _STATE["used"].add(key[1:])
        dict.__setitem__(self, key, compiled)
        return compiled


def path() -> str:
    """The table's file for this interpreter."""
    import _sre
    from .plan import _digest, cache_dir
    tag = f"{sys.version}\0{sys.implementation.cache_tag}\0{_sre.MAGIC}\0{_sre.CODESIZE}"
    return os.path.join(cache_dir(), f"regex-{_digest(tag.encode())}.marshal")


def _front() -> tuple[object, str] | None:
    """``(re, name)`` of the dict ``re._compile`` looks a pattern up in first (3.11: ``_cache``,
    3.12+: ``_cache2``), or ``None`` when ``re`` has no such plain dict."""
    import re
    for name in ("_cache2", "_cache"):
        table = getattr(re, name, None)
        if type(table) in (dict, _Table):
            return re, name
    return None


def prime() -> None:
    """Serve ``re`` from the table from now on (once per process; never raises)."""
    if _STATE:
        return
    _STATE.update(blobs={}, used=set(), front=None)
    try:
        front = _front()
        if front is None:
            return
        from .plan import read_cache
        blob = read_cache(path())
        try:
            blobs = marshal.loads(blob) if blob is not None else {}
        except (ValueError, EOFError, TypeError):
            blobs = {}  # not a table: rewritten by save
        _STATE["blobs"] = blobs if type(blobs) is dict else {}
        module, name = front
        table = getattr(module, name)
        if type(table) is dict:
            setattr(module, name, _Table(table))
        _STATE["front"] = front
    except Exception:  # noqa: BLE001 - no table: every pattern compiles as usual
        pass


def re_primed():
    """The ``re`` module, served from the table (for code that imports ``re`` only when needed)."""
    prime()
    import re
    return re


class Lazy:
    """A module-level regex compiled (from the table) on first use: ``X = Lazy(pattern)`` then
    ``X.search(text)``, so that importing the module costs no ``re``."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern, flags: int = 0) -> None:
        self._args, self._compiled = (pattern, flags), None

    def __getattr__(self, name: str):
        if self._compiled is None:
            self._compiled = re_primed().compile(*self._args)
        return getattr(self._compiled, name)


class _LazyModule:
    """``re`` itself, imported (and served from the table) at its first attribute use: a module
    that needs a regex only in some calls binds ``re`` to this."""

    def __getattr__(self, name: str):
        return getattr(re_primed(), name)


re_lazy = _LazyModule()


def skip_save() -> None:
    """This process saves nothing (it rebuilt the plans: the control plane's patterns, pydantic's
    and yaml's among them, are not what the next start needs)."""
    _STATE["front"] = None


def compiled_args(pattern, flags: int):
    """The argument tuple ``re``'s compiler passes to ``_sre.compile`` for ``(pattern, flags)``,
    or ``None`` when it cannot be recorded exactly."""
    import re
    import re._compiler as compiler
    real, seen = compiler._sre, []

    class Recorder:
        def __getattr__(self, name):
            return getattr(real, name)

        def compile(self, *args):
            seen.append(args)
            return real.compile(*args)

    compiler._sre = Recorder()
    try:
        compiler.compile(pattern, flags)
    finally:
        compiler._sre = real
    if len(seen) != 1:
        return None
    args = _plain(seen[0])
    try:
        ok = real.compile(*marshal.loads(marshal.dumps(args))) == re.compile(pattern, flags)
    except Exception:  # noqa: BLE001 - not plain data, or not rebuilt alike: not cached
        return None
    return args if ok else None


def _plain(value):
    """``value`` with ``int`` subclasses (the compiler's named opcodes) as plain ints, which
    ``marshal`` stores; lists, tuples and dicts rebuilt alike."""
    if isinstance(value, int) and type(value) is not int and type(value) is not bool:
        return int(value)
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    if type(value) is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def save() -> None:
    """Add this process's newly compiled patterns to the table (never raises)."""
    front = _STATE.get("front")
    if front is None:
        return
    try:
        module, name = front
        blobs, used = _STATE["blobs"], _STATE["used"]
        new = {}
        live = [getattr(module, n, None) for n in ("_cache2", "_cache")]
        for table in live:
            for key in list(table or ()):
                if type(key) is not tuple or len(key) != 3 or key[0] not in (str, bytes) \
                        or type(key[2]) is not int or key[2] & LOCALE or key[1:] in blobs \
                        or key[1:] in new:
                    continue
                args = compiled_args(key[1], key[2])
                if args is not None:
                    new[key[1:]] = marshal.dumps(args)
        if not new:
            return
        kept = {k: blobs[k] for k in used if k in blobs}
        kept.update(new)
        for k, v in blobs.items():
            if len(kept) >= CAP:
                break
            kept.setdefault(k, v)
        from .plan import _write_atomic
        _write_atomic(path(), marshal.dumps(kept))
        _STATE["blobs"] = kept
    except Exception:  # noqa: BLE001 - a table not written only means compiling next time
        pass
