"""Apply one declarative filter to a payload (hot path: ``re`` only).

Order of operations: strip_ansi → short_circuit → replace → strip → keep → max_line_chars →
head/tail/max_lines → on_empty. Safety rules the engine enforces, whatever the filter says:
- a line Score tiered critical (and, on a failing command, any line with an error word) is never
  dropped by strip/keep/head/tail/max_lines, nor altered by replace or max_line_chars;
- a short-circuit rule never fires on a non-zero exit code, nor when any line is critical, nor
  when its ``unless`` regex is found anywhere in the output;
- the result is ``None`` (the input passes on) when nothing changed or it would not be smaller.

Kept lines stay byte-exact and keep their provenance; a line rewritten by ``replace`` and the
``message``/``on_empty`` lines are declared summary lines (the footer counts the rewritten line's
original as omitted — ``thresher expand`` shows it). Lines clipped by ``max_line_chars`` use the
engine's clip marker, so the footer counts them as clipped.
"""

from __future__ import annotations

import re

from thresher.dataflow.markers import clip
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.plan import content_member, program_basenames
from thresher.dataflow.tokens import estimate
from thresher.dataflow.errorscan import critical_flags
from thresher.dataflow.escapes import ANSI_RE

_RX: dict[tuple[str, int], re.Pattern] = {}


def rx(pattern: str, flags: int = 0) -> re.Pattern:
    """``pattern`` compiled once per process."""
    key = (pattern, flags)
    r = _RX.get(key)
    if r is None:
        r = _RX[key] = re.compile(pattern, flags)
    return r


def first_match(filters: list[dict], command: str) -> dict | None:
    """The first filter (search order) whose ``match`` regex is found in ``command`` (programs
    by base name, as the classifier sees them: a shim runs ``/usr/bin/rsync …``). None for a
    mode that prints content (``unzip -p``, ``tar -xO``, ``git show REV:path``): a filter chosen
    by the command would treat a file's text as the tool's chatter."""
    if not command:
        return None
    command = program_basenames(command)
    if content_member(command) is not None:
        return None
    for f in filters:
        if rx(f["match"]).search(command):
            return f
    return None


def _short_circuit(f: dict, texts: list[str], crit: list[bool], exit_code: int | None) -> str | None:
    """The message of the first rule that fires, or ``None``."""
    if not f["short_circuit"] or exit_code not in (0, None) or any(crit):
        return None
    whole = "\n".join(texts)
    for when, message, unless in f["short_circuit"]:
        if rx(when, re.M).search(whole) and not (unless and rx(unless, re.M).search(whole)):
            return message
    return None


def _any(patterns: list[str], text: str) -> bool:
    return any(rx(p).search(text) for p in patterns)


def _window(f: dict, n: int) -> tuple[int, int] | None:
    """``(head, tail)`` lines to keep of ``n``, or ``None`` when within the limits.

    ``max_lines`` alone keeps the first ``max_lines``; ``head``/``tail`` keep the first ``head`` and
    last ``tail`` once there are more than ``max_lines`` (without it: more than head + tail), with
    head + tail capped at ``max_lines``. Critical lines in between are kept on top (by the caller).
    """
    head, tail, most = f["head"], f["tail"], f["max_lines"]
    if head is None and tail is None:
        return None if most is None or n <= most else (most, 0)
    h, t = head or 0, tail or 0
    if most is not None:
        if n <= most:
            return None
        h = min(h, most)
        t = min(t, most - h)
    return None if n <= h + t else (h, t)


def _replaced(f: dict, payload, texts: list[str], crit: list[bool]) -> list[list]:
    """Rows ``[text, origin, critical]``; a non-critical line ``replace`` changes becomes a
    declared summary line (its original counts as omitted)."""
    rows = []
    for line, text, o, c in zip(payload.lines, texts, payload.origin, crit):
        if not c and f["replace"]:
            new = text
            for pattern, repl in f["replace"]:
                new = rx(pattern).sub(repl, new)
            if new != text:
                rows.append([new, SYNTHETIC, False])
                continue
        rows.append([line, o, c])
    return rows


def _clipped(rows: list[list], limit: int, source: tuple[str, ...]) -> None:
    """Clip non-critical rows longer than ``limit`` in place, with the engine's clip marker
    (counted from the source line, so the executor can verify it)."""
    for r in rows:
        if not r[2]:
            cut = clip(source[r[1]] if r[1] >= 0 else r[0], limit)
            if len(cut) < len(r[0]):
                r[0] = cut


def transform(f: dict, payload) -> tuple[list[str], list[int]]:
    """The view ``f`` makes of ``payload``: ``(lines, origin)``, before any decline rule."""
    crit = critical_flags(payload)
    strip_ansi = f["strip_ansi"]
    texts = [_plain(s, strip_ansi) for s in payload.lines]
    message = _short_circuit(f, texts, crit, payload.exit_code)
    if message is not None:
        return [message], [SYNTHETIC]
    rows = _replaced(f, payload, texts, crit)
    if f["strip"]:
        rows = [r for r in rows if r[2] or not _any(f["strip"], _plain(r[0], strip_ansi))]
    if f["keep"] is not None:
        rows = [r for r in rows if r[2] or _any(f["keep"], _plain(r[0], strip_ansi))]
    if f["max_line_chars"]:
        _clipped(rows, f["max_line_chars"], payload.source)
    window = _window(f, len(rows))
    if window:
        h, t = window
        rows = [r for i, r in enumerate(rows) if i < h or i >= len(rows) - t or r[2]]
    if not rows and f["on_empty"] is not None:
        rows = [[f["on_empty"], SYNTHETIC, False]]
    return [r[0] for r in rows], [r[1] for r in rows]


def _plain(line: str, strip_ansi: bool) -> str:
    return ANSI_RE.sub("", line) if strip_ansi and "\x1b" in line else line


def apply(f: dict, payload):
    """The filtered payload, or ``None`` when ``f`` changes nothing or would not make it smaller."""
    lines, origin = transform(f, payload)
    if tuple(lines) == payload.lines and tuple(origin) == payload.origin:
        return None
    new = payload.with_view(lines, origin)
    if estimate(new.text()) >= payload.tokens():
        return None
    return new.evolve(notes=payload.notes + (f"filter {f['name']} ({f['file']})",))
