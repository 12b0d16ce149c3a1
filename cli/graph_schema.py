"""``thresher graph schema``: a JSON Schema of graph YAML files, for editors (control plane).

Generated from the pydantic models the loader validates with (``dataflow.spec``) and the params
model of every stage a graph may name (built-in, and users' installed ones), so an editor with a
YAML language server completes stage names, node keys and params and flags typos as you type.
What the schema cannot say (edges naming real nodes and ports, phase order, a role file's params
matching its base) ``thresher graph check`` still reports.
"""

from __future__ import annotations

import importlib
import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from thresher.dataflow.shapes import StageInfo

SCHEMA_ID = "https://thresher.invalid/graph.schema.json"
"""The ``$id`` of the schema (a name, not a place: nothing is ever fetched from it)."""

EDGE_PATTERN = r"^\s*[^\s>]+\s*->\s*[^\s>]+\s*$"


def _stage_models() -> dict[str, tuple[StageInfo, Any]]:
    """Stage key → (StageInfo, params model), skipping user stages that do not load."""
    from thresher.dataflow.compile import default_registry
    from thresher.dataflow.errors import StageLoadError
    registry = default_registry()
    out: dict[str, tuple[StageInfo, Any]] = {}
    for key in registry:
        try:
            info = registry[key]
        except StageLoadError:
            continue  # `thresher graph check` names the problem where a graph uses it
        module, _, attr = info.params.partition(":")
        out[key] = (info, getattr(importlib.import_module(module), attr))
    return out


def schema() -> dict:
    """The JSON Schema (draft 2020-12) of a graph or role file."""
    from pydantic.json_schema import models_json_schema

    from thresher.dataflow.spec import Budget, GraphSpec
    stages = _stage_models()
    models = [GraphSpec, Budget] + sorted({m for _, m in stages.values()}, key=lambda m: m.__name__)
    pairs: list[Any] = [(m, "validation") for m in models]
    refs, top = models_json_schema(pairs,
                                   ref_template="#/$defs/{model}")
    defs = top["$defs"]
    root = defs.pop("GraphSpec")
    root["properties"]["budget"] = refs[(Budget, "validation")]
    root["properties"]["edges"]["items"].update(
        pattern=EDGE_PATTERN, description="'node.port -> node' (the port defaults to out)")
    node = defs["NodeSpec"]
    keys = sorted(stages)
    node["properties"]["stage"].update(
        enum=keys, description="a stage registry key (`thresher graph stages`)",
        enumDescriptions=[stages[k][0].summary for k in keys])
    node["allOf"] = [{"if": {"properties": {"stage": {"const": k}}, "required": ["stage"]},
                      "then": {"properties": {"params": refs[(stages[k][1], "validation")]}}}
                     for k in keys]
    root.update({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
                 "title": "thresher graph", "$defs": defs})
    return root


def render() -> str:
    """The schema as deterministic JSON text (sorted keys, two-space indent, final newline)."""
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(output: str | None) -> int:
    """Print the schema, or write it to ``output``."""
    text = render()
    if output is None:
        print(text, end="")
        return 0
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(text)
    return 0
