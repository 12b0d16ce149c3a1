"""distill-build on real make/gcc/clang runs: progress counted, diagnostics kept together."""

from __future__ import annotations

import re

import pytest
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages.lib import diagnostics, lint_groups
from thresher.stages.runners import distill_build

from .conftest import fixture_case, seen_by_agent

SMALL = {"max_lines": 200, "max_tokens": 5000}
GROUPED = ["gcc-groups-zstd-conversion", "gcc-groups-regex-unused", "gcc-groups-bitarray-casts"]
GROUP_RE = re.compile(r"^\[thresher: the finding above recurs at (\d+) more locations?\] (.*)$")
BIG = {"max_lines": 100_000, "max_tokens": 10_000_000}


def _distill(text: str, budget=BIG, exit_code: int = 0, group: bool = True):
    payload = initial_payload(text.encode(), command="make", exit_code=exit_code)
    return distill_build.run(payload, {"snippets_over_budget": True, "group": group},
                             Context(budget, None, "0" * 12, "t"))


def _summaries(p) -> list[str]:
    return [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC]


@pytest.mark.parametrize("cid", ["build-own-make-error", "build-own-make-nested",
                                 "build-own-gcc-warnings-huge", "build-own-clang-errors",
                                 "build-own-link-error", "build-own-javac-errors",
                                 "build-setuptools-lz4", "build-setuptools-brotli",
                                 "build-cmake-verbose", *GROUPED])
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


def _blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Every warning of a gcc run with the note rows under it, and the function it is in."""
    out, scope, i = [], "", 0
    while i < len(lines):
        if lint_groups.SCOPE_RE.search(lines[i]):
            scope = lines[i]
        m = lint_groups.GCC_ROW_RE.match(lines[i])
        if m and m["kind"] == "warning":
            block = [lines[i]]
            while i + 1 < len(lines) and (n := lint_groups.GCC_ROW_RE.match(lines[i + 1])) and n["kind"] == "note":
                i += 1
                block.append(lines[i])
            out.append((scope, block))
        i += 1
    return out


@pytest.mark.parametrize("cid", GROUPED)
def test_repeated_warnings_of_one_function_are_said_once(cid):
    """Real strict-warning compiles of sources no other fixture uses (zstd, regex, bitarray): over
    budget, a warning that recurs in one function at >= 4 places is said once; its group line
    follows the kept block and names, in input order, exactly the locations that end the
    removed blocks, each of which has the kept block's text but for that location, in the same
    function. Every other warning row stays whole, and the view is smaller than the snippet-less
    one."""
    case = fixture_case(cid)
    src = case["stderr"].splitlines()
    p = _distill(case["stderr"], budget=SMALL)
    plain = _distill(case["stderr"], budget=SMALL, group=False)
    blocks = _blocks(src)
    kept = set(p.lines)
    groups = 0
    for k, line in enumerate(p.lines):
        m = GROUP_RE.match(line)
        if not m:
            continue
        groups += 1
        locs = m[2].split()
        assert int(m[1]) == len(locs)
        # the kept block ends right above the group line
        first = next(b for b in blocks if b[1][-1] == p.lines[k - 1] and all(r in kept for r in b[1]))
        key = lambda b: (b[0], b[1][:-1], lint_groups.GCC_ROW_RE.match(b[1][-1])["msg"])   # noqa: E731
        gone = [b for b in blocks if key(b) == key(first) and not all(r in kept for r in b[1])]
        assert [lint_groups.GCC_ROW_RE.match(b[1][-1])["loc"] for b in gone] == locs
        assert len(gone) + 1 >= distill_build.COMPILER_MIN_GROUP
    assert groups
    grouped_rows = {r for b in blocks if not all(x in kept for x in b[1]) for r in b[1]}
    for _scope, block in blocks:
        if block[0] not in grouped_rows:
            assert block[0] in kept, block[0]
    assert p.tokens() < plain.tokens()


def test_compiler_errors_and_lone_warnings_never_group():
    """gcc error rows stay byte-exact however often they repeat, and a warning repeated in
    different functions (one place in each) stays a whole row in each."""
    rows = []
    for f in range(60):
        rows += [f"app.c: In function \u2018f{f}\u2019:",
                 f"app.c:{10 * f + 3}:5: error: \u2018x\u2019 undeclared (first use in this function)",
                 f"app.c:{10 * f + 4}:9: warning: unused variable \u2018y\u2019 [-Wunused-variable]"]
    p = _distill("\n".join(rows) + "\n", budget=SMALL, exit_code=1)
    assert p is None or all(r in p.lines for r in rows if ": error: " in r or ": warning: " in r)
