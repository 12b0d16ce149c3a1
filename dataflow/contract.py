"""The stage contract: what a stage declares about itself, what it is handed when it runs, and
what it may hand back.

A stage is a plain function ``run(payload, params, ctx)`` (the :class:`~.shapes.Stage` protocol),
called positionally, that returns
- ``None``      declined: the input passes on unchanged through the ``out`` port;
- ``Payload``   applied: the new payload leaves through ``out``;
- ``Out(p, x)`` applied: ``x`` leaves through port ``p`` (which the stage must declare).

Stages stay simple because the executor enforces the invariants at the edges (see executor.py).
What a stage tells the engine besides its result goes in the typed fields of :class:`Context`
(``archived``), never in a side channel.

A ``StageInfo`` is plain data, kept in the explicit registry in ``thresher.stages.registry`` (handed
to the engine by the composition root, see :func:`thresher.dataflow.wire`); the implementation and
the pydantic params model are named as ``"module:attr"`` strings so that the hot path imports only
the stages a graph uses, and never pydantic. The static shapes (``Stage``, ``Plan``, ``PlanNode``,
``Budget``, ``Services``...) live in :mod:`.shapes`, which imports ``typing``: they are importable
from here too, loaded on first use.
"""

from __future__ import annotations

from .payload import PHASE_INDEX, Out, Payload

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from .shapes import (ArchiveStore, Budget, LedgerStore, Params, Plan, PlanNode, Registry,
                         Services, Stage, StageResult)

__all__ = ["ANY_CLASS", "Archive", "ArchiveStore", "Budget", "Context", "LedgerStore",
           "MAX_BUDGET_FACTOR", "Out", "Params", "Payload", "Plan", "PlanNode", "Registry",
           "Services", "SessionLedger", "Stage", "StageInfo", "StageResult", "clamp_factor",
           "scaled_budget"]

ANY_CLASS = "*"

_SHAPES = ("ArchiveStore", "Budget", "LedgerStore", "Params", "Plan", "PlanNode", "Registry",
           "Services", "Stage", "StageResult")


def __getattr__(name: str) -> object:
    """The static shapes of :mod:`.shapes`, imported when first asked for (not at start-up)."""
    if name in _SHAPES:
        from . import shapes
        return getattr(shapes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    """An archive that keeps nothing: the :class:`~.shapes.ArchiveStore` protocol with no store
    behind it (``thresher.stores.archive`` has the real one)."""

    def put(self, handle: str, raw: bytes, meta: dict[str, object]) -> None:
        """Store ``raw`` under ``handle``; raise on any failure (the executor then emits raw)."""


class SessionLedger:
    """A ledger that knows nothing: the :class:`~.shapes.LedgerStore` protocol, documented
    (``thresher.stores.sessions`` has the real one).

    Handed to ``compress(..., ledger=...)``; stages find it as ``ctx.ledger``. Keys are
    :func:`thresher.dataflow.blocks.block_keys` fingerprints; a scope is one reader (session +
    subagent). ``known`` must not change state, so output stays deterministic given the scope state.
    """

    def known(self, scope: str, keys: list[int]) -> set[int]:  # noqa: ARG002 - knows nothing
        """The subset of ``keys`` already delivered to ``scope``."""
        return set()

    def record(self, scope: str, lines: list[str]) -> None:
        """Remember that ``lines`` (the final emission) were delivered to ``scope``."""

    def budget_adapt(self, scope: str, command: str) -> dict[str, object] | None:  # noqa: ARG002
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


def scaled_budget(budget: Budget, factor: float) -> Budget:
    """``budget`` with its line and token caps times the clamped ``factor``."""
    factor = clamp_factor(factor)
    if factor == 1.0:
        return budget
    scaled: Budget = {**budget, "max_lines": int(budget["max_lines"] * factor),
                      "max_tokens": int(budget["max_tokens"] * factor)}
    return scaled


class Context:
    """One run of a plan on one payload: what every stage is handed, and what stages hand back.

    Handed in (read-only for stages):
    - ``budget``: the graph's guardrail, possibly loosened by the bounce-adaptive factor;
    - ``archive``: where Persist stores the raw original (``None``: the default archive);
    - ``handle``: the archive handle of the raw input, named by every marker;
    - ``graph_id``, ``node_id``: the plan and the node running now (set by the executor);
    - ``reader``: who reads the emission, ``"agent"`` or ``"program"`` (Guard passes the reads a
      program parses byte-exact, INV-9);
    - ``ledger``: the session ledger of the reader's scope, or ``None`` (no scope: Ledger declines).

    Handed back (written by a stage, read by the engine after the walk):
    - ``archived``: Persist stored the raw input under ``handle`` (else no lossy emission, INV-7).

    ``memo`` is a cache that helpers of several stages share while one payload runs (a parsed JSON
    tree); the engine never reads it, and nothing for the engine travels in it.
    """

    __slots__ = ("budget", "archive", "handle", "graph_id", "node_id", "reader", "ledger",
                 "archived", "memo")

    budget: Budget
    archive: ArchiveStore | None
    handle: str
    graph_id: str
    node_id: str
    reader: str
    ledger: LedgerStore | None
    archived: bool
    memo: dict[str, object]

    def __init__(self, budget: Budget, archive: ArchiveStore | None, handle: str, graph_id: str,
                 *, reader: str = "agent", ledger: LedgerStore | None = None) -> None:
        self.budget = budget
        self.archive = archive
        self.handle = handle
        self.graph_id = graph_id
        self.node_id = ""
        self.reader = reader
        self.ledger = ledger
        self.archived = False
        self.memo = {}
