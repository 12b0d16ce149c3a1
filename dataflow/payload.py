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

from .rxcache import re_lazy as re  # re.compile from the start-up regex cache (rxcache.py)
from .tokens import estimate_joined, estimate_utf8

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

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


RELEASE_ABOVE = 1 << 20
"""An :class:`Original` handed over by its owner lets go of bytes longer than this once they are
decoded exactly (smaller ones are kept: rebuilding them would cost more than they weigh)."""
_ENCODE_LINES = 4096
"""Lines encoded at a time when an :class:`Original` rebuilds its bytes."""


class Original:
    """The raw bytes of one input, which may be let go of while the engine holds their lines.

    A face that owns its input and hands it over (``Original(data, releasable=True)``, then no
    other reference: ``thresher pipe``) lets the engine drop the bytes once they decode to lines
    exactly (valid UTF-8: the lines joined with ``\n``, re-encoded, *are* the bytes): the bytes and
    their lines no longer sit side by side in memory while the graph runs. :meth:`tobytes` rebuilds
    them byte for byte whenever they are needed (a raw emission), :meth:`head` a prefix, and
    :meth:`chunks` streams them (the archive packs them that way: never whole).
    """

    __slots__ = ("_bytes", "_lines", "_trailing", "size", "releasable")

    def __init__(self, raw: bytes, releasable: bool = False) -> None:
        self._bytes: bytes | None = raw
        self._lines: Sequence[str] = ()
        self._trailing = False
        self.size = len(raw)
        self.releasable = releasable

    @property
    def held(self) -> bool:
        """True while the bytes themselves are held (not rebuilt from lines on demand)."""
        return self._bytes is not None

    def release(self, lines: Sequence[str], trailing: bool) -> bool:
        """Drop the bytes, which decode exactly to ``lines`` (plus a final newline when
        ``trailing``), if the owner allowed it and they are big enough; True when dropped."""
        if self._bytes is None or not self.releasable or self.size <= RELEASE_ABOVE:
            return False
        self._lines, self._trailing = lines, trailing
        self._bytes = None
        return True

    def chunks(self) -> Iterator[bytes]:
        """The bytes, a piece at a time (one piece when they are held)."""
        if self._bytes is not None:
            yield self._bytes
            return
        lines, n = self._lines, len(self._lines)
        for i in range(0, n, _ENCODE_LINES):
            piece = "\n".join(lines[i:i + _ENCODE_LINES])
            if i + _ENCODE_LINES < n or self._trailing:
                piece += "\n"
            yield piece.encode("utf-8")

    def tobytes(self) -> bytes:
        """The bytes, byte for byte (rebuilt from the lines when they were let go of)."""
        if self._bytes is not None:
            return self._bytes
        import io
        buf = io.BytesIO()
        for piece in self.chunks():
            buf.write(piece)
        return buf.getvalue()

    def head(self, n: int) -> bytes:
        """The first ``n`` bytes (or all of them when shorter)."""
        if self._bytes is not None:
            return self._bytes[:n]
        out, have = [], 0
        for piece in self.chunks():
            out.append(piece)
            have += len(piece)
            if have >= n:
                break
        return b"".join(out)[:n]


_C1_BYTES = re.compile(rb"\xc2[\x80-\x9f]")
"""A C1 control in the raw UTF-8 bytes (encoded as C2 80 .. C2 9F)."""


def dirty_bytes(raw: bytes) -> bool:
    """True when ``raw`` holds what Read's cleaning may change (ESC, CR, a C1 control): ``bytes``
    searches for one byte (``memchr``) and for a literal prefix, 10 MB in milliseconds; a regex
    class alternation is tried at every position (0.2 s)."""
    return b"\x1b" in raw or b"\r" in raw or (b"\xc2" in raw and _C1_BYTES.search(raw) is not None)


class Payload:
    """One tool output: raw bytes, command context, the current line view and its provenance."""

    _FIELDS = (
        "raw", "command", "argv", "exit_code", "stream", "pclass", "role", "scope",
        "source", "lines", "origin", "tiers", "verdict", "trailing_newline", "clipped", "notes",
        "redacted", "result_exits",
    )
    __slots__ = tuple(f for f in _FIELDS if f != "raw") + ("_orig", "_tokens", "_memo", "_rawmemo")

    def __init__(
        self,
        raw: bytes | Original,
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
        self._orig = raw if isinstance(raw, Original) else Original(raw)
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

    @property
    def raw(self) -> bytes:
        """The raw input, byte for byte (rebuilt from its lines if its owner let them go)."""
        return self._orig.tobytes()

    @property
    def original(self) -> Original:
        """The raw input's holder (its size, its head, its bytes a piece at a time)."""
        return self._orig

    @property
    def raw_size(self) -> int:
        """Length of the raw input in bytes (without rebuilding it)."""
        return self._orig.size

    def raw_head(self, n: int) -> bytes:
        """The first ``n`` bytes of the raw input (without rebuilding the rest)."""
        return self._orig.head(n)

    def raw_dirty(self) -> bool:
        """:func:`dirty_bytes` of the raw input, computed once per input."""
        d = self._rawmemo.get("dirty")
        if d is None:
            d = self._rawmemo["dirty"] = int(dirty_bytes(self.raw))
        return bool(d)

    def evolve(self, **changes: object) -> "Payload":
        """Return a copy with ``changes`` applied (the only way stages make a new payload)."""
        new = Payload.__new__(Payload)
        if "raw" in changes:
            raw = changes.pop("raw")
            new._orig = raw if isinstance(raw, Original) else \
                self._orig if raw is self._orig._bytes else Original(raw)  # type: ignore[arg-type]
        else:
            new._orig = self._orig
        for name in _NOT_RAW:
            setattr(new, name, changes.pop(name) if name in changes else getattr(self, name))
        # the view's estimate holds while its text does (Score sets tiers, Guard a verdict, ...)
        same = new.trailing_newline == self.trailing_newline and (
            new.lines is self.lines or (len(new.lines) == len(self.lines) and new.lines == self.lines))
        new._tokens = self._tokens if same else -1
        new._memo = self._memo if new.source is self.source else {}
        new._rawmemo = self._rawmemo if new._orig is self._orig else {}
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
            if self.lines is self.source:   # the source's estimate: one for every payload of it
                self._tokens = self.source_tokens()
            else:
                self._tokens = estimate_joined(self.lines, "\n" if self.trailing_newline and self.lines else "")
        return self._tokens

    def source_tokens(self) -> int:
        """Estimated tokens of the whole source as read (its lines joined, with the input's
        trailing newline), computed once per source: the first view's :meth:`tokens`."""
        n = self._memo.get("source_tokens")
        if n is None:
            n = self._memo["source_tokens"] = estimate_joined(
                self.source, "\n" if self.trailing_newline and self.source else "")
        return n

    def raw_tokens(self) -> int:
        """Estimated tokens of the raw bytes decoded (what raw passthrough costs the reader)."""
        n = self._rawmemo.get("raw_tokens")
        if n is None:
            n = self._rawmemo["raw_tokens"] = estimate_utf8(self.raw)
        return n

    def __repr__(self) -> str:
        return (f"Payload(class={self.pclass!r}, command={self.command!r}, exit={self.exit_code}, "
                f"raw={self.raw_size}B, view={len(self.lines)} lines)")


_NOT_RAW = tuple(f for f in Payload._FIELDS if f != "raw")


class Out:
    """A stage result that leaves through a named output port instead of the default ``out``."""

    __slots__ = ("port", "payload")

    def __init__(self, port: str, payload: Payload) -> None:
        self.port = port
        self.payload = payload

    def __repr__(self) -> str:
        return f"Out({self.port!r}, {self.payload!r})"
