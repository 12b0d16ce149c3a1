"""The engine's own marker lines: the one footer per payload, and the per-line clip suffix.

Markers are counted in lines and name the exact command that brings the original back. There is one
footer per lossy payload; stages never write "…" lines. Everything that formats or recognises a
marker lives here, so the executor, the property checks and the stages agree byte for byte.
"""

from __future__ import annotations

from .rxcache import re_lazy as re  # re.compile from the start-up regex cache (rxcache.py)

FOOTER_PREFIX = "[thresher: "

FOOTER_RE = re.compile(
    r"^\[thresher: (?P<omitted>\d+) of (?P<total>\d+) lines omitted"
    r"(?:, (?P<clipped>\d+) clipped)?"
    r"(?: · lines (?P<scan_first>\d+)-(?P<scan_last>\d+) only scanned for errors"
    r" \((?P<errors>\d+) found, (?P<errors_shown>\d+) distinct shown\))? · thresher expand (?P<handle>[0-9a-f]+)"
    r"(?: --lines (?P<first>\d+)-(?P<last>\d+))?\]$")

CLIP_RE = re.compile(r" \[thresher: \+(?P<chars>\d+) chars clipped\]$")

ELISION_RE = re.compile(r"^(?P<indent>\s*)\u2026(?P<first>\d+)-(?P<last>\d+)$")
"""An elision line of an outline view: source lines ``first``..``last`` (1-based, inclusive) left out.

Why this shape (``    …164-190``): it costs about five cl100k tokens where the bracketed sentence
it replaces (``[thresher: lines 164-190 elided, 27 lines]``) cost sixteen, and in a code outline one
stands in for every body. It is still one line, counted (the range states exactly how many lines,
``last - first + 1``) and recoverable (the range is what ``--lines`` takes). ``…`` (U+2026) is no
token of any language we outline, so the line is a syntax error everywhere rather than code an agent
could copy back (unlike ``...``, Python's Ellipsis, or ``{ … }``, a block); a view with elisions ends
with a declared summary line that spells the notation out once.
"""


def footer(omitted: int, total: int, handle: str, clipped: int = 0,
           span: "tuple[int, int] | None" = None, scanned: "tuple[int, int, int, int] | None" = None
           ) -> str:
    """The single footer line of a lossy emission.

    ``span`` (1-based, inclusive) is the largest block of omitted lines: the footer then names the
    exact ``--lines A-B`` command that shows it, so the agent need not fetch the whole original.
    ``scanned`` — ``(first, last, found, shown)`` — says that lines ``first-last`` of an input over
    the examination budget were only scanned for error lines: ``found`` of them, ``shown`` distinct
    ones shown.
    """
    extra = f", {clipped} clipped" if clipped else ""
    if scanned:
        extra += (f" · lines {scanned[0]}-{scanned[1]} only scanned for errors "
                  f"({scanned[2]} found, {scanned[3]} distinct shown)")
    lines = f" --lines {span[0]}-{span[1]}" if span else ""
    return f"[thresher: {omitted} of {total} lines omitted{extra} · thresher expand {handle}{lines}]"


def elision(indent: str, first: int, last: int) -> str:
    """The elision line for source lines ``first``..``last`` (1-based, inclusive)."""
    return f"{indent}\u2026{first}-{last}"


def elided(line: str) -> "tuple[int, int] | None":
    """``(first, last)`` of an elision line, or ``None`` when ``line`` is not one."""
    m = ELISION_RE.match(line)
    if m is None or int(m["last"]) < int(m["first"]):
        return None
    return int(m["first"]), int(m["last"])


def omitted_span(origin: "tuple[int, ...] | list[int]", total: int) -> "tuple[int, int] | None":
    """The largest run of source lines (of ``total``) that ``origin`` does not show, 1-based.

    Ties go to the earliest run; ``None`` when every line is shown.
    """
    kept = sorted({o for o in origin if o >= 0})
    best, prev = None, -1
    for k in kept + [total]:
        if k - prev > 1 and (best is None or k - prev - 1 > best[1] - best[0] + 1):
            best = (prev + 2, k)  # source lines prev+1 .. k-1, 0-based → 1-based inclusive
        prev = k
    return best


def is_footer(line: str) -> bool:
    """True when ``line`` is shaped like a footer marker."""
    return line.startswith(FOOTER_PREFIX) and FOOTER_RE.match(line) is not None


def clip(line: str, limit: int) -> str:
    """``line`` cut to ``limit`` characters plus a suffix saying exactly how many were cut."""
    if len(line) <= limit:
        return line
    return line[:limit] + f" [thresher: +{len(line) - limit} chars clipped]"


def is_clip_of(view_line: str, source_line: str) -> bool:
    """True when ``view_line`` is ``source_line`` clipped by :func:`clip` (counts must match)."""
    m = CLIP_RE.search(view_line)
    if m is None:
        return False
    kept = view_line[:m.start()]
    return source_line.startswith(kept) and len(source_line) - len(kept) == int(m.group("chars"))
