"""The session ledger: which line runs each reader was actually delivered, per scope.

A *scope* is one reader: the agent session (``THRESHER_SESSION``, or the ``session_id`` of a hook's
input) plus, for a subagent or task, its id (``THRESHER_AGENT``, or ``THRESHER_TASK``), written
``session/agent``. Subagents have their own context windows, so they never share a scope with
their parent. Without a session id there is no scope, and nothing is folded.

After each emission the engine calls :meth:`SessionLedger.record` with the lines it wrote; the
Ledger stage asks :meth:`SessionLedger.known` which windows a reader already has. Only what fits
in the first ``DELIVERED_CHARS`` characters counts as delivered: agent harnesses cut long tool
output, and a block the reader never saw must never be folded as "already shown". Rows are only
ever added; a scope is dropped whole by ``thresher session reset`` or at compaction.
"""

from __future__ import annotations

import os
import time

from thresher.dataflow.blocks import block_keys

from .db import database

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

DELIVERED_CHARS = 30_000
"""What an agent is assumed to read of one output (the same cap as the savings counterfactual)."""


def make_scope(session: str, agent: str = "") -> str:
    """The scope string of a session and an optional subagent/task id ("" without a session)."""
    session, agent = (session or "").strip(), (agent or "").strip()
    if not session:
        return ""
    return f"{session}/{agent}" if agent else session


def scope_from_env(environ: "dict | None" = None) -> str:
    """The current reader's scope from ``THRESHER_SESSION`` and ``THRESHER_AGENT``/``_TASK``."""
    env = os.environ if environ is None else environ
    return make_scope(env.get("THRESHER_SESSION", ""),
                      env.get("THRESHER_AGENT", "") or env.get("THRESHER_TASK", ""))


def scope_from_hook(hook_input: dict) -> str:
    """The scope named by an agent hook's JSON input (``session_id`` plus an agent/task id)."""
    agent = hook_input.get("agent_id") or hook_input.get("subagent_id") or hook_input.get("task_id")
    return make_scope(str(hook_input.get("session_id") or ""), str(agent or ""))


def delivered_prefix(lines: "list[str]") -> list[str]:
    """The lines that fit whole in the first :data:`DELIVERED_CHARS` characters."""
    out, used = [], 0
    for line in lines:
        used += len(line) + 1
        if used > DELIVERED_CHARS:
            break
        out.append(line)
    return out


def delivered_rows(scope: str, lines: list[str]) -> list[tuple[str, int, float]]:
    """The ``delivered`` rows that remember the windows of ``lines`` for ``scope`` (none
    without a scope)."""
    if not scope:
        return []
    now = time.time()
    return [(scope, key, now) for _, key in block_keys(delivered_prefix(lines))]


def insert_delivered(conn: Any, rows: list[tuple[str, int, float]]) -> None:
    """Append ``rows`` inside the caller's transaction (append-only: a known window stays)."""
    conn.executemany("INSERT OR IGNORE INTO delivered (scope, key, ts) VALUES (?, ?, ?)", rows)


class SessionLedger:
    """The ``delivered`` table: implements the engine's ``SessionLedger`` protocol."""

    def __init__(self, folder: str | None = None) -> None:
        self.db = database(folder)

    def known(self, scope: str, keys: list[int]) -> set[int]:
        """The subset of ``keys`` already delivered to ``scope`` (read-only)."""
        if not scope or not keys:
            return set()
        found: set[int] = set()
        unique = sorted(set(keys))
        for i in range(0, len(unique), 500):  # stay under SQLite's bound-parameter limit
            chunk = unique[i:i + 500]
            marks = ",".join("?" * len(chunk))
            query, args = (f"SELECT key FROM delivered WHERE scope = ? AND key IN ({marks})",
                           [scope, *chunk])
            found.update(r[0] for r in self.db.run(
                lambda c, query=query, args=args: c.execute(query, args).fetchall()))
        return found

    def record(self, scope: str, lines: "list[str]") -> None:
        """Remember the windows of ``lines`` (as delivered) for ``scope``; append-only."""
        rows = delivered_rows(scope, lines)
        if rows:
            self.db.write(lambda conn: insert_delivered(conn, rows))

    def budget_adapt(self, scope: str, command: str) -> dict | None:
        """The bounce-adaptive budget of ``command`` for ``scope`` (see ``savings.adapt``)."""
        from .savings import adapt
        return adapt(scope, command, self.db.folder)

    def scopes(self) -> list[dict]:
        """Every scope with state: delivered windows, files read, last activity."""
        rows = self.db.run(lambda c: c.execute(
            "SELECT scope, sum(n), sum(r), max(ts) FROM ("
            " SELECT scope, count(*) AS n, 0 AS r, max(ts) AS ts FROM delivered GROUP BY scope"
            " UNION ALL"
            " SELECT scope, 0, count(DISTINCT path), max(ts) FROM reads GROUP BY scope)"
            " GROUP BY scope ORDER BY max(ts) DESC").fetchall())
        return [{"scope": s, "blocks": n, "files": r, "last": ts} for s, n, r, ts in rows]


class PreviewLedger(SessionLedger):
    """A scope's state read as the engine would read it, never written (for ``thresher trace``:
    showing what a reader would get must not mark anything as delivered to it)."""

    def record(self, scope: str, lines: "list[str]") -> None:
        """Record nothing."""


def drop_scope(scope: str, *, subscopes: bool = False, folder: str | None = None) -> int:
    """Forget everything ``scope`` was delivered (ledger and read stubs); return rows dropped.

    With ``subscopes``, also every ``scope/agent`` under it (a whole session ends).
    """
    where, args = "scope = ?", [scope]
    if subscopes:
        where, args = "(scope = ? OR (scope >= ? AND scope < ?))", [scope, scope + "/", scope + "0"]

    def txn(conn):
        n = conn.execute(f"DELETE FROM delivered WHERE {where}", args).rowcount
        return n + conn.execute(f"DELETE FROM reads WHERE {where}", args).rowcount
    return database(folder).write(txn)


def drop_all(folder: str | None = None) -> int:
    """Forget every scope."""
    def txn(conn):
        return (conn.execute("DELETE FROM delivered").rowcount
                + conn.execute("DELETE FROM reads").rowcount)
    return database(folder).write(txn)
