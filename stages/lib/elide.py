"""Views that show some source lines and elide the rest, with exact ranges.

Two callers, one notation. The code outline, markdown/HTML outlines and prose extraction decide
*which source rows to show* and :func:`elide` turns that decision into a view; the
line-preserving crushers (YAML, TOML) decide which ranges to drop, with notes, and
:func:`assemble` does the same for them.

In :func:`elide`'s views each gap becomes one elision line, ``{indent}…A-B`` for source lines A..B (format and rationale in
``thresher.dataflow.markers``, the one place that writes and parses it), indented like the first line
it stands for so the nesting stays visible. Route still writes the one footer, counting every
elided line as omitted; a last declared summary line spells the notation out and names the command
that reads the largest gap.
A gap is shown instead of elided when the elision line would cost at least as many tokens, and a
gap of blank lines only is always shown (cheaper than any marker).

A crusher decides which line ranges of the source to drop, each held by a note on what it held
(``.paths: 40 keys, 12 shown; not shown: …``), and :func:`assemble` turns that into a view whose
document part is the kept source lines only, byte-exact, so that it stays a valid document (the
crushers check that it parses): what was left out is said once, above the document, one declared
summary line per path with the source lines it left out, after a lead line that names the
command reading a range (issue 16 §12: no marker inside the data, as in crushed JSON). The
engine's emission rule (Route) writes the one footer. Ranges that would drop a critical line of a
failing command are skipped, so INV-6 holds by construction.
"""

from __future__ import annotations

import re
import shlex

from thresher.dataflow.markers import elision
from thresher.dataflow.payload import CRITICAL, SYNTHETIC
from thresher.dataflow.tokens import estimate

from thresher.stages.lib import anomaly

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from thresher.dataflow.payload import Payload

_NUMBERED = re.compile(r"^ *(\d+)\t")
_FLAG_WITH_VALUE = {"--lines", "--bytes", "--mode", "--query", "--role", "--class"}
_FLAG_WITH_NUMBER = {"-n", "-c"}  # head -n 300 (but cat -n takes no value)


def pristine(payload: Payload) -> bool:
    """True when the view is still the whole source, one line per source line, no summaries.

    A document distiller only runs on such a view: after another distiller applied (several may
    sit in one graph), the rows it would compute no longer describe the view.
    """
    return len(payload.origin) == len(payload.source) and all(
        o == i for i, o in enumerate(payload.origin))


def numbering(lines: Sequence[str]) -> tuple[int, list[str]] | None:
    """For ``cat -n`` output: ``(first line number, lines without the number prefix)``.

    Every line must carry a ``  N<TAB>`` prefix with consecutive numbers; otherwise ``None``.
    The stripped lines are what a parser sees; the view keeps the numbered lines byte-exact.
    """
    if not lines:
        return None
    m = _NUMBERED.match(lines[0])
    if m is None:
        return None
    first = int(m.group(1))
    body = []
    for i, line in enumerate(lines):
        m = _NUMBERED.match(line)
        if m is None or int(m.group(1)) != first + i:
            return None
        body.append(line[m.end():])
    return first, body


def target_file(command: str) -> str | None:
    """The single file a read-like command shows (``cat F``, ``head -n 9 F``, ``thresher read F``).

    ``None`` when there is not exactly one file operand (several files, a pipe, a redirect), because
    then line numbers of the output are not line numbers of one file.
    """
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or any(w in ("|", "||", "&&", ";", ">", ">>", "<") for w in words):
        return None
    if words[:2] == ["thresher", "read"]:
        words = words[1:]
    operands, skip = [], False
    for i, w in enumerate(words[1:], 1):
        if skip:
            skip = False
            continue
        if w in _FLAG_WITH_VALUE or (w in _FLAG_WITH_NUMBER and i + 1 < len(words)
                                     and words[i + 1].lstrip("+-").isdigit()):
            skip = True
            continue
        if w.startswith("-") and w != "-":
            continue
        operands.append(w)
    return operands[0] if len(operands) == 1 else None


def read_mode(command: str) -> str | None:
    """The ``--mode`` of a ``thresher read`` command line, or ``None``."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words[:2] != ["thresher", "read"]:
        return None
    for i, w in enumerate(words):
        if w == "--mode" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--mode="):
            return w[len("--mode="):]
    return None


def follow_up(command: str, handle: str, a: int, b: int) -> str:
    """The exact command that shows lines ``a``-``b``: of the file when known, else of the archive."""
    path = target_file(command)
    if path is not None and path != "-":
        return f"thresher read {shlex.quote(path)} --lines {a}-{b}"
    return f"thresher expand {handle} --lines {a}-{b}"


def _gaps(shown: list[bool]) -> list[tuple[int, int]]:
    """``(start, end)`` row ranges (end exclusive) of rows not shown."""
    gaps, start = [], None
    for i, s in enumerate(shown + [True]):
        if not s and start is None:
            start = i
        elif s and start is not None:
            gaps.append((start, i))
            start = None
    return gaps


def elide(payload: Payload, shown: list[bool], handle: str, first_number: int = 1, *,
          what: str = "outline") -> Payload | None:
    """The view showing source rows where ``shown`` is true, each gap as one elision line.

    ``first_number`` is the file line number of source row 0 (``cat -n`` may start elsewhere).
    A last summary line names the follow-up command for the largest elided range. Returns
    ``None`` when nothing would be elided.
    """
    src, lines = payload.source, payload.lines
    shown = list(shown)
    entries: dict[int, tuple[int, str]] = {}
    for a, b in _gaps(shown):
        content = [i for i in range(a, b) if src[i].strip()]
        if not content:
            shown[a:b] = [True] * (b - a)
            continue
        indent = src[content[0]][:len(src[content[0]]) - len(src[content[0]].lstrip())]
        mark = elision(indent, a + first_number, b - 1 + first_number)
        # k non-blank lines cost at least 2k-1 tokens (each has a token, each line break inside a
        # whitespace run one more): only a gap that might be cheaper than its marker is estimated
        cost = estimate(mark)
        if 2 * len(content) - 1 <= cost and estimate("\n".join(src[a:b])) <= cost:
            shown[a:b] = [True] * (b - a)
            continue
        entries[a] = (b, mark)
    if not entries:
        return None
    view, origin, i = [], [], 0
    while i < len(src):
        if i in entries:
            end, mark = entries[i]
            view.append(mark)
            origin.append(SYNTHETIC)
            i = end
            continue
        view.append(lines[i])
        origin.append(i)
        i += 1
    a, (b, _) = max(entries.items(), key=lambda kv: (kv[1][0] - kv[0], -kv[0]))
    cmd = follow_up(payload.command, handle, a + first_number, b - 1 + first_number)
    elided = sum(end - start for start, (end, _) in entries.items())
    view.append(f"[thresher: {what} of {len(src)} lines, {elided} elided, each \u2026A-B standing "
                f"for lines A-B · read a range with: {cmd}]")
    origin.append(SYNTHETIC)
    return payload.with_view(view, origin)


LEAD = ("[thresher: a {what} sample (it parses): kept lines are the input's own, members left out "
        "are named below by path with their source lines; read a range with: {cmd}]")


MAX_NOTES = 40  # summary lines at most; the rest are counted in one
MAX_RANGES = 8  # source ranges named per summary line; the rest are counted, within their span


class Plan:
    """Drops ``(start, end, note)`` (end exclusive, disjoint) and the notes of the summary block;
    each drop belongs to one note (the path whose members it held)."""

    __slots__ = ("drops", "notes")

    def __init__(self) -> None:
        self.drops: list[tuple[int, int, int]] = []
        self.notes: list[str] = []

    def drop(self, start: int, end: int, note: "str | int") -> None:
        """Drop source lines ``start..end-1``, held by ``note`` (its text, or an index from
        :meth:`note`)."""
        if end > start:
            self.drops.append((start, end, self.note(note) if isinstance(note, str) else note))

    def note(self, text: str) -> int:
        """A summary line (a path's schema, counts) for the block above the document; its index."""
        self.notes.append(text)
        return len(self.notes) - 1


def _lines(ranges: list[tuple[int, int]]) -> str:
    """``lines 12-13, 40`` (1-based, inclusive) for source ranges ``(start, end)`` end exclusive."""
    ranges = sorted(ranges)
    parts = [f"{a + 1}-{b}" if b - a > 1 else f"{b}" for a, b in ranges[:MAX_RANGES]]
    rest = ranges[MAX_RANGES:]
    return ("line " if len(ranges) == 1 and "-" not in parts[0] else "lines ") + ", ".join(parts) \
        + (f" and {len(rest)} more in lines {rest[0][0] + 1}-{rest[-1][1]}" if rest else "")


def assemble(payload: Payload, plan: Plan, what: str, handle: str) -> tuple[list[str], list[int]]:
    """The view of ``payload.source`` under ``plan`` (``what``: ``"YAML"``, ``"TOML"``).

    The kept lines only, byte-exact and in order, so that the shown part is a document of its
    own (a dropped sequence item, mapping key or table leaves valid YAML/TOML behind; the caller
    checks that it parses). What was left out is said once, above the document: a lead line
    with the command that reads a range, then one line per path with its source line ranges
    (INV-4: no marker inside the data; Route writes the one footer)."""
    src, tiers = payload.source, payload.tiers
    starts: dict[int, int] = {}
    owned: dict[int, list[tuple[int, int]]] = {}
    for start, end, note in plan.drops:
        if payload.failed and any(tiers[i] == CRITICAL for i in range(start, end)):
            continue
        starts[start] = end
        owned.setdefault(note, []).append((start, end))
    if not starts:
        return list(src), list(range(len(src)))
    merged: dict[str, list[tuple[int, int]]] = {}
    for idx, ranges in owned.items():
        merged.setdefault(plan.notes[idx], []).extend(ranges)
    notes = [f"[thresher: {text} ({_lines(ranges)})]"
             for text, ranges in sorted(merged.items(), key=lambda kv: min(kv[1]))]
    if len(notes) > MAX_NOTES:
        rest = sorted(r for _, ranges in sorted(merged.items(), key=lambda kv: min(kv[1]))[MAX_NOTES - 1:]
                      for r in ranges)
        notes = notes[:MAX_NOTES - 1] + [f"[thresher: {len(notes) - MAX_NOTES + 1} more paths with "
                                         f"members left out ({_lines(rest)})]"]
    a, b = max(starts.items(), key=lambda kv: (kv[1] - kv[0], -kv[0]))
    view = [LEAD.format(what=what, cmd=follow_up(payload.command, handle, a + 1, b))] + notes
    origin = [SYNTHETIC] * len(view)
    i = 0
    while i < len(src):
        if i in starts:
            i = starts[i]
            continue
        view.append(src[i])
        origin.append(i)
        i += 1
    return view, origin


def shown_text(payload: Payload, origin: list[int]) -> str:
    """The document part of an assembled view: its source lines, summary lines left out."""
    src = payload.source
    return "\n".join(src[o] for o in origin if o >= 0)


def sample(n: int, shown: int, found: dict, cap: int) -> list[int]:
    """Indices of ``n`` members to show: the first ``shown - 1``, the last, and up to ``cap``
    anomalous ones (all when ``n <= shown + 1``)."""
    if n <= shown + 1:
        return list(range(n))
    return sorted(set(range(max(shown - 1, 1))) | {n - 1} | set(anomaly.ranked(found, cap)))


def gaps(keep: list[int], n: int) -> list[tuple[int, int]]:
    """Inclusive ``(first, last)`` index runs of ``range(n)`` not in ``keep``."""
    out, prev = [], -1
    for i in keep + [n]:
        if i > prev + 1:
            out.append((prev + 1, i - 1))
        prev = i
    return out


def indent_of(line: str) -> str:
    """The leading whitespace of ``line``."""
    return line[:len(line) - len(line.lstrip())]
