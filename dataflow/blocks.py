"""Fingerprints of line runs: what the session ledger remembers and the Ledger stage looks up.

A *block key* is a 64-bit blake3 hash of ``WINDOW`` consecutive lines. The store records the keys
of every window of lines actually delivered to a reader; the Ledger stage computes the keys of the
current view and folds runs covered by known windows. Both sides call :func:`block_keys`, so they
agree byte for byte whatever a graph's params say (the fold threshold is a stage param; the window
is fixed here, because keys recorded under one window size would never match another).

Windows that carry almost no text (blank lines, lone braces) are skipped on both sides: folding
them would save nothing and read as noise. Lines that are thresher's own markers never take part.
"""

from __future__ import annotations

from blake3 import blake3

from .markers import elided

WINDOW = 6
"""Lines per fingerprinted window (a folded run is at least this long)."""
MIN_CHARS = 40
"""A window needs this many non-blank characters to be fingerprinted."""
MARKER_PREFIX = "[thresher: "


def _digest(line: str) -> bytes:
    return blake3(line.encode("utf-8", "surrogatepass")).digest(length=8)


def block_keys(lines: "list[str] | tuple[str, ...]", usable: "list[bool] | None" = None
               ) -> list[tuple[int, int]]:
    """``(start, key)`` for every fingerprinted window of ``lines`` (signed 64-bit keys).

    ``usable[i] = False`` breaks windows at line ``i`` (the stage uses it for summary lines);
    marker lines (elision lines included) always break them.
    """
    n = len(lines)
    ok = [(usable is None or usable[i]) and not lines[i].startswith(MARKER_PREFIX)
          and not ("\u2026" in lines[i] and elided(lines[i])) for i in range(n)]
    weight = [len(line.strip()) for line in lines]
    digests: dict[int, bytes] = {}
    out = []
    run = 0  # length of the usable run ending at i
    for i in range(n):
        run = run + 1 if ok[i] else 0
        if run < WINDOW:
            continue
        start = i - WINDOW + 1
        if sum(weight[start:i + 1]) < MIN_CHARS:
            continue
        for j in range(start, i + 1):
            if j not in digests:
                digests[j] = _digest(lines[j])
        blob = b"".join(digests[j] for j in range(start, i + 1))
        out.append((start, int.from_bytes(blake3(blob).digest(length=8), "big", signed=True)))
    return out
