"""``thresher.boundary.deliver``: the one boundary of run, pipe and the hook, and one store
transaction per payload (archive + session-ledger delivery + savings event), committed before
the output that names the archived original (INV-7: when it fails, the bytes go out)."""

from __future__ import annotations

import io
import os
import sqlite3
import sys

from thresher.boundary.deliver import deliver
from thresher.dataflow.api import handle_of
from thresher.stores.archive import default_archive
from thresher.stores.db import database
from thresher.stores.savings import load_events
from thresher.stores.sessions import SessionLedger

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "pytest-fail-verbose.txt")
COMMAND = "python -m pytest -v"


def _example() -> bytes:
    with open(EXAMPLE, "rb") as fh:
        return fh.read()


class Statements:
    """Every SQL statement the process's connection runs (sqlite3's trace callback)."""

    def __init__(self) -> None:
        self.log: list[str] = []
        database().connect().set_trace_callback(self.log.append)

    def write_transactions(self) -> int:
        return sum(1 for s in self.log if s.startswith("BEGIN"))

    def writes_outside_a_transaction(self) -> list[str]:
        inside, found = False, []
        for s in self.log:
            if s.startswith("BEGIN"):
                inside = True
            elif s in ("COMMIT", "ROLLBACK"):
                inside = False
            elif not inside and not s.lstrip().upper().startswith(("SELECT", "PRAGMA")):
                found.append(s)
        return found


def _hold_lock() -> sqlite3.Connection:
    database().connect()
    holder = sqlite3.connect(os.path.join(os.environ["THRESHER_HOME"], "thresher.db"),
                             isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def test_a_payload_is_one_store_transaction(monkeypatch):
    monkeypatch.setenv("THRESHER_SESSION", "one-txn")
    data = _example()
    deliver(data, command=COMMAND, exit_code=1)  # warm: plans compiled, schema created
    sql = Statements()
    done = deliver(data + b"one more line\n", command=COMMAND, exit_code=1)
    assert sql.write_transactions() == 1, sql.log
    assert sql.writes_outside_a_transaction() == []
    handle = handle_of(data + b"one more line\n")
    assert done.output != data and f"thresher expand {handle}".encode() in done.output
    # all three writes of the payload are in: the original, its event, its delivery
    assert default_archive().get(handle) == data + b"one more line\n"
    assert [e["handle"] for e in load_events()][-1] == handle
    lines = done.output.decode().splitlines()
    from thresher.dataflow.blocks import block_keys
    keys = [k for _, k in block_keys(lines)]
    assert keys and SessionLedger().known("one-txn", keys) == set(keys)


def test_the_pipe_face_writes_one_transaction_per_payload(monkeypatch):
    from thresher import cmd_pipe
    monkeypatch.setenv("THRESHER_SESSION", "pipe-txn")
    data = _example()

    def pipe(payload: bytes) -> bytes:
        out = io.BytesIO()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload)))
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out))
        assert cmd_pipe.main(["--cmd", COMMAND, "--exit-code", "1"]) == 0
        sys.stdout.flush()
        return out.getvalue()

    pipe(data)
    sql = Statements()
    out = pipe(data.replace(b"FAILED", b"FAILED ", 1))
    assert sql.write_transactions() == 1, sql.log
    assert b"thresher expand" in out


def test_the_hook_writes_one_transaction_per_payload(session_env):
    from thresher.integrations.claude_post import compress_for_agent
    text = _example().decode()
    data = {"session_id": "hook-txn", "cwd": str(session_env["proj"])}
    compress_for_agent(text, COMMAND, data, {})
    sql = Statements()
    out = compress_for_agent(text + "and one more\n", COMMAND, data, {})
    assert sql.write_transactions() == 1, sql.log
    assert out is not None and "thresher expand" in out


def test_measure_only_is_one_transaction_and_emits_the_bytes(monkeypatch):
    monkeypatch.setenv("THRESHER_MEASURE_ONLY", "1")
    data = _example()
    deliver(data, command=COMMAND, exit_code=1)
    sql = Statements()
    done = deliver(data + b"x\n", command=COMMAND, exit_code=1)
    assert done.output == data + b"x\n" and done.measuring
    assert sql.write_transactions() == 1, sql.log
    assert load_events()[-1]["measure_only"] == 1


def test_a_failed_commit_emits_the_bytes_and_records_nothing(monkeypatch):
    """INV-7: the handle is named only once its original is stored."""
    monkeypatch.setenv("THRESHER_SESSION", "locked")
    data = _example()
    holder = _hold_lock()
    try:
        done = deliver(data, command=COMMAND, exit_code=1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.output == data and done.result is None
    assert load_events() == []


def test_a_binary_payload_whose_commit_fails_is_still_one_line():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    png += bytes(range(256)) * 8
    holder = _hold_lock()
    try:
        done = deliver(png, command="cat logo.png")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.output.startswith(b"[thresher: binary output not shown: PNG image")
    assert b"not archived" in done.output and png not in done.output
    ok = deliver(png, command="cat logo.png")
    assert f"thresher expand {handle_of(png)} --raw".encode() in ok.output
    assert default_archive().get(handle_of(png)) == png


def test_disabled_passes_the_bytes_and_touches_no_store(monkeypatch):
    monkeypatch.setenv("THRESHER_DISABLE", "1")
    sql = Statements()
    data = _example()
    assert deliver(data, command=COMMAND, exit_code=1).output == data
    assert sql.log == []


def _transactions(log: list[str]) -> list[list[str]]:
    """The statements of each explicit transaction, in order."""
    out: list[list[str]] = []
    for s in log:
        if s.startswith("BEGIN"):
            out.append([])
        elif s not in ("COMMIT", "ROLLBACK") and out:
            out[-1].append(s)
    return out


def test_a_big_input_is_one_transaction_before_its_output():
    """Over the examination budget: the spooled original and the event commit together, before
    the output (retention after a spooled original runs in its own transactions, as before)."""
    from thresher.boundary.deliver import deliver_big
    body = b"".join(b"GET /item/%d HTTP/1.1 200 %d\n" % (i % 13, i) for i in range(4000))
    body += b"ERROR: disk full while writing /var/data\n" + body
    budget = 8192
    head, rest = body[:budget + 1], io.BytesIO(body[budget + 1:])
    sql = Statements()
    out = io.BytesIO()
    assert deliver_big(head, rest, out, budget=budget, command="cat access.log", exit_code=1)
    payload = [t for t in _transactions(sql.log) if any(s.startswith("INSERT") for s in t)]
    assert len(payload) == 1, sql.log
    assert any("INSERT INTO archive" in s for s in payload[0])
    assert any("INSERT INTO events" in s for s in payload[0])
    handle = handle_of(body)
    assert f"thresher expand {handle}".encode() in out.getvalue()
    assert b"ERROR: disk full" in out.getvalue()
    assert default_archive().get(handle) == body
    assert load_events()[-1]["bytes_in"] == len(body)


def test_a_big_input_whose_commit_fails_streams_unchanged():
    from thresher.boundary.deliver import deliver_big
    body = b"".join(b"line %d of a long build log\n" % i for i in range(3000))
    budget = 4096
    holder = _hold_lock()
    out = io.BytesIO()
    try:
        assert deliver_big(body[:budget + 1], io.BytesIO(body[budget + 1:]), out, budget=budget,
                           command="make")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.getvalue() == body
    assert load_events() == []
