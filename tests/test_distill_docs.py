"""markdown-outline, html-outline and prose: headings, sections, anchors, extracts, declines."""

from __future__ import annotations

import subprocess
import sys

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.markers import ELISION_RE, elided
from thresher.stages.documents import html_outline
from thresher.stages.documents import markdown_outline
from thresher.stages.documents import prose
from thresher.stages.lib import html_doc
from thresher.stages.lib import markdown_doc
from thresher.stages.lib import ranking

from .conftest import fixture_case

MD = {"min_lines": 150, "min_tokens": 2500, "keep_share": 0.3, "min_saving": 0.2}
HTML = dict(MD, keep_share=0.15)
PROSE = dict(MD, min_prose=0.4, terms=True)


def ctx(lines=300, tokens=6000):
    return Context({"max_lines": lines, "max_tokens": tokens}, None, "0123456789ab", "test")


def payload(text: str, command: str, exit_code: int = 0):
    return initial_payload(text.encode(), command=command, exit_code=exit_code)


def elided_total(view) -> int:
    """Source lines stated by the elision lines of ``view``."""
    return sum(b - a + 1 for a, b in filter(None, map(elided, view.lines)))


def test_headings_skip_fenced_code_and_read_setext():
    lines = ["Title", "=====", "", "```sh", "# not a heading", "```", "## Real", "",
             "5.2.1 / 2025-12-01", "==================", "~~~", "## fenced too", "~~~"]
    hs = markdown_doc.headings(lines)
    assert [(h.row, h.level, h.title) for h in hs] == [
        (0, 1, "Title"), (6, 2, "Real"), (8, 1, "5.2.1 / 2025-12-01")]


def test_markdown_outline_keeps_every_heading_and_counts_exactly():
    case = fixture_case("markdown-own-node-process")
    p = payload(case["stdout"], case["command"])
    view = markdown_outline.run(p, MD, ctx())
    assert view is not None
    text = "\n".join(view.lines)
    assert all(fact in text for fact in case["must_keep"])
    kept = sum(1 for o in view.origin if o >= 0)
    assert kept + elided_total(view) == len(p.source)
    assert all(line == p.source[o] for line, o in zip(view.lines, view.origin) if o != SYNTHETIC)


def test_markdown_section_by_name_and_outline_mode():
    case = fixture_case("markdown-own-node-process")
    cmd = "thresher read doc/api/process.md --mode 'section:Event: exit'"
    view = markdown_outline.run(payload(case["stdout"], cmd), MD, ctx())
    body = [line for line, o in zip(view.lines, view.origin) if o >= 0]
    assert body[0] == "### Event: `'exit'`" or body[0].startswith("### Event: ")
    assert all(not line.startswith("## ") for line in body[1:])
    cmd = "thresher read doc/api/process.md --mode outline"
    view = markdown_outline.run(payload(case["stdout"], cmd), MD, ctx(lines=2000, tokens=40000))
    assert all(line.startswith("#") or not line.strip() for line, o in zip(view.lines, view.origin)
               if o >= 0)
    assert markdown_outline.run(payload(case["stdout"], "thresher read x.md --mode section:Nope"),
                                MD, ctx()) is None


def test_markdown_declines_small_headless_failed_and_distilled():
    short = "# T\n\nsome words here\n" * 10
    assert markdown_outline.run(payload(short, "cat a.md"), MD, ctx()) is None
    headless = "just prose without headings, line after line of it.\n" * 400
    assert markdown_outline.run(payload(headless, "cat a.md"), MD, ctx()) is None
    case = fixture_case("markdown-own-node-process")
    assert markdown_outline.run(payload(case["stdout"], "cat x.md", 1), MD, ctx()) is None
    view = markdown_outline.run(payload(case["stdout"], "cat x.md"), MD, ctx())
    assert markdown_outline.run(view, MD, ctx()) is None


def test_html_outline_keeps_anchors_drops_scripts_and_slices_sections():
    case = fixture_case("html-own-python-policy")
    p = payload(case["stdout"], case["command"])
    view = html_outline.run(p, HTML, ctx(800, 10000))
    assert view is not None
    text = "\n".join(view.lines)
    assert all(fact in text for fact in case["must_keep"])
    assert "<script" not in text and "<style" not in text and "<meta" not in text
    # every row is elided (exact ranges) or shown as its markdown; rows of markup only vanish
    doc = html_doc.parse(p.source)
    covered = {r - 1 for m in map(ELISION_RE.match, view.lines) if m
               for r in range(int(m[2] or m[4]), int(m[3] or m[4]) + 1)}
    assert len(covered) == elided_total(view)
    body = [line for line in view.lines[:-1] if not ELISION_RE.match(line)]
    assert body == [doc.md_row(r) for r in range(len(p.source)) if r not in covered and doc.md_row(r)]
    cmd = "thresher read python-policy.html --mode section:Packaged"
    section = html_outline.run(payload(case["stdout"], cmd), HTML, ctx(800, 10000))
    assert section is not None and "[thresher: section " in section.lines[-1]


def test_html_declines_on_text_that_is_not_html():
    text = "plain words in a plain file, nothing marked up at all.\n" * 300
    assert html_outline.run(payload(text, "cat page.html"), HTML, ctx()) is None


def test_man_page_keeps_sections_and_options_and_long_pages_shrink():
    case = fixture_case("man-own-find")
    res = compress(case["stdout"], command=case["command"], exit_code=0)
    assert res.emission.decision == "compressed"
    assert all(fact in res.text for fact in case["must_keep"])
    assert res.emission.tokens_out < res.emission.tokens_in * 0.5
    short = fixture_case("man-own-grep")
    assert all(f in compress(short["stdout"], command=short["command"], exit_code=0).text
               for f in short["must_keep"])


def test_prose_declines_on_data_and_logs():
    rows = "\n".join(f"{i},{i * 3},{i % 7},abc" for i in range(500))
    assert prose.run(payload(rows, "cat data.txt"), PROSE, ctx()) is None


def test_prose_lines_are_byte_exact_and_near_duplicates_skipped():
    texts = {0: "Install with `pip install thresher==0.1.0` from https://pypi.org/p/x",
             1: "Install with `pip install thresher==0.1.0` from https://pypi.org/p/x again",
             2: "Unrelated chatter about the weather and other things entirely"}
    scores = ranking.score(texts, ["install"], set())
    shown = ranking.choose(scores, texts, 1000, [False] * 3)
    assert shown == [True, False, True] or shown == [False, True, True]


def test_rank_bm25_is_not_imported_with_the_stage_modules():
    code = ("import sys; import thresher.stages.lib.ranking, thresher.stages.documents.prose, "
            "thresher.stages.documents.markdown_outline, thresher.stages.documents.html_outline; "
            "print('rank_bm25' in sys.modules, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
