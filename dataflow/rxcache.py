"""A start-up cache of compiled regular expressions: what ``re`` computes for a pattern, kept.

Compiling a regex is pure Python (``re._parser`` and ``re._compiler``): the ~40 patterns a
``thresher pipe`` of a test run needs cost ~6 ms of every start, and importing ``re`` (with the
``enum`` it needs) ~6 ms more. What the compiler produces for one ``(pattern, flags)`` is the
argument tuple of one ``_sre.compile`` call (the pattern, its flags, a list of code words, the
group count and names): plain data that ``marshal`` stores, and that rebuilds the identical
pattern object in microseconds, from the C module ``_sre`` alone.

- :func:`compile` is ``re.compile`` for a module that binds ``re`` to :data:`re_lazy`
  (``from thresher.dataflow.rxcache import re_lazy as re``): a pattern the table holds is built
  from it without importing ``re`` at all; any other pattern, and every other attribute of
  ``re_lazy``, is the real ``re``'s. :class:`Lazy` is a module-level pattern compiled on first use.
- Once ``re`` is imported (by anyone), :func:`prime` puts the table in front of ``re``'s own
  pattern cache, so a plain ``re.compile`` of a pattern the table holds is served from it too
  (in a ``thresher`` command's process only).
- :func:`remembered` keeps a pure function of a pattern string (whether it is anchored, the
  literals it needs) in the table as well: those are parsed with ``re._parser`` otherwise.
- :func:`save` (called by the ``thresher`` command after the subcommand, when the output is out)
  adds what this process computed that the table lacked: each new pattern is compiled once more
  with ``re``'s own compiler, its ``_sre.compile`` arguments recorded, and kept only when the
  rebuilt pattern is equal to ``re``'s (``Pattern.__eq__`` compares flags, pattern and code
  words). A process that rebuilt the plans saves nothing (:func:`skip_save`).

The table is one file in the cache folder, named by the interpreter's version and its regex
engine's magic number and code size (any other interpreter has another file), read only when it
is a private file of ours (``plan.read_cache``), each entry decoded only when its pattern is asked
for. Anything unexpected (another ``re`` layout, a damaged entry) falls back to ``re``: the table
changes when a pattern is compiled, never what it matches.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[[str], Any])

CAP = 1024
"""Patterns (and facts) kept in the table (those used by the saving process first)."""
LOCALE = 4
"""``re.LOCALE``: such a pattern's code depends on the locale it was compiled in (never cached)."""

_STATE: dict[str, Any] = {}
_BUILT: dict[tuple[type, str | bytes, int], Any] = {}
"""``(type, pattern, flags) → Pattern`` built from the table in this process."""


def path() -> str:
    """The table's file for this interpreter."""
    import _sre  # type: ignore[import-not-found]  # (the C engine of re: no stubs)
    from .plan import _digest, cache_dir
    tag = f"{sys.version}\0{sys.implementation.cache_tag}\0{_sre.MAGIC}\0{_sre.CODESIZE}"
    return os.path.join(cache_dir(), f"regex-{_digest(tag.encode())}.marshal")


def _load() -> dict[str, Any]:
    """The process state, with the table read (once; an unreadable table is an empty one)."""
    if not _STATE:
        _STATE.update(blobs={}, facts={}, used=set(), new_facts={}, front=None, saving=True)
        try:
            from .plan import read_cache
            blob = read_cache(path())
            table = marshal.loads(blob) if blob is not None else {}
            if type(table) is dict and type(table.get("re")) is dict \
                    and type(table.get("facts")) is dict:
                _STATE["blobs"], _STATE["facts"] = table["re"], table["facts"]
        except Exception:  # noqa: BLE001 - not a table: rewritten by save
            pass
    return _STATE


def _build(key: tuple[Any, ...]) -> Any:
    """The pattern of ``key`` (``(type, pattern, flags)``) from the table, or ``None``."""
    state = _load()
    if key[0] not in (str, bytes) or type(key[2]) is not int:
        return None
    blob = state["blobs"].get(key[1:])
    if blob is None:
        return None
    import _sre
    try:
        compiled = _sre.compile(*marshal.loads(blob))
        ok = type(compiled.pattern) is key[0] and compiled.pattern == key[1]
    except Exception:  # noqa: BLE001 - a damaged entry: compiled by re as usual
        ok = False
    if not ok:
        state["blobs"].pop(key[1:], None)  # (re-recorded by save from re's own compile)
        return None
    state["used"].add(key[1:])
    _BUILT[key] = compiled
    return compiled


class _Table(dict):  # (re's own pattern cache: key -> Pattern)
    """``re``'s pattern cache, asked for a pattern it lacks: built from the table when it can."""

    def __missing__(self, key: Any) -> Any:
        compiled = _BUILT.get(key) if type(key) is tuple and len(key) == 3 else None
        if compiled is None and type(key) is tuple and len(key) == 3:
            compiled = _build(key)
        if compiled is None:
            raise KeyError(key)
        dict.__setitem__(self, key, compiled)
        return compiled


def _front(re: ModuleType) -> str | None:
    """The name of the dict ``re._compile`` looks a pattern up in first (3.11: ``_cache``,
    3.12+: ``_cache2``), or ``None`` when ``re`` has no such plain dict."""
    for name in ("_cache2", "_cache"):
        if type(getattr(re, name, None)) in (dict, _Table):
            return name
    return None


class _WhenImported:
    """A ``sys.meta_path`` entry that finds nothing itself: when ``re`` is imported, it wraps the
    spec the other finders return so that :func:`prime` runs right after ``re`` is executed,
    before the importing module's first ``re.compile``. It removes itself on that import."""

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name != "re":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            try:
                spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
            except Exception:  # noqa: BLE001 - the import system asks that finder again itself
                return None
            loader: Any = spec.loader if spec is not None else None
            if spec is not None and hasattr(loader, "exec_module") \
                    and not isinstance(loader, type):  # (a frozen re: left alone)
                real = loader.exec_module

                def exec_module(module: ModuleType, real: Callable[[ModuleType], None] = real
                                ) -> None:
                    real(module)
                    prime()
                loader.exec_module = exec_module
                return spec
        return None


def prime() -> None:
    """Serve ``re`` from the table, now or as soon as it is imported (never raises). Only in the
    process of a ``thresher`` command: a program that calls thresher's Python API keeps its ``re``
    untouched (the modules that bind ``re`` to :data:`re_lazy` still use the table)."""
    state = _load()
    re = sys.modules.get("re")
    if state["front"] is not None or "thresher.main" not in sys.modules:
        return
    if re is None:
        if not any(type(f) is _WhenImported for f in sys.meta_path):
            sys.meta_path.insert(0, _WhenImported())
        return
    try:
        name = _front(re)
        if name is None:
            return
        table = getattr(re, name)
        if type(table) is dict:
            setattr(re, name, _Table(table))
        state["front"] = (re, name)
    except Exception:  # noqa: BLE001 - no table in front of re: every pattern compiles as usual
        pass


def re_primed() -> ModuleType:
    """The ``re`` module, imported now if need be, served from the table."""
    module = sys.modules.get("re")  # (no import statement when loaded: start-up tests record those)
    if module is None:
        import re
        module = re
    prime()
    return module


def compile(pattern: str | bytes, flags: int = 0) -> Any:
    """``re.compile(pattern, flags)``, from the table without importing ``re`` when it can (a
    ``re.Pattern``; typed ``Any`` like the lazy ``re`` module it stands in for)."""
    if "re" not in sys.modules and type(flags) is int:
        compiled = _BUILT.get((type(pattern), pattern, flags))
        if compiled is None:
            compiled = _build((type(pattern), pattern, flags))
        if compiled is not None:
            return compiled
    return re_primed().compile(pattern, flags)


class _LazyModule:
    """``re`` for a module that binds ``re`` to this: :func:`compile` serves ``re.compile``;
    every other attribute is the real module's (imported at its first use)."""

    compile = staticmethod(compile)

    def __getattr__(self, name: str) -> Any:
        return getattr(re_primed(), name)


re_lazy = _LazyModule()


class Lazy:
    """A module-level regex compiled (from the table) on first use: ``X = Lazy(pattern)`` then
    ``X.search(text)``, so that importing the module costs nothing."""

    __slots__ = ("_args", "_compiled")

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._args: tuple[str | bytes, int] = (pattern, flags)
        self._compiled: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = compile(*self._args)
        return getattr(self._compiled, name)


def remembered(fn: F) -> F:
    """``fn(pattern)`` — a pure function of a pattern string whose result is ``None``, a bool, a
    str or a frozenset of str — kept in the table across processes (decorator). A result is
    filed under the function's name, the package version and the size and mtime of its module's
    file and of ``regex_needles.py`` (the pattern analysis such functions use): an edit of either
    computes it anew."""
    names: list[str] = []

    def cached(pattern: str) -> Any:
        state = _load()
        if not names:
            from . import __version__
            from .plan import file_stamp
            module = sys.modules.get(fn.__module__)
            files = (getattr(module, "__file__", None) or "",
                     os.path.join(os.path.dirname(os.path.abspath(__file__)), "regex_needles.py"))
            names.append(f"{fn.__module__}.{fn.__qualname__}@{__version__}:"
                         + ":".join(file_stamp(f) for f in files))
        key = (names[0], pattern)
        if key in state["facts"]:
            return state["facts"][key]
        if key in state["new_facts"]:
            return state["new_facts"][key]
        value = fn(pattern)
        if type(pattern) is str and (value is None or type(value) in (bool, str, frozenset)):
            state["new_facts"][key] = value
        return value

    cached.__name__, cached.__qualname__, cached.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    cached.__module__, cached.__wrapped__ = fn.__module__, fn  # type: ignore[attr-defined]
    return cached  # type: ignore[return-value]  # (fn's signature, wrapped)


def skip_save() -> None:
    """This process saves nothing (it rebuilt the plans: the control plane's patterns, pydantic's
    and yaml's among them, are not what the next start needs)."""
    _load()["saving"] = False


def compiled_args(pattern: str | bytes, flags: int) -> tuple[Any, ...] | None:
    """The argument tuple ``re``'s compiler passes to ``_sre.compile`` for ``(pattern, flags)``,
    or ``None`` when it cannot be recorded exactly."""
    import re
    import re._compiler as compiler  # type: ignore[import-not-found]  # (no stubs)
    real, seen = compiler._sre, []

    class Recorder:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def compile(self, *args: Any) -> Any:
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


def _plain(value: Any) -> Any:
    """``value`` with ``int`` subclasses (the compiler's named opcodes) as plain ints, which
    ``marshal`` stores; lists, tuples and dicts rebuilt alike."""
    if isinstance(value, int) and type(value) is not int and type(value) is not bool:
        return int(value)
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    if type(value) is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


def _new_patterns(state: dict[str, Any]) -> dict[tuple[Any, ...], bytes]:
    """``(pattern, flags) → marshalled arguments`` of the patterns ``re`` compiled in this process
    that the table lacks."""
    if state["front"] is None:
        return {}
    re, blobs, new = state["front"][0], state["blobs"], {}
    for table in (getattr(re, "_cache2", None), getattr(re, "_cache", None)):
        for key in list(table or ()):
            if type(key) is not tuple or len(key) != 3 or key[0] not in (str, bytes) \
                    or type(key[2]) is not int or key[2] & LOCALE or key[1:] in blobs \
                    or key[1:] in new:
                continue
            args = compiled_args(key[1], key[2])
            if args is not None:
                new[key[1:]] = marshal.dumps(args)
    return new


def _kept(old: dict[Any, Any], used: Collection[Any], new: dict[Any, Any]) -> dict[Any, Any]:
    """``new``, the ``used`` entries of ``old``, then the rest of ``old``, up to :data:`CAP`."""
    kept = {k: old[k] for k in used if k in old}
    kept.update(new)
    for k, v in old.items():
        if len(kept) >= CAP:
            break
        kept.setdefault(k, v)
    return kept


def save() -> None:
    """Add this process's newly compiled patterns and facts to the table (never raises)."""
    if not _STATE or not _STATE["saving"]:
        return
    try:
        state = _STATE
        new = _new_patterns(state)
        if not new and not state["new_facts"]:
            return
        blobs = _kept(state["blobs"], state["used"], new)
        facts = _kept(state["facts"], (), state["new_facts"])
        from .plan import _write_atomic
        _write_atomic(path(), marshal.dumps({"re": blobs, "facts": facts}))
        state.update(blobs=blobs, facts=facts, new_facts={})
    except Exception:  # noqa: BLE001 - a table not written only means compiling next time
        pass
