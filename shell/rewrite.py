"""Rewrite an agent's shell line so the commands whose output it will read run under thresher.

A rewrite only ever *inserts* ``thresher run -- `` in front of a segment's command; every other
byte of the line (spacing, quotes, operators, comments) is reproduced as written. Leading
``VAR=value`` assignments, the ``time``/``!`` keywords and leading redirections stay in front
(``time`` must stay the shell keyword; assignments must stay shell assignments); transparent
prefixes such as ``sudo -u app`` go inside: ``FOO=1 thresher run -- sudo -u app pytest -q``.

A segment is wrapped only when the agent will see its stdout and its real command is in the table
(:mod:`thresher.shell.commands`). Not wrapped: a segment whose stdout feeds a pipe or a file, one
reading a pipe (its output is already shaped by the agent, and thresher would classify the reader
rather than the producer), one in the background, one holding ``$( )``, backticks or ``$(( ))``,
and compound commands. A line with a here-document, or one the lexer cannot balance, is left alone.
"""

from __future__ import annotations

from . import policy, prefixes
from .lexer import Unparsable, tokenize
from .segments import Segment, split

WRAP = "thresher run -- "
# Redirection targets that still reach the agent.
SEEN = frozenset({"/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"})


class Decision:
    """What happened to one segment: its text, the real command, wrapped or not, and why."""

    __slots__ = ("text", "real", "wrap", "reason", "insert_at")

    def __init__(self, text: str, real: str, wrap: bool, reason: str, insert_at: int = -1) -> None:
        self.text, self.real, self.wrap, self.reason = text, real, wrap, reason
        self.insert_at = insert_at


def analyze(line: str, user: list[list[str]] | None = None) -> list[Decision]:
    """One :class:`Decision` per segment (or a single one for a line left alone as a whole)."""
    try:
        segs = split(tokenize(line))
    except Unparsable as exc:
        return [Decision(line, "", False, f"left alone as a whole: {exc}")]
    if not segs:
        return [Decision(line, "", False, "nothing to run")]
    if user is None:
        user = prefixes.user_prefixes()
    return [_decide(seg, line, user) for seg in segs]


def rewrite(line: str, user: list[list[str]] | None = None) -> str | None:
    """The rewritten line, or ``None`` when nothing is wrapped (never raises on any input)."""
    try:
        return apply(line, analyze(line, user))
    except Exception:  # noqa: BLE001 - a bug here must never block or alter the agent's command
        return None


def apply(line: str, decisions: list[Decision]) -> str | None:
    """Insert the wrapper at every wrapped segment; ``None`` if there is none."""
    points = [d.insert_at for d in decisions if d.wrap]
    if not points:
        return None
    out, last = [], 0
    for at in points:
        out += [line[last:at], WRAP]
        last = at
    out.append(line[last:])
    return "".join(out)


def _decide(seg: Segment, src: str, user: list[list[str]]) -> Decision:
    """The decision for one segment."""
    text = seg.text(src)
    why = _unseen(seg)
    if why:
        return Decision(text, "", False, why)
    words = seg.words
    k = _front(seg)
    if k == len(words):
        return Decision(text, "", False, "no command (assignments or redirections only)")
    values = [w.value for w in words[k:]]
    j, _ = prefixes.strip(values, user)
    real = " ".join(values[j:])
    if words[k + j].expands:
        return Decision(text, real, False, "the command name is an expansion: unknown")
    wrap, reason = policy.decide(values[j:])
    return Decision(text, real, wrap, reason, words[k].start)


def _unseen(seg: Segment) -> str:
    """Why the agent will not see this segment's stdout as its own output ("" if it will)."""
    if seg.compound:
        return f"compound command ({seg.compound}): left alone"
    if seg.subst:
        return "holds $( ), backticks or $(( )): left alone"
    if seg.sep in ("|", "|&"):
        return "stdout feeds a pipe"
    if seg.piped_in:
        return "reads a pipe: the agent already shaped this output"
    if seg.sep == "&":
        return "runs in the background"
    if _stdout_to_file(seg):
        return "stdout goes to a file"
    return ""


def _stdout_to_file(seg: Segment) -> bool:
    """Any redirection sending fd 1 to a file (``>``, ``>>``, ``>|``, ``&>``, ``>& file``)."""
    for op, target in seg.redirects:
        kind = op.text.lstrip("0123456789")
        if kind in ("&>", "&>>") or (op.fd in (None, 1) and kind in (">", ">>", ">|", ">&")):
            if kind == ">&" and target.value.isdigit():
                continue  # ``>&2``: still shown to the agent, on stderr
            if target.value not in SEEN:
                return True
    return False


def _front(seg: Segment) -> int:
    """Index of the first word that goes after ``thresher run --``.

    Skipped: the pipeline keywords ``!`` and ``time [-p]`` (they must stay shell keywords) and
    leading ``NAME=value`` assignments (they must stay assignments for the shell).
    """
    words, i = seg.words, 0
    while i < len(words) and words[i].text in ("!", "time"):
        i += 2 if words[i].text == "time" and i + 1 < len(words) and words[i + 1].text == "-p" \
            else 1
    while i < len(words) and words[i].assign:
        i += 1
    return i
