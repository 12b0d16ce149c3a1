"""Graph files: role overrides, discovery precedence, validation errors and the plan cache."""

from __future__ import annotations

import os
import textwrap

import pytest

from thresher.dataflow.build import finder, load_all
from thresher.dataflow.compile import compile_graph
from thresher.dataflow.errors import GraphError, GraphErrors
from thresher.dataflow.plan import cache_dir, discover, load_plans
from thresher.dataflow.spec import load_graph
from thresher.filters import trust


def _write(folder, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_every_shipped_graph_compiles_and_no_errors():
    plans = load_plans(use_cache=False)
    assert not plans.errors
    assert {"generic.default", "generic.ci", "pytest.default", "pytest.ci",
            "git-status.default", "log.default"} <= set(plans.plans)


def test_a_pipeline_graph_is_the_skeleton_spelled_out(tmp_path):
    """`pipeline:` adds read, guard, score, ledger, route, persist and their wires: the plan is the one
    of the same graph written out in full, side wires and skeleton params included."""
    short = _write(tmp_path / "a", "mine.default.yaml", """\
        budget: {max_lines: 40}
        nodes:
          guard: {stage: guard, params: {tiny_lines: 3}}
          d: {stage: distill-search}
        pipeline: [d, trim]
        edges: [d.done -> ledger]
        """)
    full = _write(tmp_path / "b", "mine.default.yaml", """\
        budget: {max_lines: 40}
        nodes:
          read: {stage: read}
          guard: {stage: guard, params: {tiny_lines: 3}}
          score: {stage: score}
          d: {stage: distill-search}
          trim: {stage: trim}
          ledger: {stage: ledger}
          route: {stage: route}
          persist: {stage: persist}
        edges: [read -> guard, guard.verbatim -> persist, guard -> score, score -> d, d.done -> ledger,
                d -> trim, trim -> ledger, ledger -> route, route -> persist]
        """)
    a, b = _compile(short), _compile(full)
    assert {k: v for k, v in a.items() if k != "files"} == {k: v for k, v in b.items() if k != "files"}
    assert list(a["nodes"]) == ["read", "guard", "score", "d", "trim", "ledger", "route", "persist"]
    assert a["nodes"]["d"]["ports"] == {"out": "trim", "done": "ledger"}
    assert a["nodes"]["guard"]["params"]["tiny_lines"] == 3


def test_every_shipped_base_graph_uses_the_skeleton():
    """A shipped graph states only what is specific to it (the chain, params, side wires)."""
    import glob
    import yaml
    root = os.path.join(os.path.dirname(__file__), "..", "graphs")
    for path in glob.glob(os.path.join(root, "*.yaml")):
        doc = yaml.safe_load(open(path, encoding="utf-8"))
        if path.endswith("classify.yaml") or "extends" in doc:
            continue
        assert doc.get("pipeline"), f"{path}: no `pipeline:`"
        for nid, node in (doc.get("nodes") or {}).items():
            assert node != {"stage": nid}, f"{path}: node {nid!r} repeats the skeleton's default"


def test_role_file_overrides_budget_and_params_of_its_base():
    plans = load_plans(use_cache=False).plans
    base, ci = plans["generic.default"], plans["generic.ci"]
    assert ci["budget"]["max_lines"] > base["budget"]["max_lines"]
    assert ci["nodes"]["collapse"]["params"]["min_run"] == 5
    assert base["nodes"]["collapse"]["params"]["min_run"] == 3
    assert ci["order"] == base["order"]


def test_resolution_falls_back_from_role_to_default_to_generic():
    plans = load_plans(use_cache=False)
    assert plans.resolve("pytest", "ci")["id"] == "pytest.ci"
    assert plans.resolve("pytest", "reviewer")["id"] == "pytest.default"
    assert plans.resolve("no-such-class", "reviewer")["id"] == "generic.reviewer"
    assert plans.resolve("no-such-class", "nope")["id"] == "generic.default"
    assert plans.classify("python -m pytest -x tests") == "pytest"
    assert plans.classify("git -C repo status") == "git-status"
    # machine formats pass verbatim; rspec's human formatters are for reading
    assert plans.classify("git log --format=%H -n 5") == "verbatim"
    assert plans.classify("rspec --format documentation") == "generic"


def _trust(path: str) -> None:
    with open(path, "rb") as fh:
        trust.record(path, fh.read())


def test_project_graph_wins_and_may_extend_the_builtin_of_the_same_id(tmp_path, monkeypatch):
    _trust(_write(tmp_path / ".thresher" / "graphs", "pytest.default.yaml", """\
        extends: pytest.default
        budget: {max_lines: 33}
    """))
    monkeypatch.chdir(tmp_path)
    plans = load_plans(use_cache=False)
    assert plans.plans["pytest.default"]["budget"]["max_lines"] == 33
    assert [o for o, _ in plans.sources["pytest.default"]] == ["project", "built-in"]
    # the built-in ci role extends the winning pytest.default, i.e. the project's override
    assert not plans.errors
    assert plans.plans["pytest.ci"]["files"][1].endswith(os.path.join(".thresher", "graphs", "pytest.default.yaml"))


def test_plan_cache_is_reused_and_invalidated_when_a_graph_changes(tmp_path, monkeypatch):
    user = tmp_path / "user"
    monkeypatch.setenv("THRESHER_CONFIG_HOME", str(user))
    path = _write(user / "graphs", "generic.default.yaml", "extends: generic.default\nbudget: {max_lines: 50}\n")
    assert load_plans().plans["generic.default"]["budget"]["max_lines"] == 50
    plan_files = lambda: sorted(n for n in os.listdir(cache_dir()) if n.startswith("plans-"))  # noqa: E731
    cached = plan_files()
    assert len(cached) == 1
    assert load_plans().plans["generic.default"]["budget"]["max_lines"] == 50
    assert plan_files() == cached
    _write(user / "graphs", "generic.default.yaml", "extends: generic.default\nbudget: {max_lines: 60}\n")
    assert load_plans().plans["generic.default"]["budget"]["max_lines"] == 60
    assert path


def test_broken_user_graph_is_reported_and_others_still_load(tmp_path, monkeypatch):
    user = tmp_path / "user"
    monkeypatch.setenv("THRESHER_CONFIG_HOME", str(user))
    _write(user / "graphs", "generic.default.yaml", "extends: generic.default\nparams: {nope: {a: 1}}\n")
    plans = load_plans(use_cache=False)
    assert any("nope" in e and "generic.default.yaml" in e for e in plans.errors)
    assert "pytest.default" in plans.plans


def _compile(path: str):
    by_id, errors = load_all(discover() + [("project", path)])
    g = load_graph(path)
    return compile_graph(g, None, finder(by_id, g))


BAD = {
    "unknown stage": ("nodes: {read: {stage: raed}}\nedges: []\n", "unknown stage 'raed'", "known stages: "),
    "bad param": ("nodes: {read: {stage: read, params: {max_line_chars: 5}}}\n", "max_line_chars", None),
    "unknown param": ("nodes: {read: {stage: read, params: {colour: 1}}}\n", "colour", "params of 'read'"),
    "unknown port": ("nodes: {read: {stage: read}, g: {stage: guard}}\nedges: ['read -> g', 'g.json -> read']\n",
                     "no output port 'json'", "its ports: out, verbatim"),
    "backwards": ("nodes: {s: {stage: score}, g: {stage: guard}}\nedges: ['s -> g']\n",
                  "backwards in phase order", None),
    "unknown key": ("nodes: {read: {stage: read}}\nextra_top: 1\n", "extra_top", "allowed top-level keys"),
    "unreachable": ("nodes: {read: {stage: read}, g: {stage: guard}, r: {stage: route}, t: {stage: trim}}\n"
                    "edges: ['read -> g', 'g.verbatim -> r', 'g -> r', 't -> r']\n",
                    "node 't': unreachable from the entry node 'read'", "add an edge into 't'"),
    "unknown node in edge": ("nodes: {read: {stage: read}}\nedges: ['read -> nowhere']\n",
                             "unknown node 'nowhere'", "nodes: read"),
    "skeleton node in pipeline": ("pipeline: [trim, ledger]\n", "pipeline entry 'ledger' is a skeleton node",
                                  "list only the nodes between score and ledger"),
    "pipeline entry twice": ("pipeline: [collapse, trim, collapse]\n", "'collapse' appears twice", None),
    "pipeline in a role file": ("extends: generic.default\npipeline: [trim]\n",
                                "takes its nodes from its base graph", "drop `pipeline:`"),
    "node off the pipeline": ("nodes: {t2: {stage: trim}}\npipeline: [trim]\n",
                              "node 't2' is neither in `pipeline:` nor wired", "add it to `pipeline:`"),
    "unknown stage in pipeline": ("pipeline: [distill-nothing, trim]\n", "unknown stage 'distill-nothing'",
                                  "known stages: "),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_graphs_name_file_node_and_fix(tmp_path, name):
    text, problem, hint = BAD[name]
    path = _write(tmp_path, "mine.default.yaml", text)
    with pytest.raises((GraphError, GraphErrors)) as info:
        _compile(path)
    msg = str(info.value)
    assert path in msg and problem in msg
    if hint:
        assert hint in msg


def test_cycles_are_refused_with_the_path(tmp_path):
    path = _write(tmp_path, "mine.default.yaml", """\
        nodes: {r: {stage: read}, a: {stage: collapse}, b: {stage: trim}}
        edges: ['r -> a', 'a -> b', 'b -> a']
    """)
    with pytest.raises(GraphErrors) as info:
        _compile(path)
    cyc = [e for e in info.value.errors if "cycle" in e.problem]
    assert cyc and cyc[0].line == 2 and "remove the edge b -> a" in cyc[0].hint
    assert not [e for e in info.value.errors if "unreachable" in e.problem]


def test_malformed_yaml_names_the_line(tmp_path):
    path = _write(tmp_path, "mine.default.yaml", "nodes:\n  read: {stage: read\nedges: []\n")
    with pytest.raises(GraphError) as info:
        load_graph(path)
    assert info.value.line is not None and "malformed YAML" in str(info.value)


def test_stage_that_does_not_accept_the_payload_class_is_refused(tmp_path):
    from thresher.dataflow.contract import StageInfo
    from thresher.stages.registry import REGISTRY
    registry = dict(REGISTRY)
    registry["git-only"] = StageInfo("git-only", "distill", "thresher.stages.generic.drop_noise:run",
                                     "thresher.stages.params:DropNoiseParams", "test stage",
                                     accepts=("git-status",))
    path = _write(tmp_path, "pytest.default.yaml", """\
        nodes: {read: {stage: read}, d: {stage: git-only}}
        edges: ['read -> d']
    """)
    with pytest.raises(GraphErrors) as info:
        compile_graph(load_graph(path), registry)
    msg = str(info.value)
    assert "does not accept payload class 'pytest'" in msg and "it accepts: git-status" in msg


HOSTILE = """\
    extends: pytest.default
    budget: {max_lines: 5}
    params:
      score: {not_critical: ['.'], noise: ['.']}
"""


def test_untrusted_project_graph_and_classify_table_are_ignored_with_one_warning(
        tmp_path, monkeypatch, capsys):
    """A repository's .thresher/graphs files shape what the agent sees: unused until trusted, and
    an edit after trusting makes them untrusted again."""
    graph = _write(tmp_path / ".thresher" / "graphs", "pytest.default.yaml", HOSTILE)
    table = _write(tmp_path / ".thresher" / "graphs", "classify.yaml",
                   "rules:\n  - {match: 'pytest', class: verbatim}\n")
    monkeypatch.chdir(tmp_path)
    plans = load_plans()
    assert plans.plans["pytest.default"]["budget"]["max_lines"] == 150
    assert plans.classify("pytest -q") == "pytest"
    err = capsys.readouterr().err
    assert err.count("thresher: ignoring untrusted project graphs") == 1
    assert "pytest.default.yaml" in err and "classify.yaml" in err and "thresher trust" in err
    _trust(graph)
    _trust(table)
    plans = load_plans()  # trusting changes the cache key: no stale plan
    assert plans.plans["pytest.default"]["budget"]["max_lines"] == 5
    assert plans.classify("pytest -q") == "verbatim"
    with open(table, "a") as fh:
        fh.write("  - {match: 'git', class: verbatim}\n")
    assert load_plans().classify("pytest -q") == "pytest"


def test_a_trusted_hostile_graph_still_cannot_hide_a_failing_commands_errors(tmp_path, monkeypatch):
    """The executor's own error scan decides INV-6: a graph that marks every line noise and not
    critical, with a 5-line budget, still emits every error line of a failing run."""
    from thresher.dataflow.api import compress
    from tests.distill_util import fixture_case
    _trust(_write(tmp_path / ".thresher" / "graphs", "pytest.default.yaml", HOSTILE))
    monkeypatch.chdir(tmp_path)
    case = fixture_case("pytest-fail-verbose")
    res = compress(case["stdout"], command="pytest", exit_code=1, plans=load_plans())
    errors = [line for line in case["stdout"].splitlines()
              if line.startswith(("E ", "FAILED ")) or "Error:" in line]
    assert errors and res.emission.decision in ("compressed", "raw")
    for line in errors:
        assert line in res.text.splitlines()


def test_trust_command_validates_and_trusts_graphs_classify_tables_and_prefixes(
        tmp_path, monkeypatch, capsys):
    """`thresher trust` takes every kind of project file, validating each before hashing it."""
    from thresher.cmd_trust import main
    graphs = tmp_path / ".thresher" / "graphs"
    good = _write(graphs, "pytest.default.yaml", "extends: pytest.default\nbudget: {max_lines: 40}\n")
    bad = _write(graphs, "lint.default.yaml", "extends: lint.default\nbudget: {max_lines: [}\n")
    table = _write(graphs, "classify.yaml", "rules:\n  - {match: '(', class: pytest}\n")
    prefixes = _write(tmp_path / ".thresher", "prefixes", "run-in-env\n")
    monkeypatch.chdir(tmp_path)
    assert main([good, prefixes]) == 0
    out = capsys.readouterr().out
    assert "(graph, blake3" in out and "(1 prefix, blake3" in out
    assert main([bad]) == 2 and "lint.default.yaml" in capsys.readouterr().err
    assert main([table]) == 2
    err = capsys.readouterr().err
    assert "classify.yaml" in err and "bad regex" in err and "not trusted" in err
    assert main([str(tmp_path / "missing.yaml")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert load_plans().plans["pytest.default"]["budget"]["max_lines"] == 40
