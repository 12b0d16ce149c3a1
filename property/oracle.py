"""An independent reading of one emission against its raw input (the oracle behind INV-3 and INV-4).

The engine tracks where every view line came from (``Payload.origin``); this module does *not* trust
that bookkeeping. It recomputes the input lines from the raw bytes (split on ``\\n`` only, decoded as
the engine documents), the cleaned form Read is documented to produce, and then matches each output
line, in order, to an input line, a clipped input line, a collapse summary, or the footer.

A line that is no input line but carries a ``[thresher: ...]`` marker is a *declared summary*; the
counts of the summaries in ``COUNTED`` are verified, others only need a stage allowed to write them.
Ambiguity is handled, not guessed: a summary-shaped line that also occurs in the input may be either,
so counts derived from it are ranges (``kept`` .. ``kept + ambiguous``), and the summary counts are
checked against bounds that hold for every consistent matching (earliest and latest positions).
"""

from __future__ import annotations

import re

from thresher.dataflow.api import handle_of
from thresher.dataflow.escapes import SGR_RE
from thresher.dataflow.markers import CLIP_RE, FOOTER_RE, clip, elided, is_clip_of
from thresher.stages.lib.text import ANSI_RE, ERROR_RE, skeleton

from .relayout import relaid_from_input, relays_out

MARKER_RE = re.compile(r"\[thresher: [^\]]*\]")
"""Any marker of the engine's syntax inside a line: a declared summary when no input line is it."""

ERROR_SHAPES = tuple(re.compile(p) for p in (
    # a word naming a failure, as a whole word, in any position
    r"(?i)\b(?:errors?|fatal|panic(?:ked)?|exception|traceback|fail(?:ed|ure|s)?|abort(?:ed)?)\b",
    r"(?i)\b(?:segmentation fault|core dumped)\b",
    # an exception type opening a line: Python `ValueError: x`, Java `java.io.IOException: x`,
    # JavaScript `TypeError: x`, .NET `System.InvalidOperationException: x`
    r"^\s*(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:Error|Exception)(?::|$)",
    # a chained cause (Java, Kotlin, Scala) and a Go panic
    r"^\s*Caused by: ", r"^panic: ",
    # pytest's failure rows and traceback frames
    r"^E\s", r"^(?:FAILED|ERROR) ", r"^\s*File \"[^\"]*\", line \d+",
))
"""Error lines as INV-6 sees them: written here on their own, not borrowed from the engine, so a
shape the engine's error scan misses shows up as a lost error line instead of passing unseen.
Every shape must be one the engine protects too (tests/test_oracle_errors.py checks both on real
outputs of many languages)."""


def is_error(line: str) -> bool:
    """True when ``line`` has one of :data:`ERROR_SHAPES`."""
    return any(rx.search(line) for rx in ERROR_SHAPES)


COUNTED = (
    (re.compile(r"^\[thresher: (?P<n>\d+) similar lines folded(?:; numbers that vary: [^\]]*)?\]$"), "similar"),       # collapse
    (re.compile(r"^\[thresher: previous line repeated (?P<n>\d+) more times\]$"), "same"),  # lossless
    (re.compile(r"^\[thresher: (?P<n>\d+) more blank lines\]$"), "same"),              # lossless
)
"""Summary lines whose count the oracle can verify: N more lines like the line before them. Elision
lines (``…A-B``, :data:`~thresher.dataflow.markers.ELISION_RE`) are verified too: their B - A + 1
lines must fit between their neighbours."""


def input_lines(raw: bytes) -> list[str]:
    """The input's lines as the engine sees them: UTF-8 with replacement, split on ``\\n`` only."""
    text = raw.decode("utf-8", "replace")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def clean_line(line: str, strip_ansi: bool = True, redraws: bool = True, failed: bool = False) -> str:
    """``line`` as Read documents it: escapes (7- and 8-bit) removed, trailing CRs dropped (kept on
    a failing command's error line), of a redraw the last state and every state with an error."""
    if strip_ansi:
        line = ANSI_RE.sub("", line)
    body = line.rstrip("\r")
    if redraws and "\r" in body:
        states = [seg for seg in body.split("\r") if seg.strip()]
        body = "\r".join([s for s in states[:-1] if ERROR_RE.search(s)] + states[-1:])
    return body + line[len(line.rstrip("\r")):] if failed and ERROR_RE.search(body) else body


def read_params(plan: dict) -> list[dict]:
    """Params of every Read-phase node of ``plan`` (empty when the graph has none)."""
    return [n["params"] for n in plan["nodes"].values() if n["phase"] == "read"]


def is_declared(line: str) -> bool:
    """True when ``line`` is shaped like a summary a stage may write (not a clip or a footer)."""
    if elided(line) is not None:
        return True
    return (MARKER_RE.search(line) is not None and CLIP_RE.search(line) is None
            and FOOTER_RE.match(line) is None)


def counted(line: str) -> tuple[int, str] | None:
    """``(N, kind)`` of a summary the oracle can verify, else None."""
    gap = elided(line)
    if gap is not None:
        return gap[1] - gap[0] + 1, "gap"
    for regex, kind in COUNTED:
        m = regex.match(line)
        if m:
            return int(m["n"]), kind
    return None


def colour_stripped(raw: bytes) -> bytes:
    """``raw`` without its colour codes: the "cleaned" passthrough of a small output passed whole
    (the same characters on a terminal; carriage-return redraws and everything else kept)."""
    return SGR_RE.sub("", raw.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


class Reading:
    """One emission read line by line against the input lines it claims to come from."""

    def __init__(self, raw: bytes, output: bytes, plan: dict) -> None:
        self.raw, self.output = raw, output
        self.source = input_lines(raw)
        self.total = len(self.source)
        params = read_params(plan)
        # the raw line, Read's cleaned forms, and the colour-stripped one of a small output
        # passed whole (finalize's strip_sgr keeps everything else, CRs included)
        self.forms = [{s, SGR_RE.sub("", s)} | {clean_line(s, p["strip_ansi"], p["redraws"], f)
                                                for p in params for f in (False, True)}
                      for s in self.source]
        limits = [p["max_line_chars"] for p in params]
        self.views = [{clip(f, lim) for f in forms for lim in limits} | forms for forms in self.forms]
        self.passthrough = output == raw
        # stages that re-lay out JSON (blame rows) write lines whose values (tails) come from the input
        self.relayout, self.plan = relays_out(plan), plan
        self.text = raw.decode("utf-8", "replace") if self.relayout else ""
        self.lines: list[str] = []
        self.footers: list[int] = []      # output indices of footers naming this payload's handle
        self.match: list[int | None] = []  # per output line: input index (forward, earliest)
        self.clipped_at: set[int] = set()
        self.summaries: list[int] = []     # output indices of declared summary lines
        self.ambiguous: set[int] = set()   # summary lines that could also be input lines
        self.unmatched: list[int] = []
        self._skeletons: list[set[str]] | None = None
        if not self.passthrough:
            self._read()

    def _read(self) -> None:
        text = self.output.decode("utf-8", "replace")
        self.lines = text.split("\n")
        if text.endswith("\n"):
            self.lines.pop()
        handle = handle_of(self.raw)
        pos = 0
        for i, line in enumerate(self.lines):
            m = FOOTER_RE.match(line)
            if m and m["handle"] == handle:
                self.footers.append(i)
                self.match.append(None)
                continue
            k = self._find(line, pos, len(self.source), 1)
            if is_declared(line):
                self.summaries.append(i)
                self.match.append(None)
                if k is not None:
                    self.ambiguous.add(i)
                continue
            if k is None and self.relayout and relaid_from_input(line, self.text, self.plan):
                self.summaries.append(i)
                self.match.append(None)
                continue
            self.match.append(k)
            if k is None:
                self.unmatched.append(i)
                continue
            if line not in self.forms[k]:
                self.clipped_at.add(i)
            pos = k + 1

    def _find(self, line: str, start: int, stop: int, step: int) -> int | None:
        """First input index in ``range(start, stop, step)`` that ``line`` shows (maybe clipped)."""
        clipped = CLIP_RE.search(line) is not None
        for k in range(start, stop, step):
            if line in self.forms[k] or (clipped and any(is_clip_of(line, f) for f in self.forms[k])):
                return k
        return None

    @property
    def kept(self) -> int:
        """Input lines certainly shown (each matched output line is a distinct input line)."""
        return sum(1 for k in self.match if k is not None)

    def latest(self) -> list[int | None]:
        """Per output line: the latest input index it can stand for (backward greedy matching)."""
        out: list[int | None] = [None] * len(self.lines)
        pos = len(self.source) - 1
        for i in range(len(self.lines) - 1, -1, -1):
            if self.match[i] is None:
                continue
            k = self._find(self.lines[i], pos, -1, -1)
            out[i] = k
            pos = (k if k is not None else pos) - 1
        return out

    def summary_problem(self, i: int, latest: list[int | None]) -> str | None:
        """Why the counted summary at output line ``i`` is not a true count, or None."""
        n, kind = counted(self.lines[i]) or (0, "")
        if not kind:
            return None
        prev = i - 1
        if kind == "gap":
            return self.gap_problem(i, n, latest)
        if prev in self.ambiguous:
            return None  # the line before may be an input line after all: cannot tell
        lo = self.match[prev] if prev >= 0 else None
        if lo is None:
            return "a summary line that does not follow a kept input line"
        if n < 1:
            return "a summary folding no lines"
        nxt = next((j for j in range(i + 1, len(self.lines)) if self.match[j] is not None), None)
        hi = latest[nxt] if nxt is not None else len(self.source)
        stop = hi if hi is not None else len(self.source)
        if kind == "same":
            similar = sum(1 for k in range(lo + 1, stop) if self.lines[prev] in self.views[k])
        else:
            key = skeleton(self.lines[prev])
            if self._skeletons is None:
                self._skeletons = [{skeleton(v) for v in views} for views in self.views]
            similar = sum(1 for k in range(lo + 1, stop) if key in self._skeletons[k])
        if similar < n:
            return (f"claims {n} folded lines but only {similar} input lines "
                    f"{'equal' if kind == 'same' else 'similar'} to {self.lines[prev][:80]!r} "
                    f"lie between its neighbours")
        return None

    def gap_problem(self, i: int, n: int, latest: list[int | None]) -> str | None:
        """Why the elision line at output line ``i`` claims more lines than lie between its
        neighbours (the nearest matched lines, at their widest placement), or None."""
        lo = next((k for k in reversed(self.match[:i]) if k is not None), -1)
        nxt = next((j for j in range(i + 1, len(self.lines)) if self.match[j] is not None), None)
        late = latest[nxt] if nxt is not None else None
        hi = late if late is not None else len(self.source)
        if hi - lo - 1 < n:
            return (f"elides {n} lines but only {hi - lo - 1} input lines lie between its "
                    f"neighbours")
        return None

    def forced_into(self, first: int, last: int, latest: list[int | None]) -> int | None:
        """An output line that can only be an input line in ``first..last`` (0-based), or None."""
        for i, k in enumerate(self.match):
            lk = latest[i] if latest else None
            if k is not None and lk is not None and first <= k and lk <= last:
                return i
        return None
