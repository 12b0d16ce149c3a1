"""The final emission: what the agent sees, decided against the raw input.

The one owner of the footer (INV-4: written here, once, from the final view's counts: kept +
omitted == total) and of never-worse (INV-2, and Route's stricter guardrail). Raw bytes pass
through byte-exact whenever anything is doubtful: a Guard verdict (only colour codes may go from a
tiny or small-failure output: the text a terminal shows stays the same), a hang guard firing, a
missing archive write (INV-7), an error line lost (INV-6), or output estimated no smaller than the
input (INV-2).
"""

from __future__ import annotations

from .escapes import strip_sgr
from .markers import footer, omitted_span
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


def finalize(p: Payload, handle: str, archived: bool, halt: str = "",
             min_saving: float | None = None) -> Emission:
    """Choose what to emit for the graph's final payload ``p`` (raw when ``halt`` gives a reason:
    a hang guard fired, or Guard/Score failed where no fallback applies).

    This is the one place that writes the footer and enforces never-worse (no stage may write a
    footer: the executor rejects one). ``min_saving`` is Route's guardrail (``ctx.min_saving``;
    ``None`` when no Route ran): a lossy view whose text with its footer does not save that share
    of the source's estimated tokens gives way to the full source, unless it hides a secret."""
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
    kept, omitted, clipped = p.counts()
    lossy = omitted > 0 or clipped > 0 or any(o == SYNTHETIC for o in p.origin)
    text, t_out = "", 0  # the compressed form: its text with the footer, and that text's tokens
    if lossy:
        want = footer(omitted, total, handle, clipped, omitted_span(p.origin, total))
        text = "\n".join(p.lines + (want,)) + "\n"
        t_out = estimate(text)
        if min_saving is not None and not p.redacted:
            # the view as the reader would get it: the footer costs tokens too
            shown = t_out if p.trailing_newline else estimate(text[:-1])
            if shown > p.source_tokens() * (1 - min_saving):
                p = p.with_view(p.source, range(total))
                (kept, omitted, clipped), lossy = p.counts(), False
    if p.failed:
        kept_set = set(p.origin)
        lost = [i for i, t in enumerate(p.tiers) if t == CRITICAL and i not in kept_set]
        if lost:
            return raw(f"INV-6: error line {lost[0] + 1} would be lost")
    if not lossy:
        plain = p.text()
        if plain.encode("utf-8", "surrogatepass") == p.raw or estimate(plain) >= t_in:
            return raw("nothing to remove", "unchanged")
        return Emission(plain.encode("utf-8", "surrogatepass"), "cleaned", "escape codes removed",
                        kept=kept, total=total, tokens_in=t_in, tokens_out=estimate(plain))
    if not archived:
        return raw("INV-7: the original could not be archived")
    if t_out >= t_in and not p.redacted:   # hiding a secret outranks a few tokens
        return raw(f"INV-2: compressed form ({t_out} tokens) not smaller than raw ({t_in})")
    return Emission(text.encode("utf-8", "surrogatepass"), "compressed",
                    f"{omitted} of {total} lines omitted", kept=kept, omitted=omitted, total=total,
                    tokens_in=t_in, tokens_out=t_out, handle=handle)
