"""The final emission: what the agent sees, decided against the raw input.

The one owner of the footer (INV-4: :func:`emission_view` writes it, once, from the view's counts:
kept + omitted == total) and of never-worse (INV-2 here, and Route's stricter guardrail in
:func:`emission_view`). Raw bytes pass
through byte-exact whenever anything is doubtful: a Guard verdict (only colour codes may go from a
tiny or small-failure output: the text a terminal shows stays the same), a hang guard firing, a
missing archive write (INV-7), an error line lost (INV-6), or output estimated no smaller than the
input (INV-2).
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


def emission_view(p: Payload, handle: str, min_saving: float | None = None) -> Payload | None:
    """The view a reader gets for ``p``: its lines and the one footer (exact counts, the handle and
    the largest omitted block) — or, with the guardrail ``min_saving``, the full source when that
    view does not save that share of the source's estimated tokens (the footer costs tokens too),
    unless it hides a secret. ``None`` when ``p`` omits, clips and adds nothing (no footer).

    The one place the footer is written: Route calls it where the graph places it (so the trace
    shows the footer as Route's output), and :func:`finalize` only for a view no Route footed.
    """
    kept, omitted, clipped = p.counts()
    if not omitted and not clipped and not any(o == SYNTHETIC for o in p.origin):
        return None
    n = len(p.source)
    line = footer(omitted, n, handle, clipped, omitted_span(p.origin, n))
    view = p.with_view(p.lines + (line,), p.origin + (SYNTHETIC,))
    if min_saving is not None and not p.redacted and view.tokens() > p.source_tokens() * (1 - min_saving):
        return p.with_view(p.source, range(n))
    return view


def footed(p: Payload) -> bool:
    """True when the view ends with the footer :func:`emission_view` wrote (the executor lets no
    stage but Route write one, and Route writes it only through that function)."""
    return bool(p.origin) and p.origin[-1] == SYNTHETIC and is_footer(p.lines[-1])


def finalize(p: Payload, handle: str, archived: bool, halt: str = "") -> Emission:
    """Choose what to emit for the graph's final payload ``p`` (raw when ``halt`` gives a reason:
    a hang guard fired, or Guard/Score failed where no fallback applies).

    A lossy view no Route footed (the graph has none, or it failed) gets its footer here, from
    :func:`emission_view` (without a guardrail: never-worse alone); a footed one is emitted as
    Route left it, its footer not derived again. Then never-worse (INV-2), the archive (INV-7) and
    the error lines (INV-6) decide between it and the raw bytes."""
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
    if not footed(p):
        p = emission_view(p, handle) or p
    kept, omitted, _clipped = p.counts()
    if p.failed:
        kept_set = set(p.origin)
        lost = [i for i, t in enumerate(p.tiers) if t == CRITICAL and i not in kept_set]
        if lost:
            return raw(f"INV-6: error line {lost[0] + 1} would be lost")
    if not footed(p):  # nothing omitted, clipped or summarised
        plain = p.text()
        if plain.encode("utf-8", "surrogatepass") == p.raw or estimate(plain) >= t_in:
            return raw("nothing to remove", "unchanged")
        return Emission(plain.encode("utf-8", "surrogatepass"), "cleaned", "escape codes removed",
                        kept=kept, total=total, tokens_in=t_in, tokens_out=estimate(plain))
    if not archived:
        return raw("INV-7: the original could not be archived")
    text = "\n".join(p.lines) + "\n"
    # the view's estimate is this text's when the view ends with a newline: made once
    t_out = p.tokens() if p.trailing_newline and p.lines else estimate(text)
    if t_out >= t_in and not p.redacted:   # hiding a secret outranks a few tokens
        return raw(f"INV-2: compressed form ({t_out} tokens) not smaller than raw ({t_in})")
    return Emission(text.encode("utf-8", "surrogatepass"), "compressed",
                    f"{omitted} of {total} lines omitted", kept=kept, omitted=omitted, total=total,
                    tokens_in=t_in, tokens_out=t_out, handle=handle)
