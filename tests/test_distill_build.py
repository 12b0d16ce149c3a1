"""distill-build on real make/gcc/clang runs: progress counted, diagnostics kept together."""

from __future__ import annotations

import re

import pytest
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages.lib import diagnostics
from thresher.stages.runners import distill_build

from .conftest import fixture_case, seen_by_agent

SMALL = {"max_lines": 200, "max_tokens": 5000}
BIG = {"max_lines": 100_000, "max_tokens": 10_000_000}


def _distill(text: str, budget=BIG, exit_code: int = 0):
    payload = initial_payload(text.encode(), command="make", exit_code=exit_code)
    return distill_build.run(payload, {"snippets_over_budget": True}, Context(budget, None, "0" * 12, "t"))


def _summaries(p) -> list[str]:
    return [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC]


@pytest.mark.parametrize("cid", ["build-own-make-error", "build-own-make-nested",
                                 "build-own-gcc-warnings-huge", "build-own-clang-errors",
                                 "build-own-link-error", "build-own-javac-errors",
                                 "build-setuptools-lz4", "build-setuptools-brotli",
                                 "build-cmake-verbose"])
def test_every_fact_survives(cid):
    case = fixture_case(cid)
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_directory_changes_are_counted_and_commands_stay():
    case = fixture_case("build-own-make-nested")
    p = _distill(case["stdout"])
    src = case["stdout"].splitlines()
    dirs = sum(1 for line in src if distill_build.DIR_RE.match(line))
    assert _summaries(p) == [f"[thresher: {dirs} lines of build progress not shown ({dirs} directory changes)]"]
    assert all(line in p.lines for line in src if line.startswith(("cc ", "gcc ")))


def test_over_budget_gcc_snippets_go_headers_and_context_stay():
    case = fixture_case("build-own-gcc-warnings-huge")
    p = _distill(case["stderr"], budget=SMALL)
    src = case["stderr"].splitlines()
    heads = [line for line in src if diagnostics.GCC_HEAD_RE.match(line) or ": In function" in line]
    assert all(line in p.lines for line in heads)
    assert not any(re.match(r"^\s*\d+ \|", line) for line in p.lines)
    n = sum(1 for line in src if diagnostics.GCC_HEAD_RE.match(line))
    assert any(f"code snippets of {n} diagnostics" in s for s in _summaries(p))


def test_clang_snippets_without_a_gutter_are_recognised():
    src = fixture_case("build-own-clang-errors")["stderr"].splitlines()
    keep = [True] * len(src)
    diags, _ = diagnostics.drop_snippets(src, keep, [False] * len(src))
    kept = [line for line, k in zip(src, keep) if k]
    assert diags == 4 and kept == [line for line in src if diagnostics.GCC_HEAD_RE.match(line)
                                   or line.endswith("generated.")]


def test_under_budget_errors_pass_with_their_snippets():
    case = fixture_case("build-own-make-error")
    assert _distill(case["stderr"], budget=SMALL, exit_code=2) is None


def test_declines_without_progress_lines():
    assert _distill("hello\n" * 20) is None


def test_javac_snippets_go_with_their_carets_and_symbol_details_stay():
    case = fixture_case("build-own-javac-errors")
    assert case["command"].startswith("javac ")
    src = case["stderr"].splitlines()
    out = seen_by_agent(case).splitlines()
    heads = [line for line in src if diagnostics.JAVAC_HEAD_RE.match(line)]
    details = [line for line in src if re.match(r"^\s+(?:symbol|location): ", line)]
    assert heads and details and src[-1] in out   # "150 errors"
    assert all(line in out for line in heads + details)
    # the code line under each header went, and so did its caret: no caret without its code
    assert "import shop.annotations.Audited;" not in out
    assert not any(re.match(r"^\s*\^\s*$", line) for line in out)
    assert any(f"code snippets of {len(heads)} diagnostics" in line for line in out)


@pytest.mark.parametrize("cid", ["build-setuptools-lz4", "build-setuptools-brotli",
                                 "build-cmake-verbose"])
def test_echoed_compile_commands_stay_as_they_ran(cid):
    """Real builds that echo one compile command per source (PyPI sdists built by setuptools, a
    CMake project under make VERBOSE=1): within the budget every command stays verbatim — an
    agent copies one to re-run a compile — and only progress lines go, counted."""
    case = fixture_case(cid)
    out = seen_by_agent(case).splitlines()
    src = (case["stdout"] + case["stderr"]).splitlines()
    commands = [ln for ln in src if re.match(r"^\S*(?:gcc|cc)\s.*\s-c\s", ln)]
    assert len(commands) >= 8 and all(ln in out for ln in commands)
    diags = [ln for ln in src if diagnostics.GCC_HEAD_RE.match(ln)]
    assert all(ln in out for ln in diags)


def test_setuptools_builds_go_to_the_build_graph():
    from thresher.dataflow.plan import load_plans
    plans = load_plans()
    for command in ("python setup.py build_ext --inplace", "python3 ./setup.py -q build",
                    "python setup.py bdist_wheel"):
        assert plans.classify(command) == "build", command
    assert plans.classify("python setup.py --version") != "build"
