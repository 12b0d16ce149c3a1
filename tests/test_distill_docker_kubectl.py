"""distill-docker (build bookkeeping gone, failing step whole), distill-kubectl (unhealthy rows kept),
and the log graph (error records, dpkg answers and the span of folded runs kept)."""

from __future__ import annotations

import os
import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.stages.runners import distill_docker
from thresher.stages.listings import distill_kubectl

from .conftest import CORPUS, fixture_case, load_cases, seen_by_agent

KUBE = {"healthy_label": "healthy row{s}"}


def _payload(case: dict, stream: str = "stdout", exit_code: int | None = None):
    code = case["exit_code"] if exit_code is None else exit_code
    return initial_payload(case[stream].encode(), command=case["command"],
                           argv=tuple(case["command"].split()), exit_code=code)


def test_buildkit_success_keeps_steps_and_result():
    case = fixture_case("docker-build-buildkit")
    view = distill_docker.run(_payload(case, "stderr"), {}, None)
    steps = [x for x in case["stderr"].splitlines() if re.match(r"^#\d+ \[\d+/\d+\] ", x)]
    assert [x for x in view.lines if re.match(r"^#\d+ \[\d+/\d+\] ", x)] == steps
    assert not any("sha256:" in x and "writing image" not in x for x in view.lines)
    summary = next(x for x in view.lines if x.startswith("[thresher: docker:"))
    counted = sum(int(n) for n in re.findall(r"(\d+) ", summary))
    assert counted == len(case["stderr"].splitlines()) - (len(view.lines) - 1)
    for fact in case["must_keep"]:
        assert fact in view.lines


@pytest.mark.parametrize("cid,stream", [("docker-build-buildkit-fail", "stderr"),
                                        ("docker-build-classic-fail", "stdout"),
                                        ("docker-build-missing-file", "stderr")])
def test_failing_build_keeps_the_failing_step_whole(cid, stream):
    case = fixture_case(cid)
    view = distill_docker.run(_payload(case, stream), {}, None)
    out = "\n".join(view.lines) if view is not None else case[stream]
    out += case["stderr" if stream == "stdout" else "stdout"]  # the other stream, untouched
    out = re.sub(r"\x1b\[[0-9;]*m", "", out)  # Read strips colours before any distiller runs
    for fact in case["must_keep"]:
        assert fact in out, fact
    if cid == "docker-build-buildkit-fail":
        failing = [x for x in case["stderr"].splitlines() if x.startswith("#9 ")]
        assert all(x in view.lines for x in failing)


def test_classic_build_drops_layer_bookkeeping():
    case = fixture_case("docker-build-classic")
    view = distill_docker.run(_payload(case), {}, None)
    assert not any(x.startswith((" ---> ", "Removing intermediate")) for x in view.lines)
    assert [x for x in view.lines if x.startswith("Step ")] == \
        [x for x in case["stdout"].splitlines() if x.startswith("Step ")]


@pytest.mark.parametrize("cid", ["docker-ps-all", "docker-images"])
def test_docker_listings_pass_whole(cid):
    case = fixture_case(cid)
    assert distill_docker.run(_payload(case), {}, None) is None
    assert compress(case["stdout"], command=case["command"], exit_code=0).output == case["stdout"].encode()


def test_docker_declines_other_output():
    for cid in ("pytest-fail-verbose", "npm-test-node-fail", "env-fake-secrets"):
        assert distill_docker.run(_payload(fixture_case(cid)), {}, None) is None, cid


def _ctx(max_lines: int) -> Context:
    return Context({"max_lines": max_lines, "max_tokens": 100000}, None, "0" * 12, "kubectl.default")


@pytest.mark.parametrize("cid", ["kubectl-get-pods", "kubectl-get-pods-all", "kubectl-get-pods-wide"])
def test_kubectl_get_within_budget_keeps_every_row(cid):
    case = fixture_case(cid)
    assert distill_kubectl.run(_payload(case), KUBE, _ctx(500)) is None
    assert compress(case["stdout"], command=case["command"], exit_code=0).output == case["stdout"].encode()


@pytest.mark.parametrize("cid", ["kubectl-get-pods", "kubectl-get-pods-all", "kubectl-get-pods-wide"])
def test_kubectl_get_over_budget_keeps_every_unhealthy_row(cid):
    case = fixture_case(cid)
    view = distill_kubectl.run(_payload(case), KUBE, _ctx(20))
    rows = case["stdout"].splitlines()
    kept = [x for x in view.lines if not x.startswith("[thresher:")]
    assert kept[0] == rows[0]
    for fact in case["must_keep"]:
        assert fact in kept, fact
    healthy = [r for r in rows[1:] if re.search(r"\s1/1\s+Running\s+0\s", r) or " Completed " in r]
    assert f"[thresher: kubectl: {len(healthy)} healthy rows not shown]" in view.lines
    assert len(kept) + len(healthy) == len(rows)


def test_kubectl_declines_describe_errors_and_other_tables():
    ctx = _ctx(5)
    for cid in ("kubectl-describe-crashloop", "kubectl-get-refused", "docker-ps-all", "ps-aux-many"):
        case = fixture_case(cid)
        stream = "stdout" if case["stdout"] else "stderr"
        assert distill_kubectl.run(_payload(case, stream), KUBE, ctx) is None, cid


def test_kubectl_describe_keeps_reasons_and_warnings():
    case = fixture_case("kubectl-describe-crashloop")
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_docker_logs_keep_error_and_span_of_folded_run():
    case = fixture_case("docker-logs-crash")
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    # the log graph groups the request lines by template: the shown ones plus the counted ones
    # are every line of the log, and the last entries before the crash are shown
    src = case["stdout"].splitlines()
    counted = sum(int(n) for n in re.findall(r"^\[thresher: (\d+) more lines? like the entry above",
                                             out, re.M))
    assert counted + sum(1 for line in out.splitlines() if line in src) == len(src)
    assert src[-2] in out and src[-1] in out


def _corpus_logs() -> list[dict]:
    return [c for c in load_cases(os.path.join(CORPUS, "public"))
            if c["class"] == "log" and c["id"] in ("log-dpkg", "log-postgres", "log-flaskr-app")]


@pytest.mark.skipif(not _corpus_logs(), reason="shared corpus not present")
def test_corpus_logs_keep_error_records_and_dpkg_answers():
    for case in _corpus_logs():
        out = seen_by_agent(case)
        missing = [f for f in case["must_keep"] if f not in out]
        assert not missing, (case["id"], missing[:2])
