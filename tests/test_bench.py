"""`thresher bench`: the scorer itself (missing facts, growth counted negative, verbatim byte-exact),
the arms (headtail, a real external shell command), and the CLI on real cases."""

from __future__ import annotations

import json
import os

import pytest
from .conftest import CORPUS, FIXTURES, fixture_case

from thresher.bench import arms as A
from thresher.bench.runner import arm_specs, run_bench
from thresher.bench.score import counter, payload, score

COUNT = counter("estimate")[1]


def _one(report: dict, arm: str) -> dict:
    return next(a for a in report["arms"] if a["arm"] == arm)


def test_a_fact_that_disappears_is_reported_missing():
    case = fixture_case("pytest-fail-quiet")
    fact = case["must_keep"][0]
    raw = payload(case)
    out = b"".join(line for line in raw.splitlines(keepends=True) if fact.encode() not in line)
    r = score(case, out, COUNT)
    assert r["missing"] == [fact]
    assert not r["ok"]
    kept = score(case, raw, COUNT)
    assert kept["missing"] == [] and kept["ok"]


def test_a_grown_output_counts_negative():
    case = fixture_case("pytest-fail-quiet")
    raw = payload(case)
    r = score(case, raw + raw, COUNT)
    assert r["grew"] and not r["ok"]
    assert r["saved"] == r["tokens_in"] - r["tokens_out"] < 0


def test_a_verbatim_case_with_one_changed_byte_fails():
    case = fixture_case("git-status-porcelain-own")
    assert case["verbatim"]
    raw = payload(case)
    changed = raw[:5] + bytes([raw[5] ^ 1]) + raw[6:]
    assert score(case, changed, COUNT)["verbatim_ok"] is False
    assert not score(case, changed, COUNT)["ok"]
    assert score(case, raw, COUNT)["verbatim_ok"] is True


def test_headtail_keeps_both_ends_and_counts_the_gap():
    data = b"".join(b"line %d\n" % i for i in range(200))
    out = A.headtail(data).splitlines()
    assert out[:40] == data.splitlines()[:40] and out[-40:] == data.splitlines()[-40:]
    assert out[40] == b"[... 120 lines omitted ...]"
    assert A.headtail(b"a\nb\n") == b"a\nb\n"


def test_cmd_arm_runs_a_real_shell_command_on_the_payload():
    case = fixture_case("pytest-fail-quiet")
    out, err = A.apply("cmd", "head -n 5", case)
    assert err == ""
    assert out == b"".join(payload(case).splitlines(keepends=True)[:5])
    seen, _ = A.apply("cmd", 'printf "%s|%s" "$THRESHER_BENCH_COMMAND" "$THRESHER_BENCH_EXIT_CODE"', case)
    assert seen.decode() == f"{case['command']}|{case['exit_code']}"
    _, err = A.apply("cmd", "cat >/dev/null; echo boom >&2; exit 3", case)
    assert err == "exit 3: boom"


def test_run_bench_reports_missing_growth_and_verbatim_through_external_arms():
    ids = ["pytest-fail-quiet", "git-status-porcelain-own"]
    report = run_bench([FIXTURES], ids=ids, tokenizer="estimate",
                       arms=["raw", "cmd:head -n 2", "cmd:sed p", "cmd:sed '1s/^./X/'"])
    raw, head, twice, sed = (_one(report, n) for n in
                             ("raw", "cmd:head -n 2", "cmd:sed p", "cmd:sed '1s/^./X/'"))
    assert raw["totals"]["passed"] == 2 and raw["totals"]["saved"] == 0 and not raw["failing"]
    missing = {f["id"]: f["missing"] for f in head["failing"]}
    assert "E       assert 4 == 5" in missing["pytest-fail-quiet"]
    assert twice["totals"]["grew"] == 2 and twice["totals"]["saved"] < 0
    assert twice["totals"]["pct"] < 0
    assert sed["totals"]["verbatim_failed"] == 1
    assert [f["id"] for f in sed["failing"] if f["verbatim_failed"]] == ["git-status-porcelain-own"]
    assert report["tokenizer"] == "estimate" and "estimator (--tokenizer estimate)" in report["tokenizer_note"]


def test_arm_specs_expand_roles_and_reject_unknown_arms():
    assert arm_specs(None, None) == [("raw", ""), ("headtail", ""), ("thresher", "default")]
    assert arm_specs(["thresher"], ["default", "ci"]) == [("thresher", "default"), ("thresher", "ci")]
    assert arm_specs(["thresher:ci", "cmd: wc -l"], None) == [("thresher", "ci"), ("cmd", "wc -l")]
    with pytest.raises(ValueError, match="cmd:"):
        arm_specs(["gzip"], None)


def _subset(folder: str, n: int) -> list[str]:
    names = sorted(f for f in os.listdir(folder) if f.endswith(".json"))
    step = max(len(names) // n, 1)
    return [json.load(open(os.path.join(folder, f), encoding="utf-8"))["id"] for f in names[::step][:n]]


@pytest.mark.parametrize("folder", [FIXTURES, os.path.join(CORPUS, "public"), os.path.join(CORPUS, "rtk")])
def test_cli_bench_on_a_subset_of_real_cases(folder, tmp_path, capsys):
    if not os.path.isdir(folder):
        pytest.skip(f"{folder} absent")
    from thresher.main import main
    ids = _subset(folder, 6)
    argv = [folder, "--json", str(tmp_path / "b.json"), "--html", str(tmp_path / "b.html"),
            "--progress"]
    for i in ids:
        argv += ["--case", i]
    assert main(["bench", *argv]) == 0
    out, err = capsys.readouterr()
    assert "per arm" in out and "per class" in out and "thresher" in out
    assert f"{len(ids)}/{len(ids)}" in err  # the progress bar reached the end
    report = json.loads((tmp_path / "b.json").read_text())
    assert report["case_count"] == len(ids) == len(report["cases"])
    assert [a["arm"] for a in report["arms"]] == ["raw", "headtail", "thresher"]
    for a in report["arms"]:
        t = a["totals"]
        assert t["cases"] == len(ids)
        assert t["saved"] == t["tokens_in"] - t["tokens_out"]
        assert t["passed"] == len(ids) - len({f["id"] for f in a["failing"]})
    assert _one(report, "raw")["totals"]["passed"] == len(ids)
    page = (tmp_path / "b.html").read_text()
    assert "<svg" in page and 'class="arm"' in page
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")


def test_cli_bench_markdown_and_usage_errors(tmp_path, capsys):
    from thresher.main import main
    assert main(["bench", FIXTURES, "--case", "pytest-fail-quiet", "--format", "markdown",
                 "--arm", "thresher", "--role", "ci", "--tokenizer", "estimate"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Generated ") and "| thresher:ci |" in out
    assert main(["bench", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["bench", FIXTURES, "--arm", "zip"]) == 2
    assert "unknown arm" in capsys.readouterr().err


def test_without_tiktoken_the_estimator_counts_and_the_report_says_so(monkeypatch):
    from thresher.bench import score as S
    from thresher.stores import savings
    monkeypatch.setattr(savings, "exact_encoder", lambda: None)
    monkeypatch.setattr(S, "_COUNTERS", {})
    name, count = S.counter("auto")
    assert name == "estimate" and count("hello world") > 0
    assert "not installed" in S.tokenizer_note(name, "auto")
    with pytest.raises(LookupError, match="thresher\\[bench\\]"):
        S.counter("cl100k")
    report = run_bench([FIXTURES], ids=["pytest-fail-quiet"], arms=["raw"])
    assert report["tokenizer"] == "estimate" and "not installed" in report["tokenizer_note"]


def test_workers_give_the_same_scores_as_one_process():
    ids = ["pytest-fail-quiet", "git-status-porcelain-own", "data-json-package-json-cat"]

    def strip(report):
        return [{k: v for k, v in a["totals"].items() if "ms" not in k} for a in report["arms"]]
    one = run_bench([FIXTURES], ids=ids, tokenizer="estimate")
    two = run_bench([FIXTURES], ids=ids, tokenizer="estimate", workers=2)
    assert strip(one) == strip(two) and one["case_count"] == 3
