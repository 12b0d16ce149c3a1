"""distill-npm on real npm / pnpm / yarn output: facts kept byte-exact, counts exact, declines."""

from __future__ import annotations

import os
import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.executor import initial_payload
from thresher.stages.runners import distill_npm

from thresher.dataflow.tokens import estimate

from .conftest import CORPUS, fixture_case, load_cases, seen_by_agent

PARAMS = {"drop_passing": True}
SUMMARY_RE = re.compile(r"^\[thresher: npm: (.*) not shown\]$")


def _payload(case: dict, stream: str = "stdout"):
    raw = case[stream].encode()
    return initial_payload(raw, command=case["command"], argv=tuple(case["command"].split()),
                           exit_code=case["exit_code"])


def _counts(out: str) -> dict[str, int]:
    line = next(x for x in out.splitlines() if SUMMARY_RE.match(x))
    return {m[2]: int(m[1]) for m in re.finditer(r"(\d+) ([^,]+)", SUMMARY_RE.match(line)[1])}


def _run(case: dict, stream: str = "stdout"):
    return compress(case[stream], command=case["command"], exit_code=case["exit_code"], trace=True)


def test_node_test_runner_keeps_failures_and_counts_passing_lines():
    case = fixture_case("npm-test-node-fail")
    res = _run(case)
    out = res.text
    for fact in case["must_keep"]:
        assert fact in out, fact
    lines = case["stdout"].splitlines()
    first_fail = lines.index("# Subtest: slug strips accents")
    passing = first_fail - lines.index("TAP version 13") - 1
    assert _counts(out) == {"passing test lines": passing}
    tail = lines[first_fail:]
    assert "\n".join(tail) in out  # failure blocks and the TAP summary, byte-exact and in order
    assert res.emission.decision == "compressed"


def test_yarn_full_tree_rows_dropped_direct_dependencies_kept():
    case = fixture_case("npm-yarn-add")
    out = _run(case).text
    lines = case["stdout"].splitlines()
    start = lines.index("info All dependencies") + 1
    rows = 0
    while start + rows < len(lines) and re.match(r"^[├└│ ]*[├└]─ ", lines[start + rows]):
        rows += 1
    assert _counts(out)["rows of the full dependency tree"] == rows
    direct = lines[lines.index("info Direct dependencies"):start - 1]
    assert "\n".join(direct) in out
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_pnpm_keeps_last_progress_line_and_added_packages():
    case = fixture_case("npm-pnpm-add")
    out = _run(case).text
    progress = [x for x in case["stdout"].splitlines() if x.startswith("Progress: ")]
    assert progress[-1] in out
    assert all(p not in out.splitlines() for p in progress[:-1])
    for fact in case["must_keep"]:
        assert fact in out, fact


@pytest.mark.parametrize("cid", ["npm-install-missing-package", "npm-install-missing-version",
                                 "npm-pnpm-add-missing", "npm-run-build-fail"])
def test_failing_npm_keeps_every_error_line(cid):
    case = fixture_case(cid)
    out = "".join(_run(case, s).text for s in ("stdout", "stderr") if case[s])
    for fact in case["must_keep"]:
        assert fact in out, fact
    for line in (case["stdout"] + case["stderr"]).splitlines():
        if line.startswith(("npm error", " ERR_PNPM")):
            assert line in out


def test_verbose_flag_declines():
    case = dict(fixture_case("npm-test-node-fail"), command="npm test --verbose")
    assert distill_npm.run(_payload(case), PARAMS, None) is None


@pytest.mark.parametrize("cid", ["git-status-long", "pytest-fail-verbose", "python-traceback"])
def test_not_npm_output_declines(cid):
    case = dict(fixture_case(cid), command="npm run check")
    assert distill_npm.run(_payload(case), PARAMS, None) is None


def test_drop_passing_off_keeps_test_rows():
    case = fixture_case("npm-test-node-fail")
    assert distill_npm.run(_payload(case), {"drop_passing": False}, None) is None


def _corpus_npm() -> list[dict]:
    return [c for c in load_cases(os.path.join(CORPUS, "public")) if c["class"] == "npm"]


@pytest.mark.skipif(not _corpus_npm(), reason="shared corpus not present")
def test_corpus_npm_cases_keep_every_fact_and_never_grow():
    for case in _corpus_npm():
        out = "".join(_run(case, s).text for s in ("stdout", "stderr") if case[s])
        missing = [f for f in case["must_keep"] if f not in out]
        assert not missing, (case["id"], missing[:2])
        assert len(out) <= len(case["stdout"]) + len(case["stderr"]), case["id"]


@pytest.mark.skipif(not _corpus_npm(), reason="shared corpus not present")
def test_mocha_failures_keep_their_suite_path():
    case = next(c for c in _corpus_npm() if c["id"] == "npm-test-fail-few")
    out = _run(case).text.splitlines()
    i = out.index("      1) should Content-Disposition to attachment")
    assert out[i - 2:i] == ["  res", "    .attachment()"]
    assert "  1254 passing (6s)" in out and "  2 failing" in out
    assert not any(x.lstrip().startswith("✔") for x in out)


NPM_LS_PROBLEM = re.compile(r"UNMET (?:OPTIONAL |PEER )?DEPENDENCY | (?:invalid|extraneous)\b")


@pytest.mark.parametrize("cid", ["npm-ls-all-problems", "npm-ls-all-nested-missing", "npm-ls-top-problems"])
def test_npm_ls_problem_rows_survive_wherever_they_sit_in_the_tree(cid):
    """Every UNMET/invalid/extraneous row of a real ``npm ls`` tree is kept byte-exact, and the
    npm error summary too; a tree over budget still shrinks."""
    case = fixture_case(cid)
    out = seen_by_agent(case)
    rows = [line for line in case["stdout"].splitlines() if NPM_LS_PROBLEM.search(line)]
    assert rows and all(row in out.splitlines() for row in rows)
    for fact in case["must_keep"]:
        assert fact in out, fact
    if len(case["stdout"].splitlines()) > 200:   # over the npm graph's line budget
        deep = [i for i, line in enumerate(case["stdout"].splitlines()) if NPM_LS_PROBLEM.search(line)]
        assert any(40 < i < len(case["stdout"].splitlines()) - 40 for i in deep)  # not head/tail
        assert estimate(out) < estimate(case["stdout"] + case["stderr"]) * 0.9


@pytest.mark.parametrize("cid", ["unseen-npm-test-many", "unseen-npm-run-test-many-ci",
                                 "unseen-npm-test-many-watchall-false"])
def test_a_test_script_running_jest_keeps_every_failure_over_budget(cid):
    """`npm test` starting jest: the failing `✕` rows and `● Suite › test` headers are the answer;
    over budget, collapse must not fold them and trim must not drop them (the npm graph knows
    the JS runners' failure shapes, as the jest graph does)."""
    case = fixture_case(cid)
    out = seen_by_agent(case)
    src = case["stdout"].splitlines()
    failing = [line for line in src if re.match(r"^\s+✕ \S", line)]
    headers = [line for line in src if re.match(r"^\s+● \S.* › ", line)]
    assert len(failing) == len(headers) > 10
    for line in failing + headers:
        assert line in out.splitlines(), line
    assert estimate(out) < estimate(case["stdout"]) / 2
