"""HTML documentation read as markdown (issue 16, mechanism 4: markup not paid for in kept rows).

Fixtures are real pages captured by benchmarks/capture_html.py (Jinja2's and Click's Sphinx docs
from Debian's -doc packages, the rustc book's mdBook page); must_keep holds every h1-h3 text and
every <dt> anchor, picked from the raw page by plain rules.
"""

from __future__ import annotations

import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.tokens import estimate
from thresher.property.relayout import markdown_from_input
from thresher.stages.documents import html_outline
from thresher.stages.lib import html_doc
from thresher.dataflow.markers import ELISION_RE

from .conftest import fixture_case
from .distill_util import output_lines

CASES = ("html-own-jinja2-sandbox", "html-own-click-options", "html-own-rustc-codegen",
         "html-own-python-policy")
PARAMS = dict(min_lines=150, min_tokens=2500, keep_share=0.15, min_saving=0.2)
_ANCHOR = re.compile(r'<a id="[^"]*"></a>')
_MARKUP = re.compile(r"</?[a-zA-Z][^>]*>")


@pytest.mark.parametrize("cid", CASES)
def test_page_is_shown_as_markdown_with_every_heading_and_entry(cid):
    case = fixture_case(cid)
    res = compress(case["stdout"], command=case["command"], exit_code=0, trace=True)
    assert res.graph_id == "html.default" and res.emission.decision == "compressed"
    out = output_lines(res)
    missing = [f for f in case["must_keep"] if f not in res.text]
    assert not missing, missing[:5]
    body = [s for s in out if not s.lstrip().startswith("[thresher: ") and not ELISION_RE.match(s)]
    # no markup is paid for: the only tags left are the page's anchors, and code shown as code
    tagged = [s for s in body if _MARKUP.search(_ANCHOR.sub("", s))]
    assert len(tagged) <= 0.03 * len(body), tagged[:3]
    assert estimate(res.text) < 0.3 * estimate(case["stdout"])
    # every line is an input line or a re-layout whose words, anchors and hrefs are the input's
    assert all(s in case["stdout"] or markdown_from_input(s, case["stdout"]) for s in body)
    assert any(s.startswith("# ") for s in body) and any(s.startswith("## ") for s in body)


def test_the_oracle_catches_a_word_that_is_not_on_the_page():
    case = fixture_case("html-own-jinja2-sandbox")
    line = "The Jinja sandbox can be used to render untrusted templates."
    assert markdown_from_input(line, case["stdout"])
    assert not markdown_from_input(line.replace("untrusted", "trusted-by-thresher"), case["stdout"])
    assert not markdown_from_input('<a id="no-such-anchor"></a> Sandbox', case["stdout"])
    assert not markdown_from_input("[Sandbox](https://example.invalid/)", case["stdout"])


def test_definition_terms_are_structure_like_headings():
    case = fixture_case("html-own-jinja2-sandbox")
    lines = case["stdout"].split("\n")
    doc = html_doc.parse(lines)
    dts = [m.start() for m in re.finditer(r"<dt\b", case["stdout"])]
    terms = [(r, lv, t) for r, lv, t in doc.headings if lines[r].lstrip().startswith("<dt")]
    assert len(terms) == len(dts) > 5
    # an API entry nests under the heading above it, and its md row opens a heading
    assert all(lv >= 2 for _, lv, _ in terms)
    assert all(doc.md_row(r).startswith("#" * lv + " ") for r, lv, _ in terms)
    # a section by an entry's name is that entry (up to the next one), as markdown
    cmd = "thresher read sandbox.html --mode section:ImmutableSandboxedEnvironment"
    p = initial_payload(case["stdout"].encode(), command=cmd, exit_code=0)
    ctx = Context({"max_lines": 800, "max_tokens": 10000}, None, "0123456789ab", "test")
    view = html_outline.run(p, PARAMS, ctx)
    assert view is not None and "section 'class jinja2.sandbox.ImmutableSandboxedEnvironment" \
        in view.lines[-1]
    shown = [s for s in view.lines if not ELISION_RE.match(s) and not s.startswith("[thresher: ")]
    assert shown[0].startswith("### ") and "ImmutableSandboxedEnvironment" in "".join(shown[:3])
    assert not any("class jinja2.sandbox.SandboxedEnvironment" in s for s in shown)


def test_entities_and_hrefs_stay_as_written():
    case = fixture_case("html-own-click-options")
    doc = html_doc.parse(case["stdout"].split("\n"))
    rows = [doc.md_row(r) for r in range(len(doc.md))]
    assert any("&#39;" in s for s in rows)            # entities as the page writes them
    links = [m for s in rows for m in re.findall(r"\]\(([^)]+)\)", s)]
    assert links and all(f'href="{h}"' in case["stdout"] for h in links)


def test_long_anchor_rows_fall_back_to_every_heading():
    """libxslt's xsltInternals.html puts whole <pre> blocks of declarations on its anchor rows:
    the anchor outline is over the token budget, so the outline keeps the headings alone (every
    h1-h3, by html.parser in the capture) instead of leaving the cut to trim (85 -> 120 of 120)."""
    case = fixture_case("unseen-html-libxslt-xsltinternals")
    res = compress(case["stdout"], command=case["command"], exit_code=0, trace=True)
    stages = {s["node"]: s["decision"] for s in res.as_dict()["trace"]["stages"]}
    assert stages["outline"] == "applied" and stages["trim"] != "applied"
    missing = [f for f in case["must_keep"] if f not in res.text]
    assert not missing, missing[:5]
    assert estimate(res.text) <= 10000
