"""``thresher check``: validates graph files, then property-tests them (run as a subprocess)."""

from __future__ import annotations

import subprocess
import sys

GOOD = """\
description: A user graph with no folding (trim only), checked by `thresher check`.
budget: {max_lines: 60, max_tokens: 2000}
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

BAD = """\
nodes:
  read: {stage: read}
  guard: {stage: gaurd}
edges:
  - read -> guard
"""


def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thresher", "check", *args],
                          capture_output=True, text=True, timeout=600)


def test_valid_graph_passes_every_property(tmp_path):
    """A valid graph that keeps the invariants: PASS per invariant and exit status 0."""
    graph = tmp_path / "mytool.default.yaml"
    graph.write_text(GOOD)
    res = _check(str(graph), "--examples", "5", "--profile", "ci")
    assert res.returncode == 0, res.stdout + res.stderr
    for inv in ("INV-1", "INV-2", "INV-3", "INV-4", "INV-5", "INV-6", "INV-9"):
        assert f"PASS  {graph}  {inv} " in res.stdout
    assert "FAIL" not in res.stdout


def test_invalid_graph_exits_2_naming_the_file_and_node(tmp_path):
    """A graph that does not validate: the error names file, line and node; exit status 2."""
    graph = tmp_path / "broken.default.yaml"
    graph.write_text(BAD)
    res = _check(str(graph))
    assert res.returncode == 2
    assert f"{graph}:3: node 'guard': unknown stage 'gaurd'" in res.stderr
    assert "PASS" not in res.stdout


def test_failing_property_exits_1_with_a_minimal_example(tmp_path):
    """A graph without Guard (and a budget of 6 lines that trim fills with head and tail) cuts the
    JSON documents and porcelain a program would parse: it fails INV-9 with a shortened example.
    (The failing case must be common, as this one is: the ci profile is derandomized, but
    Hypothesis draws from the literals of the source it runs, so the example sequence moves with
    any edit. A graph without Score breaks INV-6 only rarely: the executor's own error scan keeps
    most of a failing command's error lines whatever the graph.)"""
    graph = tmp_path / "lossy.default.yaml"
    graph.write_text(GOOD.replace("  guard: {stage: guard}\n", "")
                     .replace("  - read -> guard\n  - guard.verbatim -> persist\n  - guard -> score\n",
                              "  - read -> score\n")
                     .replace("budget: {max_lines: 60, max_tokens: 2000}", "budget: {max_lines: 6, max_tokens: 2000}"))
    res = _check(str(graph), "--invariant", "INV-9", "--examples", "30", "--profile", "ci")
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"FAIL  {graph}  INV-9 " in res.stdout
    assert "INV-9: the output is" in res.stdout and "minimal example: Case(" in res.stdout


def test_help_lists_the_invariants():
    """``--help`` explains the options and every invariant checked."""
    res = _check("--help")
    assert res.returncode == 0
    assert "--examples N" in res.stdout and "--profile" in res.stdout and "INV-9" in res.stdout


def test_unknown_invariant_is_a_usage_error(tmp_path):
    """Asking for an invariant that does not exist exits 2 and lists the known ones."""
    res = _check("--invariant", "INV-42")
    assert res.returncode == 2 and "INV-1" in res.stderr


def test_the_harness_is_a_base_dependency():
    """`thresher check` is a product feature: what thresher.property imports is installed with
    thresher itself, not only with the test extra (issue 19 item 9)."""
    import os
    import re

    import pytest
    tomllib = pytest.importorskip("tomllib")
    root = os.path.join(os.path.dirname(__file__), "..")
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        deps = {re.split(r"[<>=\[ ;]", d, maxsplit=1)[0] for d in tomllib.load(fh)["project"]["dependencies"]}
    assert "hypothesis" in deps
    res = _check("--help")
    assert res.returncode == 0 and "needs hypothesis" not in res.stderr
