"""Bounce-adaptive Route: a command family a scope often expands gets a gentler, bounded budget."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from thresher.dataflow.api import compress, handle_of
from thresher.dataflow.contract import MAX_BUDGET_FACTOR, scaled_budget
from thresher.stores import savings
from thresher.stores.db import MIGRATIONS, SCHEMA_VERSION, database
from thresher.stores.savings import ADAPT_MIN_PAYLOADS, budget_factor, load_events
from thresher.stores.sessions import PreviewLedger, SessionLedger

from .conftest import fixture_case

TH = [sys.executable, "-m", "thresher"]
LOG = fixture_case("git-log-default-huge")["stdout"].encode()  # a real `git log`, 1,427 lines


def _cli(*args: str, data: bytes = b"", scope: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "THRESHER_SESSION": scope} if scope else dict(os.environ)
    return subprocess.run(TH + list(args), input=data, capture_output=True, env=env)


def _history(scope: str, expand: int) -> None:
    """Four compressed `git log` payloads delivered to ``scope``, ``expand`` of them expanded."""
    lines = fixture_case("git-log-stat-huge")["stdout"].splitlines(keepends=True)
    for i in range(ADAPT_MIN_PAYLOADS):
        raw = "".join(lines[i * 50:i * 50 + 900]).encode()
        out = _cli("pipe", "--cmd", "git log --stat", data=raw, scope=scope).stdout
        assert b"thresher expand " + handle_of(raw).encode() in out  # compressed, with a footer
        if i < expand:
            assert _cli("expand", handle_of(raw), scope=scope).stdout == raw
    # compaction: the reader forgets what it was shown; its expansion history stays in the ledger
    assert _cli("session", "reset", "--scope", scope).returncode == 0


def _trace(scope: str) -> dict:
    res = _cli("trace", "--cmd", "git log", "--json", "--scope", scope, data=LOG)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def test_a_scope_that_expands_a_family_gets_more_of_its_output_deterministically():
    _history("often", expand=2)
    _history("rarely", expand=0)
    fresh, rarely, often = _trace("new"), _trace("rarely"), _trace("often")
    assert fresh["output"] == rarely["output"]  # nothing expanded: the graph's own budget
    assert rarely["trace"]["budget"]["factor"] == 1.0
    adapt = often["trace"]["budget"]
    assert adapt["family"] == "git log" and (adapt["payloads"], adapt["expanded"]) == (4, 2)
    assert adapt["factor"] == 2.0
    base = fresh["trace"]["budget"]
    assert adapt["max_lines"] == 2 * base["max_lines"]
    assert often["emission"]["kept"] > fresh["emission"]["kept"]
    assert often["emission"]["kept"] + often["emission"]["omitted"] == fresh["emission"]["total"]
    again = _trace("often")
    assert again["output"] == often["output"]  # same scope state → same bytes
    assert again["trace"]["budget"] == adapt  # and tracing recorded nothing


def test_the_trace_table_and_gain_show_the_decision():
    _history("s", expand=1)  # 1 of 4: a quarter → 1.5x
    table = _cli("trace", "--cmd", "git log", "--scope", "s", data=LOG).stdout.decode()
    assert "budget: ×1.5 for `git log` in this scope (1 of 4 compressed payloads expanded)" in table
    promised = _trace("s")["output"].encode()
    assert _cli("pipe", "--cmd", "git log", data=LOG, scope="s").stdout == promised
    event = load_events()[-1]
    assert event["tool"] == "git log" and event["budget_factor"] == 1.5
    gain = _cli("gain", "--no-exact").stdout.decode()
    section = gain[gain.index("bounce-adaptive budgets"):].splitlines()
    row = next(line.split() for line in section if line.strip().startswith("git log "))
    assert row[2:] == ["5", "1", "1", "x1.5"]  # 5 compressed, 1 expanded, 1 gentler, largest 1.5
    report = json.loads(_cli("gain", "--json", "--no-exact").stdout)
    assert {"key": "git log", "payloads": 5, "expanded": 1, "gentler": 1, "factor": 1.5} \
        in report["adaptive"]


def test_the_pipe_output_grows_with_the_factor_it_reports():
    plain = compress(LOG, command="git log", exit_code=0)
    _history("p", expand=2)
    res = compress(LOG, command="git log", exit_code=0, scope="p", ledger=SessionLedger())
    assert res.budget_factor == 2.0
    assert res.emission.kept > plain.emission.kept
    def kept(out: bytes) -> set[bytes]:  # the input lines shown (not the counted summaries)
        return {line for line in out.splitlines() if not line.startswith(b"[thresher:")}
    assert kept(plain.output) < kept(res.output)  # the same lines, and more


def test_no_scope_no_ledger_or_a_broken_ledger_means_the_graphs_own_budget(monkeypatch):
    _history("b", expand=2)
    plain = compress(LOG, command="git log", exit_code=0).output
    assert compress(LOG, command="git log", exit_code=0, scope="", ledger=SessionLedger()).output \
        == plain
    monkeypatch.setenv("THRESHER_NO_LEDGER", "1")
    assert compress(LOG, command="git log", scope="b", ledger=PreviewLedger()).output == plain
    monkeypatch.delenv("THRESHER_NO_LEDGER")

    def locked(*_a, **_k):
        raise sqlite3.OperationalError("database is locked")
    monkeypatch.setattr(savings, "family_counts", locked)
    res = compress(LOG, command="git log", exit_code=0, scope="b", ledger=PreviewLedger())
    assert res.output == plain and res.budget_factor == 1.0


class _Ledger(PreviewLedger):
    def __init__(self, factor) -> None:
        super().__init__()
        self.factor = factor

    def budget_adapt(self, scope, command):
        return {"family": "git log", "payloads": 9, "expanded": 9, "factor": self.factor}


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 50)))
def test_whatever_the_ledger_says_the_budget_stays_within_one_to_two_times(factor):
    plain = compress(LOG, command="git log", exit_code=0, trace=True)
    res = compress(LOG, command="git log", exit_code=0, scope="x", ledger=_Ledger(factor),
                   trace=True)
    base = plain.trace.to_dict()["stages"]
    caps = res.trace.to_dict()["budget"]
    assert 1.0 <= res.budget_factor <= MAX_BUDGET_FACTOR
    assert 400 <= caps["max_lines"] <= 800  # git-log.default: max_lines 400
    assert res.emission.kept >= plain.emission.kept and base
    assert res.emission.kept + res.emission.omitted == res.emission.total


@given(st.integers(0, 500), st.integers(0, 500))
def test_the_factor_is_a_bounded_step_function_of_the_counts(payloads, expanded):
    expanded = min(expanded, payloads)
    f = budget_factor(payloads, expanded)
    assert f in (1.0, 1.5, 2.0)
    if payloads < ADAPT_MIN_PAYLOADS:
        assert f == 1.0
    if expanded < payloads:
        assert budget_factor(payloads, expanded + 1) >= f  # more expansions: never tighter
    budget = {"max_lines": 7, "max_tokens": 99, "stage_ms": 5}
    scaled = scaled_budget(budget, f)
    assert scaled["max_lines"] >= 7 and scaled["max_tokens"] >= 99 and scaled["stage_ms"] == 5


def test_a_v3_database_upgrades_in_place_keeping_events_and_archive():
    path = os.path.join(os.environ["THRESHER_HOME"], "thresher.db")
    conn = sqlite3.connect(path)
    for script in MIGRATIONS[:3]:
        conn.executescript(script)
    now, handle = time.time(), handle_of(LOG)
    conn.execute("INSERT INTO archive (handle, data, size, stored, created, accessed, meta) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)", (handle, LOG, len(LOG), len(LOG), now, now,
                                                  repr({"command": "git log"})))
    conn.execute("INSERT INTO events (ts, command, tool, class, graph, role, stream, decision, "
                 "transforms, scope, handle, bytes_in, bytes_out, tokens_in, tokens_out, ms, "
                 "bounces) VALUES (1, 'git log', 'git log', 'git-log', 'git-log.default', "
                 "'default', 'stdout', 'compressed', 'trim', 'old', ?, 10, 5, 8, 4, 1.0, 1)",
                 (handle,))
    conn.execute("PRAGMA user_version = 3")
    conn.commit()
    conn.close()
    (event,) = load_events()
    assert event["command"] == "git log" and event["bounces"] == 1 and event["budget_factor"] == 1.0
    assert savings.family_counts("old", "git log") == (1, 1)
    from thresher.stores.search import ArchiveSearch
    (hit,) = ArchiveSearch().search("Grace Hopper", "old", 5)["results"]  # v5: searchable
    assert hit["handle"] == handle and hit["command"] == "git log" and hit["lines"]
    conn = database().connect()
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    plan = " ".join(str(r) for r in conn.execute(
        "EXPLAIN QUERY PLAN SELECT count(*) FROM events WHERE scope = 'old' AND tool = 'git log'"))
    assert "events_scope_tool" in plan  # one indexed range scan per payload


def test_only_the_latest_window_of_a_familys_payloads_counts():
    res = compress(LOG, command="git log", exit_code=0)
    assert res.emission.decision == "compressed"
    for i in range(savings.ADAPT_WINDOW + 10):
        savings.insert_event({**savings.event_row(res, LOG, command="git log", stream="stdout",
                                                  role="default", exit_code=0, scope="w",
                                                  measure_only=False, handle=f"{i:012x}"),
                              "bounces": int(i < 30)})
    savings.insert_event({**savings.event_row(res, LOG, command="git log", stream="stdout",
                                              role="default", exit_code=0, scope="w",
                                              measure_only=True, handle="f" * 12), "bounces": 1})
    # the 10 oldest (all expanded) fall out of the window; measure-only payloads never count
    assert savings.family_counts("w", "git log") == (savings.ADAPT_WINDOW, 20)
    assert savings.adapt("w", "git log --oneline")["factor"] == 1.5
    assert savings.adapt("w", "git status") == {"family": "git status", "payloads": 0,
                                                "expanded": 0, "factor": 1.0}
