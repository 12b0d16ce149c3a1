"""distill-pip on real pip / uv output: requested packages and errors kept, chatter counted exactly."""

from __future__ import annotations

import os
import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.executor import initial_payload
from thresher.stages.runners import distill_pip

from .conftest import CORPUS, fixture_case, load_cases

PARAMS = {"fold_warnings": 3}
SUMMARY_RE = re.compile(r"^\[thresher: pip: (.*) not shown\]$")


def _payload(case: dict, stream: str = "stdout"):
    return initial_payload(case[stream].encode(), command=case["command"],
                           argv=tuple(case["command"].split()), exit_code=case["exit_code"])


def _out(case: dict) -> str:
    """What the agent sees: each stream compressed (a failing command's stderr byte-exact)."""
    out = ""
    for stream in ("stdout", "stderr"):
        if case[stream]:
            failed_err = stream == "stderr" and case["exit_code"] not in (None, 0)
            out += case[stream] if failed_err else compress(
                case[stream], command=case["command"], exit_code=case["exit_code"], stream=stream).text
    return out


def _summary_total(out: str) -> int:
    line = next(x for x in out.splitlines() if SUMMARY_RE.match(x))
    return sum(int(n) for n in re.findall(r"(\d+) ", SUMMARY_RE.match(line)[1]))


def test_fresh_install_keeps_requested_packages_and_counts_the_rest():
    case = fixture_case("pip-install-fresh")
    view = distill_pip.run(_payload(case), PARAMS, None)
    out = "\n".join(view.lines)
    src = case["stdout"].splitlines()
    for line in src:
        if re.match(r"^(?:Collecting|Processing) [^()]+$|^Successfully installed |^Installing collected", line):
            assert line in view.lines, line
        if re.match(r"^(?:Collecting|Processing) .* \(from \w", line):
            assert line not in view.lines, line
    assert _summary_total(out) == len(src) - (len(view.lines) - 1)
    for fact in case["must_keep"]:
        assert fact in _out(case), fact


def test_repeated_warnings_fold_to_the_first_with_a_count():
    case = fixture_case("pip-install-fresh")
    view = distill_pip.run(_payload(case, "stderr"), PARAMS, None)
    warnings = [x for x in case["stderr"].splitlines() if x.startswith("WARNING: Location")]
    assert view.lines[0] == warnings[0]
    assert view.lines[1] == f"[thresher: pip: {len(warnings) - 1} similar warnings not shown]"


def test_already_satisfied_keeps_top_level_lines_only():
    case = fixture_case("pip-install-satisfied")
    view = distill_pip.run(_payload(case), PARAMS, None)
    kept = [x for x in view.lines if x.startswith("Requirement already satisfied")]
    assert kept == [x for x in case["stdout"].splitlines()
                    if x.startswith("Requirement already satisfied") and "(from " not in x]


@pytest.mark.parametrize("cid", ["pip-install-build-error", "pip-install-bad-version",
                                 "pip-install-nonexistent", "pip-uv-pip-install-unsat"])
def test_failing_installs_keep_every_error_line(cid):
    case = fixture_case(cid)
    out = _out(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    for line in (case["stdout"] + case["stderr"]).splitlines():
        if re.match(r"^\s*(?:ERROR|error|×|╰─>)", line):
            assert line in out, line


def test_uv_keeps_installed_rows_and_counts_downloads():
    case = fixture_case("pip-uv-pip-install")
    view = distill_pip.run(_payload(case, "stderr"), PARAMS, None)
    src = case["stderr"].splitlines()
    rows = [x for x in src if x.startswith(" + ")]
    assert [x for x in view.lines if x.startswith(" + ")] == rows
    downloads = [x for x in src if re.match(r"^\s*Download(?:ing|ed) ", x)]
    assert f"{len(downloads)} download lines" in view.lines[[i for i, o in enumerate(view.origin) if o < 0][0]]


def test_verbose_declines_and_other_shapes_decline():
    case = fixture_case("pip-install-fresh")
    assert distill_pip.run(_payload(dict(case, command="pip install -v sphinx")), PARAMS, None) is None
    for cid in ("git-status-long", "pytest-fail-verbose", "npm-test-node-fail"):
        assert distill_pip.run(_payload(fixture_case(cid)), PARAMS, None) is None, cid


def _corpus_pip() -> list[dict]:
    return [c for c in load_cases(os.path.join(CORPUS, "public")) if c["class"] == "pip"]


@pytest.mark.skipif(not _corpus_pip(), reason="shared corpus not present")
def test_corpus_pip_cases_keep_every_fact():
    for case in _corpus_pip():
        out = _out(case)
        missing = [f for f in case["must_keep"] if f not in out]
        assert not missing, (case["id"], missing[:2])


def test_declines_when_its_summary_would_outweigh_the_one_line_it_drops():
    """The minimal example `thresher check --profile ci` found on pip.default: one short
    `Downloading` line replaced by a longer summary would grow the view, so the stage declines
    (the executor used to reject it); with many such lines the counted view is smaller."""
    from thresher.dataflow.contract import Context
    ctx = Context({"max_lines": 200, "max_tokens": 5000}, None, "0" * 12, "t")
    text = "@@ -1,1 +1,1 @@ def run():\n Downloading 106670\n"
    payload = initial_payload(text.encode(), command="pip install x", argv=("pip", "install", "x"))
    assert distill_pip.run(payload, PARAMS, ctx) is None
    many = text + "".join(f"  Downloading pkg{i}-1.0-py3-none-any.whl (12 kB)\n" for i in range(20))
    payload = initial_payload(many.encode(), command="pip install x", argv=("pip", "install", "x"))
    view = distill_pip.run(payload, PARAMS, ctx)
    assert view is not None and view.tokens() < payload.tokens()
