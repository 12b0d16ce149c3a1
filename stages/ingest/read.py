"""Read: decode, strip ANSI/OSC escapes and carriage-return redraws, clip huge lines.

The new source is the cleaned text (the raw bytes stay untouched for the archive); the view is that
source with lines longer than ``max_line_chars`` clipped, each saying how many characters were cut
(except a failing command's error lines, which pass whole).

Cleaning never hides an error (INV-6):
- a redrawn line (``a\\rb\\rc``) keeps its last state *and* every earlier state holding an error
  (``error: linker failed\\r50%`` stays whole), joined by the ``\\r`` that separated them;
- a failing command's error line keeps its trailing ``\\r`` (CRLF output), so it stays byte-exact
  against the raw output; other lines lose it (Windows line ends are not the answer).
Escapes go in both their 7-bit (``ESC [``) and 8-bit C1 forms (U+009B CSI, U+009D OSC).
Declines when there is nothing to clean or clip.
"""

from __future__ import annotations

from operator import eq, is_

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache

from thresher.dataflow.markers import clip
from thresher.dataflow.payload import IMPORTANT

from thresher.stages.lib.text import ANSI_RE, ERROR_RE

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_DIRTY = re.compile(r"[\x1b\r\x80-\x9f]")
"""What cleaning may change: escapes (ESC or a C1 control) and carriage returns."""


def clean(line: str, strip_ansi: bool = True, redraws: bool = True, failed: bool = False) -> str:
    """``line`` as Read leaves it (see the module docstring)."""
    if strip_ansi and _DIRTY.search(line):
        line = ANSI_RE.sub("", line)
    if "\r" not in line:
        return line
    body = line.rstrip("\r")
    if redraws and "\r" in body:
        states = [seg for seg in body.split("\r") if seg.strip()]
        body = "\r".join([seg for seg in states[:-1] if ERROR_RE.search(seg)] + states[-1:])
    return body + line[len(line.rstrip("\r")):] if failed and ERROR_RE.search(body) else body


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """Return the cleaned payload, or ``None`` when the input is already clean and short."""
    limit = params["max_line_chars"]
    src = payload.source
    # Decide on the whole input at C speed (one scan of the raw bytes, one of the line lengths):
    # a per-line test cost 0.4 s on a million empty lines.
    if not payload.raw_dirty() and max(map(len, src), default=0) <= limit:
        return None
    failed = payload.failed
    strip, redraws = params["strip_ansi"], params["redraws"]
    n = len(src)
    if not payload.raw_dirty():   # no escape, CR or C1 control anywhere: only long lines to clip
        source = src
    else:
        source = tuple(clean(s, strip, redraws, failed) for s in src)
    if source is not src and all(map(is_, source, src)):
        source = src  # nothing cleaned (only long lines to clip): the same lines, not a copy
    # A failing command's error lines pass byte-exact (INV-6), however long: never clip those,
    # wherever their error word is (a long echoed command line ends in `failed: cc1`).
    view = tuple(s if len(s) <= limit else s if failed and ERROR_RE.search(s) else clip(s, limit)
                 for s in source)
    # the view's provenance is the identity: the input's own when it is one (no second n ints)
    origin = payload.origin
    if len(origin) != n or not all(map(eq, origin, range(n))):
        origin = tuple(range(n))
    tiers = payload.tiers if len(payload.tiers) == n and payload.tiers.count(IMPORTANT) == n \
        else (IMPORTANT,) * n
    return payload.evolve(source=source, lines=view, origin=origin, tiers=tiers)
