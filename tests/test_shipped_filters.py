"""The shipped declarative filters on the real outputs captured for them.

Fixtures: tests/fixtures/<family>-*.json, written by benchmarks/capture_filters.py (terraform,
mvn, ant, rsync, ansible-playbook, pre-commit, ansible-lint, poetry, rspec, rake, rubocop, bundle, gem, jest, vitest, mocha, prettier,
webpack, black, bandit, coverage, sphinx-build, tar, zip/unzip, ctest, meson, valgrind, cppcheck,
shellcheck, prove, phpunit, python -m build). Each case goes through the whole engine as the agent reads it
(``seen_by_agent``): every ``must_keep`` fact survives, a failing run's error lines pass
byte-exact, nothing grows, and each filter fires and shrinks at least one of its outputs.
"""

from __future__ import annotations

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans
from thresher.dataflow.tokens import estimate
from thresher.filters import engine, runtime
from thresher.stages.lib.text import ANSI_RE, ERROR_RE

from .conftest import FIXTURES, load_cases, seen_by_agent

SOURCE = "benchmarks/capture_filters.py"
CASES = [c for c in load_cases(FIXTURES) if c.get("source", "").startswith(SOURCE)]
IDS = [c["id"] for c in CASES]


@pytest.fixture(scope="module")
def plans():
    return load_plans(use_cache=False)


@pytest.fixture(scope="module")
def shipped():
    loaded = runtime.load(use_cache=False, warn=False)
    assert not loaded.errors, loaded.errors
    return [f for f in loaded.filters if f["origin"] == "shipped"]


_RESULTS: dict[str, list] = {}


def _streams(case: dict, plans) -> list[tuple[str, object]]:
    """Each non-empty stream of ``case`` and its compression (computed once per module)."""
    if case["id"] not in _RESULTS:
        _RESULTS[case["id"]] = [(s, compress(case[s], command=case["command"], exit_code=case["exit_code"],
                                             stream=s, plans=plans)) for s in ("stdout", "stderr") if case[s]]
    return _RESULTS[case["id"]]


def test_fixtures_present():
    """The capture script's fixtures are in the repository (32 tools, success and failure runs)."""
    assert len({c["class"] for c in CASES}) >= 32
    assert sum(c["exit_code"] not in (0, None) for c in CASES) >= 25


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_fact_kept(case, plans):
    out = seen_by_agent(case, plans)
    lost = [f for f in case["must_keep"] if f not in out]
    assert not lost, lost


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_nothing_grows(case, plans):
    for stream, res in _streams(case, plans):
        assert estimate(res.text) <= estimate(case[stream]), stream


@pytest.mark.parametrize("case", [c for c in CASES if c["exit_code"] not in (0, None)],
                         ids=[c["id"] for c in CASES if c["exit_code"] not in (0, None)])
def test_failing_run_error_lines_byte_exact(case, plans):
    """Every line of a failing run that carries an error word comes back unchanged."""
    for stream, res in _streams(case, plans):
        out = set(res.text.splitlines())
        plain_out = {ANSI_RE.sub("", ln) for ln in out}
        for line in case[stream].splitlines():
            if not ERROR_RE.search(ANSI_RE.sub("", line)) or "\r" in line:
                continue
            # a line with colour codes comes back raw (verbatim) or cleaned (compressed)
            assert line in out or ANSI_RE.sub("", line) in plain_out, (stream, line)


def _filter_of(command: str, filters: list[dict]) -> dict | None:
    return engine.first_match(filters, command)


def test_every_filter_fires_and_shrinks(shipped, plans):
    """Each filter written for these tools matches a captured command, runs in its graph, and
    makes at least one real output smaller."""
    fired: dict[str, int] = {}
    unfiltered = set()
    for case in CASES:
        f = _filter_of(case["command"], shipped)
        if f is None:
            unfiltered.add(case["id"])
            continue
        for stream, res in _streams(case, plans):
            if "filter" in res.applied and estimate(res.text) < estimate(case[stream]):
                fired[f["name"]] = fired.get(f["name"], 0) + 1
    # phpunit --testdox prints one row per test because its user asked for them
    assert unfiltered == {"phpunit-testdox"}
    names = {f["name"] for f in (_filter_of(c["command"], shipped) for c in CASES) if f}
    silent = names - set(fired)
    # dense outputs: every rubocop line is an offense, its code or its caret (carets are critical),
    # rspec and ansible-lint print little besides failures, a dry run's rows are its answer; these
    # filters trim less than the Route stage's minimum saving, so the output passes whole
    assert len(names) >= 30
    assert silent <= {"ansible-lint", "rspec", "rubocop", "rsync-dry-run"}, sorted(silent)


def test_short_circuit_never_swallows_a_failure(shipped, plans):
    """A failing run never comes back as a one-line success message."""
    for case in CASES:
        if case["exit_code"] in (0, None):
            continue
        f = _filter_of(case["command"], shipped) or {"short_circuit": []}
        messages = {rule[1] for rule in f["short_circuit"]}
        out = "".join(res.text for _, res in _streams(case, plans))
        assert not any(m in out for m in messages), case["id"]
