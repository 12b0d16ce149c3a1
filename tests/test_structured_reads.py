"""Structured documents the agent reads (issue 16 §1, §12): JSON printed by a command for the
agent's terminal, YAML and TOML files, on real outputs captured by benchmarks/capture_structured.py.

Over budget the agent gets the crushed view (a summary block by path outside the data, the facts
it needs, counts that recount from the input, one footer); within it the document passes whole;
a program reading the same output (a PATH shim into a pipe: ``reader="program"``) gets every byte,
and so does everyone for ``cat`` of a lock file (INV-9).
"""

from __future__ import annotations

import json
import re
import tomllib

import pytest
import yaml

from .distill_util import named_source_lines
from .conftest import fixture_case
from thresher.dataflow.api import compress
from thresher.dataflow.markers import FOOTER_RE, elided
from thresher.dataflow.plan import load_plans
from thresher.dataflow.tokens import estimate
from thresher.shell.rewrite import rewrite

plans = load_plans(use_cache=False)
JSON_CMDS = ["struct-json-npm-view-lodash", "struct-json-npm-view-axios",
             "struct-json-pip-report-requests-rich", "struct-json-pip-inspect"]
YAML_FILES = ["struct-yaml-kin-openapi-lxkns"]
TOML_FILES = ["struct-toml-web-sys-cargo"]
WHOLE = ["struct-json-pip-list", "struct-yaml-kin-openapi-link", "struct-yaml-mkdocs-social-variant",
         "struct-toml-tokio-cargo", "struct-toml-nix-cargo"]
CRUSHED = JSON_CMDS + YAML_FILES + TOML_FILES


def _seen(case: dict, reader: str = "agent"):
    return compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                    plans=plans, reader=reader)


@pytest.mark.parametrize("line,pclass", [
    ("npm view lodash --json", "json"), ("pip inspect", "json"), ("gh api repos/o/r/issues", "json"),
    ("kubectl get deploy -o yaml", "yaml"), ("kubectl get pods -ojson 2>/dev/null", "json"),
    ("pip list --format=json", "json"), ("docker inspect web", "json"),
    ("pip install --dry-run --quiet --report - requests", "json"),
    ("npm view lodash --json | jq .versions", "verbatim"), ("npm ls --json > deps.json", "verbatim"),
    ("go test -json ./...", "verbatim"), ("cargo build --message-format=json", "verbatim"),
    ("pip install --report - requests", "pip"), ("git log --format=%H", "verbatim")])
def test_a_document_printed_for_the_terminal_is_a_read_and_piped_on_it_is_not(line, pclass):
    """One JSON/YAML document ending the line goes to the json/yaml graph; followed by a pipe or a
    redirect it goes to a program (verbatim); event streams (one JSON a line) stay verbatim."""
    assert plans.classify(line) == pclass


def test_the_hooks_wrap_a_document_read_but_not_one_that_feeds_a_pipe():
    assert rewrite("npm view lodash --json") == "thresher run -- npm view lodash --json"
    assert rewrite("kubectl get pods -o yaml") == "thresher run -- kubectl get pods -o yaml"
    assert rewrite("npm view lodash --json | jq .name") is None
    assert rewrite("docker ps --format '{{.Names}}'") is None  # a template: still structured


@pytest.mark.parametrize("cid", CRUSHED)
def test_crushed_view_keeps_the_facts_with_one_summary_block_and_one_footer(cid):
    case = fixture_case(cid)
    res = _seen(case)
    text = res.output.decode()
    raw_tokens, out_tokens = estimate(case["stdout"]), estimate(text)
    budget = plans.resolve(case["class"], "default")["budget"]["max_tokens"]
    assert res.emission.decision == "compressed" and out_tokens < raw_tokens, (raw_tokens, out_tokens)
    assert out_tokens <= budget * 1.05  # the level chosen is the first that fits the graph budget
    assert [f for f in case["must_keep"] if f not in text] == []
    lines = text.splitlines()
    assert sum(bool(FOOTER_RE.match(ln)) for ln in lines) == 1 and FOOTER_RE.match(lines[-1])
    marks = [i for i, ln in enumerate(lines) if ln.startswith("[thresher: ")]
    block = list(range(len(marks) - 2 if "JSON" not in lines[0] else len(marks) - 1))
    assert marks[:len(block)] == block  # the summary block comes first, outside the data


@pytest.mark.parametrize("cid", JSON_CMDS)
def test_json_sample_parses_and_shows_only_what_the_input_holds(cid):
    case = fixture_case(cid)
    body = [ln for ln in _seen(case).output.decode().splitlines() if not ln.startswith("[thresher: ")]
    sample, orig = json.loads("\n".join(body)), json.loads(case["stdout"])
    assert list(sample) == list(orig)  # every top-level key, in input order
    for k, v in sample.items():
        if not isinstance(v, (dict, list)) and not (isinstance(v, str) and v.endswith("…")):
            assert v == orig[k]


def test_json_counts_and_names_recount_from_the_input():
    """pip's report: the count of `install` items is exact and the items not shown are named."""
    case = fixture_case("struct-json-pip-report-requests-rich")
    text = _seen(case).output.decode()
    install = json.loads(case["stdout"])["install"]
    m = re.search(r"^\[thresher: \.install: (\d+) objects, (\d+) shown \(([^)]*)\).*not shown "
                  r"\(\.metadata\.name\): (.*)\]$", text, re.M)
    assert m and int(m.group(1)) == len(install)
    shown = {int(x) for r in m.group(3).split(", ") for x in range(int(r.split("-")[0][1:]),
                                                               int(r.split("-")[-1].lstrip("#")) + 1)}
    assert len(shown) == int(m.group(2))
    assert m.group(4) == ", ".join(json.dumps(i["metadata"]["name"]) for n, i in enumerate(install)
                                   if n not in shown)


@pytest.mark.parametrize("cid", YAML_FILES + TOML_FILES + ["data-toml-uv-lock-head",
                                                           "read-yaml-ansible-config-base"])
def test_yaml_and_toml_gaps_are_counted_ranges_of_byte_exact_lines(cid):
    """What the agent sees of a crushed YAML/TOML read: the summary block, then source lines only,
    in order and byte-exact (no marker inside the data), then the footer; every source line left
    out lies in a range the summary block names."""
    case = fixture_case(cid)
    view = [ln for ln in _seen(case).output.decode().splitlines() if not FOOTER_RE.match(ln)]
    head = next(i for i, ln in enumerate(view) if not ln.startswith("[thresher: "))
    summary, doc = view[:head], view[head:]
    assert len(summary) > 1 and not any(ln.startswith("[thresher: ") or elided(ln) for ln in doc)
    src = case["stdout"].splitlines()
    named = named_source_lines(summary[1:])
    kept, k = [], 0
    for line in doc:   # the document is a subsequence of the source, outside the named ranges
        k = next(i for i in range(k, len(src)) if src[i] == line and i not in named)
        kept.append(k)
        k += 1
    assert not [i for i in range(len(src)) if i not in set(kept) and i not in named and src[i].strip()]


def test_yaml_summary_counts_recount_and_name_every_schema():
    case = fixture_case("struct-yaml-kin-openapi-lxkns")
    text = _seen(case).output.decode()
    schemas = yaml.safe_load(case["stdout"])["components"]["schemas"]
    m = re.search(r"^\[thresher: \.components\.schemas: (\d+) keys, (\d+) shown; not shown: (.*)\]$",
                  text, re.M)
    assert m and int(m.group(1)) == len(schemas)
    assert len(m.group(3).split(", ")) == len(schemas) - int(m.group(2))


def test_toml_summary_counts_the_keys_of_a_long_table():
    case = fixture_case("struct-toml-web-sys-cargo")
    text = _seen(case).output.decode()
    features = tomllib.loads(case["stdout"])["features"]
    m = re.search(r"^\[thresher: \[features\]: (\d+) keys, (\d+) shown", text, re.M)
    assert m and int(m.group(1)) == len(features)
    lines = text.splitlines()
    start = lines.index("[features]") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("["))
    shown = [ln for ln in lines[start:end] if re.match(r"^[A-Za-z]\w* = ", ln)]
    assert len(shown) == int(m.group(2))


@pytest.mark.parametrize("cid", WHOLE)
def test_documents_within_the_budget_pass_whole(cid):
    case = fixture_case(cid)
    assert _seen(case).output == case["stdout"].encode()


@pytest.mark.parametrize("cid", CRUSHED + WHOLE)
def test_a_program_reader_gets_every_byte(cid):
    """INV-9: under a PATH shim into a pipe the same command's output passes byte-exact."""
    case = fixture_case(cid)
    assert _seen(case, reader="program").output == case["stdout"].encode()


def test_cat_of_a_lock_file_is_exact_and_its_head_is_a_read():
    """`cat` of a lock file passes byte-exact for everyone (tools rewrite it); a `head` of one is
    not a parseable lock file, so it is read like any YAML/TOML document (crushed over budget)."""
    case = fixture_case("data-yaml-pnpm-lock-head")
    head = compress(case["stdout"], command="head -n 800 pnpm-lock.yaml", plans=plans)
    cat = compress(case["stdout"], command="cat pnpm-lock.yaml", plans=plans)
    assert cat.output == case["stdout"].encode()
    assert head.emission.decision == "compressed" and len(head.output) < len(cat.output)
