"""Validate a graph with networkx and compile it to a plain-Python plan (control plane).

Validation reports every problem it finds, each naming the graph file, the node and the line, and
listing the valid alternatives: unknown stage, bad params, unknown node or port, an output port
wired twice or not at all, phase order going backwards, cycles (refused), several entry nodes,
unreachable nodes, and a payload class a stage does not accept.

The plan is plain data (dicts, lists, strings, ints) so it can be cached as JSON and executed
without importing networkx, pydantic or yaml.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, cast

import networkx as nx
from pydantic import ValidationError

from . import wired
from .contract import StageInfo
from .errors import GraphError, GraphErrors, StageLoadError
from .payload import PHASE_INDEX
from .shapes import Budget as BudgetDict
from .shapes import Params, Plan, PlanNode, Registry, Services
from .spec import Budget, LoadedGraph, parse_edge


def default_registry(services: Services | None = None) -> Registry:
    """The stages graphs may name: the registry the composition root hands the engine (``services``,
    or the ones the faces wired in: dataflow does not import stages). A broken user stage raises
    :class:`StageLoadError` when looked up."""
    return (services or wired()).stages()


def _load_attr(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def merged_view(g: LoadedGraph, find_base: Callable[[str, LoadedGraph], LoadedGraph | None]
                ) -> tuple[dict[str, dict[str, Any]], list[str], dict[str, Any], list[LoadedGraph]]:
    """Nodes, edges and budget of ``g`` after applying its ``extends:`` chain; plus the chain."""
    chain = [g]
    while chain[-1].spec.extends:
        cur = chain[-1]
        base = find_base(str(cur.spec.extends), cur)
        if base is None:
            raise GraphError(cur.file, f"extends unknown graph {cur.spec.extends!r}",
                             line=cur.line("extends"), hint="name a graph as <class>.<role>, "
                             "e.g. generic.default; see `thresher graph show`")
        if cur.spec.nodes or cur.spec.edges:
            raise GraphError(cur.file, "a role file that `extends:` may not define nodes or edges",
                             line=cur.line("nodes") or cur.line("edges"),
                             hint="override node params under `params:` instead")
        if base in chain:
            raise GraphError(cur.file, f"`extends:` loops back to {base.file}", line=cur.line("extends"))
        chain.append(base)
    root = chain[-1]
    nodes: dict[str, dict[str, Any]] = {k: {"stage": v.stage, "params": dict(v.params)}
                                        for k, v in root.spec.nodes.items()}
    budget: dict[str, Any] = {}
    for layer in reversed(chain):
        budget.update(layer.spec.budget)
        for node_id, params in layer.spec.params.items():
            if node_id not in nodes:
                raise GraphError(layer.file, f"params for unknown node {node_id!r}", node=node_id,
                                 line=layer.line("params", node_id),
                                 hint=f"nodes of {root.graph_id}: {', '.join(sorted(nodes))}")
            nodes[node_id]["params"].update(params)
    return nodes, list(root.spec.edges), budget, chain


def _check_params(g: LoadedGraph, node_id: str, info: StageInfo, params: dict[str, Any],
                  errors: list[GraphError], line: int | None) -> Params:
    model = _load_attr(info.params)
    try:
        return model.model_validate(params).model_dump(mode="json")
    except ValidationError as exc:
        for err in exc.errors():
            field = ".".join(map(str, err["loc"])) or "params"
            hint = (f"params of {info.key!r}: {', '.join(sorted(model.model_fields))}"
                    if err["type"] == "extra_forbidden" else None)
            errors.append(GraphError(g.file, f"bad param {field}: {err['msg']}", node=node_id,
                                     line=line, hint=hint))
        return {}


def compile_graph(g: LoadedGraph, registry: Registry | None = None,
                  find_base: Callable[[str, LoadedGraph], LoadedGraph | None] = lambda *_: None
                  ) -> Plan:
    """Validate ``g`` (merged with its bases) and return its plan; raise :class:`GraphErrors`."""
    registry = default_registry() if registry is None else registry
    nodes, edges, budget_raw, chain = merged_view(g, find_base)
    root = chain[-1]
    errors: list[GraphError] = []
    try:
        budget = cast(BudgetDict, Budget.model_validate(budget_raw).model_dump())
    except ValidationError as exc:
        err = exc.errors()[0]
        raise GraphError(g.file, f"budget.{'.'.join(map(str, err['loc']))}: {err['msg']}",
                         line=g.line("budget"),
                         hint=f"budget keys: {', '.join(Budget.model_fields)}") from None
    if not nodes:
        raise GraphError(root.file, "the graph has no nodes", hint="add `nodes:` and `edges:`")
    plan_nodes: dict[str, PlanNode] = {}
    for node_id, node in nodes.items():
        line = root.line("nodes", node_id)
        try:
            info = registry.get(node["stage"])
        except StageLoadError as exc:
            errors.append(GraphError(root.file, exc.problem, node=node_id, line=line, hint=exc.hint))
            continue
        if info is None:
            errors.append(GraphError(root.file, f"unknown stage {node['stage']!r}", node=node_id,
                                     line=line, hint=f"known stages: {', '.join(sorted(registry))}; "
                                     "a user stage comes from an installed distribution's "
                                     "`thresher.stages` entry point"))
            continue
        if not info.accepts_class(g.pclass):
            errors.append(GraphError(root.file, f"stage {info.key!r} does not accept payload class "
                                     f"{g.pclass!r}", node=node_id, line=line,
                                     hint=f"it accepts: {', '.join(info.accepts)}"))
        params = _check_params(g, node_id, info, node["params"], errors, line)
        plan_nodes[node_id] = {"id": node_id, "stage": info.key, "phase": info.phase,
                               "impl": info.impl, "params": params,
                               "emits_summaries": info.emits_summaries,
                               "max_input": info.max_input,
                               "ports": {p: None for p in info.ports}}
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    wired_any = nx.DiGraph()  # every well-formed edge, also rejected ones: no knock-on errors
    wired_any.add_nodes_from(nodes)
    for i, edge in enumerate(edges):
        _wire(root, i, edge, nodes, plan_nodes, graph, errors, wired_any)
    _check_shape(root, graph, plan_nodes, errors, wired_any)
    if errors:
        raise GraphErrors(errors)
    order = list(nx.topological_sort(graph))
    entry = order[0]  # validation left exactly one node without inputs
    return {"id": g.graph_id, "class": g.pclass, "role": g.role, "files": [c.file for c in chain],
            "description": g.spec.description or root.spec.description, "budget": budget,
            "result_exits": sorted(set(root.spec.result_exits)), "entry": entry, "order": order, "nodes": {n: plan_nodes[n] for n in order}}


def _wire(g: LoadedGraph, i: int, edge: str, nodes: dict[str, dict[str, Any]],
          plan_nodes: dict[str, PlanNode],
          graph: nx.DiGraph, errors: list[GraphError], wired_any: nx.DiGraph) -> None:
    line = g.line("edges", i)
    try:
        src, port, dst = parse_edge(edge)
    except ValueError as exc:
        errors.append(GraphError(g.file, str(exc), line=line, hint="write edges as 'a.port -> b'"))
        return
    for end in (src, dst):
        if end not in nodes:
            errors.append(GraphError(g.file, f"edge {edge!r} names unknown node {end!r}", node=end,
                                     line=line, hint=f"nodes: {', '.join(sorted(nodes))}"))
            return
    wired_any.add_edge(src, dst, line=line)
    if src not in plan_nodes or dst not in plan_nodes:
        return  # unknown stage, already reported
    ports = plan_nodes[src]["ports"]
    if port not in ports:
        errors.append(GraphError(g.file, f"stage {plan_nodes[src]['stage']!r} has no output port "
                                 f"{port!r}", node=src, line=line,
                                 hint=f"its ports: {', '.join(ports)}"))
        return
    if ports[port] is not None:
        errors.append(GraphError(g.file, f"port {port!r} is wired twice ({ports[port]!r} and "
                                 f"{dst!r})", node=src, line=line, hint="a port feeds one node"))
        return
    sp, dp = plan_nodes[src]["phase"], plan_nodes[dst]["phase"]
    if PHASE_INDEX[dp] < PHASE_INDEX[sp]:
        errors.append(GraphError(g.file, f"edge {edge!r} goes backwards in phase order "
                                 f"({sp} → {dp})", node=dst, line=line,
                                 hint="phases run read → guard → score → distill → collapse → "
                                 "ledger → route → persist"))
        return
    ports[port] = dst
    graph.add_edge(src, dst, port=port, line=line)


def _check_shape(g: LoadedGraph, graph: nx.DiGraph, plan_nodes: dict[str, PlanNode],
                 errors: list[GraphError],
                 wired_any: nx.DiGraph) -> None:
    try:
        cycle = nx.find_cycle(graph)
        path = " -> ".join([cycle[0][0]] + [e[1] for e in cycle])
        closing = cycle[-1]
        errors.append(GraphError(g.file, f"cycle {path}; graphs must be acyclic", node=closing[0],
                                 line=graph.edges[closing[0], closing[1]].get("line"),
                                 hint=f"remove the edge {closing[0]} -> {closing[1]} or another "
                                 "edge of the cycle"))
        return
    except nx.NetworkXNoCycle:
        pass
    entries = [n for n in wired_any if wired_any.in_degree(n) == 0]
    if not entries:
        return
    # The entry is the earliest-phase node nothing feeds; any other such node is unreachable.
    entry = min(entries, key=lambda n: PHASE_INDEX[plan_nodes[n]["phase"]] if n in plan_nodes else 99)
    reach = nx.descendants(wired_any, entry) | {entry}
    for n in [n for n in wired_any if n not in reach]:
        errors.append(GraphError(g.file, f"unreachable from the entry node {entry!r}", node=n,
                                 line=g.line("nodes", n), hint=f"add an edge into {n!r}"))
    for n, node in plan_nodes.items():
        for port, dst in node["ports"].items():
            if dst is None and port != "out":
                errors.append(GraphError(g.file, f"output port {port!r} is not wired", node=n,
                                         line=g.line("nodes", n),
                                         hint=f"add an edge '{n}.{port} -> <node>'"))
