"""The final emission: what the agent sees, decided against the raw input.

Raw bytes pass through byte-exact whenever anything is doubtful: a Guard verdict (only colour codes
may go from a tiny or small-failure output: the text a terminal shows stays the same), the time budget
overrun, a missing archive write (INV-7), an error line lost (INV-6), a footer that is missing,
doubled or miscounted (INV-4), or output estimated no smaller than the input (INV-2).
"""

from __future__ import annotations

from .escapes import strip_sgr
from .markers import footer, is_footer, omitted_span
from .payload import CLEANABLE_VERDICTS, CRITICAL, SYNTHETIC, Payload
from .tokens import estimate


class Emission:
    """The outcome of one payload: bytes to write and why."""

    __slots__ = ("output", "decision", "reason", "kept", "omitted", "total", "tokens_in",
                 "tokens_out", "handle")

    def __init__(self, output: bytes, decision: str, reason: str, *, kept: int = 0,
                 omitted: int = 0, total: int = 0, tokens_in: int = 0, tokens_out: int = 0,
                 handle: str = "") -> None:
        self.output = output
        self.decision = decision      # raw | verbatim | unchanged | cleaned | compressed
        self.reason = reason
        self.kept, self.omitted, self.total = kept, omitted, total
        self.tokens_in, self.tokens_out = tokens_in, tokens_out
        self.handle = handle

    def as_dict(self) -> dict:
        """JSON-ready summary (for traces and reports)."""
        return {k: getattr(self, k) for k in self.__slots__ if k != "output"}


def finalize(p: Payload, handle: str, archived: bool, halt: str = "") -> Emission:
    """Choose what to emit for the graph's final payload ``p`` (raw when ``halt`` gives a reason:
    a hang guard fired, or Guard/Score failed where no fallback applies)."""
    t_in = p.raw_tokens()
    total = len(p.source)

    def raw(reason: str, decision: str = "raw") -> Emission:
        return Emission(p.raw, decision, reason, kept=total, total=total, tokens_in=t_in,
                        tokens_out=t_in)

    if p.verdict:
        raw_text = p.raw.decode("utf-8", "replace")
        clean = strip_sgr(raw_text) if p.verdict.startswith(CLEANABLE_VERDICTS) else None
        if clean is not None and "\ufffd" not in raw_text and estimate(clean) < t_in:
            return Emission(clean.encode("utf-8", "surrogatepass"), "cleaned",
                            f"{p.verdict}; colour codes removed", kept=total, total=total,
                            tokens_in=t_in, tokens_out=estimate(clean))
        return raw(p.verdict, "verbatim")
    if halt:
        return raw(halt)
    footers = [i for i, (line, o) in enumerate(zip(p.lines, p.origin))
               if o == SYNTHETIC and is_footer(line)]
    body = [i for i in range(len(p.lines)) if i not in footers]
    lines = [p.lines[i] for i in body]
    origin = [p.origin[i] for i in body]
    kept, omitted, clipped = p.counts()
    kept_set = set(origin)
    if p.failed:
        lost = [i for i, t in enumerate(p.tiers) if t == CRITICAL and i not in kept_set]
        if lost:
            return raw(f"INV-6: error line {lost[0] + 1} would be lost")
    lossy = omitted > 0 or clipped > 0 or any(o == SYNTHETIC for o in origin)
    if not lossy:
        if footers:
            return raw("INV-4: footer on an output that omitted nothing")
        text = "\n".join(lines) + ("\n" if p.trailing_newline and lines else "")
        if text.encode("utf-8", "surrogatepass") == p.raw or estimate(text) >= t_in:
            return raw("nothing to remove", "unchanged")
        return Emission(text.encode("utf-8", "surrogatepass"), "cleaned", "escape codes removed",
                        kept=kept, total=total, tokens_in=t_in, tokens_out=estimate(text))
    want = footer(omitted, total, handle, clipped, omitted_span(origin, total))
    if len(footers) > 1 or (footers and p.lines[footers[0]] != want):
        return raw("INV-4: footer doubled or miscounted")
    if not archived:
        return raw("INV-7: the original could not be archived")
    text = "\n".join(lines + [want]) + "\n"
    t_out = estimate(text)
    if t_out >= t_in and not p.redacted:   # hiding a secret outranks a few tokens
        return raw(f"INV-2: compressed form ({t_out} tokens) not smaller than raw ({t_in})")
    return Emission(text.encode("utf-8", "surrogatepass"), "compressed",
                    f"{omitted} of {total} lines omitted", kept=kept, omitted=omitted, total=total,
                    tokens_in=t_in, tokens_out=t_out, handle=handle)
