"""``thresher graph schema``: the JSON Schema editors use for graph YAML (issue 19 item 10)."""

from __future__ import annotations

import copy
import glob
import json
import os
import subprocess
import sys

import jsonschema
import pytest
import yaml

from thresher.dataflow.compile import compile_graph
from thresher.dataflow.errors import GraphError, GraphErrors
from thresher.dataflow.plan import builtin_dir
from thresher.dataflow.spec import load_graph
from thresher.graph_schema import render, schema

SHIPPED = sorted(p for p in glob.glob(os.path.join(builtin_dir(), "*.yaml"))
                 if not p.endswith("classify.yaml"))
DOCS = os.path.join(os.path.dirname(__file__), "..", "docs", "graph.schema.json")


@pytest.fixture(scope="module")
def validator():
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def test_cli_prints_deterministic_sorted_json_and_writes_a_file(tmp_path):
    """Two runs give the same bytes, keys sorted; -o writes exactly what stdout shows."""
    run = [sys.executable, "-m", "thresher", "graph", "schema"]
    first = subprocess.run(run, capture_output=True, text=True, timeout=300, check=True).stdout
    out = tmp_path / "graph.schema.json"
    subprocess.run(run + ["-o", str(out)], capture_output=True, timeout=300, check=True)
    assert out.read_text() == first
    assert json.dumps(json.loads(first), indent=2, sort_keys=True, ensure_ascii=False) + "\n" == first


def test_the_schema_in_docs_is_current():
    """docs/graph.schema.json (what the README points editors at) is what the code generates."""
    with open(DOCS, encoding="utf-8") as fh:
        assert fh.read() == render(), "regenerate: thresher graph schema -o docs/graph.schema.json"


@pytest.mark.parametrize("path", SHIPPED, ids=os.path.basename)
def test_every_shipped_graph_validates(validator, path):
    """No shipped graph or role file is flagged by an editor using the schema."""
    with open(path, encoding="utf-8") as fh:
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(fh))]
    assert not errors


def _pytest_graph() -> dict:
    with open(os.path.join(builtin_dir(), "pytest.default.yaml"), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _set(path: tuple, value):
    def mutate(g):
        cur = g
        for key in path[:-1]:
            cur = cur[key]
        cur[path[-1]] = value
    return mutate


BAD = {  # the pytest graph states trim on the skeleton (pipeline:): each mistake spells trim out
    "unknown stage": _set(("nodes", "trim"), {"stage": "trmi"}),
    "unknown param": _set(("nodes", "trim"), {"stage": "trim", "params": {"head_shar": 0.5}}),
    "param of the wrong type": _set(("nodes", "trim"), {"stage": "trim", "params": {"head_share": "most"}}),
    "param out of range": _set(("nodes", "trim"), {"stage": "trim", "params": {"head_share": 2}}),
    "unknown node key": _set(("nodes", "trim"), {"stage": "trim", "parms": {}}),
    "unknown top-level key": _set(("nodez",), {}),
    "unknown budget key": _set(("budget", "max_line"), 5),
    "budget below its minimum": _set(("budget", "max_lines"), 0),
    "edge without an arrow": _set(("edges",), ["read guard"]),
}


@pytest.mark.parametrize("what", BAD)
def test_a_bad_graph_fails_validation_as_the_loader_refuses_it(validator, tmp_path, what):
    """Each mistake is flagged by the schema, and `graph check`'s loader refuses it too."""
    g = copy.deepcopy(_pytest_graph())
    BAD[what](g)
    assert list(validator.iter_errors(g)), what
    path = tmp_path / "pytest.default.yaml"
    path.write_text(yaml.safe_dump(g))
    with pytest.raises((GraphError, GraphErrors)):
        compile_graph(load_graph(str(path)))


def test_stage_names_carry_their_summaries(validator):
    """Completion shows what each stage does (enumDescriptions, one per stage name)."""
    stage = validator.schema["$defs"]["NodeSpec"]["properties"]["stage"]
    assert "distill-pytest" in stage["enum"] and len(stage["enum"]) == len(stage["enumDescriptions"])
    assert all(stage["enumDescriptions"])
