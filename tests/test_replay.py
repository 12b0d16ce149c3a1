"""`thresher replay`: transcript pairing, per-tool/command reports, nothing written, and the same
result from the process pool, Dask (local mode, a few hundred transcripts) and Ray (when installed)."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from thresher.bench import replay as R

from .conftest import FIXTURES, load_cases

TRANSCRIPTS = os.path.join(FIXTURES, "transcripts")
FIX = os.path.join(TRANSCRIPTS, "fix-failing-test.jsonl")


def _calls(path: str) -> list[dict]:
    items, bad = R.entries(path)
    assert bad == 0
    calls, unanswered = R.tool_calls(items)
    assert unanswered == 0
    return calls


def _uses(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [b for line in fh for b in (json.loads(line)["message"].get("content") or [])
                if isinstance(b, dict) and b.get("type") == "tool_use"]


def test_every_tool_use_is_paired_with_its_result():
    calls = _calls(FIX)
    uses = _uses(FIX)
    assert [c["id"] for c in calls] == [u["id"] for u in uses]
    assert [c["tool"] for c in calls] == [u["name"] for u in uses]
    assert {"Bash", "Read", "Grep"} <= {c["tool"] for c in calls}


def test_a_failing_bash_call_keeps_its_exit_code_and_output():
    failing = [c for c in _calls(FIX) if c["tool"] == "Bash" and c["is_error"]]
    assert failing, "the fixture has failing commands"
    for call in failing:
        case = R.bash_case(call)
        assert case["exit_code"] != 0
        assert not case["stdout"].startswith("Exit code")
        assert case["stdout"] in call["content"]
    pytest_run = next(R.bash_case(c) for c in failing if "pytest -v" in c["input"]["command"])
    assert pytest_run["exit_code"] == 1 and "FAILED" in pytest_run["stdout"]


def test_read_text_is_the_file_with_or_without_the_structured_result():
    call = next(c for c in _calls(FIX) if c["tool"] == "Read")
    text = R.read_text(call)
    assert text == call["structured"]["file"]["content"]
    assert R.read_text({**call, "structured": None}) == text  # gutter `     N→` stripped


def test_grep_calls_become_ripgrep_commands_of_the_search_class():
    from thresher.bench.arms import cached_plans
    for call in (c for c in _calls(FIX) if c["tool"] == "Grep"):
        command = R.grep_command(call["input"])
        assert command.startswith("rg ") and call["input"]["pattern"] in command
        assert cached_plans().classify(command) == "search"


def _tree_digest(folder: str) -> dict:
    out = {}
    for root, _, files in os.walk(folder):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out[os.path.join(root, f)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def test_replay_reports_per_tool_and_command_and_changes_nothing(isolated_home):
    home = str(isolated_home / "thresher_home")  # data: archive, ledgers (the cache may fill)
    before_t, before_h = _tree_digest(TRANSCRIPTS), _tree_digest(home)
    report = R.replay([TRANSCRIPTS], tokenizer="estimate")
    assert _tree_digest(TRANSCRIPTS) == before_t
    assert _tree_digest(home) == before_h  # no archive, ledger or session written
    measured = [c for p in R.transcript_files([TRANSCRIPTS]) for c in _calls(p)
                if c["tool"] in R.MEASURED]
    t = report["totals"]
    assert report["transcripts"] == 2 and t["events"] == len(measured)
    assert t["saved"] == t["tokens_in"] - t["tokens_out"]
    for table in ("by_tool", "by_command", "by_class"):
        rows = report[table]
        assert sum(r["events"] for r in rows) == t["events"]
        assert sum(r["saved"] for r in rows) == t["saved"]
    assert {r["key"] for r in report["by_tool"]} == {"Bash", "Read", "Grep"}
    keys = {r["key"] for r in report["by_command"]}
    assert {"git status", "python -m pytest", "Read *.py", "Grep content"} <= keys


def test_bad_lines_and_unanswered_calls_are_counted(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = open(FIX, encoding="utf-8").read().splitlines()
    path.write_text("\n".join(lines[:-1] + ["{not json", "[1, 2]"]) + "\n", encoding="utf-8")
    result = R.replay_file((str(path), "default", "estimate"))
    assert result["bad_lines"] == 2
    assert result["unanswered"] == 1  # the last tool_use lost its result
    assert len(result["events"]) == len(_calls(FIX)) - 1


def write_transcripts(folder, cases: list[dict], count: int) -> list[str]:
    """``count`` transcripts in the Claude Code format, each replaying 1-3 captured fixture cases
    as Bash calls (structured stdout/stderr on success, ``Exit code N`` content on failure)."""
    paths = []
    for i in range(count):
        entries = []
        for j in range(1 + i % 3):
            case = cases[(i * 7 + j) % len(cases)]
            tid = f"toolu_{i:04d}_{j}"
            entries.append({"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": case["command"]}}]}})
            text = "\n".join(s for s in (case["stdout"], case["stderr"]) if s)
            if case["exit_code"]:
                block = {"type": "tool_result", "tool_use_id": tid, "is_error": True,
                         "content": f"Exit code {case['exit_code']}\n{text}"}
                extra = {"toolUseResult": f"Error: Exit code {case['exit_code']}\n{text}"}
            else:
                block = {"type": "tool_result", "tool_use_id": tid, "content": text}
                extra = {"toolUseResult": {"stdout": case["stdout"], "stderr": case["stderr"]}}
            entries.append({"type": "user", "message": {"role": "user", "content": [block]}, **extra})
        path = os.path.join(folder, f"s{i:04d}.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(json.dumps(e) + "\n" for e in entries))
        paths.append(path)
    return paths


def _small_cases() -> list[dict]:
    cases = [c for c in load_cases(FIXTURES)
             if c["command"] and len(c["stdout"]) + len(c["stderr"]) < 20000]
    assert len(cases) > 20
    return cases


def _essentials(report: dict) -> dict:
    return {k: report[k] for k in ("transcripts", "totals", "by_tool", "by_command", "by_class")}


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    folder = tmp_path_factory.mktemp("transcripts")
    write_transcripts(str(folder), _small_cases(), 300)
    serial = R.replay([str(folder)], tokenizer="estimate")
    return str(folder), serial


def test_process_pool_matches_serial(many):
    folder, serial = many
    assert serial["transcripts"] == 300 and serial["totals"]["events"] == 600
    pooled = R.replay([folder], tokenizer="estimate", workers=2)
    assert _essentials(pooled) == _essentials(serial)
    assert [f["file"] for f in pooled["files"]] == [f["file"] for f in serial["files"]]


def test_dask_local_mode_matches_serial(many):
    pytest.importorskip("dask.bag")
    folder, serial = many
    report = R.replay([folder], tokenizer="estimate", engine="dask", workers=2)
    assert _essentials(report) == _essentials(serial)


def test_ray_local_mode_matches_serial(many):
    pytest.importorskip("ray")
    folder, serial = many
    report = R.replay([folder], tokenizer="estimate", engine="ray", workers=2)
    assert _essentials(report) == _essentials(serial)


def test_cli_replay_writes_json_and_a_table(tmp_path, capsys):
    from thresher.main import main
    assert main(["replay", TRANSCRIPTS, "--json", str(tmp_path / "r.json"), "--tokenizer",
                 "estimate", "--top", "5"]) == 0
    out = capsys.readouterr().out
    assert "per tool" in out and "per command (top 5" in out and "Nothing was changed" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["totals"]["events"] > 0 and report["tokenizer"] == "estimate"
    assert main(["replay", str(tmp_path / "absent.jsonl")]) == 2
    assert "no transcript" in capsys.readouterr().err


@pytest.mark.parametrize("via_config_dir", [False, True])
def test_cli_replay_without_a_path_finds_claude_codes_transcripts(tmp_path, capsys, monkeypatch,
                                                                   via_config_dir):
    import shutil
    from thresher.main import main
    base = tmp_path / ("cfg" if via_config_dir else "home/.claude")
    for project, name in (("-home-me-app", "fix-failing-test.jsonl"),
                          ("-home-me-lib", "explore-thresher.jsonl")):
        (base / "projects" / project).mkdir(parents=True)
        shutil.copy(os.path.join(TRANSCRIPTS, name), base / "projects" / project / name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if via_config_dir:
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(base))
    else:
        monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert main(["replay", "--tokenizer", "estimate", "--json", str(tmp_path / "r.json")]) == 0
    captured = capsys.readouterr()
    assert f"found 2 transcript(s) of 2 project(s) under {base / 'projects'}" in captured.err
    assert "per project" in captured.out
    report = json.loads((tmp_path / "r.json").read_text())
    assert sorted(r["key"] for r in report["by_project"]) == ["-home-me-app", "-home-me-lib"]
    assert sum(r["events"] for r in report["by_project"]) == report["totals"]["events"]


def test_cli_replay_without_a_path_says_where_it_looked(tmp_path, capsys, monkeypatch):
    from thresher.main import main
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "nowhere"))
    assert main(["replay"]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "nowhere" / "projects") in err and "CLAUDE_CONFIG_DIR" in err
