"""Manual pages and --help (issue 16, mechanism 9): every option keeps its line.

Fixtures are real outputs captured by benchmarks/capture_manhelp.py (man -P cat tar/ssh/xargs/
python3; tar/curl/node/wget/python3 --help); their must_keep facts are every option line, picked by
a rule independent of the prose stage.
"""

from __future__ import annotations

import re

import pytest
import yaml

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import CRITICAL, NOISE
from thresher.dataflow.tokens import estimate
from thresher.stages.documents import prose
from thresher.stages.documents.prose import OPTION, TERM_RE, option_leads

from .conftest import FIXTURES, fixture_case, seen_by_agent

CASES = ("man-own-tar", "man-own-ssh", "man-own-xargs", "man-own-python3", "help-own-tar",
         "help-own-curl", "help-own-node", "help-own-wget", "help-own-python3")


@pytest.mark.parametrize("cid", CASES)
def test_every_option_line_is_kept(cid):
    case = fixture_case(cid)
    seen = seen_by_agent(case)
    lines = set(seen.split("\n"))
    missing = [f for f in case["must_keep"] if f not in seen]
    assert not missing, missing[:5]
    assert estimate(seen) <= estimate(case["stdout"] + case["stderr"])
    # the option lines themselves are shown whole (not only as substrings of something else)
    opts = [s for s in case["stdout"].split("\n") if re.match(OPTION, s)]
    assert opts and all(s in lines for s in opts)


@pytest.mark.parametrize("cid", ("man-own-tar", "man-own-ssh", "help-own-node"))
def test_long_pages_shrink_with_every_option(cid):
    case = fixture_case(cid)
    res = compress(case["stdout"], command=case["command"], exit_code=0, trace=True)
    assert res.graph_id == "man.default"
    assert res.emission.decision == "compressed"
    assert estimate(res.text) < 0.8 * estimate(case["stdout"])


def test_options_made_only_of_punctuation_are_kept():
    case = fixture_case("help-own-node")
    punct = [s for s in case["stdout"].split("\n") if re.match(r"^\s*--?\s{2,}\S", s)]
    assert len(punct) == 2  # `-` (script from stdin) and `--` (end of node options)
    out = compress(case["stdout"], command=case["command"], exit_code=0).text.split("\n")
    assert all(s in out for s in punct)
    for s in ("  -#, --progress-bar", "  -?, --help", "-B     : don't write", "  +N  x", "  --",
              "  -", "       -:, --next"):
        assert TERM_RE.match(s), s
    for s in ("- a list item", "---", "-- a dash-led sentence", "   and -a too"):
        assert not TERM_RE.match(s), s


def test_man_graph_marks_the_same_option_shape_critical():
    with open(f"{FIXTURES}/../../graphs/man.default.yaml", encoding="utf-8") as fh:
        graph = yaml.safe_load(fh)
    assert graph["nodes"]["score"]["params"]["critical"][0] == OPTION
    assert graph["nodes"]["prose"]["params"]["every_term"] is True


@pytest.mark.parametrize("cmd,graph", [
    ("tar --help", "man.default"), ("curl --help all", "man.default"),
    ("python3 --help-all", "man.default"), ("git help -a", "man.default"),
    ("go help build", "man.default"), ("tar --help | grep gzip", "search.default"),
    ("cat help", "file.default"), ("ls help", "listing.default")])
def test_help_commands_use_the_man_graph(cmd, graph):
    assert compress(b"x\n", command=cmd, trace=True).graph_id == graph


def test_options_made_of_punctuation_after_the_dash_keep_their_lines():
    """less(1)'s `-+`, `--+` and `-"cc` option lines (a real `man -P cat less`) survive a long
    page's extract, like `-#` and `-?` do."""
    case = fixture_case("unseen-man-less")
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"])
    assert res.emission.decision == "compressed"
    out = res.output.decode().splitlines()
    heads = [s for s in case["stdout"].splitlines() if re.match(r'^ {7}(?:-\+ |--\+ |-"cc )', s)]
    assert len(heads) == 3 and all(h in out for h in heads)


def test_options_leading_description_lines_under_an_entry_are_kept():
    """less(1) lists ``-Pm``, ``-PM``, ``-Ph`` ... at the start of description lines under
    ``-Pprompt`` and gives ``-x9,17 will set tabs ...`` as an example under ``-xn``; tmux(1)
    explains ``-a is given, ...`` under its ``kill-session [-aC]`` entry: each names an option as
    much as a term line does (less 87 -> 93 of 93 facts, tmux 56 -> 65 of 65), and is critical
    so that no trim after the extract drops it. Only lines deeper than their entry's head count,
    and a column-0 title ends the entry."""
    page = ["OPTIONS", "       -Pprompt or --prompt=prompt", "              Provides a way.",
            "               -Ps  followed by a string changes the default prompt.",
            "               -Pm changes the medium (-m) prompt.", "",
            "       -xn or --tabs=n", "              Sets tab stops.  For example,",
            "              -x9,17  will  set tabs at positions 9, 17.",
            "COMMANDS", "     kill-session [-aC] [-t target-session]",
            "             Destroy the given session.  If", "             -a is given, all but it.",
            "     a paragraph", "     -b at the paragraph's own column", "-c flush left"]
    assert [page[r].split()[0] for r in option_leads(page)] == ["-Pm", "-x9,17", "-a"]
    case = fixture_case("unseen-man-less")
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"])
    out = res.output.decode().splitlines()
    src = case["stdout"].split("\n")
    leads = [src[r] for r in option_leads(src)]
    assert len(leads) >= 6 and all(s in out for s in leads)
    assert all(f in res.text for f in case["must_keep"])
    assert estimate(res.text) < 0.2 * estimate(case["stdout"])


def test_option_led_description_lines_become_critical():
    """The prose stage marks those rows critical (Score's pattern does not know them)."""
    case = fixture_case("unseen-man-less")
    p = initial_payload(case["stdout"].encode(), command=case["command"], exit_code=0)
    p = p.evolve(tiers=(NOISE,) * len(p.source))
    ctx = Context({"max_lines": 300, "max_tokens": 5000}, None, "0123456789ab", "man.default")
    params = {"min_lines": 300, "min_tokens": 5000, "min_prose": 0.3, "keep_share": 0.25,
              "every_term": True, "terms": True, "min_saving": 0.2}
    view = prose.run(p, params, ctx)
    assert view is not None
    leads = option_leads(p.source)
    assert leads and all(view.tiers[r] == CRITICAL for r in leads)
    assert sum(t == CRITICAL for t in view.tiers) == len(leads)
