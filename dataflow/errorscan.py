"""The executor's own error scan: lines of a failing command that no graph may drop (INV-6).

Score tiers lines with patterns a graph configures (``critical``, ``noise``, ``not_critical``), and a
project graph is untrusted input. So on a failing command the executor also runs this fixed scan
after Score, and marks what it finds critical whatever the graph said: a graph can add protection,
never take it away. The shapes are deliberately narrow (an error *word in an error position*, not
any mention of "error"), so lines a graph exempts for good reason (``test_handles_errors PASSED``,
``Compiling foo v1.0``, toolchain backtrace frames) stay exempt.

The same scan feeds the fallback view used when Guard or Score failed (no lossy stage runs then):
every error line found here plus head and tail within the budget, counted by the footer.
"""

from __future__ import annotations

from .rxcache import re_lazy as re  # re.compile from the start-up regex cache (rxcache.py)
from _bisect import bisect_right  # (bisect's C core: the module only re-exports it)
from itertools import accumulate, compress, repeat
from operator import contains, not_

from .payload import CRITICAL, Payload

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence
    from typing import Any

class _CompiledOnUse:
    """A regex compiled at its first use: the case-insensitive :data:`ERROR_RE` is searched only
    on non-ASCII lines, and compiling it costs ~2 ms on every start of ``thresher``."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def __getattr__(self, name: str) -> Any:  # the first use of a method: compile, keep its methods
        if name.startswith("__"):
            raise AttributeError(name)  # (copy/pickle protocol probes are not uses)
        compiled = re.compile(self.pattern)
        for attr in ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"):
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


ERROR_RE = _CompiledOnUse(
    r"(?i)(?:\b(?:error|errors|fatal|panic(?:ked)?|exception|traceback|segmentation fault|"
    r"core dumped|abort(?:ed)?|denied|refused|cannot|could not|couldn't|unable to|not found|"
    r"no such file|undefined reference|fail(?:ed|ure|ures|ing|s)?|assert(?:ion)?\w*|"
    r"timed? ?out|killed|oomkilled|crashloopbackoff|invalid|unexpected|caused by)\b|"
    r"^\s*(?:[a-z_$][\w$]*\.)*[a-z_$][\w$]*(?:error|exception)(?::|$)|"
    r"^E\s|^FAILED |^ERROR |^\s*File \".*\", line \d+)")
"""Lines that carry the answer of a failure (or of a warning): Score's default critical lines,
and what the fallback view keeps. Broad on purpose: graphs narrow it with ``not_critical``.

The one definition of an error line every graph starts from, in every language: error words in
any position (``panic:``, ``Exception in thread``, ``Caused by:``, ``npm ERR!``), and an exception
named at the start of a line (``ValueError: …``, ``java.lang.IllegalStateException: …``,
``TypeError: …``), which the word rule misses (no word boundary inside ``ValueError``). A caret
line (``    ^^^^``) is not one: it points into the code line above, it says nothing itself.
``property/oracle.py`` keeps an independent definition that INV-6 is checked with."""

# The same pattern, case-sensitive, for lower-cased ASCII lines: Python's IGNORECASE matching is
# about five times slower than a plain search of ``line.lower()``, and for ASCII text the two agree
# (the pattern uses only lower-case escapes; tests/test_engine.py checks both on every fixture).
_ERROR_LOWER = re.compile(ERROR_RE.pattern.removeprefix("(?i)").lower())


# Every alternative of ERROR_RE needs one of these (lower-cased) substrings, or a line starting with
# "E": a line with none of them cannot match, so one str.find pass per word over the whole text
# finds the only lines worth a regex search (tests/test_data_plane.py checks the claim on every
# fixture line).
_WORDS = ("error", "fatal", "panic", "exception", "traceback", "segmentation", "core dumped",
          "abort", "denied", "refused", "cannot", "could", "unable", "not found", "no such",
          "undefined", "fail", "assert", "time", "killed", "crash", "invalid", "unexpected", 'file "',
          "caused by")


_CHUNK_LINES = 4096
"""Lines joined per find pass: the scan's extra memory stays a chunk's, whatever the input."""


def candidates(lines: "tuple[str, ...] | list[str]", words: "tuple[str, ...]",
               firsts: str = "", fold: bool = True) -> "set[int] | None":
    """:func:`candidate_mask` as a set of line indices."""
    mask = candidate_mask(lines, words, firsts, fold)
    return None if mask is None else set(ones(mask))


def ones(mask: "bytes | bytearray") -> Iterator[int]:
    """The indices of the non-zero bytes of ``mask``, in order (``itertools.compress`` walks the
    mask in C: a ``bytearray.find`` per hit cost ~1 s on 300k hits)."""
    return compress(range(len(mask)), mask)


def combine(a: "bytes | bytearray", b: "bytes | bytearray", keep_b: bool = True) -> bytes:
    """Two equal-length line masks joined byte-wise in one C step (as big integers): ``a OR b``,
    or with ``keep_b`` false ``a AND NOT b``."""
    x, y = int.from_bytes(a, "little"), int.from_bytes(b, "little")
    return (x | y if keep_b else x & ~y).to_bytes(len(a), "little")


def candidate_mask(lines: "tuple[str, ...] | list[str]", words: "tuple[str, ...]",
                   firsts: str = "", fold: bool = True) -> "bytearray | None":
    """Indices of the lines that hold one of ``words`` once lower-cased (``words`` are lower-case;
    ``fold=False``: as written), or start with one of the characters ``firsts``: a superset of the
    lines a pattern needing one of them can match. ``None`` when the lower-cased text does not
    split into the same lines. The answer is one byte per line (1: a candidate)."""
    return candidate_masks(lines, [(words, firsts, fold)])[0]


def candidate_masks(lines: "tuple[str, ...] | list[str]",
                    wants: "list[tuple[tuple[str, ...], str, bool]]") -> "list[bytearray | None]":
    """:func:`candidate_mask` for each ``(words, firsts, fold)`` of ``wants``, in one pass: lines
    are joined a chunk at a time (lower-cased once, when a want folds), one ``str.find`` pass per
    word per chunk."""
    masks: "list[bytearray | None]" = [bytearray(len(lines)) for _ in wants]
    folds = any(fold for _w, _f, fold in wants)
    for base in range(0, len(lines), _CHUNK_LINES):
        part = lines[base:base + _CHUNK_LINES]
        text = "\n".join(part)
        if not text.isascii() and len(part) > 1:
            _mixed_chunk(part, base, wants, masks)
            continue
        starts = _starts(part)
        # the per-line test of a dense word needs the chunk's lines to be the text's "\n" pieces
        whole = text.count("\n") == len(part) - 1
        low = text.lower() if folds else ""
        low_starts: list[int] | None = starts
        low_lines: list[str] | None = None
        if folds and not low.isascii():  # lower-casing may change a line's length (U+0130)
            low_lines = low.split("\n")
            low_starts = None if len(low_lines) != len(part) else _starts(low_lines)
        for k, (words, firsts, fold) in enumerate(wants):
            found = masks[k]
            if found is None:
                continue
            if firsts:   # a line starting with one of them: the text's start, or after a newline
                if text[:1] and text[:1] in firsts:
                    found[base] = 1
                _mark(text, starts, ["\n" + c for c in firsts], found, base, 1,
                      part if whole else None)
            hay, at = (low, low_starts) if fold else (text, starts)
            if at is None:
                masks[k] = None
                continue
            each = part if not fold else low_lines
            if fold and each is None and whole:
                each = low_lines = low.split("\n")
            _mark(hay, at, words, found, base, 0, each if whole else None)
    return masks


def _mixed_chunk(part: "Sequence[str]", base: int, wants: "list[tuple[tuple[str, ...], str, bool]]",
                 masks: "list[bytearray | None]") -> None:
    """:func:`candidate_masks` of a chunk holding a non-ASCII line: its ASCII lines joined as a
    chunk of their own (one non-ASCII character makes a whole chunk's ``str`` wide, its lower-casing
    and searches several times slower), each other line tested alone (the same rule)."""
    ascii_ = list(map(str.isascii, part))
    at = list(compress(range(len(part)), ascii_))
    if at:
        for k, sub in enumerate(candidate_masks([part[i] for i in at], wants)):
            found = masks[k]
            if found is None:
                continue
            if sub is None:   # not told for those lines: not told at all
                masks[k] = None
                continue
            for j in ones(sub):
                found[base + at[j]] = 1
    for i in compress(range(len(part)), map(not_, ascii_)):
        line = part[i]
        low = line.lower()
        for found, (words, firsts, fold) in zip(masks, wants):
            if found is not None and ((line[:1] and line[:1] in firsts)
                                      or any(w in (low if fold else line) for w in words)):
                found[base + i] = 1


def _starts(lines: Sequence[str]) -> list[int]:
    """Where each of ``lines`` starts in their ``"\\n"``-join, then the join's length + 1."""
    return list(accumulate(map((1).__add__, map(len, lines)), initial=0))


_DENSE = 8
"""A word found on more than one line in this many of a chunk is tested line by line (in C,
``map``) instead of one ``find`` and ``bisect`` per hit: ~6x cheaper per line for dense words."""


def _mark(hay: str, starts: list[int], words: Iterable[str], found: bytearray, base: int,
          skip: int = 0, lines: Sequence[str] | None = None) -> None:
    """Set ``found[base + k]`` for each line ``k`` of ``hay`` (line ``k`` starts at ``starts[k]``;
    ``starts`` ends with the text's length + 1) that holds one of ``words`` — ``skip`` characters
    after a word's start (a word that begins with the newline before the line). ``lines``: the
    ``"\\n"`` pieces of ``hay`` (``None``: not known), for the per-line test of a dense word."""
    n = len(starts) - 1
    dense = n // _DENSE if lines is not None and len(lines) == n else n + 1
    for word in words:
        i = hay.find(word)
        hits = 0
        while i >= 0:
            k = bisect_right(starts, i + skip) - 1
            found[base + k] = 1
            hits += 1
            if hits > dense and "\n" not in word[skip:]:
                _mark_each(found, base, lines, word[skip:], skip)  # type: ignore[arg-type]
                break
            i = hay.find(word, starts[k + 1] - skip) if k + 1 < n else -1


def _mark_each(found: bytearray, base: int, lines: Sequence[str], word: str, at_start: int) -> None:
    """Set ``found[base + k]`` for every line ``k`` of ``lines`` holding ``word`` (``at_start``:
    starting with it), one C pass, OR-ed into ``found`` as one big integer."""
    m = len(lines)
    test = str.startswith if at_start else contains
    found[base:base + m] = combine(found[base:base + m], bytes(map(test, lines, repeat(word))))


def error_candidates(lines: "tuple[str, ...] | list[str]") -> "bytearray | None":
    """One byte per line, 1 where the line may match :data:`ERROR_RE` (a superset), or ``None``
    when that cannot be told cheaply (check every line)."""
    return candidate_mask(lines, _WORDS, "eE")


def is_error_line(line: str) -> bool:
    """``ERROR_RE.search(line)`` as a bool, faster on ASCII lines (the common case)."""
    if line.isascii():
        return _ERROR_LOWER.search(line.lower()) is not None
    return ERROR_RE.search(line) is not None


# Written so that each \\b and ^ opens one group of literals: Python's re then scans a line once
# for the group instead of once per alternative (3.5x faster; tests/test_data_plane.py checks it
# against the plain one-alternative-per-shape form on every fixture line)
CORE_ERROR_RE = re.compile(
    r"(?i:\b(?:(?:error|fatal|panic|exception|failure)\b\s?[:\[(!]|error\[?[A-Z]+\d+\]?\b|npm ERR!"
    r"|segmentation fault\b|core dumped\b|traceback \(most|undefined reference\b"
    r"|no such file or directory\b|permission denied\b|command not found\b)"
    r"|^\s*\[?(?:error|fatal|failed|panic)\]?\s)"
    r"|^(?:(?:E|FAILED|ERROR|FAIL)(?:\s|:)|\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)\b"
    r"|Exception in thread \")|\b(?:AssertionError\b|Caused by:|assert(?:ion)? failed\b)|--- FAIL:")
"""Error lines by shape (Python/Java exceptions, ``error:``/``error[E0308]``/``error TS2322``,
``FAILED``/``E `` pytest lines, ``npm ERR!``, ``panic:``, ``fatal:``, errno messages)."""

# Every alternative of CORE_ERROR_RE needs one of these lower-cased substrings or a line starting
# with "E"/"F" (``E ``, ``FAILED``, ``FAIL:``): as for ERROR_RE, the regex runs on those lines only
_CORE_WORDS = ("error", "fatal", "panic", "exception", "failure", "failed", "npm err", "segmentation fault",
               "core dumped", "traceback (most", "undefined reference", "no such file or directory",
               "permission denied", "command not found", "caused by:", "assert", "--- fail:")


_MORE_WORDS = ("npm err",)
"""With :data:`_WORDS`, every word of :data:`_CORE_WORDS` holds one of these (lower-cased): the lines
holding one, or starting with "e", "E" or "F", are a superset of both scans' candidates, so one
``str.find`` pass per word over a source serves Score, :func:`protect` and :func:`critical_flags`
(tests/test_data_plane.py checks the containment)."""


_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")


def digit_keys(lines: "Sequence[str]") -> "tuple[list[str], list[int]] | None":
    """``lines`` with every ASCII digit made ``0``, each distinct such key once (in order of first
    appearance), and per line the index of its key; ``None`` when that cannot be told (a line
    holding a newline). Tool output repeats lines that differ only in numbers (timestamps, ids,
    durations, counts): a pattern that cannot tell digits apart (``regex_needles.digit_blind``)
    answers the same for a line and its key, so it is searched on the keys only. A chunk of lines
    at a time (the extra memory is a chunk's and the keys'), one C pass of each kind per chunk
    (join, encode, translate, decode, split), one dict lookup per line."""
    where: dict[str, int] = {}
    index: list[int] = []
    for base in range(0, len(lines), _CHUNK_LINES):
        part = lines[base:base + _CHUNK_LINES]
        text = "\n".join(part)
        if text.isascii():
            keyed = text.encode("ascii").translate(_ZERO_DIGITS).decode("ascii")
        else:   # UTF-8 never uses a byte below 0x80 inside a multi-byte character: digits only change
            keyed = text.encode("utf-8", "surrogatepass").translate(_ZERO_DIGITS).decode(
                "utf-8", "surrogatepass")
        split = keyed.split("\n")
        if len(split) != len(part):
            return None
        for k in dict.fromkeys(split):   # the new keys of the chunk, numbered in order
            if k not in where:
                where[k] = len(where)
        index += map(where.__getitem__, split)
    return list(where), index


_KEY_SAMPLE = 8192
"""Lines whose digit keys tell whether a big source's keys are worth making (see
:meth:`SourceScan.digit_keys`)."""


class SourceScan:
    """The error-word scan of one source, done once and shared by every stage that reads it.

    ``seen``: the distinct lines, in order (a dict: membership in C); ``uniq``: them as a list;
    ``cands``: one byte per ``uniq`` line, 1 where it holds a word of :data:`_WORDS` or
    :data:`_MORE_WORDS` or starts with "e", "E" or "F" (``None``: any line may). The exact mask of
    the core scan (:meth:`core_mask`) is its word test run on those lines only.
    """

    __slots__ = ("_source", "_seen", "_uniq", "_keys", "_cands", "_error", "_core", "_cand_lines",
                 "few_repeats")

    def __init__(self, source: "Sequence[str]") -> None:
        self._source = source
        self._seen: "dict[str, None] | None" = None   # each made on first use
        self._uniq: "list[str] | None" = None
        self._keys: "list[tuple[list[str], list[int]] | None]" = []
        self.few_repeats = False   # set by digit_keys: nine in ten sampled lines distinct texts
        self._error: "list[bytearray | None]" = []   # each mask made on first use
        self._cands: "list[bytes | None]" = []
        self._core: "list[bytearray | None]" = []
        self._cand_lines: "set[str] | None" = None

    @property
    def seen(self) -> "dict[str, None]":
        if self._seen is None:
            self._seen = dict.fromkeys(self._source)
        return self._seen

    @property
    def uniq(self) -> "list[str]":
        if self._uniq is None:
            self._uniq = list(self.seen)
        return self._uniq

    def digit_keys(self) -> "tuple[list[str], list[int]] | None":
        """:func:`digit_keys` of the source, made once; ``None`` also when they would not pay for
        their making: unless a quarter of the lines are distinct texts that share a key with an
        earlier one (a log's records, test rows), judged on the first :data:`_KEY_SAMPLE` lines
        of a big source (a listing of distinct paths, a patch, a JSON document of repeated
        records: one sample's cost)."""
        if not self._keys:
            src = self._source
            part = src[:_KEY_SAMPLE] if len(src) > 2 * _KEY_SAMPLE else src
            keyed = digit_keys(part)
            distinct = len(set(part))
            self.few_repeats = distinct * 10 >= len(part) * 9
            if keyed is not None and (distinct - len(keyed[0])) * 4 < len(part):
                keyed = None
            elif keyed is not None and part is not src:
                keyed = digit_keys(src)
            self._keys.append(keyed)
        return self._keys[0]

    @property
    def cands(self) -> "bytes | None":
        if not self._cands:
            error, more = self.error_mask(), candidate_mask(self.uniq, _MORE_WORDS, "F")
            self._cands.append(None if error is None or more is None else combine(error, more))
        return self._cands[0]

    def _exact(self, words: "tuple[str, ...]", firsts: str) -> "bytearray | None":
        """``candidate_mask(self.uniq, words, firsts)``, testing only the superset's lines."""
        if self.cands is None:
            return candidate_mask(self.uniq, words, firsts)
        at = list(ones(self.cands))
        sub = candidate_mask([self.uniq[i] for i in at], words, firsts)
        if sub is None:
            return candidate_mask(self.uniq, words, firsts)
        out = bytearray(len(self.uniq))
        for j in ones(sub):
            out[at[j]] = 1
        return out

    def error_mask(self) -> "bytearray | None":
        """:func:`error_candidates` of ``uniq``."""
        if not self._error:
            self._error.append(candidate_mask(self.uniq, _WORDS, "eE"))
        return self._error[0]

    def core_mask(self) -> "bytearray | None":
        """``candidate_mask(uniq, _CORE_WORDS, "EF")``: the lines :data:`CORE_ERROR_RE` may match."""
        if not self._core:
            self._core.append(self._exact(_CORE_WORDS, "EF"))
        return self._core[0]

    def maybe(self, lines: "Iterable[str]") -> "list[str]":
        """Those of ``lines`` that may hold an error word: a superset candidate of this source,
        or a line the source does not hold (its words are not known)."""
        if self.cands is None:
            return list(lines)
        if self._cand_lines is None:
            self._cand_lines = set(compress(self.uniq, self.cands))
        cand, seen = self._cand_lines, self.seen
        return [line for line in lines if line in cand or line not in seen]


def source_scan(payload: Payload) -> SourceScan:
    """The :class:`SourceScan` of ``payload.source``, made once: kept in the payload's memo, which
    every payload evolved from it with the same source shares."""
    memo: Any = payload._memo
    scan = memo.get("errorscan")
    if scan is None:
        scan = memo["errorscan"] = SourceScan(payload.source)
    return scan


def critical_flags(payload: Payload) -> list[bool]:
    """Per view line: never to be dropped by a distiller (INV-6 by construction).

    A line Score tiered critical, and on a failing command also any line that mentions an error
    word, even where the graph's ``not_critical`` shapes exempt it: those shapes are for what
    later budget stages may cut, a distiller's own rules never need them.
    """
    tiers, lines = payload.tiers, payload.lines
    if not payload.failed:
        return [o >= 0 and tiers[o] == CRITICAL for o in payload.origin]
    scan = source_scan(payload)
    keyed = scan.digit_keys()
    if keyed is not None:
        # the error test cannot tell digits apart: each source line's answer is its digit key's
        # (a view line that is not its source line's text, clipped say, is tested alone)
        keys, index = keyed
        cands = error_candidates(keys)
        at = range(len(keys)) if cands is None else ones(cands)
        err = bytearray(len(keys))
        for j in at:
            if is_error_line(keys[j]):
                err[j] = 1
        src = payload.source
        return [o >= 0 and (tiers[o] == CRITICAL or (err[index[o]] == 1 if line is src[o]
                                                     else is_error_line(line)))
                for line, o in zip(lines, payload.origin)]
    # whether a line names an error depends on its text alone: each distinct line is scanned once
    # (a view repeats lines: test rows, frames, log bodies), and only if the source's scan left it
    # a candidate (or it is not a source line)
    uniq = scan.maybe(dict.fromkeys(lines))
    cands = error_candidates(uniq)  # the only lines an error word can be on
    errs = {line for line in (uniq if cands is None else (uniq[i] for i in ones(cands)))
            if is_error_line(line)}
    return [o >= 0 and (tiers[o] == CRITICAL or line in errs) for line, o in zip(lines, payload.origin)]


def error_indices(source: "tuple[str, ...] | list[str]", scan: "SourceScan | None" = None) -> list[int]:
    """Indices of the lines of ``source`` the core scan classes as error lines.

    One search per candidate line (:func:`candidates`) with one compiled pattern; lines over 4,096
    characters are scanned on their first 4,096 only (an error word sits at the start of a
    diagnostic), so the cost is linear in the input whatever its shape. ``scan``: the
    :class:`SourceScan` of ``source``, when one was made.
    """
    search = CORE_ERROR_RE.search
    keyed = None if scan is None else scan.digit_keys()
    if keyed is not None:   # the core scan cannot tell digits apart: one search per digit key
        keys, index = keyed
        cands = candidate_mask(keys, _CORE_WORDS, "EF")
        hit = bytearray(len(keys))
        for j in (range(len(keys)) if cands is None else ones(cands)):
            if search(keys[j], 0, 4096):
                hit[j] = 1
        return list(compress(range(len(index)), map(hit.__getitem__, index))) if 1 in hit else []
    if scan is None:
        uniq = list(dict.fromkeys(source))   # output repeats lines: each distinct one scanned once
        cands = candidate_mask(uniq, _CORE_WORDS, "EF")
    else:
        uniq, cands = scan.uniq, scan.core_mask()
    found = {line for line in (uniq if cands is None else compress(uniq, cands))
             if search(line, 0, 4096)}
    return [i for i, line in enumerate(source) if line in found] if found else []


def protect(p: Payload) -> Payload:
    """``p`` with every core-scan error line of a failing command tiered critical (else ``p``)."""
    if not p.failed:
        return p
    found = error_indices(p.source, source_scan(p))
    if not found or all(p.tiers[i] == CRITICAL for i in found):
        return p
    tiers = list(p.tiers)
    for i in found:
        tiers[i] = CRITICAL
    return p.evolve(tiers=tuple(tiers))


def fallback(p: Payload, max_lines: int) -> Payload:
    """A view that depends on no graph stage: every critical line of ``p``, every line the core
    scan or :data:`ERROR_RE` calls an error (all tiered critical), plus as many head and tail
    lines as ``max_lines`` leaves room for, in order."""
    n = len(p.source)
    tiers = list(p.tiers)
    for i in set(error_indices(p.source)) | {i for i, s in enumerate(p.source) if is_error_line(s)}:
        tiers[i] = CRITICAL
    p = p.evolve(tiers=tuple(tiers))
    keep = {i for i, t in enumerate(tiers) if t == CRITICAL}
    room = max(0, max_lines - len(keep))
    head = room - room // 2
    keep.update(range(min(head, n)))
    keep.update(range(max(0, n - room // 2), n))
    pos = {o: k for k, o in enumerate(p.origin) if o >= 0}
    chosen = sorted(i for i in keep if i in pos)
    return p.with_view([p.lines[pos[i]] for i in chosen], chosen)
