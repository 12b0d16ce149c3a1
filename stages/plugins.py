"""Users' own stages: ``StageInfo`` objects published through the ``thresher.stages`` entry point group.

A distribution declares, in its ``pyproject.toml``::

    [project.entry-points."thresher.stages"]
    shout = "mypkg.stages:SHOUT"      # a thresher.dataflow.contract.StageInfo whose key is "shout"

and a graph names the stage by that key, exactly like a built-in one. A user stage gets the same
treatment as ours: its params model validates the graph's params (unknown keys refused), the
executor checks its every output (no fabrication, error lines kept, never larger) and fails open to
its input when it breaks one, and ``thresher check`` property-tests the graphs that use it. Its
source is read when it loads (``contract_check``): a summary line it writes without declaring
``emits_summaries=True``, or an ``Out`` port it does not declare, is an error of the graph naming
it, not a rejection on every run.

Loading is lazy: entry points are scanned only when a graph names a stage that is not built in
(control plane only), and a stage is imported only when named. A broken entry is an error of the
graph node naming it, saying which distribution and entry point is at fault and how to fix it.
Project-local Python stages are deliberately not supported: a trust hash of one ``.py`` file would
not cover the modules it imports; ``pip install -e`` of the project's own package is the consent.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping

from thresher.dataflow.contract import StageInfo
from thresher.dataflow.errors import StageLoadError

GROUP = "thresher.stages"
"""The entry point group a distribution publishes its stages in."""

RESERVED_PHASES = ("route", "persist")
"""Phases that only thresher's own stages may take: the emission with its footer, and the archive
write before any footer names the original."""

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")  # used with fullmatch


def _dist(ep) -> str:
    dist = getattr(ep, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"


def _attr(ref: object, field: str, where: str):
    """The object a ``"module:attr"`` field names; StageLoadError naming the field otherwise."""
    import importlib
    module, sep, attr = str(ref).partition(":")
    if not sep or not module or not attr:
        raise StageLoadError(f"{where}: StageInfo.{field} {ref!r} is not 'module:attr'",
                             hint=f"write {field} as 'mypkg.stages:name'")
    try:
        return getattr(importlib.import_module(module), attr)
    except Exception as exc:  # noqa: BLE001 - any import failure is the distribution's error
        raise StageLoadError(f"{where}: StageInfo.{field} {ref!r} does not load: "
                             f"{type(exc).__name__}: {exc}", hint="fix that module or attribute") from None


def validate(key: str, info: object, where: str) -> StageInfo:
    """``info`` when it is a well-formed user stage published as ``key``; StageLoadError otherwise."""
    from pydantic import BaseModel
    if not isinstance(info, StageInfo):
        raise StageLoadError(f"{where} names a {type(info).__name__}, not a StageInfo",
                             hint="point the entry point at thresher.dataflow.contract.StageInfo(...)")
    if info.key != key:
        raise StageLoadError(f"{where}: its StageInfo key is {info.key!r}",
                             hint="the entry point name and the StageInfo key must be the same")
    if info.phase in RESERVED_PHASES:
        raise StageLoadError(f"{where}: phase {info.phase!r} is reserved for thresher's own stage",
                             hint="user stages take phase read, guard, score, distill, collapse or ledger")
    bad = [p for p in info.ports if not isinstance(p, str) or not _NAME.fullmatch(p)]
    if bad:
        raise StageLoadError(f"{where}: bad output port name {bad[0]!r}",
                             hint="ports are lower-case words such as 'out' or 'done'")
    if not callable(_attr(info.impl, "impl", where)):
        raise StageLoadError(f"{where}: StageInfo.impl {info.impl!r} is not callable",
                             hint="name the stage function run(payload, params, ctx)")
    model = _attr(info.params, "params", where)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise StageLoadError(f"{where}: StageInfo.params {info.params!r} is not a pydantic model",
                             hint="name a pydantic BaseModel subclass")
    if model.model_config.get("extra") != "forbid":
        raise StageLoadError(f"{where}: params model {info.params!r} accepts unknown keys",
                             hint="set model_config = ConfigDict(extra='forbid') so a typo is an error")
    from thresher.stages.contract_check import check
    found = check(key, info.impl, info.ports, info.emits_summaries, strict=False)
    if found:   # what the executor would reject on every run, seen in the stage's own source
        raise StageLoadError(f"{where}: {found[0].problem} ({found[0].path}:{found[0].line})",
                             hint=found[0].fix)
    return info


class Stages(Mapping):
    """The stages a graph may name: the built-in ``registry``, then users' entry points.

    Mapping semantics: a name nobody provides is a KeyError; a broken user stage raises
    :class:`StageLoadError` on lookup. Iteration lists built-in keys, then user keys (no import).
    """

    def __init__(self, builtin: Mapping[str, StageInfo]) -> None:
        self._builtin = builtin
        self._eps: dict[str, list] | None = None
        self._loaded: dict[str, StageInfo | StageLoadError] = {}
        self._meta: set[str] = set()

    def _scan(self) -> dict[str, list]:
        if self._eps is None:
            from importlib.metadata import entry_points
            self._eps = {}
            for ep in entry_points(group=GROUP):
                self._eps.setdefault(ep.name, []).append(ep)
                meta = getattr(getattr(ep, "dist", None), "_path", None)  # its .dist-info folder
                if meta is not None:
                    self._meta.add(os.path.join(str(meta), "entry_points.txt"))
        return self._eps

    def _load(self, key: str) -> StageInfo:
        eps = self._scan().get(key)
        if not eps:
            raise KeyError(key)
        where = f"entry point {GROUP}:{key} = {eps[0].value!r} of {_dist(eps[0])}"
        if key in self._builtin:
            raise StageLoadError(f"{where} clashes with the built-in stage {key!r}",
                                 hint="rename the user stage (the built-in one always wins)")
        if len({ep.value for ep in eps}) > 1:
            raise StageLoadError(f"stage {key!r} is published by several distributions: "
                                 + "; ".join(f"{ep.value!r} of {_dist(ep)}" for ep in eps),
                                 hint="uninstall all but one of them")
        try:
            obj = eps[0].load()
        except Exception as exc:  # noqa: BLE001 - the distribution's module is at fault
            raise StageLoadError(f"{where} does not load: {type(exc).__name__}: {exc}",
                                 hint="fix that module, or uninstall the distribution") from None
        return validate(key, obj, where)

    def __getitem__(self, key: str) -> StageInfo:
        return self._builtin[key] if key in self._builtin else self.user(key)

    def user(self, key: str) -> StageInfo:
        """The user stage published as ``key`` (KeyError when none; StageLoadError when it cannot
        be used, e.g. named like a built-in one)."""
        if key not in self._loaded:
            try:
                self._loaded[key] = self._load(key)
            except StageLoadError as exc:
                self._loaded[key] = exc
        got = self._loaded[key]
        if isinstance(got, StageLoadError):
            raise got
        return got

    def __iter__(self) -> Iterator[str]:
        yield from self._builtin
        yield from sorted(k for k in self._scan() if k not in self._builtin)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def user_keys(self) -> list[str]:
        """Names published through the entry point group (clashes included), sorted."""
        return sorted(self._scan())

    def stamps(self) -> dict[str, str]:
        """What a plan compiled with this mapping depends on beyond the graph files: when entry
        points were scanned, every ``sys.path`` folder (a distribution installed or removed
        changes one), the entry point tables, and the module files of the user stages loaded.
        Empty when none was needed."""
        if self._eps is None:
            return {}
        from thresher.dataflow.plan import file_stamp
        here = os.getcwd()  # `python -m thresher` puts it on sys.path; its mtime says nothing here
        files = [p for p in sys.path if p and p != here and os.path.isdir(p)] + sorted(self._meta)
        for info in self._loaded.values():
            if isinstance(info, StageInfo):
                files += [_origin(info.impl), _origin(info.params)]
        return {f: file_stamp(f) for f in files if f}


def _origin(ref: str) -> str:
    mod = sys.modules.get(ref.partition(":")[0])
    return getattr(mod, "__file__", None) or ""
