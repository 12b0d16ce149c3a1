"""The Payload: one tool output travelling through a graph, plus the phases and line tiers.

A Payload is immutable; stages return a new one (``payload.evolve(...)``) or ``None`` (declined).
It keeps the raw bytes losslessly for the archive and for raw passthrough, and a *view*: the lines
the agent would see now, each tagged with where it came from (``origin``). ``origin[i] >= 0`` means
"line i of the view is source line origin[i], unchanged"; ``SYNTHETIC`` (-1) marks a declared
summary line whose numbers a stage computed from the input. The executor uses ``origin`` to check
for fabrication and to count kept + omitted lines exactly.

Plain ``__slots__`` classes rather than dataclasses: this module is on the hot path, and
``dataclasses`` pulls in ``inspect`` (~10 ms of start-up).
"""

from __future__ import annotations

from .tokens import estimate_joined, estimate_utf8

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Sequence

SYNTHETIC = -1
"""``origin`` value of a summary line a stage wrote (not a copy of an input line)."""

# Phases, in the order a graph must respect along every edge.
PHASES = ("read", "guard", "score", "distill", "collapse", "ledger", "route", "persist")
PHASE_INDEX = {name: i for i, name in enumerate(PHASES)}

# Line tiers assigned by Score: the answer, useful context, and noise.
NOISE, IMPORTANT, CRITICAL = 0, 1, 2


CLEANABLE_VERDICTS = ("tiny output", "failing command with a small output")
"""Guard verdicts about size, not format: the output still passes whole, but colour codes may go
(the text a terminal shows is unchanged). Structured, JSON and binary verdicts stay byte-exact."""


class Payload:
    """One tool output: raw bytes, command context, the current line view and its provenance."""

    _FIELDS = (
        "raw", "command", "argv", "exit_code", "stream", "pclass", "role", "scope",
        "source", "lines", "origin", "tiers", "verdict", "trailing_newline", "clipped", "notes",
        "redacted", "result_exits",
    )
    __slots__ = _FIELDS + ("_tokens", "_memo", "_rawmemo")

    def __init__(
        self,
        raw: bytes,
        *,
        command: str = "",
        argv: tuple[str, ...] = (),
        exit_code: int | None = None,
        stream: str = "stdout",
        pclass: str = "generic",
        role: str = "default",
        scope: str = "",
        source: tuple[str, ...] = (),
        lines: tuple[str, ...] = (),
        origin: tuple[int, ...] = (),
        tiers: tuple[int, ...] = (),
        verdict: str | None = None,
        trailing_newline: bool = False,
        clipped: int = 0,
        notes: tuple[str, ...] = (),
        redacted: bool = False,
        result_exits: tuple[int, ...] = (),
    ) -> None:
        self.raw = raw
        self.command = command
        self.argv = argv
        self.exit_code = exit_code
        self.stream = stream
        self.pclass = pclass
        self.role = role
        self.scope = scope
        self.source = source          # decoded, cleaned input lines (set by Read)
        self.lines = lines            # the current view
        self.origin = origin          # per view line: source index or SYNTHETIC
        self.tiers = tiers            # per *source* line: NOISE / IMPORTANT / CRITICAL
        self.verdict = verdict        # Guard's reason to pass through byte-exact, if any
        self.trailing_newline = trailing_newline
        self.clipped = clipped        # number of view lines shortened by a clip marker
        self.notes = notes            # free-form, human-readable notes stages leave for the trace
        self.redacted = redacted      # the view hides secrets: emitted even when not smaller (INV-2)
        self.result_exits = result_exits  # the graph's exit codes that report a result (diff: 1)
        self._tokens = -1             # estimate of text(), computed once (see tokens())
        self._memo: dict[str, int] = {}  # values derived from source, shared while source stays
        self._rawmemo: dict[str, int] = {}  # values derived from raw, shared while raw stays

    def evolve(self, **changes: object) -> "Payload":
        """Return a copy with ``changes`` applied (the only way stages make a new payload)."""
        new = Payload.__new__(Payload)
        for name in Payload._FIELDS:
            setattr(new, name, changes.pop(name) if name in changes else getattr(self, name))
        # the view's estimate holds while its text does (Score sets tiers, Guard a verdict, ...)
        same = new.trailing_newline == self.trailing_newline and (
            new.lines is self.lines or (len(new.lines) == len(self.lines) and new.lines == self.lines))
        new._tokens = self._tokens if same else -1
        new._memo = self._memo if new.source is self.source else {}
        new._rawmemo = self._rawmemo if new.raw is self.raw else {}
        if changes:
            raise TypeError(f"Payload has no field(s): {', '.join(sorted(changes))}")
        return new

    def with_view(self, lines: Sequence[str], origin: Sequence[int]) -> Payload:
        """Return a copy whose view is ``lines`` with provenance ``origin`` (same length)."""
        if len(lines) != len(origin):
            raise ValueError(f"view has {len(lines)} lines but {len(origin)} origins")
        return self.evolve(lines=tuple(lines), origin=tuple(origin))

    def select(self, indices: Sequence[int]) -> Payload:
        """Return a copy whose view keeps only the view lines at ``indices`` (in the given order)."""
        return self.with_view([self.lines[i] for i in indices], [self.origin[i] for i in indices])

    def counts(self) -> tuple[int, int, int]:
        """``(kept, omitted, clipped)`` source lines of the current view (footer lines ignored)."""
        kept = {o for o in self.origin if o >= 0}
        clipped = sum(1 for line, o in zip(self.lines, self.origin) if o >= 0 and line != self.source[o])
        return len(kept), len(self.source) - len(kept), clipped

    @property
    def failed(self) -> bool:
        """True when the command that produced this output exited non-zero, with a code its
        graph does not declare a result (``result_exits``: ``diff`` exits 1 when files differ)."""
        return self.exit_code not in (None, 0) and self.exit_code not in self.result_exits

    def text(self) -> str:
        """The current view as text, with the input's trailing newline convention."""
        body = "\n".join(self.lines)
        return body + "\n" if (self.trailing_newline and self.lines) else body

    def tokens(self) -> int:
        """Estimated tokens of :meth:`text`, computed once per payload (payloads are immutable):
        the executor's per-stage and guardrail checks ask for it several times per view."""
        if self._tokens < 0:
            self._tokens = estimate_joined(self.lines, "\n" if self.trailing_newline and self.lines else "")
        return self._tokens

    def source_tokens(self) -> int:
        """Estimated tokens of the whole source (its lines joined), computed once per source."""
        n = self._memo.get("source_tokens")
        if n is None:
            n = self._memo["source_tokens"] = estimate_joined(self.source)
        return n

    def raw_tokens(self) -> int:
        """Estimated tokens of the raw bytes decoded (what raw passthrough costs the reader)."""
        n = self._rawmemo.get("raw_tokens")
        if n is None:
            n = self._rawmemo["raw_tokens"] = estimate_utf8(self.raw)
        return n

    def __repr__(self) -> str:
        return (f"Payload(class={self.pclass!r}, command={self.command!r}, exit={self.exit_code}, "
                f"raw={len(self.raw)}B, view={len(self.lines)} lines)")


class Out:
    """A stage result that leaves through a named output port instead of the default ``out``."""

    __slots__ = ("port", "payload")

    def __init__(self, port: str, payload: Payload) -> None:
        self.port = port
        self.payload = payload

    def __repr__(self) -> str:
        return f"Out({self.port!r}, {self.payload!r})"
