"""A plain-data model of one graph, optionally overlaid with a trace of one run.

Renderers (Mermaid, DOT, the terminal table) are thin functions over this model, so every drawing
shows the same thing. The model is built from a compiled plan (see ``thresher.dataflow.compile``)
and, optionally, ``Trace.to_dict()``; it never imports ``thresher.stages`` (layering rule). That is
why the defaults of each stage's params are *passed in* by the caller (the CLI may import stages):
without them the model can only guess which params are worth showing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

NOT_RUN = "not-run"
"""Outcome of a node the traced payload never reached (e.g. past a ``verbatim`` branch)."""

OUTCOMES = ("applied", "declined", "rejected", "failed", "skipped", NOT_RUN)
"""Every outcome a node can show; renderers give each one a colour/class."""

STYLES = {
    "applied": ("#d7f5d3", "#2e7d32"),
    "declined": ("#eeeeee", "#757575"),
    "rejected": ("#ffe0b2", "#ef6c00"),
    "failed": ("#ffcdd2", "#c62828"),
    "skipped": ("#e3f2fd", "#1565c0"),
    NOT_RUN: ("#ffffff", "#bdbdbd"),
}
"""(fill, stroke) colour of each outcome, shared by the Mermaid and DOT renderers."""

_BRIEF_PARAMS = 3       # labels stay readable: at most this many params, then "+N more"
_BRIEF_CHARS = 24       # and each value clipped to this many characters


@dataclass(frozen=True)
class NodeModel:
    """One node: identity, stage, phase, params, and (with a trace) what it did to the payload."""

    id: str
    stage: str
    phase: str
    params: dict[str, Any]
    shown: dict[str, Any]
    ports: tuple[str, ...]
    outcome: str | None = None
    reason: str = ""
    port: str | None = None
    lines_in: int | None = None
    lines_out: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    ms: float | None = None

    @property
    def traced(self) -> bool:
        """True when a trace says what happened at this node (including "not run")."""
        return self.outcome is not None


@dataclass(frozen=True)
class EdgeModel:
    """One wired output port: ``src.port -> dst``; ``taken`` is set only with a trace."""

    src: str
    port: str
    dst: str
    taken: bool | None = None


@dataclass(frozen=True)
class GraphModel:
    """A whole graph in execution order, plus the final emission when a trace was overlaid."""

    id: str
    pclass: str
    role: str
    description: str
    files: tuple[str, ...]
    budget: dict[str, Any]
    entry: str
    nodes: tuple[NodeModel, ...]
    edges: tuple[EdgeModel, ...]
    final: dict[str, Any] | None = None
    trace_graph: str | None = None

    @property
    def traced(self) -> bool:
        """True when a trace was overlaid."""
        return self.final is not None

    def node(self, node_id: str) -> NodeModel:
        """The node called ``node_id`` (KeyError when there is none)."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)


def shown_params(params: dict[str, Any], defaults: dict[str, Any] | None) -> dict[str, Any]:
    """The params worth a label: those differing from ``defaults``, else the non-empty ones.

    Without the stage's defaults we cannot know what was set on purpose, so we drop only values that
    say nothing (None, empty strings and containers) rather than hide a setting that matters.
    """
    if defaults is not None:
        return {k: v for k, v in sorted(params.items()) if k not in defaults or defaults[k] != v}
    return {k: v for k, v in sorted(params.items()) if v not in (None, "", [], {})}


def brief_value(value: Any) -> str:
    """A short, single-line rendering of one param value for a node label."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        text = f"[{len(value)} items]" if len(value) != 1 else f"[{brief_value(value[0])}]"
    elif isinstance(value, dict):
        text = f"{{{len(value)} keys}}"
    else:
        text = " ".join(str(value).split())    # labels are one line: fold any whitespace
    return text if len(text) <= _BRIEF_CHARS else text[:_BRIEF_CHARS - 1] + "…"


def brief_params(shown: dict[str, Any]) -> str:
    """``k=v, k=v, +N more`` for a node label ("" when nothing is worth showing)."""
    items = [f"{k}={brief_value(v)}" for k, v in list(shown.items())[:_BRIEF_PARAMS]]
    if len(shown) > _BRIEF_PARAMS:
        items.append(f"+{len(shown) - _BRIEF_PARAMS} more")
    return ", ".join(items)


def _records_by_node(trace: dict | None) -> dict[str, dict]:
    # The executor visits each node at most once; if a trace ever held two records for a node the
    # later one is what the payload left with, so it wins.
    return {rec["node"]: rec for rec in (trace or {}).get("stages", [])}


def _node(spec: dict, rec: dict | None, traced: bool, defaults: dict | None) -> NodeModel:
    params = dict(spec.get("params") or {})
    stage_defaults = None if defaults is None else defaults.get(spec["stage"])
    base = dict(id=spec["id"], stage=spec["stage"], phase=spec["phase"], params=params,
                shown=shown_params(params, stage_defaults),
                ports=tuple(spec.get("ports") or ("out",)))
    if not traced:
        return NodeModel(**base)
    if rec is None:
        return NodeModel(**base, outcome=NOT_RUN)
    return NodeModel(**base, outcome=rec["decision"], reason=rec.get("reason", ""),
                     port=rec.get("port"), lines_in=rec.get("lines_in"),
                     lines_out=rec.get("lines_out"), tokens_in=rec.get("tokens_in"),
                     tokens_out=rec.get("tokens_out"), ms=rec.get("ms"))


def build_model(plan: Mapping[str, Any], trace: dict | None = None,
                defaults: dict[str, dict[str, Any]] | None = None) -> GraphModel:
    """The model of compiled ``plan``, overlaid with ``trace`` (``Trace.to_dict()``) when given.

    ``defaults`` maps a stage key to its params' default values, so labels show only what a graph
    changed. An edge counts as taken when its source left through that port and its target ran.
    """
    records = _records_by_node(trace)
    traced = trace is not None
    order = plan.get("order") or list(plan["nodes"])
    nodes = tuple(_node(plan["nodes"][n], records.get(n), traced, defaults) for n in order)
    edges = []
    for n in order:
        for port, dst in sorted(plan["nodes"][n]["ports"].items(), key=_port_key):
            if dst is None:
                continue
            taken = None
            if traced:
                rec = records.get(n)
                taken = rec is not None and rec.get("port", "out") == port and dst in records
            edges.append(EdgeModel(n, port, dst, taken))
    return GraphModel(id=plan["id"], pclass=plan["class"], role=plan["role"],
                      description=plan.get("description", ""), files=tuple(plan.get("files", ())),
                      budget=dict(plan.get("budget", {})), entry=plan["entry"], nodes=nodes,
                      edges=tuple(edges), final=(trace.get("final") or {}) if trace is not None else None,
                      trace_graph=trace.get("graph") if trace is not None else None)


def _port_key(item: tuple[str, Any]) -> tuple[int, str]:
    # "out" first, then the other ports by name: drawings stay stable whatever the dict order.
    return (0 if item[0] == "out" else 1, item[0])


def invariant(node: NodeModel) -> str:
    """The invariant a rejected node broke (``INV-3``, ``contract``), from its reason; else ""."""
    if node.outcome != "rejected":
        return ""
    head = node.reason.split(":", 1)[0].strip()
    return head if head.startswith("INV-") or head == "contract" else ""


def outcome_text(node: NodeModel) -> str:
    """``applied · 1203→845 tok`` (``rejected INV-3 · …``) for a traced node ("" without a trace)."""
    if node.outcome is None:
        return ""
    name = f"{node.outcome} {invariant(node)}".rstrip()
    if node.outcome == NOT_RUN or node.tokens_in is None:
        return name
    return f"{name} · {node.tokens_in}→{node.tokens_out} tok"


def final_text(final: dict | None) -> str:
    """One line about the emission: decision, reason, kept/omitted/total, tokens in→out."""
    if not final:
        return ""
    text = f"{final.get('decision', '?')}"
    if final.get("reason"):
        text += f" ({final['reason']})"
    text += (f" · kept {final.get('kept', 0)}, omitted {final.get('omitted', 0)} of "
             f"{final.get('total', 0)} lines · tokens {final.get('tokens_in', 0)}"
             f"→{final.get('tokens_out', 0)}")
    return text


def label_lines(node: NodeModel) -> list[str]:
    """The lines of a node's label: ``id`` (and its stage when named differently), params, outcome."""
    lines = [node.id if node.id == node.stage else f"{node.id} · {node.stage}"]
    params = brief_params(node.shown)
    if params:
        lines.append(params)
    if node.outcome is not None:
        lines.append(outcome_text(node))
    return lines


def to_dict(model: GraphModel) -> dict[str, Any]:
    """The model as JSON-ready data (what ``--format json`` prints and the HTML pages embed)."""
    data = asdict(model)
    for node, raw in zip(model.nodes, data["nodes"]):
        raw["invariant"] = invariant(node)
        raw["label"] = label_lines(node)
    return data


def differences(model: GraphModel, base: GraphModel) -> list[str]:
    """What ``model`` changes relative to ``base`` (a role override against the graph it replaces):
    budget values, nodes added or removed, stages swapped, params changed, edges rewired."""
    out = [f"budget {k}: {brief_value(base.budget.get(k))} → {brief_value(v)}"
           for k, v in sorted(model.budget.items()) if base.budget.get(k) != v]
    mine, theirs = {n.id: n for n in model.nodes}, {n.id: n for n in base.nodes}
    out += [f"adds node {n}" for n in mine if n not in theirs]
    out += [f"drops node {n}" for n in theirs if n not in mine]
    for nid in (n for n in mine if n in theirs):
        a, b = mine[nid], theirs[nid]
        if a.stage != b.stage:
            out.append(f"{nid}: stage {b.stage} → {a.stage}")
        for k in sorted(set(a.params) | set(b.params)):
            if a.params.get(k) != b.params.get(k):
                out.append(f"{nid}.{k}: {brief_value(b.params.get(k))} → "
                           f"{brief_value(a.params.get(k))}")
    wired = lambda m: {(e.src, e.port, e.dst) for e in m.edges}  # noqa: E731
    out += [f"wires {s}.{p} → {d}" for s, p, d in sorted(wired(model) - wired(base))]
    out += [f"unwires {s}.{p} → {d}" for s, p, d in sorted(wired(base) - wired(model))]
    return out
