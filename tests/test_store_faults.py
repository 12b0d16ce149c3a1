"""Store faults the agent must never feel: a held database lock, an empty HOME."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from thresher.dataflow.api import compress, handle_of
from thresher.stores.archive import default_archive
from thresher.stores.db import StoreBusy, database
from thresher.stores.savings import load_events, record_payload
from thresher.stores.skips import skips

LONG = "".join(f"row {i} of something long enough to be trimmed away\n" for i in range(900))


def _hold_lock():
    """Another process's open write transaction (here: another connection, same effect)."""
    database().connect()  # the file exists, in WAL mode, with the schema
    holder = sqlite3.connect(os.path.join(os.environ["THRESHER_HOME"], "thresher.db"),
                             isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def _busy_ms() -> int:
    return database().connect().execute("PRAGMA busy_timeout").fetchone()[0]


def test_a_held_lock_skips_the_write_counts_it_and_waits_once_per_process():
    holder = _hold_lock()
    folder = os.environ["THRESHER_HOME"]
    with pytest.raises(StoreBusy):
        default_archive().put(handle_of(b"a\n"), b"a\n", {})
    assert skips(folder)[0] == 1
    assert _busy_ms() == 0  # while the lock is held this process no longer waits at all
    res = compress(LONG, command="mytool")  # Persist fails: the agent gets the raw output
    assert res.output == LONG.encode() and res.emission.reason.startswith("INV-7")
    record_payload(res, LONG.encode(), command="mytool")  # never raises
    assert skips(folder)[0] == 3
    holder.execute("ROLLBACK")
    holder.close()
    default_archive().put(handle_of(b"b\n"), b"b\n", {})
    assert _busy_ms() > 0  # the lock is gone: normal waiting again
    assert default_archive().get(handle_of(b"b\n")) == b"b\n"


def test_run_under_a_held_lock_delivers_raw_and_doctor_counts_the_skips(tmp_path):
    holder = _hold_lock()
    code = "for i in range(500): print('line', i % 7)\nraise SystemExit(4)"
    res = subprocess.run([sys.executable, "-m", "thresher", "run", "--", sys.executable, "-c", code],
                         capture_output=True, timeout=120)
    assert res.returncode == 4
    assert res.stdout == "".join(f"line {i % 7}\n" for i in range(500)).encode()
    holder.execute("ROLLBACK")
    holder.close()
    assert skips(os.environ["THRESHER_HOME"])[0] >= 1 and load_events() == []
    from thresher.cmd_doctor import store_skips
    check = store_skips()
    assert check.status == "warn" and "skipped because" in check.detail and "thresher.db" in check.fix


@pytest.mark.parametrize("empty", ["", "relative/dir"])
def test_an_empty_or_relative_home_counts_as_unset(monkeypatch, empty):
    import pwd
    real = pwd.getpwuid(os.getuid()).pw_dir
    for var in ("THRESHER_HOME", "THRESHER_CACHE_HOME", "THRESHER_CONFIG_HOME",
                "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", empty)
    from thresher.dataflow import plan
    from thresher.stores import db
    assert db.home() == os.path.join(real, ".local", "share", "thresher")
    assert plan.cache_dir() == os.path.join(real, ".cache", "thresher")
    assert plan.user_dir() == os.path.join(real, ".config", "thresher", "graphs")
    assert plan.config_home() == os.path.join(real, ".config", "thresher")
