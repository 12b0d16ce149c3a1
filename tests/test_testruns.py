"""Verbose test runs (pytest -v, xdist, unittest -v, go test -v): passing rows fold per file,
module or package; every other row, the failures and the summary stay.

The fixtures are real runs of other projects' suites (benchmarks/capture_testruns.py). The rows
are recounted here from the raw output with this file's own definitions, not the stages' regexes.
"""

from __future__ import annotations

import os
import re

import pytest

from thresher.dataflow.tokens import estimate

from .conftest import CORPUS, fixture_case, seen_by_agent

FIXTURES = ["pytest-sdist-cachetools-verbose", "pytest-sdist-toolz-verbose-skip",
            "pytest-sdist-toolz-verbose-fail", "pytest-sdist-cachetools-xdist-fail",
            "unittest-sdist-idna-verbose", "unittest-sdist-simplejson-verbose",
            "unittest-sdist-cachetools-verbose-fail", "go-deb-humanize-verbose", "go-deb-uuid-verbose",
            "go-deb-three-verbose-fail"]
CORPUS_CASES = [os.path.join(CORPUS, "public", f"{c}.json") for c in ("pytest-pass-verbose", "unittest-verbose")]

MARKER = re.compile(r"^\[thresher: (?P<n>\d+) more (?P<what>PASSED|SUBPASSED|ok|--- PASS) rows of "
                    r"(?P<group>\S+) not shown\]$")


VERDICTS = ("PASSED", "SUBPASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS")


def _pytest_row(line: str):
    """``(verdict, file)`` of a pytest -v row (plain or xdist), else ``None``."""
    text = re.sub(r"\[\s*\d+%\]", "", line).strip()
    words = text.split() or [""]
    if words[0].startswith("[gw") and len(words) >= 3:    # [gw0] VERDICT id
        verdict, ident = words[1].split("(")[0], words[2]
    elif "::" in words[0] and len(words) >= 2:           # id VERDICT, or id VERDICT (reason)
        ident = words[0]
        verdict = next((w for w in reversed(words[1:]) if w in VERDICTS), "")
    else:
        return None
    return (verdict, ident.split("::")[0]) if "::" in ident and verdict in VERDICTS else None


def _rows(case: dict):
    """Every test row of the raw run: ``(line index, verdict, group, line)``; the group is what
    the stage's counted line names (file, module, package)."""
    cls = case["class"]
    lines = (case["stdout"] + case["stderr"]).splitlines()
    rows = []
    if cls == "pytest":
        for i, line in enumerate(lines):
            if line.startswith("=") and "FAILURES" in line or "short test summary" in line:
                break
            r = _pytest_row(line)
            if r:
                rows.append((i, r[0], r[1], line))
    elif cls == "unittest":
        for i, line in enumerate(lines):
            if " ... " not in line:
                continue
            m = re.match(r"^(\w+) \(([\w.]+)\) \.\.\. ", line)   # or a docstring under its name line
            m = m or (i > 0 and re.fullmatch(r"(\w+) \(([\w.]+)\)", lines[i - 1]))
            if not m:
                continue
            where = m[2][:-len(m[1]) - 1] if m[2].endswith("." + m[1]) else m[2]
            verdict = line.rsplit(" ... ", 1)[1]
            rows.append((i, "ok" if verdict == "ok" else verdict, where.rsplit(".", 1)[0], line))
    else:
        pending = []
        for i, line in enumerate(lines):
            words = line.split()
            if words[:1] in (["ok"], ["FAIL"]) and len(words) > 1:
                rows += [(k, v, words[1], ln) for k, v, ln in pending]
                pending = []
            elif line.lstrip().startswith("--- "):
                pending.append((i, line.split()[1].rstrip(":"), line))
    return rows


def _view(case: dict) -> str:
    return seen_by_agent(case)


@pytest.mark.parametrize("cid", FIXTURES)
def test_every_fact_survives_and_the_run_shrinks(cid):
    case = fixture_case(cid)
    out = _view(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    raw = estimate(case["stdout"] + case["stderr"])
    # measured side by side: a verbose run loses its passing rows, so well under half of raw
    assert estimate(out) < 0.6 * raw, (estimate(out), raw)


@pytest.mark.parametrize("cid", FIXTURES)
def test_every_row_that_is_not_a_pass_stays(cid):
    case = fixture_case(cid)
    out = _view(case).splitlines()
    rows = _rows(case)
    assert rows, "the recount found no rows: the fixture is not a verbose run"
    for _, verdict, _, line in rows:
        if verdict not in ("PASSED", "SUBPASSED", "ok", "PASS"):
            assert line in out, line


def _recount(case: dict, out: list[str]) -> int:
    """Check every counted line against the raw rows; return how many there were."""
    passing = {"PASSED": "PASSED", "SUBPASSED": "SUBPASSED", "ok": "ok", "PASS": "--- PASS"}
    groups: dict[tuple[str, str], list[str]] = {}
    for _, verdict, group, line in _rows(case):
        if verdict in passing:
            groups.setdefault((passing[verdict], group), []).append(line)
    markers = 0
    for k, line in enumerate(out):
        m = MARKER.match(line)
        if not m:
            continue
        markers += 1
        members = groups.pop((m["what"], m["group"]))
        # go's rows do not name their package (which closes the block): look only up to it
        end = next((j for j in range(k, len(out)) if case["class"] == "go"
                    and re.match(r"(?:ok|FAIL)\s+\S", out[j])), len(out))
        region = out[k - 1:end]
        shown = [row for row in members if row in region]
        # the group's first row stays, just above its counted line; shown + counted == all its rows
        assert out[k - 1] == members[0]
        assert len(shown) + int(m["n"]) == len(members), (m["group"], len(shown), m["n"], len(members))
    return markers


@pytest.mark.parametrize("cid", FIXTURES)
def test_counted_lines_recount_from_the_input(cid):
    case = fixture_case(cid)
    assert _recount(case, _view(case).splitlines()) >= 1


@pytest.mark.parametrize("path", CORPUS_CASES, ids=os.path.basename)
def test_corpus_verbose_runs_fold_with_exact_counts(path):
    if not os.path.exists(path):
        pytest.skip("shared corpus not present")
    import json
    with open(path, encoding="utf-8") as fh:
        case = json.load(fh)
    out = _view(case)
    assert all(fact in out for fact in case["must_keep"])
    assert _recount(case, out.splitlines()) >= 3
    assert estimate(out) < 0.2 * estimate(case["stdout"] + case["stderr"])


def test_collect_only_listing_stays_whole():
    """pytest --collect-only is an enumeration: every id is the answer, nothing folds."""
    path = os.path.join(CORPUS, "public", "pytest-collect-only.json")
    if not os.path.exists(path):
        pytest.skip("shared corpus not present")
    import json
    with open(path, encoding="utf-8") as fh:
        case = json.load(fh)
    out = _view(case)
    ids = [line for line in case["stdout"].splitlines() if "::" in line]
    assert ids and all(i in out for i in ids) and not MARKER.search(out)
