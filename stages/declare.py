"""A stage that declares itself: its registry entry and its params in its own module.

A new built-in stage is one file. Next to its ``run(payload, params, ctx)`` it states, as plain
data (no pydantic at run time: the hot path imports the stage module, never the control plane)::

    from thresher.stages.declare import Param, Stage

    STAGE = Stage("distill-jest", "distill",
                  "jest/vitest/mocha: fold passing test rows per file and describe block (counted)",
                  params={"min_group": Param(3, ge=2, doc="passing rows a group needs to be folded")},
                  emits_summaries=True)

:func:`declared` finds such modules by reading the sources of the stage folders for a line that
starts with ``STAGE = Stage(`` (``grep -rn '^STAGE = Stage(' stages/`` lists them), imports only
those, and gives :mod:`thresher.stages.registry` their ``StageInfo``. The params model a graph's
params are validated with is made from the ``Param`` list on first use, in the control plane
(:func:`model`: unknown keys refused, types from the defaults or ``type=``, bounds ``ge``/``le``),
and is addressed as ``thresher.stages.declare:<module>`` so that everything that loads a
``"module:attr"`` params reference (compile, ``graph schema``, the contract tests) needs nothing new.
"""

from __future__ import annotations

import os
from typing import Any

MARK = "STAGE = Stage("
"""How a declaring module's line starts (what :func:`declared` looks for, without importing)."""

FAMILIES = ("ingest", "generic", "runners", "vcs", "listings", "data", "documents", "logs", "emit")
"""The stage folders, in pipeline order (``lib/`` holds helpers, never stages)."""


class Param:
    """One params key of a declared stage: its default, type, bounds and what it means."""

    __slots__ = ("default", "type", "ge", "le", "doc")

    def __init__(self, default: Any, *, type: Any = None, ge: float | None = None,
                 le: float | None = None, doc: str = "") -> None:
        self.default, self.type, self.ge, self.le, self.doc = default, type, ge, le, doc


class Stage:
    """A declared stage's registry entry (the fields of ``StageInfo`` but ``impl``/``params``,
    which are this module's own)."""

    __slots__ = ("key", "phase", "summary", "params", "accepts", "ports", "emits_summaries",
                 "max_input")

    def __init__(self, key: str, phase: str, summary: str, *, params: dict[str, Param] | None = None,
                 accepts: tuple[str, ...] | None = None, ports: tuple[str, ...] = ("out",),
                 emits_summaries: bool = False, max_input: int | None = None) -> None:
        self.key, self.phase, self.summary = key, phase, summary
        self.params = dict(params or {})
        self.accepts, self.ports = accepts, ports
        self.emits_summaries, self.max_input = emits_summaries, max_input


def _root() -> str:
    return os.path.dirname(os.path.abspath(__file__))


def declaring_files() -> list[tuple[str, str]]:
    """``(module name, file)`` of every stage module that declares itself, in a fixed order."""
    out = []
    for family in FAMILIES:
        folder = os.path.join(_root(), family)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".py") or name.startswith("_"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as fh:
                if any(line.startswith(MARK) for line in fh):
                    out.append((f"thresher.stages.{family}.{name[:-3]}", path))
    return out


def declared() -> list[tuple[str, Stage]]:
    """``(module name, Stage)`` of every declaring module (each imported once)."""
    import importlib
    out = []
    for module, path in declaring_files():
        stage = getattr(importlib.import_module(module), "STAGE", None)
        if not isinstance(stage, Stage):
            raise TypeError(f"{path}: `STAGE` is not a thresher.stages.declare.Stage")
        out.append((module, stage))
    return out


_MODELS: dict[str, Any] = {}


def model(module: str) -> Any:
    """The pydantic params model of the stage declared in ``module`` (made once)."""
    if module not in _MODELS:
        import importlib

        from pydantic import ConfigDict, Field, create_model
        stage = importlib.import_module(module).STAGE
        fields: dict[str, Any] = {}
        for name, p in stage.params.items():
            kind = p.type if p.type is not None else type(p.default)
            bounds = {k: v for k, v in (("ge", p.ge), ("le", p.le)) if v is not None}
            fields[name] = (kind, Field(p.default, description=p.doc, **bounds))
        title = "".join(part.capitalize() for part in stage.key.split("-")) + "Params"
        _MODELS[module] = create_model(title, __config__=ConfigDict(extra="forbid", frozen=True),
                                       **fields)
    return _MODELS[module]


def __getattr__(name: str) -> Any:
    """``thresher.stages.declare:<module>`` is the params model of the stage in ``<module>``."""
    if name.startswith("thresher.stages."):
        return model(name)
    raise AttributeError(name)
