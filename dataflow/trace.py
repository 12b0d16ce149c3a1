"""Stage-by-stage traces: what each node decided, why, and what it cost.

A trace is plain data (a list of dicts plus a final summary), so the terminal table, JSON, Mermaid,
DOT and HTML renderers all draw the same thing. ``NullTrace`` is the default on the hot path: it
records nothing and costs nothing.
"""

from __future__ import annotations

from blake3 import blake3

from .tokens import estimate

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from .payload import Payload
    from .shapes import PlanNode

APPLIED, DECLINED, REJECTED, FAILED, SKIPPED = "applied", "declined", "rejected", "failed", "skipped"
DECISIONS = (APPLIED, DECLINED, REJECTED, FAILED, SKIPPED)


def short_hash(text: str) -> str:
    """First 8 hex digits of the blake3 hash of ``text`` (to compare stage inputs and outputs)."""
    return blake3(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def view_of(payload: Payload) -> dict[str, object]:
    """A payload's view as plain data: lines, each line's origin, the source they index, its tiers."""
    return {"lines": list(payload.lines), "origin": list(payload.origin),
            "source": list(payload.source), "tiers": list(payload.tiers),
            "notes": list(payload.notes), "verdict": payload.verdict}


class NullTrace:
    """Records nothing (the default)."""

    enabled = False

    def stage(self, node: PlanNode, decision: str, reason: str, before: Payload,
              after: Payload | None, ms: float, port: str = "out") -> None:
        """Record one stage run (ignored)."""

    def finish(self, **final: object) -> None:
        """Record the final emission (ignored)."""

    def budget(self, **adapt: object) -> None:
        """Record the bounce-adaptive budget decision (ignored)."""


class StageLog(NullTrace):
    """Records only which stages applied: cheap enough for the hot path (the savings ledger)."""

    def __init__(self) -> None:
        self.applied: list[str] = []

    def stage(self, node: PlanNode, decision: str, reason: str,  # noqa: ARG002 - the Trace API
              before: Payload, after: Payload | None, ms: float, port: str = "out",  # noqa: ARG002
              ) -> None:
        """Note the stage key (with its port, when not ``out``) if it applied."""
        if decision == APPLIED:
            self.applied.append(node["stage"] if port == "out" else f"{node['stage']}.{port}")


class Trace(NullTrace):
    """Records every stage: decision, reason, port, lines/tokens/bytes in and out, time, hashes."""

    enabled = True

    def __init__(self, graph_id: str = "", keep_text: bool = False, keep_views: bool = False
                 ) -> None:
        self.graph_id = graph_id
        self.keep_text = keep_text
        self.keep_views = keep_views
        self.records: list[dict] = []
        self.final: dict = {}
        self.adapt: dict = {}

    def stage(self, node: PlanNode, decision: str, reason: str, before: Payload,
              after: Payload | None, ms: float, port: str = "out") -> None:
        """Record one stage run; ``before``/``after`` are payloads (``after`` None when unchanged)."""
        after = before if after is None else after
        tin, tout = before.text(), after.text()
        rec = {"node": node["id"], "stage": node["stage"], "phase": node["phase"],
               "decision": decision, "reason": reason, "port": port,
               "lines_in": len(before.lines), "lines_out": len(after.lines),
               "tokens_in": estimate(tin), "tokens_out": estimate(tout),
               "bytes_in": len(tin.encode("utf-8", "surrogatepass")),
               "bytes_out": len(tout.encode("utf-8", "surrogatepass")),
               "ms": round(ms, 3), "hash_in": short_hash(tin), "hash_out": short_hash(tout)}
        if self.keep_text:
            rec["text_in"], rec["text_out"] = tin, tout
        if self.keep_views:
            # Each view line with its provenance (source index, or -1 for a stage's summary line),
            # so a viewer can say which lines a stage removed and which marker lines it wrote.
            rec["view_in"], rec["view_out"] = view_of(before), view_of(after)
        self.records.append(rec)

    def finish(self, **final: object) -> None:
        """Record the final emission and its totals."""
        self.final = dict(final)

    def budget(self, **adapt: object) -> None:
        """Record the budget decision read from the ledger before the graph ran: the command
        family, its payloads and expanded payloads in this scope, the factor, the caps used."""
        self.adapt = dict(adapt)

    @property
    def applied(self) -> list[str]:
        """Keys of the stages that applied, in order (as :class:`StageLog` records them)."""
        return [r["stage"] if r["port"] == "out" else f"{r['stage']}.{r['port']}"
                for r in self.records if r["decision"] == APPLIED]

    def to_dict(self) -> dict:
        """The whole trace as JSON-ready data."""
        data = {"graph": self.graph_id, "stages": self.records, "final": self.final}
        if self.adapt:
            data["budget"] = self.adapt
        return data
