"""``thresher pipe``: read a payload on stdin, write what the agent should see, exit 0.

Contract (benchmarks and hooks rely on it, keep it stable):
- stdin is the tool output (bytes, any encoding); stdout is the emission; exit status 0;
- ``--cmd "CMD"`` and ``--exit-code N`` describe the command that produced it (they choose the graph
  and turn on the failure rules); ``--role R`` picks the consumer role (default: $THRESHER_ROLE or
  ``default``); ``--class C`` forces the payload class;
- without ``--cmd`` the class is fingerprinted from the first KiB (pytest banner, ``On branch``,
  JSON's first byte, ...); unrecognised output passes through unchanged;
- THRESHER_DISABLE=1 passes everything through; THRESHER_MEASURE_ONLY=1 measures and emits raw;
- every payload is archived and gets one savings-ledger event (THRESHER_NO_LEDGER=1: no event);
- any failure of thresher itself writes the input unchanged, and so does a bad argument (an
  unknown flag, ``--exit-code ""``): one warning line on stderr, exit status still 0;
- binary input (by magic bytes or by a high share of non-text bytes; ``thresher.boundary.media``) is
  never written as bytes: one line with its type, size and the handle whose ``thresher expand
  HANDLE --raw`` returns it byte-exact;
- text inputs over the examination budget (64 MiB; THRESHER_EXAMINE_MB) are spooled in bounded
  memory: the graph examines the first 64 MiB, every later line is scanned for error lines, and
  the one footer says which lines were only scanned (``thresher.dataflow.big``); binary ones: one
  line, not archived.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

HELP = """usage: thresher pipe [--cmd "CMD"] [--exit-code N] [--role ROLE] [--class CLASS]

Read a tool's output on stdin and write the compressed form the agent should see on stdout.
Exit status is always 0; on any internal problem or bad argument the input is written
unchanged (a bad argument also prints one warning line on stderr).

  --cmd "CMD"      the command line that produced the output (chooses the graph)
  --exit-code N    its exit status (non-zero turns on the failure rules: error lines kept byte-exact)
  --role ROLE      consumer role: default, ci, reviewer, ... (env THRESHER_ROLE)
  --class CLASS    force the payload class instead of classifying the command

The exit status must be the producing command's own: a $? in the same pipeline as the command is
still the status of the line before. Either let thresher run the command (it keeps the exit
status too):    thresher run -- cmd
or capture first:  cmd > out.txt 2>&1; thresher pipe --cmd "cmd" --exit-code $? < out.txt
"""

_FLAGS = {"--cmd": "command", "--exit-code": "exit_code", "--role": "role", "--class": "pclass"}


def parse(argv: list[str]) -> dict[str, Any]:
    """Parse pipe's flags (``--flag value`` or ``--flag=value``); raise ValueError on bad input."""
    opts: dict[str, Any] = {"command": "", "exit_code": None,
                  "role": os.environ.get("THRESHER_ROLE", "default"), "pclass": None}
    i = 0
    while i < len(argv):
        flag, eq, value = argv[i].partition("=")
        if flag not in _FLAGS:
            raise ValueError(f"unknown option {argv[i]!r}")
        if not eq:
            i += 1
            if i >= len(argv):
                raise ValueError(f"option {flag} needs a value")
            value = argv[i]
        opts[_FLAGS[flag]] = value
        i += 1
    if opts["exit_code"] is not None:
        try:
            opts["exit_code"] = int(opts["exit_code"])
        except ValueError:
            raise ValueError(f"--exit-code needs an integer, got {opts['exit_code']!r}") from None
    return opts


def main(argv: list[str]) -> int:
    """Run the pipe contract."""
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(HELP)
        return 0
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        opts = parse(argv)
    except ValueError as exc:
        # The contract holds for bad arguments too: the agent still gets the output, unchanged,
        # and the mistake is named on stderr (an exit status here would be read as the command's).
        sys.stderr.write(f"thresher pipe: {exc}; input passed through unchanged "
                         "(see thresher pipe --help)\n")
        _stream_raw(b"", stdin, stdout)
        return 0
    from thresher.dataflow.api import MAX_INPUT
    from thresher.dataflow.plan import examine_budget
    budget = examine_budget(MAX_INPUT)
    data = stdin.read(budget + 1)
    from thresher.boundary import switches
    if len(data) > budget:
        if switches.disabled() or switches.measure_only():
            _stream_raw(data, stdin, stdout)  # too big to hold: pass through in bounded memory
        elif not _describe_huge(data, stdin):
            _big(data, stdin, stdout, budget, opts)
        return 0
    from thresher.boundary.deliver import deliver
    from thresher.dataflow.payload import Original
    # handed over, not kept here: the engine may let go of the bytes while it holds their lines
    original = Original(data, releasable=True)
    del data
    stdout.write(deliver(original, **opts).output)
    stdout.flush()
    return 0


def _big(head: bytes, stdin: BinaryIO, stdout: BinaryIO, budget: int, opts: dict[str, Any]
         ) -> None:
    """Text over the examination budget: examined up to it, the rest scanned for error lines."""
    from thresher.boundary.deliver import deliver_big
    if not deliver_big(head, stdin, stdout, budget=budget, **opts):
        _stream_raw(head, stdin, stdout)


def _describe_huge(head: bytes, stdin: BinaryIO, chunk: int = 1 << 20) -> bool:
    """Binary input over 64 MiB: count it (bounded memory) and write its one line; ``False``
    when the start is text (the caller then streams it unchanged)."""
    try:
        from thresher.boundary.media import describe, sniff
        found = sniff(head)
        if found is None:
            return False
        total = len(head)
        while True:
            block = stdin.read(chunk)
            if not block:
                break
            total += len(block)
        sys.stdout.write(describe(found, total, "") + "\n")
        sys.stdout.flush()
        return True
    except Exception:  # noqa: BLE001 - before anything was read on: stream it as it is
        return False


def _stream_raw(head: bytes, stdin: BinaryIO, stdout: BinaryIO, chunk: int = 1 << 20) -> None:
    """Write ``head`` and then the rest of stdin unchanged, one chunk at a time."""
    stdout.write(head)
    while True:
        block = stdin.read(chunk)
        if not block:
            break
        stdout.write(block)
    stdout.flush()
