"""Compiler and linter diagnostics: recognise headers, locations and code-snippet lines.

Shared by the cargo, build and lint distillers. A *diagnostic* is a header line (``error[E0308]:
…``, ``file.c:3:5: warning: …``, ``F401 …``, ``file.py:3: error: …``, ``file.ts:3:5 - error TS…``)
followed by its location arrows, notes and a code *snippet* (gutter lines ``  12 |  code``, caret
lines, fix-it diffs). A rust-style underline that carries a label (``|   ^^ expected `String`, found
integer``) is not snippet: it says what is wrong, so it stays with the header. Over budget the snippet lines can go while the header, every location and
every note stay: the answer (what, where, why) survives and the code is one ``expand`` away.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

RUST_HEAD_RE = re.compile(r"^(?:error|warning)(?:\[\w+\])?: \S|^[A-Z]{1,5}\d{2,4}(?: \[\*\])? \S"
                          r"|^unformatted: File would be reformatted$")
GCC_HEAD_RE = re.compile(r"^[^\s:][^:]*:\d+(?::\d+)?: (?:fatal error|error|warning|note|remark): ")
MYPY_HEAD_RE = re.compile(r"^[^\s:][^:]*\.pyi?:\d+(?::\d+)?: (?:error|note|warning): ")
TSC_PRETTY_HEAD_RE = re.compile(r"^\S+:\d+:\d+ - (?:error|warning) TS\d+: ")
JAVAC_HEAD_RE = re.compile(r"^[^\s:][^:]*\.java:\d+: (?:error|warning): ")
HEAD_RE = re.compile("|".join(r.pattern for r in (RUST_HEAD_RE, GCC_HEAD_RE, MYPY_HEAD_RE,
                                                   TSC_PRETTY_HEAD_RE)))
"""Any diagnostic header line."""

# `\s*(?:\d+\s*)?`, not `\s*\d*\s*`: two space runs around optional digits split a long run of
# spaces in n ways (quadratic: seconds on one 8,000-space line).
GUTTER_RE = re.compile(r"^\s*(?:\d+\s*)?\|(?:\s|$|[-_/\\^])")
RUST_SNIPPET_RE = re.compile(r"^\s*(?:\d+\s*)?\|.*$|^(?:\s*\d+)?\s+[-+](?:\s|$)|^\s*\.\.\.\s*$|^-{20,}$")
RUST_LABEL_RE = re.compile(r"^\s*\|[\s|^~_-]*[^\s|^~_+-].*[A-Za-z]")
"""A numberless gutter line with words after the underline: a label rustc/clippy wrote, kept."""
TSC_SNIPPET_RE = re.compile(r"^\d+ {1,}\S.*$|^\d+\s*$|^\s+~+\s*$")
CARET_RE = re.compile(r"^\s+\^~*\s*$")
CLANG_END_RE = re.compile(r"^In file included from |^\d+ (?:warnings?|errors?)(?: and \d+ \w+)? generated\.$"
                          r"|^[^\s:][^:]*: In |^(?:clang|gcc|cc|ld|collect2)(?:-\d+)?: ")


def _kind(line: str) -> str | None:
    """Which diagnostic format a header line belongs to (decides what its snippet looks like)."""
    if MYPY_HEAD_RE.match(line):
        return "mypy"
    if JAVAC_HEAD_RE.match(line):
        return "javac"
    if GCC_HEAD_RE.match(line):
        return "gcc"
    if TSC_PRETTY_HEAD_RE.match(line):
        return "tsc"
    if RUST_HEAD_RE.match(line):
        return "rust"
    return None


def _is_snippet(kind: str, line: str) -> bool:
    """True when ``line`` inside a diagnostic of ``kind`` is code shown for context."""
    if kind == "rust":   # an underline's label (`^^ expected `String`, found integer`) is the answer
        return RUST_SNIPPET_RE.match(line) is not None and RUST_LABEL_RE.match(line) is None
    if kind == "gcc":
        return GUTTER_RE.match(line) is not None
    if kind == "clang":   # clang prints code, caret and fix-it lines without a gutter
        return CLANG_END_RE.match(line) is None
    if kind == "mypy":
        return line.startswith("    ") or CARET_RE.match(line) is not None
    if kind == "javac":   # the code line under the header is handled by the caller; then a caret
        return CARET_RE.match(line) is not None   # (``symbol:``/``location:`` details stay)
    return TSC_SNIPPET_RE.match(line) is not None


def drop_snippets(lines: Sequence[str], keep: list[bool], crit: list[bool]) -> tuple[int, int]:
    """Unset ``keep`` for snippet lines of every diagnostic; return (diagnostics, lines dropped).

    A rust-style block (rustc, ruff) ends at a blank line; gcc/clang/mypy/tsc blocks end at the
    next header or at a line that is not snippet. Critical lines are never dropped.
    """
    kind, diags, dropped, head = None, 0, 0, -1
    for i, line in enumerate(lines):
        k = _kind(line)
        if k is not None:
            kind, diags, head = k, diags + 1, i
            continue
        if kind is None:
            continue
        if kind == "javac" and i == head + 1 or _is_snippet(kind, line) and kind == "javac":
            if keep[i] and not crit[i]:
                keep[i] = False
                dropped += 1
            continue
        if not line.strip():
            kind = None if kind in ("rust", "gcc", "mypy") else kind
            continue
        if kind == "gcc" and not GUTTER_RE.match(line) and i > 0 and GCC_HEAD_RE.match(lines[i - 1]):
            kind = "clang"   # the first line under the header has no gutter: clang's format
        if _is_snippet(kind, line):
            if keep[i] and not crit[i]:
                keep[i] = False
                dropped += 1
        elif kind in ("gcc", "tsc", "clang", "javac") and not line.startswith((" ", "\t")):
            kind = None
    if dropped:
        dropped += _squeeze_blanks(lines, keep, crit)
    return diags, dropped


def _squeeze_blanks(lines: Sequence[str], keep: list[bool], crit: list[bool]) -> int:
    """Drop a kept blank line that a dropped snippet left right after another kept blank line
    (tsc --pretty frames each snippet with blank lines); return how many went."""
    dropped, prev_blank, gap = 0, False, False
    for i, line in enumerate(lines):
        if not keep[i]:
            gap = True
            continue
        blank = not line.strip()
        if blank and prev_blank and gap and not crit[i]:
            keep[i] = False
            dropped += 1
            continue
        prev_blank, gap = blank, False
    return dropped


def snippet_summary(diags: int, dropped: int) -> str:
    """The declared line standing for the dropped snippets."""
    return (f"[thresher: code snippets of {diags} diagnostic{'s' if diags != 1 else ''} not shown "
            f"({dropped} line{'s' if dropped != 1 else ''})]")
