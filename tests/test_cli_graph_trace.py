"""``thresher graph check|show|draw`` and ``thresher trace``, driven the way a user runs them."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap

import pytest

from thresher.dataflow.plan import load_plans
from thresher.dataflow.trace import DECISIONS
from thresher.main import main

GOOD = """\
    description: a project pytest graph
    nodes:
      read: {stage: read}
      guard: {stage: guard}
      score: {stage: score}
      trim: {stage: trim}
      route: {stage: route}
      persist: {stage: persist}
    edges:
      - read -> guard
      - guard.verbatim -> persist
      - guard -> score
      - score -> trim
      - trim -> route
      - route -> persist
"""

# name → (graph text, line, node, words the message must contain)
BROKEN = {
    "unknown-stage": ("""\
        nodes:
          read: {stage: read}
          squash: {stage: squash}
        edges:
          - read -> squash
        """, 3, "squash", ["unknown stage 'squash'", "known stages:", "collapse", "drop-noise"]),
    "unknown-port": ("""\
        nodes:
          read: {stage: read}
          guard: {stage: guard}
          persist: {stage: persist}
        edges:
          - read -> guard
          - guard.verbatim -> persist
          - guard.sideways -> persist
        """, 8, "guard", ["no output port 'sideways'", "its ports: out, verbatim"]),
    "backwards-phase": ("""\
        nodes:
          read: {stage: read}
          guard: {stage: guard}
          score: {stage: score}
          route: {stage: route}
          persist: {stage: persist}
        edges:
          - read -> guard
          - guard.verbatim -> persist
          - guard -> route
          - route -> score
          - score -> persist
        """, 11, "score", ["goes backwards in phase order", "route → score"]),
    "unreachable": ("""\
        nodes:
          read: {stage: read}
          guard: {stage: guard}
          persist: {stage: persist}
          lonely: {stage: score}
        edges:
          - read -> guard
          - guard.verbatim -> persist
          - guard -> persist
          - lonely -> persist
        """, 5, "lonely", ["unreachable from the entry node 'read'"]),
    "bad-param": ("""\
        nodes:
          read: {stage: read}
          collapse: {stage: collapse, params: {min_run: 1, min_rn: 3}}
        edges:
          - read -> collapse
        """, 3, "collapse", ["bad param min_run", "greater than or equal to 2", "bad param min_rn",
                             "params of 'collapse': exact_only, keep_last, min_run"]),
    "malformed-yaml": ("""\
        nodes:
          read: {stage: read
        edges: []
        """, 3, None, ["malformed YAML"]),
    "unknown-top-level-key": ("""\
        nodez:
          read: {stage: read}
        """, 1, None, ["nodez", "allowed top-level keys:", "edges", "extends"]),
}


def _write(folder, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _cli(args: list[str], cwd=None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thresher", *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=120)


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_graph_check_names_file_line_and_node_of_each_problem(case, tmp_path, capsys):
    text, line, node, words = BROKEN[case]
    path = _write(tmp_path, f"{case}.default.yaml", text)
    code, out, _ = _run(["graph", "check", path], capsys)
    assert code == 2
    assert f"{path}:{line}: " in out
    if node:
        assert f"node {node!r}" in out
    for word in words:
        assert word in out
    assert ": ok (" not in out


def test_graph_check_reports_a_cycle_with_its_nodes(tmp_path, capsys):
    path = _write(tmp_path, "cyc.default.yaml", """\
        nodes:
          read: {stage: read}
          guard: {stage: guard}
          collapse: {stage: collapse}
          trim: {stage: trim}
          persist: {stage: persist}
        edges:
          - read -> guard
          - guard.verbatim -> persist
          - guard -> collapse
          - collapse -> trim
          - trim -> collapse
        """)
    code, out, _ = _run(["graph", "check", path], capsys)
    assert code == 2
    assert out.startswith(path) and "cycle collapse -> trim -> collapse" in out
    assert "node 'trim'" in out


def test_graph_check_passes_good_files_and_resolves_extends_against_builtins(tmp_path, capsys):
    good = _write(tmp_path, "pytest.default.yaml", GOOD)
    role = _write(tmp_path, "pytest.ci.yaml", "extends: pytest.default\nbudget: {max_lines: 9}\n")
    other = _write(tmp_path, "log.ci.yaml", "extends: log.default\nparams: {collapse: {min_run: 4}}\n")
    code, out, _ = _run(["graph", "check", good, role, other], capsys)
    assert code == 0, out
    # pytest.ci extends the *given* pytest.default (6 nodes), not the built-in one (8 nodes).
    assert out.splitlines() == [f"{good}: ok (pytest.default, 6 nodes)",
                                f"{role}: ok (pytest.ci, 6 nodes)",
                                f"{other}: ok (log.ci, 11 nodes)"]  # log: + drop-noise, jsonl, templates, ledger


def test_graph_check_fails_when_any_file_is_bad_and_still_checks_the_rest(tmp_path, capsys):
    good = _write(tmp_path, "pytest.default.yaml", GOOD)
    bad = _write(tmp_path, "x.ci.yaml", "extends: nothing.here\n")
    code, out, err = _run(["graph", "check", bad, good], capsys)
    assert code == 2
    assert f"{bad}:1: extends unknown graph 'nothing.here'" in out
    assert f"{good}: ok (pytest.default, 6 nodes)" in out
    assert "1 of 2 file(s) have errors" in err


def test_graph_check_without_files_checks_every_discovered_graph(capsys):
    code, out, _ = _run(["graph", "check"], capsys)
    assert code == 0
    assert "pytest.default.yaml: ok (pytest.default, " in out
    assert "classify.yaml: ok (classify table," in out


def test_graph_show_lists_builtins_and_marks_a_project_override_as_winner(tmp_path):
    override = _write(tmp_path / ".thresher" / "graphs", "pytest.default.yaml", GOOD)
    untrusted = _cli(["graph", "show"], cwd=tmp_path).stdout.decode()
    assert "ignored, not trusted (1;" in untrusted and override in untrusted
    assert _cli(["trust", override], cwd=tmp_path).returncode == 0
    proc = _cli(["graph", "show"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0].split() == ["graph", "status", "origin", "nodes", "file"]
    rows = {ln.split()[0]: ln.split() for ln in lines[1:] if ln and not ln.startswith(" ")}
    for gid in ("generic.default", "generic.ci", "log.default", "git-status.default", "pytest.ci"):
        assert rows[gid][1:3] == ["ok", "built-in"]
    assert rows["pytest.default"] == ["pytest.default", "ok", "project", "6", override]
    below = lines[lines.index(next(ln for ln in lines if ln.startswith("pytest.default "))) + 1]
    assert below.split()[:2] == ["overrides", "built-in"]
    assert below.endswith(os.path.join("graphs", "pytest.default.yaml"))

    data = json.loads(_cli(["graph", "show", "--json"], cwd=tmp_path).stdout)
    entry = next(g for g in data["graphs"] if g["id"] == "pytest.default")
    assert (entry["origin"], entry["file"], entry["nodes"]) == ("project", override, 6)
    assert [o["origin"] for o in entry["overrides"]] == ["built-in"]
    assert data["errors"] == []


def test_graph_show_lists_the_errors_of_graphs_that_failed(tmp_path, capsys, monkeypatch):
    from thresher.filters import trust
    for name, text in (("log.default.yaml", "nodes:\n  read: {stage: reed}\nedges: []\n"),
                       ("bad.default.yaml", "nodes: [\n")):
        path = _write(tmp_path / ".thresher" / "graphs", name, text)
        trust.record(path, text.encode())  # trusted as they are: what is shown is what is used
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(["graph", "show"], capsys)
    assert code == 0
    row = next(ln for ln in out.splitlines() if ln.startswith("log.default "))
    assert row.split()[1:3] == ["ERROR", "project"]
    assert "errors (2):" in out
    assert "log.default.yaml:2: node 'read': unknown stage 'reed'" in out
    assert "bad.default.yaml:2: malformed YAML" in out


def test_graph_draw_by_id_and_by_file_in_both_formats(tmp_path, capsys):
    code, out, _ = _run(["graph", "draw", "pytest.default"], capsys)
    assert code == 0 and "flowchart TD" in out and 'n_guard -->|"verbatim"| n_persist' in out
    # Labels show only what the graph changed: the built-in graph sets score's regexes.
    score = load_plans().plans["pytest.default"]["nodes"]["score"]["params"]
    assert (f'n_score["score<br/>critical=[{len(score["critical"])} items], '
            f'not_critical=[{len(score["not_critical"])} items]"]') in out
    assert 'n_read["read"]' in out
    path = _write(tmp_path, "pytest.default.yaml", GOOD)
    code, out, _ = _run(["graph", "draw", path, "--format", "dot"], capsys)
    assert code == 0
    assert out.startswith('digraph "pytest.default" {') and out.count("[label=") == 6 + 1


def test_graph_draw_overlays_a_trace_of_the_input(tmp_path, capsys):
    # over the graph's budget (within it, rows differing only in numbers are kept whole)
    lines = [f"tests/test_m.py::test_{i} PASSED" for i in range(800)]
    lines += ["FAILED tests/test_m.py::test_x - assert 1 == 2", "==== 1 failed, 800 passed ===="]
    (tmp_path / "out.txt").write_text("\n".join(lines) + "\n")
    code, out, _ = _run(["graph", "draw", "pytest.default", "--input", str(tmp_path / "out.txt"),
                         "--trace-cmd", "pytest", "--exit-code", "1", "--format", "dot"], capsys)
    assert code == 0
    assert 'fillcolor="#d7f5d3"' in out             # an applied stage
    assert "applied ·" in out and "declined ·" in out
    assert "compressed" in out.splitlines()[1]      # the emission is in the graph's title


def test_graph_draw_of_an_unknown_or_broken_graph_exits_2(tmp_path, capsys):
    code, _, err = _run(["graph", "draw", "nosuch.graph"], capsys)
    assert code == 2 and "unknown graph 'nosuch.graph'" in err and "pytest.default" in err
    path = _write(tmp_path, "x.default.yaml", BROKEN["unknown-port"][0])
    code, _, err = _run(["graph", "draw", path], capsys)
    assert code == 2 and f"{path}:8: node 'guard'" in err
    code, _, err = _run(["graph", "draw", "pytest.default", "--trace-cmd", "pytest"], capsys)
    assert code == 2 and "--input" in err


def test_help_texts_explain_the_commands(capsys):
    code, out, _ = _run(["graph", "--help"], capsys)
    assert code == 0 and "check" in out and "show" in out and "draw" in out
    code, out, _ = _run(["graph", "draw", "--help"], capsys)
    assert code == 0 and "--trace-cmd" in out and "mermaid" in out
    code, out, _ = _run(["trace", "--help"], capsys)
    assert code == 0 and "--exit-code" in out and "--json" in out and "stdin" in out


@pytest.fixture
def failing_pytest_run(tmp_path) -> tuple[bytes, int, str]:
    """Real pytest output: 40 passing tests and one failing, run in a subprocess."""
    (tmp_path / "test_tiny.py").write_text(textwrap.dedent("""\
        import pytest

        @pytest.mark.parametrize("i", range(40))
        def test_ok(i):
            assert i >= 0

        def test_broken():
            assert 1 + 1 == 3, "arithmetic is off"
        """))
    cmd = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "test_tiny.py"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, timeout=120,
                          env={**os.environ, "PYTEST_ADDOPTS": ""})
    assert proc.returncode == 1, proc.stdout
    return proc.stdout, proc.returncode, "python -m pytest -v test_tiny.py"


def test_trace_json_on_real_pytest_output(failing_pytest_run, tmp_path):
    out, rc, cmd = failing_pytest_run
    proc = _cli(["trace", "--cmd", cmd, "--exit-code", str(rc), "--json"], cwd=tmp_path, stdin=out)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    # -v: the verbose graph (every test function keeps its row)
    assert data["graph"] == "pytest-verbose.default" and data["class"] == "pytest-verbose"
    assert "test_tiny.py::test_broken" in data["output"]
    assert "AssertionError: arithmetic is off" in data["output"]
    stages = data["trace"]["stages"]
    assert [s["node"] for s in stages][:3] == ["read", "guard", "score"]
    assert all(s["decision"] in DECISIONS for s in stages)
    assert any(s["decision"] == "applied" and s["lines_out"] < s["lines_in"] for s in stages)
    assert data["emission"] == data["trace"]["final"]
    assert data["emission"]["kept"] + data["emission"]["omitted"] == data["emission"]["total"]


def test_trace_table_on_real_pytest_output(failing_pytest_run, tmp_path):
    out, rc, cmd = failing_pytest_run
    proc = _cli(["trace", "--cmd", cmd, "--exit-code", str(rc), "--show-output"], cwd=tmp_path,
                stdin=out)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    lines = text.splitlines()
    assert lines[0] == "graph: pytest-verbose.default"
    assert lines[1].split()[:3] == ["node", "stage", "decision"]
    assert lines[2].split()[:2] == ["read", "read"]
    assert any(ln.startswith("emission: ") and "tokens" in ln for ln in lines)
    assert "test_tiny.py::test_broken" in text.split("---- output ----", 1)[1]


def test_trace_with_graph_file_role_and_class(tmp_path, capsys, monkeypatch):
    path = _write(tmp_path, "pytest.default.yaml", GOOD)
    (tmp_path / "in.txt").write_text("".join(f"line {i}\n" for i in range(300)))
    code, out, _ = _run(["trace", "--graph", path, "--input", str(tmp_path / "in.txt"), "--json"],
                        capsys)
    assert code == 0
    assert [s["node"] for s in json.loads(out)["trace"]["stages"]][:2] == ["read", "guard"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "in.txt").read_bytes())))
    code, out, _ = _run(["trace", "--class", "log", "--role", "ci", "--json"], capsys)
    assert code == 0 and json.loads(out)["graph"] == "log.default"
    code, _, err = _run(["trace", "--graph", "no.such", "--input", str(tmp_path / "in.txt")], capsys)
    assert code == 2 and "unknown graph" in err
