"""Guard: decide what must pass through byte-exact, and send it out of the ``verbatim`` port.

Byte-exact: binary output, structured data a program will parse (``--json``, ``--porcelain``,
``-o json``, output that parses as JSON, ``cat`` of a lock file), and a data file shown
(``cat x.csv``, ``python -m json.tool x.json``: ``program_reads``) when a program may be the
reader (``compress(..., reader="program")``: a PATH shim writing into a pipe or file). When the
agent reads a data file, it is a read: the graph crushes it over budget. Whole: tiny outputs and small outputs of a failing
command (only their colour codes may go at emission, which leaves the visible text unchanged).
Everything else is declined and continues down the graph.
"""

from __future__ import annotations

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache

from thresher.dataflow.payload import CLEANABLE_VERDICTS, Out
from thresher.dataflow.plan import as_file_read

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from re import Pattern
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_FLAG_CACHE: dict[tuple, Pattern[str]] = {}


def _flags(patterns: list[str]) -> Pattern[str]:
    key = tuple(patterns)
    if key not in _FLAG_CACHE:
        _FLAG_CACHE[key] = re.compile("|".join(f"(?:{p})" for p in patterns) or r"(?!)")
    return _FLAG_CACHE[key]


def _looks_json(payload: Payload) -> bool:
    head = payload.raw_head(4096).lstrip()[:1]
    if not head and payload.raw_size > 4096:   # (4 KB of leading blanks: look at it all)
        head = payload.raw.lstrip()[:1]
    if head not in (b"{", b"["):
        return False
    import orjson
    try:
        orjson.loads(payload.raw)
        return True
    except orjson.JSONDecodeError:
        return False


def verdict(payload, params, reader: str = "agent") -> str | None:
    """The reason ``payload`` must pass byte-exact, or ``None``; ``reader`` is who reads the output
    (``"agent"``, or ``"program"`` when a program may: ``compress(..., reader=...)``)."""
    if params["binary"] and (b"\0" in payload.raw_head(65536) or
                             sum(s.count("\ufffd") for s in payload.source[:200]) > 64):
        return "binary output passes raw"
    if params["structured_flags"] and any(_flags(params["structured_flags"]).search(c) for c in
                                          {payload.command, as_file_read(payload.command)}):
        # a content mode (git show REV:Cargo.lock) is judged as the cat of the file it prints
        return "structured output flag (a program will parse it)"
    if reader == "program" and params["program_reads"] and \
            _flags(params["program_reads"]).search(payload.command):
        return "data read by a program (a shim writing into a pipe or file)"
    n = len(payload.source)
    if n <= params["tiny_lines"]:
        return f"{CLEANABLE_VERDICTS[0]} ({n} lines)"
    if payload.failed and n <= params["fail_small_lines"]:
        return f"{CLEANABLE_VERDICTS[1]} ({n} lines)"
    if params["sniff_json"] and _looks_json(payload):
        return "output is JSON (a program may parse it)"
    return None


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
    """``Out("verbatim", ...)`` with the reason, or ``None`` to let the graph continue."""
    why = verdict(payload, params, ctx.reader)
    return None if why is None else Out("verbatim", payload.evolve(verdict=why))
