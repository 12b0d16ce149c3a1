"""Archive search: `thresher expand --search TEXT` over a scope's archived outputs (SQLite FTS5)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from thresher import cmd_expand
from thresher.dataflow.api import handle_of
from thresher.stores import search as search_mod
from thresher.stores.archive import RETENTION_FLOOR_S, default_archive
from thresher.stores.db import database
from thresher.stores.search import ArchiveSearch

from .conftest import fixture_case
from .store_util import patch_clock

TH = [sys.executable, "-m", "thresher"]


def _cli(*args: str, data: bytes = b"", scope: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("THRESHER_SESSION", None)
    if scope:
        env["THRESHER_SESSION"] = scope
    return subprocess.run(TH + list(args), input=data, capture_output=True, env=env)


def _pipe(case_id: str, scope: str, suffix: bytes = b"") -> bytes:
    case = fixture_case(case_id)
    raw = case["stdout"].encode() + suffix
    assert _cli("pipe", "--cmd", case["command"], "--exit-code", str(case["exit_code"] or 0),
                data=raw, scope=scope).returncode == 0
    return raw


def _original_line(handle: str, n: int) -> str:
    return _cli("expand", handle, "--lines", str(n)).stdout.decode().rstrip("\n")


def test_search_finds_this_scopes_outputs_with_handles_commands_and_true_line_numbers():
    pytest_raw = _pipe("pytest-fail-verbose", "alpha")
    log_raw = _pipe("git-log-default-huge", "alpha")
    other = _pipe("cargo-own-test-fail", "beta")
    res = _cli("expand", "--search", "AssertionError", scope="alpha")
    assert res.returncode == 0, res.stderr
    out = res.stdout.decode()
    header, *lines = out.split("\n\n")[0].splitlines()
    assert header.startswith(handle_of(pytest_raw) + "  " + fixture_case("pytest-fail-verbose")["command"])
    assert lines and all("assertionerror" in ln.lower() for ln in lines)
    for line in lines:
        n, _, text = line.partition(":")
        assert _original_line(handle_of(pytest_raw), int(n)) == text  # the number is the original's
    assert handle_of(other) not in out and handle_of(log_raw) not in out
    assert "1 of 2 archived outputs match (scope 'alpha')" in res.stderr.decode()
    assert _cli("expand", "--search", "AssertionError", scope="alpha").stdout == res.stdout
    everywhere = _cli("expand", "--search", "test", "--all-scopes").stdout.decode()
    assert handle_of(other) in everywhere and handle_of(pytest_raw) in everywhere
    beta = _cli("expand", "--search", "test", "--scope", "beta", scope="alpha").stdout.decode()
    assert handle_of(other) in beta and handle_of(pytest_raw) not in beta


def test_newest_first_limit_words_prefixes_and_misses():
    first = _pipe("git-log-default-huge", "s")
    second = _pipe("git-log-default-huge", "s", b"Bump build marker to 999\n")
    out = _cli("expand", "--search", "marker", scope="s").stdout.decode()
    assert out.index(handle_of(second)) < out.index(handle_of(first))  # newest first
    assert "[thresher: 100 more matching lines · thresher expand" in out
    one = _cli("expand", "--search", "marker", "--limit", "1", scope="s").stdout.decode()
    assert handle_of(first) not in one.split("[thresher: 1 more outputs match")[0]
    assert "--limit 2 shows them" in one
    prefix = _cli("expand", "--search", "mark* 999", scope="s").stdout.decode()
    assert handle_of(second) in prefix and handle_of(first) not in prefix
    assert prefix.splitlines()[1].endswith(":Bump build marker to 999")
    assert _cli("expand", "--search", "marke", scope="s").returncode == 1  # whole words
    miss = _cli("expand", "--search", "nosuchwordanywhere", scope="s")
    assert miss.returncode == 1 and miss.stdout == b""
    assert _cli("expand", "--search", "::").returncode == 2
    assert _cli("expand").returncode == 2
    both = _cli("expand", handle_of(first), "--search", "x")
    assert both.returncode == 2 and b"--grep" in both.stderr


def test_the_more_lines_hint_is_a_grep_that_finds_the_same_lines():
    raw = _pipe("git-log-default-huge", "g")
    out = _cli("expand", "--search", "build marker", scope="g").stdout.decode()
    hint = next(ln for ln in out.splitlines() if ln.startswith("[thresher: 100 more"))
    pattern = hint.split("--grep ")[1].rstrip("]").strip("'")
    grepped = _cli("expand", handle_of(raw), "--grep", pattern).stdout.decode().splitlines()
    shown = [ln for ln in out.splitlines()[1:] if ln[:1].isdigit()]
    assert len(grepped) == len(shown) + 100 and grepped[:len(shown)] == shown


def test_secrets_are_neither_indexed_nor_shown():
    case = fixture_case("env-fake-secrets")
    _pipe("env-fake-secrets", "e")
    assert _cli("expand", "--search", "hunter2", scope="e").returncode == 1
    out = _cli("expand", "--search", "DB_PASSWORD", scope="e").stdout.decode()
    assert "DB_PASSWORD=" in out and "hunter2" not in out and "hunter2" in case["stdout"]


def test_binary_and_huge_outputs_are_counted_not_hidden():
    binary = open(sys.executable, "rb").read(65536)  # real bytes of an ELF program
    assert _cli("pipe", "--cmd", "head -c 65536 python", data=binary, scope="b").returncode == 0
    lines = fixture_case("git-log-default-huge")["stdout"].splitlines(keepends=True)
    huge = "".join(f"{i} {ln}" for i in range(40) for ln in lines).encode()  # ~1.4 MB
    huge += b"endmarkerword\n"  # a word only beyond the indexed prefix
    assert len(huge) > search_mod.INDEX_BYTES
    assert _cli("pipe", "--cmd", "git log", data=huge, scope="b").returncode == 0
    early = _cli("expand", "--search", "0 commit", scope="b")
    assert early.returncode == 0
    assert f"only its first {search_mod.INDEX_BYTES} bytes are indexed" in early.stdout.decode()
    assert "1 binary not indexed; 1 indexed in their first MiB only" in early.stderr.decode()
    assert _cli("expand", "--search", "endmarkerword", scope="b").returncode == 1
    assert _cli("expand", handle_of(huge), "--grep", "endmarkerword").returncode == 0


def test_gone_entries_leave_the_index(monkeypatch):
    clock = patch_clock(monkeypatch)
    raw = fixture_case("pytest-fail-verbose")["stdout"].encode()
    handle = handle_of(raw)
    default_archive().put(handle, raw, {"command": "pytest -v"})
    finder = ArchiveSearch()
    assert [r["handle"] for r in finder.search("AssertionError", None, 5)["results"]] == [handle]
    clock.now += 8 * 86400  # past the 7-day TTL
    default_archive().evict()
    found = finder.search("AssertionError", None, 5)
    assert found["results"] == [] and found["dropped"] == 1
    conn = database().connect()
    assert conn.execute("SELECT count(*) FROM search_docs").fetchone()[0] == 0
    default_archive().put(handle, raw, {"command": "pytest -v"})  # archived again: found again
    assert finder.search("AssertionError", None, 5)["matched"] == 1
    assert RETENTION_FLOOR_S < 8 * 86400


def test_without_fts5_search_says_so(monkeypatch, capsys):
    monkeypatch.setattr(search_mod, "_FTS", "CREATE VIRTUAL TABLE search_fts USING fts5_missing(b)")
    assert cmd_expand.main(["--search", "anything"]) == 2
    err = capsys.readouterr().err
    assert "needs SQLite's FTS5 module" in err and "--grep" in err
    with pytest.raises(sqlite3.OperationalError):  # the module really is unknown to SQLite
        database().connect().execute(search_mod._FTS)
