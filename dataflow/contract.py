"""The stage contract: what a stage declares about itself, and what it is handed when it runs.

A stage is a plain function ``run(payload, params, ctx) -> Payload | Out | None``:
- ``None``      declined: the input passes on unchanged through the ``out`` port;
- ``Payload``   applied: the new payload leaves through ``out``;
- ``Out(p, x)`` applied: ``x`` leaves through port ``p`` (which the stage must declare).

Stages stay simple because the executor enforces the invariants at the edges (see executor.py).
A ``StageInfo`` is plain data, kept in the explicit registry in ``thresher.stages.registry``; the
implementation and the pydantic params model are named as ``"module:attr"`` strings so that the hot
path imports only the stages a graph uses, and never pydantic.
"""

from __future__ import annotations

from .payload import PHASE_INDEX, Out, Payload

__all__ = ["ANY_CLASS", "Archive", "Context", "MAX_BUDGET_FACTOR", "Out", "Payload",
           "SessionLedger", "StageInfo", "StageResult", "clamp_factor", "scaled_budget"]

ANY_CLASS = "*"

StageResult = "Payload | Out | None"


class StageInfo:
    """Registry entry of one stage: key, phase, accepted classes, ports, and where its code lives."""

    __slots__ = ("key", "phase", "accepts", "ports", "impl", "params", "summary", "emits_summaries",
                 "max_input")

    def __init__(self, key: str, phase: str, impl: str, params: str, summary: str, *,
                 accepts: tuple[str, ...] = (ANY_CLASS,), ports: tuple[str, ...] = ("out",),
                 emits_summaries: bool = False, max_input: int | None = None) -> None:
        if phase not in PHASE_INDEX:
            raise ValueError(f"stage {key!r}: unknown phase {phase!r}")
        self.key = key
        self.phase = phase
        self.accepts = accepts
        self.ports = ports if "out" in ports else ("out",) + ports
        self.impl = impl
        self.params = params
        self.summary = summary
        self.emits_summaries = emits_summaries
        # Work cap: the largest input (raw bytes) the stage handles within its cost; the executor
        # declines larger inputs for it up front, deterministically (no timer decides).
        self.max_input = max_input

    def accepts_class(self, pclass: str) -> bool:
        """True when this stage may run on payloads of class ``pclass``."""
        return ANY_CLASS in self.accepts or pclass in self.accepts


class Archive:
    """What stages may ask of the archive store (implemented in thresher.stores; duck-typed)."""

    def put(self, handle: str, raw: bytes, meta: dict) -> None:
        """Store ``raw`` under ``handle``; raise on any failure (the executor then emits raw)."""


class SessionLedger:
    """What the Ledger stage and ``compress`` ask of the session ledger (thresher.stores; duck-typed).

    Handed to ``compress(..., ledger=...)``; stages find it as ``ctx.extras["ledger"]``. Keys are
    :func:`thresher.dataflow.blocks.block_keys` fingerprints; a scope is one reader (session +
    subagent). ``known`` must not change state, so output stays deterministic given the scope state.
    """

    def known(self, scope: str, keys: list[int]) -> set[int]:
        """The subset of ``keys`` already delivered to ``scope``."""
        return set()

    def record(self, scope: str, lines: list[str]) -> None:
        """Remember that ``lines`` (the final emission) were delivered to ``scope``."""

    def budget_adapt(self, scope: str, command: str) -> dict | None:
        """How gently to budget ``command``'s output for ``scope``, read once before the graph
        runs: ``{"family", "payloads", "expanded", "factor"}`` (see :func:`scaled_budget`), or
        ``None`` for no adaptation. Must not change state and must depend on the stored counts
        alone (never the clock), so output stays deterministic given the scope state."""
        return None


MAX_BUDGET_FACTOR = 2.0
"""The most a bounce-adaptive budget may exceed the graph's own."""


def clamp_factor(factor: float) -> float:
    """``factor`` within [1, MAX_BUDGET_FACTOR] (1 for anything else, NaN included): an adaptation
    can loosen a graph's budget, never tighten it."""
    return min(factor, MAX_BUDGET_FACTOR) if factor >= 1.0 else 1.0


def scaled_budget(budget: dict, factor: float) -> dict:
    """``budget`` with its line and token caps times the clamped ``factor``."""
    factor = clamp_factor(factor)
    if factor == 1.0:
        return budget
    return {**budget, "max_lines": int(budget["max_lines"] * factor),
            "max_tokens": int(budget["max_tokens"] * factor)}


class Context:
    """Per-run services and settings handed to every stage: budget, archive, handle, clock."""

    __slots__ = ("budget", "archive", "handle", "graph_id", "node_id", "extras")

    def __init__(self, budget: dict, archive: Archive | None, handle: str,
                 graph_id: str, extras: dict | None = None) -> None:
        self.budget = budget
        self.archive = archive
        self.handle = handle
        self.graph_id = graph_id
        self.node_id = ""
        self.extras = extras or {}
