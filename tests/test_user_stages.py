"""Users' own stages through the ``thresher.stages`` entry point group (issue 19 item 8).

Each test builds a real distribution as Python sees one: a module and a ``.dist-info`` folder with
``METADATA`` and ``entry_points.txt`` in a temporary folder put on the path (``importlib.metadata``
discovers it exactly as it would in site-packages).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from thresher.dataflow.errors import StageLoadError

MODULE = '''
"""Stages of the demo distribution: a good one, and some that each break one rule."""
from pydantic import BaseModel, ConfigDict

from thresher.dataflow.contract import StageInfo
from thresher.stages.lib.common import build, critical_flags


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    prefix: str = "DEBUG"


class LooseParams(BaseModel):
    prefix: str = "DEBUG"


def run(payload, params, ctx):
    crit = critical_flags(payload)
    keep = [c or not line.startswith(params["prefix"]) for line, c in zip(payload.lines, crit)]
    dropped = keep.count(False)
    if not dropped:
        return None
    return build(payload, keep, {keep.index(False): f"[thresher: {dropped} debug lines not shown]"})


def fabricate(payload, params, ctx):
    return payload.with_view(("all tests passed",), (-1,))


def passed_through(payload, params, ctx):
    from thresher.dataflow.payload import Out
    return Out("done", payload.select(range(len(payload.lines) // 2)))


def P(key, impl="run", params="Params", **kw):
    return StageInfo(key, "distill", f"demo_stages:{impl}", f"demo_stages:{params}", "demo", **kw)


DROP_DEBUG = P("drop-debug", emits_summaries=True)
FABRICATE = P("fabricate", impl="fabricate")
CLASH = P("trim")
LOOSE = P("loose", params="LooseParams")
WRONG_KEY = P("something-else")
ROUTE = StageInfo("my-route", "route", "demo_stages:run", "demo_stages:Params", "demo")
NOT_INFO = {"key": "dict"}
UNDECLARED_SUMMARY = P("undeclared-summary")
UNDECLARED_PORT = P("undeclared-port", impl="passed_through")
'''

ENTRY_POINTS = """\
[thresher.stages]
drop-debug = demo_stages:DROP_DEBUG
fabricate = demo_stages:FABRICATE
trim = demo_stages:CLASH
loose = demo_stages:LOOSE
wrong-key = demo_stages:WRONG_KEY
my-route = demo_stages:ROUTE
not-info = demo_stages:NOT_INFO
missing = demo_stages:NOPE
undeclared-summary = demo_stages:UNDECLARED_SUMMARY
undeclared-port = demo_stages:UNDECLARED_PORT
"""

GRAPH = """\
class: demo
description: generic text with DEBUG lines dropped by a user stage
budget: {max_lines: 60, max_tokens: 2000}
nodes:
  read: {stage: read}
  guard: {stage: guard}
  score: {stage: score}
  user: {stage: STAGE}
  trim: {stage: trim}
  route: {stage: route}
  persist: {stage: persist}
edges:
  - read -> guard
  - guard.verbatim -> persist
  - guard -> score
  - score -> user
  - user -> trim
  - trim -> route
  - route -> persist
"""


def _distribution(site, name: str = "demo-stages", entry_points: str = ENTRY_POINTS) -> None:
    meta = site / f"{name.replace('-', '_')}-0.1.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (meta / "entry_points.txt").write_text(entry_points)


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path (and PYTHONPATH, for subprocesses) holding the demo distribution."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "demo_stages.py").write_text(MODULE)
    _distribution(folder)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("PYTHONPATH", str(folder))
    importlib.invalidate_caches()
    yield folder
    sys.modules.pop("demo_stages", None)


def _graph(tmp_path, stage: str, name: str = "demo.default.yaml"):
    path = tmp_path / name
    path.write_text(GRAPH.replace("STAGE", stage))
    return path


def _thresher(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thresher", *args], input=stdin,
                          capture_output=True, timeout=600)


def _stages():
    from thresher.stages.registry import stages
    return stages()


def test_a_user_stage_is_looked_up_like_a_built_in(site):
    """The entry point resolves to its StageInfo; built-in keys still win; iteration lists both."""
    reg = _stages()
    assert reg["drop-debug"].impl == "demo_stages:run" and reg["drop-debug"].emits_summaries
    assert reg["trim"].impl == "thresher.stages.emit.trim:run"
    keys = list(reg)
    assert keys.count("trim") == 1 and "drop-debug" in keys and "read" in keys
    assert reg.get("nobody-provides-this") is None


@pytest.mark.parametrize("key, problem, hint", [
    ("trim", "clashes with the built-in stage 'trim'", "rename the user stage"),
    ("loose", "accepts unknown keys", "extra='forbid'"),
    ("wrong-key", "its StageInfo key is 'something-else'", "must be the same"),
    ("my-route", "phase 'route' is reserved", "distill"),
    ("not-info", "names a dict, not a StageInfo", "StageInfo(...)"),
    ("missing", "does not load: AttributeError", "fix that module"),
    # what the executor would reject on every run, read from the source (build() writes a
    # counted summary line; Out("done") leaves through a port the StageInfo does not declare)
    ("undeclared-summary", "does not declare emits_summaries=True", "add emits_summaries=True"),
    ("undeclared-port", "returns Out('done', ...) but declares ports ['out']", "add 'done' to its ports"),
])
def test_a_broken_user_stage_is_refused_naming_the_distribution_and_the_fix(site, key, problem, hint):
    """Each rule a user stage breaks is one error naming the entry point and distribution."""
    reg = _stages()
    with pytest.raises(StageLoadError) as err:
        reg.user(key)
    assert problem in err.value.problem, err.value.problem
    assert hint in err.value.hint
    assert f"entry point thresher.stages:{key} = " in err.value.problem
    assert "of demo-stages 0.1" in err.value.problem


def test_two_distributions_publishing_one_name_are_both_refused(site):
    """A name published twice is ambiguous: refused, naming both distributions."""
    _distribution(site, "other-stages", "[thresher.stages]\ndrop-debug = other_mod:STAGE\n")
    importlib.invalidate_caches()
    with pytest.raises(StageLoadError, match="several distributions.*demo-stages 0.1.*other-stages 0.1"
                       "|several distributions.*other-stages 0.1.*demo-stages 0.1"):
        _stages()["drop-debug"]


def test_built_in_graphs_never_scan_entry_points(site):
    """Start-up: compiling graphs of built-in stages leaves the entry points unscanned (no stamps)."""
    from thresher.dataflow.build import build_all
    from thresher.dataflow.plan import discover
    data = build_all(discover())
    assert data["plans"] and data["stamps"] == {}


def test_graph_check_reports_a_broken_user_stage_at_its_node(site, tmp_path):
    """`thresher graph check` names the graph file, line and node, the entry point and the fix."""
    graph = _graph(tmp_path, "loose")
    res = _thresher("graph", "check", str(graph))
    err = res.stdout.decode()
    assert res.returncode == 2
    assert f"{graph}:8: node 'user': entry point thresher.stages:loose" in err
    assert "of demo-stages 0.1" in err and "extra='forbid'" in err


def test_unknown_params_of_a_user_stage_are_refused(site, tmp_path):
    """The user's params model validates the graph's params like a built-in one."""
    graph = tmp_path / "demo.default.yaml"
    graph.write_text(GRAPH.replace("{stage: STAGE}", "{stage: drop-debug, params: {prefx: X}}"))
    res = _thresher("graph", "check", str(graph))
    assert res.returncode == 2 and "bad param prefx" in res.stdout.decode()
    assert "params of 'drop-debug': prefix" in res.stdout.decode()


def _user_graph(stage: str) -> None:
    folder = os.path.join(os.environ["THRESHER_CONFIG_HOME"], "graphs")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "generic.default.yaml"), "w") as fh:
        fh.write(GRAPH.replace("class: demo", "class: generic").replace("STAGE", stage))


LOG = b"".join(b"DEBUG step %d of the job, retrying the connection\n" % i for i in range(40)) + \
    b"INFO done: 3 files written\n"


def test_pipe_and_trace_run_a_user_stage(site):
    """A user graph naming the user stage: `pipe` drops the DEBUG lines with the count; `trace`
    shows the node applied."""
    _user_graph("drop-debug")
    res = _thresher("pipe", "--cmd", "myjob", stdin=LOG)
    out = res.stdout.decode()
    assert res.returncode == 0, res.stderr
    assert "[thresher: 40 debug lines not shown]" in out and "INFO done: 3 files written" in out
    assert "DEBUG step" not in out
    res = _thresher("trace", "--cmd", "myjob", stdin=LOG)
    assert res.returncode == 0, res.stderr
    row = next(line for line in res.stdout.decode().splitlines() if line.startswith("user "))
    assert "drop-debug" in row and "applied" in row


def test_thresher_check_passes_a_good_user_stage(site, tmp_path):
    """The harness applies every invariant to the user stage: a correct one passes all."""
    graph = _graph(tmp_path, "drop-debug")
    res = _thresher("check", str(graph), "--examples", "5", "--profile", "ci")
    assert res.returncode == 0, res.stdout.decode() + res.stderr.decode()
    assert "FAIL" not in res.stdout.decode() and "8 of 8 properties hold" in res.stdout.decode()


def test_a_fabricating_user_stage_is_caught_by_check_and_fails_open_at_run_time(site, tmp_path):
    """A stage that writes a line not in its input: `check` fails (the executor rejected it), and
    at run time its input passes on — the made-up line never reaches the agent."""
    graph = _graph(tmp_path, "fabricate")
    res = _thresher("check", str(graph), "--invariant", "STAGE", "--examples", "3", "--profile", "ci")
    out = res.stdout.decode()
    assert res.returncode == 1, out
    assert "stage 'user' (fabricate) was rejected: INV-3: wrote a line not in the input" in out
    _user_graph("fabricate")
    res = _thresher("pipe", "--cmd", "myjob", stdin=LOG)
    assert res.returncode == 0 and b"all tests passed" not in res.stdout
    assert b"INFO done: 3 files written" in res.stdout


def test_installing_a_distribution_later_rebuilds_the_cached_plans(site, tmp_path):
    """A graph naming a stage nobody provides yet fails; once a distribution publishing it is
    installed, the cached plans go stale and the graph compiles (no manual cache clearing)."""
    _user_graph("late-stage")
    show = _thresher("graph", "show", "--json")
    assert b"unknown stage 'late-stage'" in show.stdout
    _distribution(site, "late-stages", "[thresher.stages]\nlate-stage = demo_stages:LATE\n")
    with open(site / "demo_stages.py", "a") as fh:
        fh.write(textwrap.dedent('''
            LATE = StageInfo("late-stage", "distill", "demo_stages:run", "demo_stages:Params",
                             "demo", emits_summaries=True)
        '''))
    show = _thresher("graph", "show", "--json")
    assert b"late-stage" not in show.stdout, show.stdout.decode()
    res = _thresher("pipe", "--cmd", "myjob", stdin=LOG)
    assert b"[thresher: 40 debug lines not shown]" in res.stdout


def test_graph_stages_lists_user_stages_and_their_errors(site):
    """`thresher graph stages` lists built-in then user stages; a broken one with its error and
    the fix (a name clash included), and exits 2."""
    res = _thresher("graph", "stages", "--json")
    rows = json.loads(res.stdout)
    assert res.returncode == 2
    assert rows[0] == {**rows[0], "stage": "read", "origin": "built-in"}
    by = {(r["stage"], r["origin"]): r for r in rows}
    assert by[("drop-debug", "user")]["phase"] == "distill"
    assert "clashes with the built-in stage" in by[("trim", "user")]["error"]
    assert by[("trim", "built-in")]["impl"] == "thresher.stages.emit.trim:run"
    assert "extra='forbid'" in by[("loose", "user")]["hint"]


def test_the_editor_schema_knows_installed_user_stages_and_their_params(site):
    """`thresher graph schema` offers the user stage's name and validates its params."""
    import jsonschema
    import yaml
    res = _thresher("graph", "schema")
    validator = jsonschema.Draft202012Validator(json.loads(res.stdout))
    good = yaml.safe_load(GRAPH.replace("STAGE", "drop-debug"))
    assert not list(validator.iter_errors(good))
    good["nodes"]["user"]["params"] = {"prefx": "X"}
    assert list(validator.iter_errors(good))
    assert "loose" not in json.loads(res.stdout)["$defs"]["NodeSpec"]["properties"]["stage"]["enum"]
