"""A fast token estimator for the data plane (no tokenizer import on the hot path).

It approximates OpenAI's cl100k_base: words split into pieces of at most 8 letters (with the leading
space folded in, as BPE does), digits in groups of three, each run of punctuation roughly one token
per two characters except rulers (a run of one repeated ``*=-#._/~+``: one token), runs of
whitespace one token. ``benchmarks/estimator_accuracy.py`` measures it
against real cl100k counts on the shared corpus; the README quotes the result. The executor only
ever compares estimates with estimates (out vs in), so a constant bias cannot flip a decision.
"""

from __future__ import annotations

from .rxcache import re_lazy as re  # re.compile from the start-up regex cache (rxcache.py)
from _bisect import bisect_right  # (bisect's C core: the module only re-exports it)
from array import array
from itertools import accumulate

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    Text = TypeVar("Text", str, bytes)

# One alternation of disjoint character classes, so one scan counts what four separate scans
# would (letters, digits, punctuation, whitespace runs never overlap): words in pieces of at most 8
# letters, digits in threes, a ruler run (``*****``, ``=====``, ``-----``, ``.....``, ``_____``: one
# cl100k token for dozens of characters), any other punctuation about one per two characters,
# runs of whitespace one token. ``tests/test_engine.py`` checks it equals the four-scan count.
_TOKEN = re.compile(r"[^\W\d_]{1,8}|\d{1,3}|\*{4,}|={4,}|-{4,}|#{4,}|\.{4,}|_{4,}|/{4,}|~{4,}|\+{4,}"
                    r"|[^\w\s]{1,2}|_|\s{2,}|\n")


SAMPLE_ABOVE = 1 << 20
_SAMPLES, _SAMPLE_LEN = 32, 1 << 14


def estimate(text: str) -> int:
    """Estimated cl100k tokens of ``text`` (0 for the empty string).

    Texts over 1 MiB are estimated from 32 evenly spaced 16 KiB samples, scaled to the full length:
    still deterministic, and bounded in time on multi-megabyte payloads.
    """
    if len(text) > SAMPLE_ABOVE:
        return _sampled(text, len(text), str)
    n = _RECENT.get(text)
    if n is None:
        # A payload's source (its lines joined) is its first view's text less the closing newline:
        # that newline is its own token unless whitespace precedes it (the one alternative that
        # can span it is ``\s{2,}``), and it adds no non-ASCII byte.
        n = _RECENT.get(text + "\n") if text and not text[-1].isspace() else None
        n = _estimate(text) if n is None else n - 1
        if len(_RECENT) >= _RECENT_MAX:
            _RECENT.clear()
        _RECENT[text] = n
    return n


_RECENT: dict[str, int] = {}
_RECENT_MAX = 4
"""The last few estimates, by text: a payload's engine asks for the same text's count more than
once (the input's, as the read view and as the raw bytes; the emission's, by Route's guardrail
and by finalize), ~0.5 ms per 8 KB each time. Keyed by the text itself (equal texts, equal
counts: nothing depends on which call came first); at most 4 texts of at most 1 MiB are held."""


def _sampled(whole: Text, n: int, as_text: Callable[[Text], str]) -> int:
    """:func:`estimate` of a text of ``n`` characters over 1 MiB from its 32 samples (slices of
    ``whole``, made text by ``as_text``)."""
    step = n // _SAMPLES
    sampled = [as_text(whole[i * step:i * step + _SAMPLE_LEN]) for i in range(_SAMPLES)]
    return sum(map(_estimate, sampled)) * n // (_SAMPLES * _SAMPLE_LEN)


def estimate_utf8(raw: bytes) -> int:
    """``estimate(raw.decode("utf-8", "replace"))``; an ASCII ``raw`` over 1 MiB is not decoded
    whole (its characters are its bytes: the samples are decoded alone)."""
    if len(raw) > SAMPLE_ABOVE and raw.isascii():
        return _sampled(raw, len(raw), bytes.decode)
    return estimate(raw.decode("utf-8", "replace"))


def _estimate(text: str) -> int:
    if not text:
        return 0
    n = _TOKEN.subn("", text)[1]   # counts the matches without a list of their strings (-1/3)
    if text.isascii():
        return n
    # Non-ASCII letters are often several tokens each; count the excess bytes conservatively.
    extra = len(text.encode("utf-8", "surrogatepass")) - len(text)
    return n + extra // 2


def estimate_lines(lines: "list[str] | tuple[str, ...]") -> int:
    """Estimated tokens of ``lines`` joined with newlines."""
    return estimate_joined(lines)


def estimate_joined(lines: "Sequence[str]", end: str = "") -> int:
    """``estimate("\\n".join(lines) + end)`` without building that text when it is over 1 MiB:
    the 32 samples are cut from the lines themselves (a view of 10 MB cost a 10 MB join per
    estimate)."""
    n = sum(map(len, lines)) + max(len(lines) - 1, 0) + len(end)
    if n <= SAMPLE_ABOVE:
        return estimate("\n".join(lines) + end)
    # line k at starts[k]; 8 bytes a line (a list of ints cost 36: 25 MB for a 50 MB input)
    starts = array("q", accumulate(map((1).__add__, map(len, lines)), initial=0))
    last = len(lines) - 1
    step = n // _SAMPLES

    def cut(a: int) -> str:   # the joined text's [a, a + _SAMPLE_LEN)
        k = bisect_right(starts, a) - 1
        j = min(bisect_right(starts, a + _SAMPLE_LEN) - 1, last)
        piece = "\n".join(lines[k:j + 1]) + (end if j == last else "")
        return piece[a - starts[k]:a - starts[k] + _SAMPLE_LEN]
    return sum(_estimate(cut(i * step)) for i in range(_SAMPLES)) * n // (_SAMPLES * _SAMPLE_LEN)
