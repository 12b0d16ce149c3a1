"""Graph files: YAML → a validated pydantic ``GraphSpec`` (control plane only).

A graph file ``<class>.<role>.yaml`` either defines a graph::

    class: pytest            # optional when the file name says it
    role: default
    budget: {max_lines: 120}
    nodes:
      read:  {stage: read}
      guard: {stage: guard, params: {tiny_lines: 8}}
    edges:
      - read -> guard
      - guard.verbatim -> persist

or states only what is specific to it, on the shared skeleton (:data:`SKELETON`)::

    budget: {max_lines: 150}
    nodes:
      guard: {stage: guard, params: {tiny_lines: 12}}   # a skeleton node, with params
      distill: {stage: distill-pytest}
    pipeline: [distill, collapse, trim]    # node ids (or stage keys) between score and ledger
    edges:
      - distill.done -> ledger             # only the wires the chain does not make

(read → guard, guard.verbatim → persist, guard → score → *pipeline* → ledger → route → persist;
a skeleton node or a pipeline entry not in ``nodes`` is ``{stage: <its id>}``),

or, as a role file, extends a base graph and overrides budgets and node params::

    extends: pytest.default
    role: ci
    budget: {max_lines: 400}
    params: {collapse: {min_run: 5}}

Errors name the file and the line of the offending key, and say how to fix it.
"""

from __future__ import annotations

import os
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import GraphError

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader when PyYAML was built with it (about 10x faster on a cold plan cache)."""


class Budget(BaseModel):
    """The guardrail a graph's output must meet, and the hang guards.

    The timers decide nothing about the output (DESIGN §2b): they exist only against a stage that
    really hangs, and when one fires the emission is the raw input. Their defaults are generous.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    max_lines: int = Field(200, ge=1, description="lines of output the reader should get at most")
    max_tokens: int = Field(4000, ge=1, description="estimated tokens of output at most")
    stage_ms: int = Field(30000, ge=1, description="hang guard of one stage; firing → raw output")
    total_ms: int = Field(60000, ge=1, description="hang guard of the whole graph; firing → raw output")


class NodeSpec(BaseModel):
    """One node: a stage named by registry key, and its params."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    stage: str = Field(description="a stage registry key")
    params: dict[str, Any] = Field(default_factory=dict, description="the stage's params")


class GraphSpec(BaseModel):
    """A whole graph (or a role file before it is merged with its base)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    pclass: str | None = Field(None, alias="class", description="payload class (default: from "
                               "the file name <class>.<role>.yaml)")
    role: str | None = Field(None, description="consumer role, e.g. default, ci, reviewer")
    description: str = Field("", description="one line shown by `thresher graph show`")
    extends: str | None = Field(None, description="a role file: the <class>.<role> graph it "
                                "overrides (budget and params only)")
    budget: dict[str, Any] = Field(default_factory=dict, description="the output guardrail")
    result_exits: list[int] = Field(default_factory=list, description="non-zero exit codes that "
                                    "report a result, not a failure, for every command of this class "
                                    "(diff: the inputs differ; grep: nothing matched): such output is "
                                    "not treated as a failing command's")
    nodes: dict[str, NodeSpec] = Field(default_factory=dict, description="node id → stage")
    edges: list[str] = Field(default_factory=list, description="'node.port -> node' wires")
    params: dict[str, dict[str, Any]] = Field(default_factory=dict,
                                              description="a role file: node id → params to override")
    pipeline: list[str] = Field(default_factory=list, description="the shared skeleton: node ids "
                                "(or stage keys) between score and ledger, in order; the skeleton "
                                "adds read, guard, score, ledger, route, persist and their wires")


SKELETON_HEAD = ("read", "guard", "score")
SKELETON_TAIL = ("ledger", "route", "persist")
SKELETON = SKELETON_HEAD + SKELETON_TAIL
"""The nodes every graph written with ``pipeline:`` has (each ``{stage: <id>}`` unless ``nodes``
gives it params), wired ``read -> guard``, ``guard.verbatim -> persist``, ``guard -> score``,
``score -> <pipeline...> -> ledger``, ``ledger -> route``, ``route -> persist``."""


def on_skeleton(spec: GraphSpec, file: str, lines: dict[tuple, int]) -> GraphSpec:
    """``spec`` with ``pipeline:`` spelled out as the nodes and edges of the skeleton (unchanged
    without one); raise :class:`GraphError` naming the line for a pipeline that cannot be."""
    chain = spec.pipeline
    if not chain:
        return spec
    line = lines.get(("pipeline",))
    if spec.extends:
        raise GraphError(file, "a role file (`extends:`) takes its nodes from its base graph",
                         line=line, hint="drop `pipeline:`, or drop `extends:` to define a graph")
    for i, nid in enumerate(chain):
        if nid in SKELETON or chain.index(nid) != i:
            why = "is a skeleton node" if nid in SKELETON else "appears twice"
            raise GraphError(file, f"pipeline entry {nid!r} {why}", node=nid,
                             line=lines.get(("pipeline", i), line),
                             hint=f"the skeleton already has {', '.join(SKELETON)}; list only the "
                                  "nodes between score and ledger, each once")
    stray = [nid for nid in spec.nodes if nid not in SKELETON and nid not in chain]
    wired = {end for e in spec.edges if "->" in e for end in parse_edge(e)[::2]}
    for nid in stray:
        if nid not in wired:
            raise GraphError(file, f"node {nid!r} is neither in `pipeline:` nor wired by `edges:`",
                             node=nid, line=lines.get(("nodes", nid), line),
                             hint="add it to `pipeline:` (in order) or wire it with an edge")
    nodes = {nid: spec.nodes.get(nid) or NodeSpec(stage=nid)
             for nid in (*SKELETON_HEAD, *chain, *stray, *SKELETON_TAIL)}
    steps = ["score", *chain, "ledger"]
    edges = ["read -> guard", "guard.verbatim -> persist", "guard -> score"]
    edges += [f"{a} -> {b}" for a, b in zip(steps, steps[1:])]
    edges += ["ledger -> route", "route -> persist"]
    edges += [e for e in spec.edges if e not in edges]
    return spec.model_copy(update={"nodes": nodes, "edges": edges, "pipeline": []})


class LoadedGraph:
    """A parsed graph file: its spec, where it came from, and the line of each key."""

    def __init__(self, file: str, spec: GraphSpec, lines: dict[tuple, int]) -> None:
        self.file = file
        self.spec = spec
        self.lines = lines
        stem = os.path.basename(file).rsplit(".", 1)[0]
        parts = stem.split(".")
        pclass = spec.pclass or (parts[0] if len(parts) == 2 else None)
        self.role = spec.role or (parts[1] if len(parts) == 2 else "default")
        if pclass is None:
            raise GraphError(file, "cannot tell the payload class of this graph",
                             hint="name the file <class>.<role>.yaml or add a top-level `class:` key")
        self.pclass: str = pclass

    @property
    def graph_id(self) -> str:
        """``class.role``, the name other graphs extend and the resolver looks up."""
        return f"{self.pclass}.{self.role}"

    def line(self, *path: object) -> int | None:
        """Line number (1-based) of the YAML key at ``path``, when known."""
        return self.lines.get(tuple(path))


def _key_lines(node: yaml.Node, path: tuple = (), out: dict | None = None) -> dict[tuple, int]:
    """Map every key path of a composed YAML document to its 1-based line."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = path + (key.value,)
            out[sub] = key.start_mark.line + 1
            _key_lines(value, sub, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[path + (i,)] = item.start_mark.line + 1
            _key_lines(item, path + (i,), out)
    return out


def load_graph(file: str, text: str | None = None) -> LoadedGraph:
    """Read and parse one graph file; raise :class:`GraphError` naming file and line on any problem."""
    try:
        if text is None:
            with open(file, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        raise GraphError(file, f"cannot read: {exc.strerror}") from None
    try:
        data = yaml.load(text, Loader=SAFE_LOADER)
        root = yaml.compose(text, Loader=SAFE_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise GraphError(file, f"malformed YAML: {problem}", line=mark.line + 1 if mark else None,
                         hint="check indentation and quoting on that line") from None
    if not isinstance(data, dict):
        raise GraphError(file, "a graph file must be a YAML mapping with `nodes:` and `edges:`")
    lines = _key_lines(root) if root is not None else {}
    try:
        spec = GraphSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        node = str(loc[1]) if len(loc) > 1 and loc[0] == "nodes" else None
        known = ", ".join(sorted(GraphSpec.model_fields.keys() - {"pclass"} | {"class"}))
        hint = (f"allowed top-level keys: {known}" if err["type"] == "extra_forbidden" and len(loc) == 1
                else "a node is {stage: <registry key>, params: {...}}")
        raise GraphError(file, f"{'.'.join(map(str, loc))}: {err['msg']}", node=node,
                         line=lines.get(loc) or lines.get(loc[:1]), hint=hint) from None
    return LoadedGraph(file, on_skeleton(spec, file, lines), lines)


def parse_edge(edge: str) -> tuple[str, str, str]:
    """``"a.port -> b"`` → ``("a", "port", "b")``; the port defaults to ``out``."""
    left, sep, right = edge.partition("->")
    if not sep or not left.strip() or not right.strip():
        raise ValueError(f"edge {edge!r} is not of the form 'node.port -> node'")
    src, _, port = left.strip().partition(".")
    dst = right.strip()
    if dst.endswith(".in"):
        dst = dst[:-3]
    return src, port or "out", dst
