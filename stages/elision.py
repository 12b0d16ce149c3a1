"""Views of a document that show some source lines and elide the rest, with exact ranges.

The code outline, markdown/HTML outlines and prose extraction all decide *which source rows to
show*; this module turns that decision into a view, the same way for all of them.

Each gap becomes one elision line, ``{indent}…A-B`` for source lines A..B (format and rationale in
``thresher.dataflow.markers``, the one place that writes and parses it), indented like the first line
it stands for so the nesting stays visible. Route still writes the one footer, counting every
elided line as omitted; a last declared summary line spells the notation out and names the command
that reads the largest gap.
A gap is shown instead of elided when the elision line would cost at least as many tokens, and a
gap of blank lines only is always shown (cheaper than any marker).
"""

from __future__ import annotations

import re
import shlex

from thresher.dataflow.markers import elision
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.tokens import estimate

_NUMBERED = re.compile(r"^ *(\d+)\t")
_FLAG_WITH_VALUE = {"--lines", "--bytes", "--mode", "--query", "--role", "--class"}
_FLAG_WITH_NUMBER = {"-n", "-c"}  # head -n 300 (but cat -n takes no value)


def pristine(payload) -> bool:
    """True when the view is still the whole source, one line per source line, no summaries.

    A document distiller only runs on such a view: after another distiller applied (several may
    sit in one graph), the rows it would compute no longer describe the view.
    """
    return len(payload.origin) == len(payload.source) and all(
        o == i for i, o in enumerate(payload.origin))


def numbering(lines) -> tuple[int, list[str]] | None:
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


def elide(payload, shown: list[bool], handle: str, first_number: int = 1, *, what: str = "outline"):
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
