"""Inputs over the examination budget: the graph examines what fits, the rest is scanned for errors.

A graph holds its whole input in memory and costs work per line, so it examines at most
:func:`examine_budget` bytes (64 MiB unless ``THRESHER_EXAMINE_MB`` says otherwise): a budget of
work fixed before anything runs, never a timer. For a longer input (``thresher pipe``/``run``):

1. the whole input is spooled to a temporary file a chunk at a time (bounded memory) and hashed;
2. the examined part — the input up to the last line end within the budget — goes through the
   graph as usual; its line numbers are the original's;
3. every later line is only *scanned*: the core error scan (``errorscan.CORE_ERROR_RE``) keeps
   the first line of each distinct error text, up to :data:`RESCUE_LINES`, and the last
   :data:`TAIL_LINES` lines are kept, each verbatim (a line over :data:`LINE_LIMIT` characters
   clipped, counted);
4. the original is archived from the spool (:meth:`put_file`) before anything naming its handle
   is written, and the output ends with the one footer, which counts every line of the input and
   says which lines were only scanned and how many of the error lines found there are shown.

Data a program parses (a Guard verdict on the examined part), a failure to archive, or any
failure of thresher itself: the input streams out unchanged from the spool, byte for byte.
"""

from __future__ import annotations

import os
import tempfile
from collections import deque

from blake3 import blake3

from .errorscan import error_indices
from .markers import FOOTER_RE, clip, footer
from .plan import examine_budget  # noqa: F401 - here for its callers; lives in plan (light)

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO, Protocol

    from .api import Result

    class Source(Protocol):
        """Where the rest of the input comes from."""

        def read(self, size: int, /) -> bytes: ...

    class Sink(Protocol):
        """Where the output goes."""

        def write(self, data: bytes, /) -> object: ...

    class FileArchive(Protocol):
        """An archive that stores a spooled original from its file."""

        def put_file(self, handle: str, path: str, size: int, meta: dict[str, Any]) -> None: ...

RESCUE_LINES = 2000
"""Distinct error lines of the scanned part shown at most (each text once, at its first line;
the footer counts every error line found)."""
TAIL_LINES = 40
"""Last lines of the input always shown."""
LINE_LIMIT = 4096
"""Characters of a scanned line shown at most (longer ones are clipped, with the count)."""
CHUNK = 1 << 20


class _Stored:
    """The archive of step 2: the original is already stored under its handle (step 4)."""

    def put(self, handle: str, raw: bytes, meta: dict[str, object]) -> None:  # noqa: ARG002 - archive API
        return None


class _Scan:
    """Step 3: line numbers, rescued error lines and the tail of the scanned part."""

    def __init__(self, first_line: int) -> None:
        self.first = first_line          # 1-based number of the first scanned line
        self.count = 0
        self.found = 0
        self.rescued: list[tuple[int, str]] = []   # the first line of each distinct error text
        self.seen: set[str] = set()
        self.tail: deque[tuple[int, str]] = deque(maxlen=TAIL_LINES)
        self.carry = b""

    def feed(self, block: bytes, final: bool = False) -> None:
        data = self.carry + block
        parts = data.split(b"\n")
        self.carry = b"" if final else parts.pop()
        if final and parts and parts[-1] == b"":
            parts.pop()  # the input ended with a line end
        if not parts:
            return
        lines = [p.decode("utf-8", "replace") for p in parts]
        base = self.first + self.count
        for i in error_indices(lines):
            self.found += 1
            if len(self.rescued) < RESCUE_LINES and lines[i] not in self.seen:
                self.seen.add(lines[i])
                self.rescued.append((base + i, lines[i]))
        for i in range(max(0, len(lines) - TAIL_LINES), len(lines)):
            self.tail.append((base + i, lines[i]))
        self.count += len(lines)


def compress_stream(head: bytes, rest: Source, out: Sink, *, budget: int,
                    compress: Callable[..., Result], archive: FileArchive, command: str = "",
                    exit_code: int | None = None,
                    before_write: Callable[[Result, int], bool] | None = None,
                    **opts: Any) -> dict[str, Any]:
    """Write to ``out`` the output for an input of ``head`` (already read, longer than
    ``budget``) followed by everything ``rest.read`` still gives; return a summary
    (``decision``, ``reason``, ``handle``, ``lines``, ``bytes``, and when compressed ``result``:
    a ``Result`` for the ledger, whose input is ``bytes`` long).

    ``compress`` is :func:`thresher.dataflow.api.compress` (called on the examined part with
    ``handle=`` the whole input's), ``archive`` an archive with ``put_file``. ``before_write``
    (the boundary's hook) is called with that ``Result`` and the input's size just before the
    output is written; ``False`` (say, the archive it staged could not be stored) means the
    input streams out unchanged instead.
    """
    fd, path = tempfile.mkstemp(prefix="thresher-spool-")
    try:
        with os.fdopen(fd, "wb") as spool:
            return _run(head, rest, out, spool, path, budget, compress, archive, command,
                        exit_code, before_write, opts)
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def _run(head: bytes, rest: Source, out: Sink, spool: BinaryIO, path: str, budget: int,
         compress: Callable[..., Result], archive: FileArchive, command: str,
         exit_code: int | None, before_write: Callable[[Result, int], bool] | None,
         opts: dict[str, Any]) -> dict[str, Any]:
    hasher = blake3()
    cut = head.rfind(b"\n", 0, budget)
    examined = head[:cut + 1] if cut >= 0 else b""
    scan = _Scan(examined.count(b"\n") + 1)
    size, failure = 0, "" if examined else f"no line end within the first {budget} bytes"
    block, scanned = head, head[cut + 1:]
    while block:
        try:
            spool.write(block)
        except OSError:  # the spool cannot hold it: what was read goes out as it came, then the rest
            spool.close()
            _copy(path, out)
            out.write(block)
            _pump(rest, out)
            return {"handle": "", "bytes": None, "decision": "raw", "lines": None,
                    "reason": "input could not be spooled: passed through unchanged"}
        hasher.update(block)
        size += len(block)
        if not failure:
            try:
                scan.feed(scanned)
            except Exception as exc:  # noqa: BLE001 - keep spooling; the output will be raw
                failure = f"scan failed: {type(exc).__name__}"
        block = scanned = rest.read(CHUNK)
    spool.flush()
    handle = hasher.hexdigest()[:12]
    summary: dict[str, Any] = {"handle": handle, "bytes": size, "decision": "raw", "lines": None,
                               "reason": failure}
    text = None
    if not failure:
        try:
            scan.feed(b"", final=True)
            archive.put_file(handle, path, size, {"command": command, "exit_code": exit_code,
                                                  "stream": opts.get("stream", "stdout")})
            res = compress(examined, command=command, exit_code=exit_code, handle=handle,
                           archive=_Stored(), **opts)
            text = _compose(scan, handle, res)
            if text is None:
                summary["reason"] = "the examined part is data a program parses: unchanged"
        except Exception as exc:  # noqa: BLE001 - thresher's own failure: raw passthrough
            summary["reason"] = f"{type(exc).__name__}: {str(exc)[:200]}"
            text = None
    if text is None:
        _copy(path, out)
        return summary
    data = text.encode("utf-8", "surrogatepass")
    last = scan.first + scan.count - 1
    reason = f"lines {scan.first}-{last} only scanned for errors"
    result = _streamed(data, reason, handle, res)
    if before_write is not None and not before_write(result, size):
        summary["reason"] = "the original could not be stored: passed through unchanged"
        _copy(path, out)
        return summary
    out.write(data)
    summary.update(decision="compressed", lines=last, reason=reason, result=result)
    return summary


def _streamed(data: bytes, reason: str, handle: str, res: Result) -> Result:
    """The engine's ``Result`` for the whole streamed input (what the ledger records): the
    written ``data``, the examined part's graph, class, stages and time; already archived."""
    from .api import Result
    from .finalize import Emission
    return Result(Emission(data, "compressed", reason, handle=handle), res.trace, res.graph_id,
                  res.pclass, res.ms, handle=handle, archived=True,
                  budget_factor=res.budget_factor)


def _copy(path: str, out: Sink) -> None:
    with open(path, "rb") as src:
        _pump(src, out)


def _pump(src: Source, out: Sink) -> None:
    while True:
        block = src.read(CHUNK)
        if not block:
            return
        out.write(block)


def _compose(scan: _Scan, handle: str, res: Result) -> str | None:
    """The output text: the graph's emission of the examined part without its footer, the
    scanned part's shown lines in order, and the one footer over the whole input."""
    em = res.emission
    if em.decision == "verbatim":
        return None
    n_examined = scan.first - 1
    lines = em.output.decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    kept, clipped = n_examined, 0
    if lines and FOOTER_RE.match(lines[-1]):
        m = FOOTER_RE.match(lines.pop())
        kept = int(m["total"]) - int(m["omitted"])
        clipped = int(m["clipped"] or 0)
    shown = dict(scan.rescued)
    shown.update(scan.tail)
    for number in sorted(shown):
        lines.append(clip(shown[number], LINE_LIMIT))
    clipped += sum(1 for v in shown.values() if len(v) > LINE_LIMIT)
    total = n_examined + scan.count
    first, last = scan.first, scan.first + scan.count - 1
    omitted = total - kept - len(shown)
    lines.append(footer(omitted, total, handle, clipped, (first, last),
                        (first, last, scan.found, len(scan.rescued))))
    return "\n".join(lines) + "\n"
