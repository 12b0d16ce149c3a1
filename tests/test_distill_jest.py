"""distill-jest on real jest/vitest/mocha runs, and the one-file stage declaration it is written with."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap

import pytest

from thresher.dataflow.errors import GraphError, GraphErrors
from thresher.dataflow.plan import load_plans
from thresher.stages import declare
from thresher.stages.registry import REGISTRY

from .conftest import fixture_case, seen_by_agent

ANSI = re.compile(r"\x1b\[[0-9;]*m")
PASS_ROW = re.compile(r"^\s*[✓✔] ")
COUNTED = re.compile(r"^\[thresher: (\d+) more passing tests of (.+) not shown\]$")
CASES = ("jest-own-fail", "jest-own-fail-verbose", "vitest-own-fail-verbose", "mocha-own-fail")


def _raw(case: dict) -> str:
    return ANSI.sub("", case["stdout"] + case["stderr"])


@pytest.mark.parametrize("cid", CASES)
def test_every_failure_line_and_count_survives(cid):
    case = fixture_case(cid)
    out = seen_by_agent(case)
    missing = [k for k in case["must_keep"] if k not in out]
    assert not missing, missing
    raw = _raw(case)
    for line in raw.splitlines():       # every failing row and every summary count, verbatim
        if re.match(r"^\s*(?:[✕×] |\d+\) |Tests:|Test Suites:|\d+ (?:passing|failing))", line):
            assert line in out.splitlines(), line


@pytest.mark.parametrize("cid", ("jest-own-fail-verbose", "vitest-own-fail-verbose"))
def test_passing_rows_fold_with_exact_counts(cid):
    """Over budget: shown passing rows + the counted ones == the passing rows of the run."""
    case = fixture_case(cid)
    raw, out = _raw(case), seen_by_agent(case)
    passing = sum(1 for line in raw.splitlines() if PASS_ROW.match(line))
    shown = sum(1 for line in out.splitlines() if PASS_ROW.match(line))
    counted = sum(int(m[1]) for line in out.splitlines() if (m := COUNTED.match(line)))
    assert counted > 0 and shown + counted == passing
    assert len(out.splitlines()) < len(raw.splitlines()) / 2


def test_groups_are_files_and_describe_blocks():
    out = seen_by_agent(fixture_case("jest-own-fail-verbose"))
    groups = {m[2] for line in out.splitlines() if (m := COUNTED.match(line))}
    assert "src/calc3.test.js › calc batch 3" in groups and "src/strings.test.js › strings" in groups
    vitest = seen_by_agent(fixture_case("vitest-own-fail-verbose"))
    assert "[thresher: 24 more passing tests of src/calc1.test.js › calc batch 1 not shown]" in vitest


@pytest.mark.parametrize("command,pclass", [
    ("npx jest", "jest"), ("npx jest --verbose src/", "jest"), ("yarn jest", "jest"),
    ("npx vitest run", "jest"), ("pnpm exec vitest run --reporter=verbose", "jest"),
    ("npx mocha test/", "jest"), ("./node_modules/.bin/jest", "jest"),
    ("npx jest --watch", "stream"), ("npm test", "npm"), ("cat jest.config.js", "code"),
])
def test_runners_run_directly_are_classified(command, pclass):
    assert load_plans().classify(command) == pclass


@pytest.mark.parametrize("cid", ("jest-own-fail", "vitest-pass-verbose"))
def test_a_run_within_budget_passes_whole(cid):
    """Under the graph's 150-line budget every row is what was asked for (verbose or not)."""
    case = fixture_case(cid)
    assert seen_by_agent(case) == case["stdout"] + case["stderr"]


# -- the stage declares itself: one file, no registry or params.py entry --------------------------

def test_the_declared_stage_is_registered_from_its_own_module():
    info = REGISTRY["distill-jest"]
    assert info.impl == "thresher.stages.runners.distill_jest:run"
    assert info.params == "thresher.stages.declare:thresher.stages.runners.distill_jest"
    assert info.phase == "distill" and info.emits_summaries
    model = declare.model("thresher.stages.runners.distill_jest")
    assert model().model_dump() == {"min_group": 3}
    root = os.path.join(os.path.dirname(__file__), "..", "stages")
    grep = subprocess.run(["grep", "-rl", "^STAGE = Stage(", root], capture_output=True, text=True)
    assert sorted(os.path.realpath(p) for p in grep.stdout.split()) == \
        sorted(os.path.realpath(p) for _, p in declare.declaring_files())


def _graph(tmp_path, params: str) -> str:
    folder = tmp_path / ".thresher" / "graphs"
    folder.mkdir(parents=True)
    path = folder / "jest.default.yaml"
    path.write_text(textwrap.dedent(f"""\
        nodes:
          distill: {{stage: distill-jest, params: {params}}}
        pipeline: [distill, trim]
        """))
    return str(path)


@pytest.mark.parametrize("params,problem", [("{min_grup: 4}", "min_grup"), ("{min_group: 1}", "min_group"),
                                            ("{min_group: many}", "min_group")])
def test_declared_params_are_validated_like_a_model(tmp_path, params, problem):
    from thresher.dataflow.build import finder, load_all
    from thresher.dataflow.compile import compile_graph
    from thresher.dataflow.plan import discover
    from thresher.dataflow.spec import load_graph
    path = _graph(tmp_path, params)
    by_id, _ = load_all(discover() + [("project", path)])
    g = load_graph(path)
    with pytest.raises((GraphError, GraphErrors)) as info:
        compile_graph(g, None, finder(by_id, g))
    assert path in str(info.value) and problem in str(info.value) and "distill" in str(info.value)


def test_a_key_declared_twice_is_refused(monkeypatch):
    from thresher.stages import registry
    dup = declare.Stage("distill-pytest", "distill", "a second distill-pytest")
    monkeypatch.setattr(declare, "declared", lambda: [("thresher.stages.runners.mine", dup)])
    with pytest.raises(ValueError, match="distill-pytest.*already thresher.stages.runners.distill_pytest"):
        registry._declared()


def test_editing_a_declared_stage_file_rebuilds_the_plans(monkeypatch):
    """Its params live in the stage file: the cached plans record every stage module's stamp (the
    registry's ``code_files``, handed to the engine by the composition root), and a cached plan
    built before an edit is rebuilt."""
    from thresher.dataflow import build, plan
    path = dict(declare.declaring_files())["thresher.stages.runners.distill_jest"]
    assert path in plan.load_plans().code
    builds: list[int] = []
    real = build.build_all
    monkeypatch.setattr(build, "build_all", lambda *a, **k: builds.append(1) or real(*a, **k))
    plan.load_plans()
    assert builds == []  # fresh
    st = os.stat(path)
    try:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        plan.load_plans()
        assert builds == [1]
        plan.load_plans()
        assert builds == [1]  # rebuilt once, then fresh again
    finally:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
