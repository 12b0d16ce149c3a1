"""The HTML pages in headless Chromium: the rendered DOM, clicks, and no network.

Drives Debian's ``chromium`` through the ``playwright`` package (test extra) with
``executable_path``: no browser download. Every page is opened in an offline browser context that
also records each request, so a page fetching anything but its own file fails the test. Skips, with
the reason, when playwright or a Chromium binary is missing (.ci/run installs chromium via apt-get
when it can).
"""

from __future__ import annotations

import json
import shutil

import pytest

from thresher.dataflow.plan import load_plans

from .conftest import fixture_case
from .test_viz_layout import broken_run, run_thresher

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (test extra) missing")
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser",
                                                "google-chrome"))), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary on PATH "
                                "(apt-get install chromium)")

CASE = "pytest-fail-verbose"


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module (the sandbox needs privileges CI may not have)."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@pytest.fixture
def open_page(browser):
    """``open_page(path)``: the page loaded offline, with its requests and script errors."""
    contexts = []

    def _open(path):
        ctx = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000})
        contexts.append(ctx)
        page = ctx.new_page()
        page.requests, page.errors = [], []
        page.on("request", lambda r: page.requests.append(r.url))
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        return page
    yield _open
    for ctx in contexts:
        ctx.close()


def _thresher(*args: str, stdin: str = "") -> str:
    out = run_thresher(*args, stdin=stdin)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _trace(case: dict) -> dict:
    return json.loads(_thresher("trace", "--cmd", case["command"], "--exit-code",
                                str(case["exit_code"]), "--json", stdin=case["stdout"]))


def _assert_offline(page, path) -> None:
    assert page.requests == [path.as_uri()], page.requests
    assert page.errors == []


@pytest.fixture
def trace_page(tmp_path):
    """The explorer page of a real failing pytest run, written by ``thresher trace --html``."""
    case = fixture_case(CASE)
    path = tmp_path / "trace.html"
    _thresher("trace", "--cmd", case["command"], "--exit-code", str(case["exit_code"]),
              "--html", str(path), stdin=case["stdout"])
    return path, case


def test_trace_page_draws_every_node_of_the_graph_coloured_by_decision(trace_page, open_page):
    path, case = trace_page
    page = open_page(path)
    result = _trace(case)
    plan = load_plans().plans[result["graph"]]
    nodes = page.locator("svg.thresher-graph g.node")
    assert nodes.count() == len(plan["nodes"])
    decisions = {r["node"]: r["decision"] for r in result["trace"]["stages"]}
    for i in range(nodes.count()):
        g = nodes.nth(i)
        nid = g.get_attribute("data-node")
        assert f"outcome-{decisions.get(nid, 'not-run')}" in g.get_attribute("class")
        rec = next((r for r in result["trace"]["stages"] if r["node"] == nid), None)
        if rec:
            assert f"{rec['tokens_in']}→{rec['tokens_out']} tok" in g.text_content()
    # A drawn box has a real size (the SVG rendered, not just parsed).
    box = nodes.first.bounding_box()
    assert box and box["width"] > 50 and box["height"] > 20
    _assert_offline(page, path)


def test_clicking_a_node_shows_that_stages_side_by_side_diff(trace_page, open_page):
    path, case = trace_page
    page = open_page(path)
    stages = {r["node"]: r for r in _trace(case)["trace"]["stages"]}
    changed = [n for n, r in stages.items() if r["decision"] == "applied"
               and r["lines_out"] < r["lines_in"]]
    assert changed, "the fixture must have a stage that removed lines"
    for nid in (changed[0], "guard", changed[0]):
        page.click(f'svg.thresher-graph g.node[data-node="{nid}"]')
        detail = page.locator("#detail")
        assert detail.get_attribute("data-node") == nid
        assert detail.locator("h2").text_content().startswith(nid)
        rec = stages[nid]
        head = detail.locator("table.diff th").all_text_contents()
        assert f"input ({rec['lines_in']} lines)" in head
        assert f"output ({rec['lines_out']} lines)" in head
        removed = detail.locator("tr.removed").count()
        if nid == changed[0]:
            assert removed >= rec["lines_in"] - rec["lines_out"] > 0
            # Removed lines show on the input side only.
            assert detail.locator("tr.removed td.out").first.text_content() == ""
        else:
            assert removed == 0
    assert page.locator("g.node.selected").get_attribute("data-node") == changed[0]
    _assert_offline(page, path)


def test_marker_lines_are_explained_in_the_diff_and_the_emission(trace_page, open_page):
    path, case = trace_page
    page = open_page(path)
    result = _trace(case)
    footer = result["output"].splitlines()[-1]
    assert footer.startswith("[thresher: ")
    # a stage's summary line is explained in that stage's diff (the footer is no stage's: the
    # executor writes it on the emission, issue 17 §5)
    page.click('svg.thresher-graph g.node[data-node="distill"]')
    marker = page.locator("#detail tr.marker td.out").last
    assert marker.text_content().lstrip().startswith("[thresher: ")
    assert "summary line written by distill" in marker.locator(".note").text_content()
    emission = page.locator("#emission")
    assert footer in emission.text_content()
    note = emission.locator(".marker .note").last.text_content()
    assert "footer:" in note and "thresher expand" in note
    # Totals: tokens in → out of the emission.
    em = result["emission"]
    assert f"{em['tokens_in']} → {em['tokens_out']}" in page.locator(".cards").text_content()


def test_only_changes_toggle_shows_every_line(trace_page, open_page):
    path, case = trace_page
    page = open_page(path)
    rec = next(r for r in _trace(case)["trace"]["stages"] if r["node"] == "distill")
    page.click('svg.thresher-graph g.node[data-node="distill"]')
    page.uncheck("#only-changes")
    rows = page.locator("#detail table.diff tr[data-kind]")
    kinds = rows.evaluate_all("rs => rs.map(r => r.dataset.kind)")
    assert kinds.count("removed") + kinds.count("same") + kinds.count("changed") == rec["lines_in"]
    assert page.locator("#detail tr.gap").count() == 0


def test_graph_page_with_every_graph_draws_each_and_shows_params_on_click(tmp_path, open_page):
    path = tmp_path / "graphs.html"
    _thresher("graph", "draw", "--all", "--html", "-o", str(path))
    page = open_page(path)
    plans = load_plans().plans
    svgs = page.locator("svg.thresher-graph")
    assert svgs.count() == len(plans)
    for i in range(svgs.count()):
        gid = svgs.nth(i).get_attribute("data-graph")
        assert svgs.nth(i).locator("g.node").count() == len(plans[gid]["nodes"])
    section = page.locator("#g-pytest-ci")
    assert "pytest.default" in section.text_content()       # the graph this role override replaces
    section.locator('g.node[data-node="distill"]').click()
    panel = section.locator(".params")
    assert panel.get_attribute("data-node") == "distill"
    assert json.loads(panel.locator("pre").text_content()) == plans["pytest.ci"]["nodes"]["distill"]["params"]
    _assert_offline(page, path)


def test_rejected_and_failed_stages_are_coloured_and_explained(tmp_path, open_page):
    from thresher.viz.html import trace_page
    from thresher.viz.model import STYLES, build_model

    plan, res = broken_run()
    trace = res.trace.to_dict()
    path = tmp_path / "broken.html"
    path.write_text(trace_page(build_model(plan, trace), trace, res.text, {"command": "pytest -v"}),
                    encoding="utf-8")
    page = open_page(path)
    for nid, outcome in (("distill", "rejected"), ("trim", "failed")):
        rect = page.locator(f'g.node[data-node="{nid}"] rect')
        assert rect.get_attribute("fill") == STYLES[outcome][0]
        page.click(f'g.node[data-node="{nid}"]')
        detail = page.locator("#detail")
        assert detail.locator(".badge").text_content().startswith(outcome)
        assert "Its output was not used" in detail.text_content()
    assert page.locator("#detail .badge").text_content() == "failed"
    page.click('g.node[data-node="distill"]')
    assert page.locator("#detail .badge").text_content() == "rejected INV-3"
    assert "wrote a line not in the input" in page.locator("#detail").text_content()
    _assert_offline(page, path)
