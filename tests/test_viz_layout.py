"""viz/layout.py, svg.py, diff.py and html.py without a browser: geometry, diff rows, page data."""

from __future__ import annotations

import copy
import itertools
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.markers import footer
from thresher.dataflow.plan import builtin_dir, load_plans
from thresher.viz import html, svg
from thresher.viz.diff import MARKER, REMOVED, SAME, align, explain, stage_rows
from thresher.viz.layout import layout, phase_rank
from thresher.viz.model import build_model, differences, to_dict

from .conftest import fixture_case

SVG = "{http://www.w3.org/2000/svg}"
SHIPPED = sorted(name.rsplit(".", 1)[0] for name in os.listdir(builtin_dir())
                 if name.endswith(".yaml") and name != "classify.yaml")


def _plans() -> dict[str, dict]:
    return load_plans(use_cache=False).plans


def _wired(plan: dict) -> set[tuple[str, str, str]]:
    return {(n, port, dst) for n, node in plan["nodes"].items()
            for port, dst in node["ports"].items() if dst is not None}


def _branching_plan() -> dict:
    """score sends to two distillers (ports out / alt) that both feed collapse; guard skips to
    persist. Written out whole, so shipped graphs changing does not change this shape."""
    wiring = [("read", "read", {"out": "guard"}), ("guard", "guard", {"out": "score",
                                                                    "verbatim": "persist"}),
              ("score", "score", {"out": "d1", "alt": "d2"}), ("d1", "distill", {"out": "collapse"}),
              ("d2", "distill", {"out": "collapse"}), ("collapse", "collapse", {"out": "route"}),
              ("route", "route", {"out": "persist"}), ("persist", "persist", {"out": None})]
    nodes = {nid: {"id": nid, "stage": nid if nid[0] != "d" else "drop-noise", "phase": phase,
                   "params": {}, "ports": ports} for nid, phase, ports in wiring}
    return {"id": "branch.default", "class": "branch", "role": "default", "entry": "read",
            "order": [w[0] for w in wiring], "nodes": nodes}


def _check_geometry(plan: dict) -> None:
    model = build_model(plan)
    lay = layout(model)
    boxes = lay.boxes
    assert set(boxes) == set(plan["nodes"])
    # Layers follow phases: a node of an earlier phase ends above every node of a later phase.
    for a, b in itertools.permutations(boxes.values(), 2):
        if phase_rank(a.phase) < phase_rank(b.phase):
            assert a.y + a.h < b.y, (a, b)
    # No two nodes overlap.
    for a, b in itertools.combinations(boxes.values(), 2):
        apart = a.x + a.w <= b.x or b.x + b.w <= a.x or a.y + a.h <= b.y or b.y + b.h <= a.y
        assert apart, (a, b)
    # Every wired port is drawn once, from its source's edge to its target's edge.
    assert {(r.src, r.port, r.dst) for r in lay.routes} == _wired(plan)
    assert len(lay.routes) == len(_wired(plan))
    for r in lay.routes:
        (x0, y0), (x1, y1) = r.points[0], r.points[-1]
        s, d = boxes[r.src], boxes[r.dst]
        assert s.x <= x0 <= s.x + s.w and s.y <= y0 <= s.y + s.h
        assert d.x <= x1 <= d.x + d.w and d.y <= y1 <= d.y + d.h
        # The bends of a skip edge lie outside every node.
        for x, y in r.points[1:-1]:
            assert not any(b.x < x < b.x + b.w and b.y < y < b.y + b.h for b in boxes.values())
    # Everything fits on the canvas.
    assert all(b.x >= 0 and b.x + b.w <= lay.width and b.y + b.h <= lay.height
               for b in boxes.values())


@pytest.mark.parametrize("gid", SHIPPED)
def test_layout_of_each_shipped_graph_layers_by_phase_without_overlap_and_draws_every_edge(gid):
    _check_geometry(_plans()[gid])


def test_layout_of_a_branching_graph_puts_siblings_side_by_side():
    plan = _branching_plan()
    _check_geometry(plan)
    boxes = layout(build_model(plan)).boxes
    assert boxes["d1"].y == boxes["d2"].y and boxes["d1"].x != boxes["d2"].x
    # The merge sits under one of its inputs, and the chain below it stays in that column.
    assert boxes["collapse"].x in (boxes["d1"].x, boxes["d2"].x)
    assert boxes["route"].x == boxes["collapse"].x


@pytest.mark.parametrize("gid", ["pytest.default", "json.default"])
def test_svg_has_one_group_per_node_and_per_edge_with_port_labels(gid):
    plan = _plans()[gid]
    root = ET.fromstring(svg.render(build_model(plan)))
    groups = root.findall(f"{SVG}g")
    nodes = [g for g in groups if "node" in g.get("class", "").split()]
    edges = [g for g in groups if g.get("class") == "edge"]
    assert sorted(g.get("data-node") for g in nodes) == sorted(plan["nodes"])
    assert {(g.get("data-src"), g.get("data-port"), g.get("data-dst")) for g in edges} == \
        _wired(plan)
    for g in edges:
        labels = [t.text for t in g.findall(f"{SVG}text")]
        assert labels == ([] if g.get("data-port") == "out" else [g.get("data-port")])
    for g in nodes:
        texts = [t.text for t in g.findall(f"{SVG}text")]
        node = plan["nodes"][g.get("data-node")]
        assert texts[0].startswith(node["id"])
        assert node["stage"] in texts[0] or node["stage"] == node["id"] or texts[0].endswith("…")


def test_svg_escapes_markup_and_is_deterministic():
    plan = copy.deepcopy(_plans()["generic.default"])
    plan["id"] = 'odd "graph" <x>'
    plan["nodes"]["score"]["params"]["critical"] = ["</svg><script>alert(1)</script>"]
    model = build_model(plan, defaults={})
    text = svg.render(model)
    root = ET.fromstring(text)          # well-formed XML whatever the params hold
    assert root.get("data-graph") == plan["id"]
    assert "<script>" not in text
    assert text == svg.render(build_model(copy.deepcopy(plan), defaults={}))


def test_traced_svg_fills_each_node_by_its_decision():
    plan = _plans()["pytest.default"]
    case = fixture_case("pytest-own-fail-default")
    trace = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                     plan=plan, trace=True).trace.to_dict()
    root = ET.fromstring(svg.render(build_model(plan, trace)))
    decisions = {r["node"]: r["decision"] for r in trace["stages"]}
    for g in root.iter(f"{SVG}g"):
        if "node" in g.get("class", "").split():
            assert f"outcome-{decisions.get(g.get('data-node'), 'not-run')}" in g.get("class")


def _view(lines, origin):
    return {"lines": lines, "origin": origin, "source": [], "tiers": []}


def test_align_pairs_lines_by_origin_and_marks_removed_and_marker_lines():
    vin = _view(["a", "b", "b", "c", "d"], [0, 1, 2, 3, 4])
    vout = _view(["a", "[2 lines]", "b", "d"], [0, -1, 2, 4])
    rows = align(vin, vout)
    # The repeated "b" is told apart by its origin: the first copy was removed, not the second.
    assert rows == [(SAME, 0, 0), (MARKER, None, 1), (REMOVED, 1, None), (SAME, 2, 2),
                    (REMOVED, 3, None), (SAME, 4, 3)]


def test_every_stage_of_a_real_trace_accounts_for_each_input_and_output_line_once():
    case = fixture_case("pytest-own-huge-fail")
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                   trace=True, keep_views=True)
    records = res.trace.to_dict()["stages"]
    assert any(r["decision"] == "applied" and r["lines_out"] < r["lines_in"] for r in records)
    for rec in records:
        rows = stage_rows(rec, {})["rows"]
        assert [r[1] for r in rows if r[1] is not None] == list(range(len(rec["view_in"]["lines"])))
        assert [r[2] for r in rows if r[2] is not None] == list(range(len(rec["view_out"]["lines"])))
        kept = {o for o in rec["view_out"]["origin"] if o >= 0}
        removed = [i for i, o in enumerate(rec["view_in"]["origin"]) if o >= 0 and o not in kept]
        assert [r[1] for r in rows if r[0] == REMOVED and rec["view_in"]["origin"][r[1]] >= 0] \
            == removed


def test_keep_views_is_off_unless_asked():
    case = fixture_case("pytest-own-fail-default")
    plain = compress(case["stdout"], command=case["command"], trace=True).trace.to_dict()
    assert plain["stages"] and not any("view_in" in r for r in plain["stages"])


def test_footer_and_clip_markers_are_explained_with_their_own_numbers():
    line = footer(7, 41, "b9775c0e872f", 2, (1, 7))
    text = explain(line, -1)
    assert "7 of 41" in text and "2 lines are clipped" in text
    assert "thresher expand b9775c0e872f" in text and "--lines 1-7" in text
    clipped = explain("x" * 10 + " [thresher: +123 chars clipped]", 4)
    assert "123 characters" in clipped and "source line 5" in clipped
    assert explain("[3 similar lines]", -1, "collapse").startswith("summary line written by collapse")
    assert explain("plain output", 3) == ""


def test_differences_name_what_a_role_override_changes():
    plans = _plans()
    ci, base = build_model(plans["pytest.ci"]), build_model(plans["pytest.default"])
    diffs = differences(ci, base)
    for key, value in plans["pytest.ci"]["budget"].items():
        if plans["pytest.default"]["budget"][key] != value:
            assert any(d.startswith(f"budget {key}:") and d.endswith(str(value)) for d in diffs)
    assert differences(base, base) == []


def test_data_island_cannot_be_closed_by_tool_output():
    island = html.data_island({"x": "</script><script>alert(1)</script>"})
    assert island.count("</script>") == 1 and island.endswith("</script>")
    body = island[island.index(">") + 1:-len("</script>")]
    assert json.loads(body) == {"x": "</script><script>alert(1)</script>"}


def test_pages_load_nothing_from_outside():
    plan = _plans()["pytest.default"]
    case = fixture_case("pytest-own-fail-default")
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                   plan=plan, trace=True, keep_views=True)
    trace = res.trace.to_dict()
    pages = [html.trace_page(build_model(plan, trace), trace, res.text, {"command": "pytest"}),
             html.graph_page([{"model": build_model(plan)}])]
    for text in pages:
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
        assert "@import" not in text and "url(http" not in text


def run_thresher(*args: str, stdin: str = "", cwd=None) -> subprocess.CompletedProcess:
    """``python -m thresher ARGS`` with ``stdin`` (in ``cwd``), output captured as text."""
    return subprocess.run([sys.executable, "-m", "thresher", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd)


def test_graph_draw_json_is_the_model_every_format_draws():
    out = run_thresher("graph", "draw", "pytest.default", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [n["id"] for n in data["nodes"]] == _plans()["pytest.default"]["order"]
    assert {(e["src"], e["port"], e["dst"]) for e in data["edges"]} == \
        _wired(_plans()["pytest.default"])
    model = to_dict(build_model(_plans()["pytest.default"]))
    assert [n["params"] for n in data["nodes"]] == [n["params"] for n in model["nodes"]]


def test_graph_draw_all_lists_every_graph_and_marks_role_overrides():
    out = run_thresher("graph", "draw", "--all", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    plans = _plans()
    assert sorted(d["id"] for d in data) == sorted(plans)
    for d in data:
        base = f"{d['pclass']}.default"
        assert d["replaces"] == (base if d["role"] != "default" and base in plans else None)
    bad = run_thresher("graph", "draw", "--all", "--format", "dot")
    assert bad.returncode == 2 and "--format html" in bad.stderr


def test_trace_html_writes_a_page_and_refuses_a_passthrough_class(tmp_path):
    case = fixture_case("pytest-own-fail-default")
    page = tmp_path / "trace.html"
    out = run_thresher("trace", "--cmd", case["command"], "--exit-code", str(case["exit_code"]),
                    "--html", str(page), stdin=case["stdout"])
    assert out.returncode == 0, out.stderr
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and 'id="thresher-data"' in text
    none = run_thresher("trace", "--html", str(tmp_path / "none.html"), stdin="hello\n")
    assert none.returncode == 2 and "nothing to draw" in none.stderr


def broken_run(case_id: str = "pytest-fail-verbose"):
    """A real run where distill is rejected (INV-3: it may not write summaries here) and collapse
    fails (its impl raises), traced with views: ``(plan, result)``."""
    plan = copy.deepcopy(_plans()["pytest-verbose.default"])
    plan["nodes"]["distill"]["emits_summaries"] = False
    plan["nodes"]["trim"]["impl"] = "json:loads"       # wrong signature → TypeError → fail open
    case = fixture_case(case_id)
    return plan, compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                          plan=plan, trace=True, keep_views=True)


def test_rejected_and_failed_nodes_name_the_invariant_in_every_drawing():
    plan, res = broken_run()
    trace = res.trace.to_dict()
    model = build_model(plan, trace)
    assert model.node("distill").outcome == "rejected" and model.node("trim").outcome == "failed"
    root = ET.fromstring(svg.render(model))
    label = next(g for g in root.iter(f"{SVG}g") if g.get("data-node") == "distill")
    assert "outcome-rejected" in label.get("class")
    assert any((t.text or "").startswith("rejected INV-3 · ") for t in label.iter(f"{SVG}text"))
    data = html.trace_data(model, trace)
    node = next(n for n in data["graph"]["nodes"] if n["id"] == "distill")
    assert node["invariant"] == "INV-3"
    # A rejected stage's input passed on: its diff shows no line removed.
    assert all(r[0] == SAME for r in data["stages"]["distill"]["rows"])


def test_trace_json_views_carry_what_the_explorer_draws():
    case = fixture_case("pytest-fail-verbose")
    out = run_thresher("trace", "--cmd", case["command"], "--exit-code", str(case["exit_code"]),
                       "--json", "--views", stdin=case["stdout"])
    assert out.returncode == 0, out.stderr
    stages = json.loads(out.stdout)["trace"]["stages"]
    distill = next(r for r in stages if r["node"] == "distill")
    assert len(distill["view_in"]["lines"]) == distill["lines_in"]
    assert len(distill["view_out"]["origin"]) == distill["lines_out"]
    assert -1 in distill["view_out"]["origin"]          # the summary line distill wrote


def test_new_renderers_never_import_stages():
    code = ("import sys, thresher.viz.html, thresher.viz.svg, thresher.viz.layout, "
            "thresher.viz.diff; print(sorted(m for m in sys.modules if m.startswith('thresher.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "thresher.viz.html" in out.stdout and "thresher.stages" not in out.stdout


def test_graph_draw_all_shows_a_project_override_and_what_it_changes(tmp_path):
    graphs = tmp_path / ".thresher" / "graphs"
    graphs.mkdir(parents=True)
    (graphs / "pytest.ci.yaml").write_text("extends: pytest.default\nrole: ci\n"
                                           "budget: {max_lines: 77}\n", encoding="utf-8")
    from thresher.filters import trust   # a project graph is used once trusted
    trust.record(str(graphs / "pytest.ci.yaml"), (graphs / "pytest.ci.yaml").read_bytes())
    out = run_thresher("graph", "draw", "--all", "--format", "json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    ci = next(d for d in json.loads(out.stdout) if d["id"] == "pytest.ci")
    assert ci["origin"] == "project"
    assert [o["origin"] for o in ci["overrides"]] == ["built-in"]
    assert ci["replaces"] == "pytest.default"
    assert any(d.startswith("budget max_lines:") and d.endswith("→ 77") for d in ci["differs"])
    page = run_thresher("graph", "draw", "--all", "--html", cwd=tmp_path).stdout
    assert "overrides built-in" in page and "budget max_lines" in page
