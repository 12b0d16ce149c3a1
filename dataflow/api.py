"""The Python API: ``compress(text_or_bytes, command=..., exit_code=...)``.

This is what ``thresher pipe`` runs, and what benchmarks and integrations call. It never raises for
a bad payload: any failure of thresher itself yields the raw input (the reason is in the result).
"""

from __future__ import annotations

import time

from blake3 import blake3

from . import rxcache

rxcache.prime()  # before the first regex of the engine's modules (they compile at import)

from .contract import Context, clamp_factor, scaled_budget  # noqa: E402
from .executor import initial_payload, run_plan  # noqa: E402
from .finalize import Emission, finalize  # noqa: E402
from .payload import Original  # noqa: E402
from .plan import PASSTHROUGH_CLASSES, examine_budget, load_plans  # noqa: E402
from .trace import StageLog, Trace  # noqa: E402

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

    from .plan import Plans
    from .shapes import ArchiveStore, LedgerStore, Plan

MAX_INPUT = 64 * 1024 * 1024
"""Inputs larger than this pass through raw (the shell boundary streams them)."""


class Result:
    """What :func:`compress` returns: the output, the emission summary, and the trace."""

    __slots__ = ("output", "emission", "trace", "graph_id", "pclass", "ms", "handle", "archived",
                 "budget_factor")

    def __init__(self, emission: Emission, trace: Any, graph_id: str, pclass: str, ms: float,
                 handle: str = "", archived: bool = False, budget_factor: float = 1.0) -> None:
        self.output = emission.output
        self.emission = emission
        self.trace = trace            # a Trace with trace=True, else a StageLog (None: no graph)
        self.graph_id = graph_id
        self.pclass = pclass
        self.ms = ms
        self.handle = handle          # blake3 handle of the raw input ("" when not computed)
        self.archived = archived      # True when Persist stored the raw input under ``handle``
        self.budget_factor = budget_factor  # the bounce-adaptive factor the budget ran with

    @property
    def applied(self) -> list[str]:
        """Keys of the stages that applied (``guard.verbatim`` for a port other than ``out``)."""
        return list(getattr(self.trace, "applied", ()))

    @property
    def text(self) -> str:
        """The output decoded as UTF-8 (lossy only where the input was not valid UTF-8)."""
        return self.output.decode("utf-8", "replace")

    def as_dict(self) -> dict[str, object]:
        """JSON-ready summary including the trace when one was recorded."""
        trace = self.trace.to_dict() if isinstance(self.trace, Trace) else None
        return {"graph": self.graph_id, "class": self.pclass, "ms": round(self.ms, 3),
                "emission": self.emission.as_dict(), "trace": trace}


def _head(raw: bytes) -> str:
    """The first KiB of output as text, for fingerprinting."""
    return raw[:1024].decode("utf-8", "replace")


def handle_of(raw: bytes) -> str:
    """The archive handle of ``raw``: the first 12 hex digits of its blake3 hash."""
    return blake3(raw).hexdigest()[:12]


def compress(data: str | bytes | Original, *, command: str = "", exit_code: int | None = None,
             role: str = "default", pclass: str | None = None, plan: Plan | None = None,
             plans: Plans | None = None, archive: ArchiveStore | None = None, trace: bool = False,
             keep_text: bool = False, keep_views: bool = False, stream: str = "stdout",
             scope: str = "", cwd: str | None = None, ledger: LedgerStore | None = None,
             handle: str = "", reader: str = "agent") -> Result:
    """Compress one tool output and return the :class:`Result` (output bytes + trace).

    ``plan`` runs that compiled plan; otherwise the payload class (from ``pclass``, the command
    classifier, or — without a command — a fingerprint of the first KiB) and ``role`` choose a graph
    among those visible from ``cwd``. Output of an unrecognised or passthrough class is unchanged.
    ``ledger`` (a :class:`~thresher.dataflow.contract.SessionLedger`) lets the Ledger stage fold
    blocks already delivered to ``scope``; the final emission is then recorded as delivered. It
    also says, once before the graph runs, whether ``scope`` expands this command's outputs often
    enough for a gentler budget (bounce-adaptive Route; the trace records the decision).
    ``reader`` is who reads the output: ``"agent"`` (the default: the hook wraps only commands whose
    output reaches the agent, and ``thresher pipe``/MCP/read end at the agent) or ``"program"``
    (a PATH shim writing into a pipe or file it cannot tell from the agent); Guard then passes the
    commands its ``program_reads`` names (``cat`` of a data file) byte-exact (INV-9).
    With ``trace``, ``keep_text`` adds each stage's input/output text to its record and
    ``keep_views`` its input/output views with their line origins (for a side-by-side diff).
    """
    t0 = time.perf_counter()
    orig: Original | None = None
    if isinstance(data, Original):  # handed over by its owner: may let go of the bytes
        orig, raw = data, data.tobytes()
    elif isinstance(data, str):
        # surrogateescape restores bytes that were decoded with it; any other lone surrogate is
        # kept as its UTF-8-like encoding rather than raising (the API never raises on input).
        try:
            raw = data.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raw = data.encode("utf-8", "surrogatepass")
    else:
        raw = bytes(data)
    if orig is None:
        orig = Original(raw)
    tr = Trace(keep_text=keep_text, keep_views=keep_views) if trace else StageLog()
    if len(raw) > max(MAX_INPUT, examine_budget(MAX_INPUT)):
        em = Emission(raw, "raw", f"input larger than {MAX_INPUT} bytes passes through "
                                  "(thresher pipe/run examine such inputs in part: big.py)")
        return Result(em, tr, "", pclass or "", (time.perf_counter() - t0) * 1000)
    graph_id, archived, factor = "", False, 1.0
    try:
        if plan is None:
            if plans is None:
                plans = load_plans(cwd)
            if not pclass:
                pclass = plans.classify(command) if command else plans.sniff(_head(raw))
            if pclass is None or pclass in PASSTHROUGH_CLASSES:
                why = "unrecognised output without a command" if pclass is None else pclass
                em = Emission(raw, "verbatim", f"class {why}: passes through unchanged")
                if ledger is not None and scope:
                    _record_delivered(ledger, scope, raw)
                return Result(em, tr, "", pclass or "", (time.perf_counter() - t0) * 1000)
            plan = plans.resolve(pclass, role)
        if plan is None:
            raise LookupError(f"no graph for class {pclass!r} role {role!r}")
        graph_id, pclass = plan["id"], pclass or plan["class"]
        if isinstance(tr, Trace):
            tr.graph_id = graph_id
        handle = handle or handle_of(raw)  # given: the part of a longer original (big.py)
        del raw  # (the payload holds the input from here: `orig`, which may let go of it)
        payload = initial_payload(orig, command=command, argv=tuple(command.split()),
                                  exit_code=exit_code, stream=stream, pclass=pclass, role=role,
                                  scope=scope, result_exits=tuple(plan.get("result_exits", ())))
        if ledger is not None and scope:
            plan, factor = _adapted(plan, ledger, scope, command, tr)
        ctx = Context(plan["budget"], archive, handle, graph_id, reader=reader,
                      ledger=ledger if scope else None)
        final, halt = run_plan(plan, payload, ctx, tr)
        archived = ctx.archived
        em = finalize(final, handle, archived, halt)
    except Exception as exc:  # noqa: BLE001 - thresher's own failure: raw passthrough, never an error
        em = Emission(orig.tobytes(), "raw", f"INV-5: engine error {type(exc).__name__}: {str(exc)[:200]}")
    tr.finish(**em.as_dict())
    if ledger is not None and scope:
        _record_delivered(ledger, scope, em.output)
    return Result(em, tr, graph_id, pclass or "", (time.perf_counter() - t0) * 1000, handle, archived,
                  factor)


def _adapted(plan: Plan, ledger: LedgerStore, scope: str, command: str, tr: StageLog | Trace
             ) -> tuple[Plan, float]:
    """``plan`` with the budget the ledger's bounce counts give this command in ``scope``, and the
    factor applied; the plan unchanged (factor 1) when the ledger has no answer or fails."""
    try:
        info = ledger.budget_adapt(scope, command)
    except Exception:  # noqa: BLE001 - fail open: a ledger problem means the graph's own budget
        info = None
    if not info:
        return plan, 1.0
    factor = clamp_factor(float(info.get("factor", 1.0)))
    budget = scaled_budget(plan["budget"], factor)
    tr.budget(**{**info, "factor": factor}, max_lines=budget["max_lines"],
              max_tokens=budget["max_tokens"])
    if factor == 1.0:
        return plan, factor
    adapted: Plan = {**plan, "budget": budget}
    return adapted, factor


def _record_delivered(ledger: LedgerStore, scope: str, output: bytes) -> None:
    """Post-emission hook: tell the session ledger what this reader was shown (never raises)."""
    try:
        ledger.record(scope, output.decode("utf-8", "replace").splitlines())
    except Exception:  # noqa: BLE001 - a ledger failure only means less folding later
        pass
