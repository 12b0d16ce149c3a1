"""viz/: the graph model and its Mermaid, DOT and table renderers, on the shipped graphs and real runs."""

from __future__ import annotations

import copy
import os
import re
import subprocess
import sys

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.plan import builtin_dir, load_plans
from thresher.viz import dot, mermaid, table
from thresher.viz.model import NOT_RUN, brief_params, brief_value, build_model, shown_params

from .conftest import fixture_case

MERMAID_NODE = re.compile(r'^    (n_\w+)\["([^"]*)"\]$')
MERMAID_EDGE = re.compile(r'^    (n_\w+) (-->|-\.->)(?:\|"([^"]*)"\|)? (n_\w+)$')
DOT_STRING = r'"(?:[^"\\]|\\.)*"'
DOT_NODE = re.compile(rf"^    ({DOT_STRING}) \[label=({DOT_STRING})(.*)\];$")
DOT_EDGE = re.compile(rf"^    ({DOT_STRING}) -> ({DOT_STRING})(?: \[(.*)\])?;$")


def _plans() -> dict[str, dict]:
    return load_plans(use_cache=False).plans


# Ids of the shipped graphs, read from the package folder: parametrising happens at collection,
# before the fixture that isolates the user's config is active.
SHIPPED = sorted(name.rsplit(".", 1)[0] for name in os.listdir(builtin_dir())
                 if name.endswith(".yaml") and name != "classify.yaml")


def _wired(plan: dict) -> set[tuple[str, str, str]]:
    return {(n, port, dst) for n, node in plan["nodes"].items()
            for port, dst in node["ports"].items() if dst is not None}


def _mermaid_parts(text: str) -> tuple[dict[str, str], list[tuple[str, str, str, str]]]:
    nodes = {m.group(1): m.group(2) for m in map(MERMAID_NODE.match, text.splitlines()) if m}
    edges = [(m.group(1), m.group(3) or "out", m.group(4), m.group(2))
             for m in map(MERMAID_EDGE.match, text.splitlines()) if m]
    return nodes, edges


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s[1:-1])


def _trace(plan: dict, case_id: str) -> dict:
    case = fixture_case(case_id)
    return compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                    plan=plan, trace=True).trace.to_dict()


@pytest.mark.parametrize("gid", SHIPPED)
def test_mermaid_draws_every_node_and_every_wired_port_of_each_shipped_graph(gid):
    plan = _plans()[gid]
    text = mermaid.render(build_model(plan))
    nodes, edges = _mermaid_parts(text)
    assert len(nodes) == len(plan["nodes"])
    ids = {n: mermaid.node_ids(build_model(plan))[n] for n in plan["nodes"]}
    back = {v: k for k, v in ids.items()}
    assert {(back[s], port, back[d]) for s, port, d, _ in edges} == _wired(plan)
    assert text.startswith("---\n") and "flowchart TD" in text


@pytest.mark.parametrize("gid", SHIPPED)
def test_dot_draws_every_node_and_every_wired_port_of_each_shipped_graph(gid):
    plan = _plans()[gid]
    lines = dot.render(build_model(plan)).splitlines()
    nodes = [_unquote(m.group(1)) for m in map(DOT_NODE.match, lines) if m]
    assert sorted(nodes) == sorted(plan["nodes"])
    edges = set()
    for m in filter(None, map(DOT_EDGE.match, lines)):
        label = re.search(rf"label=({DOT_STRING})", m.group(3) or "")
        edges.add((_unquote(m.group(1)), _unquote(label.group(1)) if label else "out",
                   _unquote(m.group(2))))
    assert edges == _wired(plan)
    assert lines[0] == f'digraph "{gid}" {{' and lines[-1] == "}"


def test_guard_verbatim_port_is_labelled_and_out_ports_are_not():
    plan = _plans()["pytest.default"]
    text = mermaid.render(build_model(plan))
    assert 'n_guard -->|"verbatim"| n_persist' in text
    assert "n_read --> n_guard" in text
    dtext = dot.render(build_model(plan))
    assert '"guard" -> "persist" [label="verbatim"];' in dtext
    assert '"read" -> "guard";' in dtext


def test_labels_show_the_stage_and_only_params_that_differ_from_the_defaults():
    plan = _plans()["generic.ci"]
    defaults = {"collapse": {"min_run": 3, "exact_only": False, "keep_last": False}, "trim": plan["nodes"]["trim"]["params"]}
    model = build_model(plan, defaults=defaults)
    assert model.node("collapse").shown == {"min_run": 5}
    assert model.node("trim").shown == {}
    assert "collapse<br/>min_run=5" in mermaid.render(model)
    assert '"trim" [label="trim"];' in dot.render(model)


def test_brief_params_stay_short_and_say_how_many_were_left_out():
    assert brief_value(["a", "b", "c"]) == "[3 items]"
    assert brief_value(True) == "true"
    assert len(brief_value("x" * 200)) == 24 and brief_value("x" * 200).endswith("…")
    assert brief_params({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}) == "a=1, b=2, c=3, +2 more"
    assert shown_params({"a": None, "b": [], "c": 0, "d": "x"}, None) == {"c": 0, "d": "x"}


def test_quotes_and_markup_in_ids_and_params_are_escaped():
    plan = copy.deepcopy(_plans()["generic.default"])
    plan["id"] = 'odd "graph"'
    plan["nodes"]["score"]["params"]["critical"] = ['say "hi" <b> #1 | \\d+']
    model = build_model(plan, defaults={})
    mtext = mermaid.render(model)
    label = _mermaid_parts(mtext)[0]["n_score"]
    assert '"' not in label and "<b>" not in label
    assert "#quot;hi#quot;" in label and "#lt;b#gt;" in label and "#35;1" in label
    assert 'title: "odd \\"graph\\""' in mtext
    dtext = dot.render(model)
    for line in dtext.splitlines():
        # Every double quote in a DOT line opens or closes a well-formed string.
        assert '"' not in re.sub(DOT_STRING, "", line), line
    score = next(m for m in map(DOT_NODE.match, dtext.splitlines()) if m and "score" in m.group(1))
    assert 'say \\"hi\\" <b> #1 | \\\\d+' in score.group(2)


def test_node_ids_that_clash_after_sanitising_stay_distinct():
    plan = copy.deepcopy(_plans()["generic.default"])
    node = plan["nodes"].pop("score")
    plan["nodes"]["a-b"] = dict(node, id="a-b")
    plan["nodes"]["a_b"] = dict(node, id="a_b")
    plan["order"] = [n for n in plan["order"] if n != "score"] + ["a-b", "a_b"]
    for n in plan["nodes"].values():
        n["ports"] = {p: None for p in n["ports"]}
    ids = mermaid.node_ids(build_model(plan))
    assert len(set(ids.values())) == len(ids) == len(plan["nodes"])


def test_output_is_deterministic_whatever_the_dict_order():
    plan = _plans()["pytest.default"]
    shuffled = copy.deepcopy(plan)
    shuffled["nodes"] = dict(reversed(list(shuffled["nodes"].items())))
    for node in shuffled["nodes"].values():
        node["ports"] = dict(reversed(list(node["ports"].items())))
        node["params"] = dict(reversed(list(node["params"].items())))
    for render in (mermaid.render, dot.render):
        assert render(build_model(plan)) == render(build_model(shuffled))


def test_trace_overlay_shows_each_nodes_decision_and_tokens():
    plan = _plans()["pytest.default"]
    trace = _trace(plan, "pytest-fail-verbose")
    model = build_model(plan, trace)
    decisions = {r["node"]: r["decision"] for r in trace["stages"]}
    assert decisions["distill"] == "applied"
    for node in model.nodes:
        assert node.outcome == decisions.get(node.id, NOT_RUN)
    labels = _mermaid_parts(mermaid.render(model))[0]
    rec = next(r for r in trace["stages"] if r["node"] == "distill")
    assert f"applied · {rec['tokens_in']}→{rec['tokens_out']} tok" in labels["n_distill"]
    mtext = mermaid.render(model)
    assert re.search(r"^    class (\S+,)*n_distill(,\S+)* applied$", mtext, re.M)
    assert "classDef applied fill:" in mtext
    assert trace["final"]["decision"] in mtext.splitlines()[1]
    dtext = dot.render(model)
    assert re.search(r'"distill" \[label="[^"]*applied[^"]*", fillcolor="#d7f5d3"', dtext)


def test_overlay_of_a_verbatim_run_marks_the_skipped_branch_as_not_run():
    plan = _plans()["pytest.default"]
    trace = compress("a\nb\n", command="pytest", exit_code=0, plan=plan, trace=True).trace.to_dict()
    model = build_model(plan, trace)
    assert model.node("guard").outcome == "applied" and model.node("guard").port == "verbatim"
    assert model.node("score").outcome == NOT_RUN
    taken = {(e.src, e.port): e.taken for e in model.edges}
    assert taken[("guard", "verbatim")] is True and taken[("guard", "out")] is False
    mtext = mermaid.render(model)
    assert "n_guard -.-> n_score" in mtext and 'n_guard -->|"verbatim"| n_persist' in mtext
    assert re.search(r"^    class .*n_score.* notrun$", mtext, re.M)
    assert '"guard" -> "score" [style=dashed' in dot.render(model)


def test_a_stage_that_raises_is_drawn_as_failed():
    plan = copy.deepcopy(_plans()["pytest.default"])
    plan["nodes"]["distill"]["impl"] = "json:loads"   # wrong signature → TypeError → fail open
    model = build_model(plan, _trace(plan, "pytest-fail-verbose"))
    assert model.node("distill").outcome == "failed"
    assert "INV-5" in model.node("distill").reason
    assert re.search(r"^    class n_distill failed$", mermaid.render(model), re.M)
    assert 'fillcolor="#ffcdd2"' in dot.render(model)


def test_table_has_a_row_per_stage_and_the_emission_line():
    plan = copy.deepcopy(_plans()["pytest.default"])
    plan["nodes"]["collapse"]["impl"] = "json:loads"
    trace = _trace(plan, "pytest-fail-verbose")
    lines = table.render(trace).splitlines()
    assert lines[0] == "graph: pytest.default"
    assert lines[1].split()[:3] == ["node", "stage", "decision"]
    rows = lines[2:-1]
    assert [r.split()[0] for r in rows] == [r["node"] for r in trace["stages"]]
    for row, rec in zip(rows, trace["stages"]):
        cells = row.split()
        assert cells[2] == rec["decision"]
        assert f"{rec['lines_in']}→{rec['lines_out']}" in cells
        assert f"{rec['tokens_in']}→{rec['tokens_out']}" in cells
    final = trace["final"]
    assert lines[-1].startswith(f"emission: {final['decision']} ({final['reason']})")
    assert (f"kept {final['kept']}, omitted {final['omitted']} of {final['total']} lines"
            in lines[-1])
    assert f"tokens {final['tokens_in']}→{final['tokens_out']}" in lines[-1]


def test_table_clips_long_reasons_to_one_line():
    rec = {"node": "x", "stage": "x", "decision": "failed", "reason": "boom\n" + "y" * 500,
           "lines_in": 1, "lines_out": 1, "tokens_in": 2, "tokens_out": 2, "ms": 1.0}
    text = table.render({"graph": "g", "stages": [rec], "final": {}})
    assert len(text.splitlines()) == 4
    assert "boom yyy" in text and "…" in text and "y" * 100 not in text


def test_viz_never_imports_stages():
    code = ("import sys, thresher.viz.model, thresher.viz.mermaid, thresher.viz.dot, "
            "thresher.viz.table; print(sorted(m for m in sys.modules if m.startswith('thresher.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "thresher.viz.model" in out.stdout
    assert "thresher.stages" not in out.stdout
