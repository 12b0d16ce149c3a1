"""The static shapes of the engine's contract: stages, plans, budgets and the services it is handed.

Everything here is for the type checker and for readers; nothing changes what runs:
- :class:`Stage` is the signature every stage function has, ``run(payload, params, ctx)``;
- :class:`Plan`, :class:`PlanNode` and :class:`Budget` are ``TypedDict`` s: at run time a plan is
  the plain dict ``compile.py`` builds, so the plan cache (``plan.py``) stores it with ``marshal``
  as it is and a warm start decodes it without any conversion;
- :class:`ArchiveStore` and :class:`LedgerStore` are what the engine asks of the stores (which
  implement them in ``thresher.stores``; ``contract.Archive`` and ``contract.SessionLedger`` are
  null implementations);
- :class:`Services` is what the composition root outside this package hands the engine: the stage
  registry, the filter loader and the code files the compiled plans depend on (see
  :func:`thresher.dataflow.wire`).

This module imports ``typing``, a start-up cost the per-command paths do not pay: the hot-path
modules name these types only in annotations (``from __future__ import annotations``) and import
them under ``TYPE_CHECKING``; ``contract`` hands them out on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, TypedDict, Union

from .contract import Context, StageInfo
from .payload import Out, Payload

__all__ = ["ArchiveStore", "Budget", "LedgerStore", "Params", "Plan", "PlanNode", "Registry",
           "Services", "Stage", "StageResult"]

Params = dict[str, Any]
"""A node's params as its model validated and dumped them (JSON types), read by key."""

StageResult = Union[Payload, Out, None]
"""What a stage returns: ``None`` when it declines (its input goes on through ``out`` unchanged);
a :class:`Payload` when it applies (the new payload goes on through ``out``); ``Out(port, payload)``
when it applies and sends ``payload`` through ``port``, one of the ports its ``StageInfo`` declares.
Anything else, an undeclared port, or a payload that breaks an invariant is rejected by the
executor and the input goes on (fail-open, INV-5)."""


class Stage(Protocol):
    """A stage: ``run(payload, params, ctx)``, called positionally by the executor.

    ``payload`` is immutable (return ``payload.evolve(...)``/``with_view(...)``), ``params`` are the
    node's validated params, ``ctx`` the run's :class:`~.contract.Context`. A stage hands values
    back to the engine only through the typed fields of ``ctx`` (``archived``), never through the
    payload's notes or a side channel.
    """

    def __call__(self, payload: Payload, params: Params, ctx: Context, /) -> StageResult: ...


class Budget(TypedDict):
    """A graph's guardrail and hang guards (``spec.Budget`` validated and dumped)."""

    max_lines: int
    max_tokens: int
    stage_ms: int
    total_ms: int


class PlanNode(TypedDict):
    """One node of a compiled plan: the stage's registry entry resolved, its params validated."""

    id: str
    stage: str                          # registry key
    phase: str                          # one of payload.PHASES
    impl: str                           # "module:attr" of the stage function
    params: Params
    emits_summaries: bool
    max_input: int | None               # work cap in raw bytes (larger inputs: declined up front)
    ports: dict[str, str | None]        # output port -> the node it feeds (None: the end)


Plan = TypedDict("Plan", {
    "id": str,                          # "<class>.<role>"
    "class": str,
    "role": str,
    "files": list[str],                 # the graph file and the files it extends, in order
    "description": str,
    "budget": Budget,
    "result_exits": list[int],          # exit codes that report a result, not a failure
    "entry": str,
    "order": list[str],                 # node ids in topological order
    "nodes": dict[str, PlanNode],       # in that order
})
"""A compiled graph: what ``compile.compile_graph`` returns and the plan cache stores."""


class ArchiveStore(Protocol):
    """Where Persist stores the raw original before any marker naming its handle is shown."""

    def put(self, handle: str, raw: bytes, meta: dict[str, Any]) -> None:
        """Store ``raw`` under ``handle``; raise on any failure (the emission is then raw)."""


class LedgerStore(Protocol):
    """What the Ledger stage and ``compress`` ask of the session ledger (see ``contract``)."""

    def known(self, scope: str, keys: list[int]) -> set[int]:
        """The subset of ``keys`` already delivered to ``scope`` (changes no state)."""

    def record(self, scope: str, lines: list[str]) -> None:
        """Remember that ``lines`` (the final emission) were delivered to ``scope``."""

    def budget_adapt(self, scope: str, command: str) -> dict[str, Any] | None:
        """The bounce-adaptive budget for ``command`` in ``scope``, or ``None``."""


Registry = Mapping[str, StageInfo]
"""The stages graphs may name, by key. ``get`` may raise ``StageLoadError`` for a broken user
stage; a registry that scanned users' entry points also has ``stamps()`` (path -> size:mtime of
what it read), which the plan cache checks before trusting a cached plan."""


class Services(Protocol):
    """What the engine needs from the rest of thresher, handed in by the composition root
    (``thresher.boundary.wiring``) instead of imported: dataflow/ imports nothing else of ours."""

    def stages(self) -> Registry:
        """The stage registry: built-in stages, then users' (loaded lazily)."""

    def warm_filters(self, cwd: str | None) -> None:
        """Compile the declarative filters visible from ``cwd`` into their cache (control plane)."""

    def code_files(self) -> list[str]:
        """Source files the compiled plans depend on besides the graph files (the registry, the
        params models, the user-stage loader): an edit to one rebuilds the cached plans."""
