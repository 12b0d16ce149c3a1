"""Error lines of every language (issue 16 #8): one engine definition, an independent oracle.

The engine's definition (``dataflow/errorscan.py``: ERROR_RE for Score and the fallback view, the
core scan for INV-6) and the property oracle's own (``property/oracle.py``: ERROR_SHAPES) are
checked against each other on real outputs: every line the oracle calls an error the engine
protects too, and the oracle sees exception lines an older Score regex missed.
"""

from __future__ import annotations

import glob
import json
import os
import re
import types

import pytest

from thresher.dataflow.errorscan import CORE_ERROR_RE, ERROR_RE, is_error_line
from thresher.dataflow.plan import load_plans
from thresher.property import invariants as inv
from thresher.property.oracle import is_error
from thresher.property.strategies import Case

from .conftest import FIXTURES, fixture_case, seen_by_agent

TRACES = ["java-caused-by-handled", "java-caused-by-uncaught", "go-panic-recovered", "node-typeerror",
          "python-chained-valueerror"]

# Score's error regex before issue 16: no exception named at a line's start, no `Caused by`
OLD_ERROR_RE = re.compile(
    r"(?i)(?:\b(?:error|errors|fatal|panic(?:ked)?|exception|traceback|segmentation fault|"
    r"core dumped|abort(?:ed)?|denied|refused|cannot|could not|couldn't|unable to|not found|"
    r"no such file|undefined reference|fail(?:ed|ure|ures|ing|s)?|assert(?:ion)?\w*|"
    r"timed? ?out|killed|oomkilled|crashloopbackoff|invalid|unexpected)\b|"
    r"^E\s|^\s*\^+\s*$|^FAILED |^ERROR |^\s*File \".*\", line \d+)")


@pytest.mark.parametrize("cid", TRACES)
def test_error_reports_of_every_language_survive_a_long_output(cid):
    """Java causes, Go panics, Node and Python exceptions in the middle of 500 distinct lines are
    kept byte-exact, on a failing command and on one that handled the error (exit 0), while the
    output shrinks."""
    case = fixture_case(cid)
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out.splitlines(), fact
    assert len(out) < len(case["stdout"] + case["stderr"]) * 0.7


def test_the_oracle_sees_exception_lines_the_old_score_regex_missed():
    """The oracle's own shapes catch lines the old shared regex did not: an INV-6 check built on
    that regex could not have seen them lost."""
    lines = [f for cid in TRACES for f in fixture_case(cid)["must_keep"]]
    missed = [line for line in lines if not OLD_ERROR_RE.search(line)]
    assert missed and all(is_error(line) for line in missed)
    assert all(ERROR_RE.search(line) for line in lines)


def test_inv6_flags_a_lost_cause_line():
    """check_error_lines_kept fails an emission that drops a Java ``Caused by:`` line."""
    case = fixture_case("java-caused-by-uncaught")
    raw = (case["stdout"] + case["stderr"]).encode()
    dropped = b"\n".join(x for x in raw.split(b"\n") if not x.startswith(b"Caused by: "))
    out = types.SimpleNamespace(output=dropped)
    with pytest.raises(AssertionError, match="INV-6: error line 'Caused by: "):
        inv.check_error_lines_kept(Case(raw, case["command"], 1), out, load_plans().plans["generic.default"])


def test_every_oracle_error_line_is_one_the_engine_protects():
    """On every fixture line: an oracle error line is an engine error line (Score's regex or the
    core scan), so INV-6 as the oracle checks it is a promise the engine makes."""
    bad = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.json"))):
        with open(path, encoding="utf-8") as fh:
            case = json.load(fh)
        for line in (case.get("stdout", "") + "\n" + case.get("stderr", "")).splitlines():
            if is_error(line) and not (is_error_line(line) or CORE_ERROR_RE.search(line, 0, 4096)):
                bad.append(line)
    assert not bad, bad[:5]


@pytest.mark.parametrize("line", ["    ^^^^^^^^^^^^", "   ^"])
def test_a_caret_line_is_not_an_error_line(line):
    """A caret only points into the code line above it."""
    assert not is_error_line(line) and not is_error(line)
