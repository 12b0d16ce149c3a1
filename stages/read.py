"""Read: decode, strip ANSI/OSC escapes and carriage-return redraws, clip huge lines.

The new source is the cleaned text (the raw bytes stay untouched for the archive); the view is that
source with lines longer than ``max_line_chars`` clipped, each saying how many characters were cut
(except a failing command's error lines, which pass whole).
Declines when there is nothing to clean or clip.
"""

from __future__ import annotations

from thresher.dataflow.markers import clip
from thresher.dataflow.payload import IMPORTANT

from .text import ANSI_RE, ERROR_RE


def _clean(line: str, params: dict) -> str:
    if params["strip_ansi"] and "\x1b" in line:
        line = ANSI_RE.sub("", line)
    if "\r" in line:
        line = line.rstrip("\r")
        if params["redraws"] and "\r" in line:
            parts = [seg for seg in line.split("\r") if seg.strip()]
            line = parts[-1] if parts else ""
    return line


def run(payload, params, ctx):
    """Return the cleaned payload, or ``None`` when the input is already clean and short."""
    limit = params["max_line_chars"]
    src = payload.source
    if not any("\x1b" in s or "\r" in s or len(s) > limit for s in src):
        return None
    source = tuple(_clean(s, params) for s in src)
    # A failing command's error lines pass byte-exact (INV-6), however long: never clip those.
    failed = payload.failed
    view = tuple(s if failed and len(s) > limit and ERROR_RE.search(s[:limit]) else clip(s, limit)
                 for s in source)
    return payload.evolve(source=source, lines=view, origin=tuple(range(len(source))),
                          tiers=(IMPORTANT,) * len(source))
