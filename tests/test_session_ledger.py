"""The session ledger and the Ledger stage: fold only what *this* reader was delivered."""

from __future__ import annotations

import random
import re
import subprocess
import sys

from thresher.cmd_expand import select
from thresher.dataflow.api import compress
from thresher.stores.archive import default_archive
from thresher.stores.sessions import (DELIVERED_CHARS, SessionLedger, drop_scope, make_scope,
                                      scope_from_env, scope_from_hook)

SHOWN = re.compile(r"^\[thresher: (\d+) lines already shown above · thresher expand "
                   r"([0-9a-f]+) --lines (\d+)-(\d+)\]$")


def _output(n: int = 200, seed: int = 1, error: bool = True) -> bytes:
    """A generic tool output: distinct lines (nothing for collapse to fold), an error at the end."""
    rng = random.Random(seed)
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    lines = [" ".join(rng.choice(words) for _ in range(8)) + f" {i * 7}" for i in range(n)]
    if error:
        lines.append("ERROR: connection refused on port 5432")
    return ("\n".join(lines) + "\n").encode()


def _run(raw: bytes, scope: str, exit_code: int = 1, ledger=None):
    ledger = SessionLedger() if ledger is None else ledger
    return compress(raw, command="mytool run", exit_code=exit_code, scope=scope, ledger=ledger)


def _markers(text: str) -> list[re.Match]:
    return [m for m in map(SHOWN.match, text.splitlines()) if m]


def test_a_repeated_block_becomes_one_marker_that_expands_to_exactly_those_lines():
    raw = _output()
    first = _run(raw, "s1")
    assert not _markers(first.text)
    second = _run(raw, "s1")
    marks = _markers(second.text)
    assert marks and second.emission.decision == "compressed"
    original = default_archive().get(marks[0][2])
    for m in marks:
        n, a, b = int(m[1]), int(m[3]), int(m[4])
        block = select(original, f"{a}-{b}", None, False)[0].decode().splitlines()
        assert len(block) == n == b - a + 1
        assert all(line in first.text.splitlines() for line in block)  # really delivered before
    assert "ERROR: connection refused on port 5432" in second.text  # error lines never fold
    assert len(second.output) < len(first.output)


def test_other_readers_scopes_and_sessions_get_everything():
    raw = _output()
    _run(raw, make_scope("s1"))
    for scope in (make_scope("s1", "subagent-a"), make_scope("s2"), ""):
        assert not _markers(_run(raw, scope).text), scope


def test_after_reset_nothing_is_folded():
    raw = _output()
    _run(raw, "s1")
    drop_scope("s1")
    assert not _markers(_run(raw, "s1").text)


def test_reset_of_a_session_can_include_its_agents():
    raw = _output()
    _run(raw, "s1/agent")
    drop_scope("s1", subscopes=True)
    assert not _markers(_run(raw, "s1/agent").text)


def test_small_outputs_are_never_folded():
    raw = _output(n=20)
    _run(raw, "s1", exit_code=0)
    _run(raw, "s1", exit_code=0)
    assert not _markers(_run(raw, "s1", exit_code=0).text)


def test_critical_lines_are_never_folded_even_when_repeated():
    errors = [f"src/mod{i}.py:{i}: error: name 'x{i}' is not defined" for i in range(60)]
    raw = ("\n".join(errors + [f"note {i} " * 6 for i in range(60)]) + "\n").encode()
    _run(raw, "s1")
    again = _run(raw, "s1")
    for line in errors:
        assert line in again.text


def test_only_what_fits_in_what_an_agent_reads_counts_as_delivered():
    ledger = SessionLedger()
    long = [f"{i:06d} " + "x" * 200 for i in range(400)]  # ~82,000 characters
    ledger.record("s1", long)
    from thresher.dataflow.blocks import block_keys
    keys = [k for _, k in block_keys(long)]
    known = ledger.known("s1", keys)
    assert 0 < len(known) < len(keys)
    fit = DELIVERED_CHARS // (len(long[0]) + 1)  # whole lines within the cap
    assert {k for s, k in block_keys(long) if s + 6 <= fit} == known


class _FixedLedger:
    """A read-only ledger with a fixed state, to check determinism given the scope state."""

    def __init__(self, known: set[int]) -> None:
        self.keys = known

    def known(self, scope, keys):
        return self.keys & set(keys)

    def record(self, scope, lines):
        pass


def test_output_is_deterministic_given_the_scope_state():
    raw = _output()
    from thresher.dataflow.blocks import block_keys
    lines = raw.decode().splitlines()
    state = {k for _, k in block_keys(lines[:120])}
    outs = {_run(raw, "s1", ledger=_FixedLedger(state)).output for _ in range(3)}
    assert len(outs) == 1 and _markers(outs.pop().decode())


class _BrokenLedger:
    def known(self, scope, keys):
        raise RuntimeError("ledger down")

    def record(self, scope, lines):
        raise RuntimeError("ledger down")


def test_a_failing_ledger_never_fails_the_output():
    raw = _output()
    res = compress(raw, command="mytool run", exit_code=1, scope="s1", ledger=_BrokenLedger(),
                   trace=True)
    assert res.output == raw  # 201 lines fit the budget: nothing to do, and nothing lost
    ledger_rec = next(r for r in res.trace.records if r["stage"] == "ledger")
    assert ledger_rec["decision"] == "failed" and "ledger down" in ledger_rec["reason"]


def test_scope_from_environment_and_hook_input():
    assert scope_from_env({"THRESHER_SESSION": "abc"}) == "abc"
    assert scope_from_env({"THRESHER_SESSION": "abc", "THRESHER_AGENT": "t1"}) == "abc/t1"
    assert scope_from_env({"THRESHER_AGENT": "t1"}) == ""
    assert scope_from_hook({"session_id": "abc", "agent_id": "x"}) == "abc/x"


def _pipe(raw: bytes, env: dict) -> str:
    import os
    res = subprocess.run([sys.executable, "-m", "thresher", "pipe", "--cmd", "mytool run",
                          "--exit-code", "1"], input=raw, capture_output=True,
                         env={**os.environ, **env})
    assert res.returncode == 0
    return res.stdout.decode()


def test_pipe_folds_per_session_and_session_reset_drops_the_scope():
    raw = _output()
    env = {"THRESHER_SESSION": "cli-session"}
    _pipe(raw, env)
    assert _markers(_pipe(raw, env))
    assert not _markers(_pipe(raw, {**env, "THRESHER_AGENT": "sub"}))
    assert not _markers(_pipe(raw, {**env, "THRESHER_NO_LEDGER": "1"}))
    import os
    reset = subprocess.run([sys.executable, "-m", "thresher", "session", "reset"],
                           env={**os.environ, **env}, capture_output=True, text=True)
    assert reset.returncode == 0 and "cli-session" in reset.stdout
    assert not _markers(_pipe(raw, env))
