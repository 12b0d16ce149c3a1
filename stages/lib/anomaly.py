"""Rows that differ from the majority, and per-column profiles — shared by every data crusher.

A *row* is a mapping ``column -> Cell`` (JSON object fields flattened a level or two, a CSV record,
a YAML list item, a TOML array-of-tables entry). A row is anomalous — and every crusher keeps it —
when it:
- has a value where at least 80% of rows have none (a rare or unique key, a sparse column), or
  lacks one where at least 80% have one (a null or an empty cell among filled ones);
- holds a value of another kind than 80% of the column (a string among numbers);
- departs from a dominant value: one value in at least 80% of rows, or 50% for status-like columns
  (status, state, error, result, level, code, ...), e.g. a 404 among 200s;
- holds a numeric outlier: farther than 5 scaled MADs from the median (at least 8 numbers).
A rule that would flag more than a tenth of the rows for one column is ignored for that column:
then the column is a distribution, not a majority with exceptions.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import chain, compress, repeat

STATUS_RE = re.compile(r"(?i)(?:^|[._\-\s])(?:status|state|error|errors|err|fail\w*|success|ok|result|"
                       r"outcome|level|severity|code|conclusion|exit_?code|health|phase|reason)$")

# `\d+(?:\.\d*)?`, not `\d+\.?\d*`: two digit runs around an optional dot split a long digit
# run in n ways (quadratic on a 8,000-digit cell followed by a letter).
NUM_RE = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")


class Cell:
    """One value: its ``kind`` (num, str, bool, null, empty, obj, arr) and its text as in the input."""

    __slots__ = ("kind", "text")

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text

    @property
    def present(self) -> bool:
        """True unless the value is null or empty."""
        return self.kind not in ("null", "empty")

    def __repr__(self) -> str:
        return f"Cell({self.kind}, {self.text!r})"


def text_cell(text: str) -> Cell:
    """A cell of a text format (CSV, TOML/YAML scalars given as text): kind guessed from the text."""
    if text == "":
        return Cell("empty", text)
    if NUM_RE.match(text):
        return Cell("num", text)
    if text.lower() in ("true", "false"):
        return Cell("bool", text)
    if text.lower() in ("null", "none", "nan", "n/a", "~"):  # not "NA": Namibia, "not applicable"…
        return Cell("null", text)
    return Cell("str", text)


def columns(rows: list[dict]) -> list[str]:
    """Every column of ``rows``, in first-seen order."""
    return list(dict.fromkeys(chain.from_iterable(rows)))


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


_ABSENT = ("null", "empty")
_NESTED = ("obj", "arr")


def _at(cells: list, chosen: "set | dict") -> list[int]:
    """The indices of ``cells`` holding one of the cell objects ``chosen``, in order."""
    return list(compress(range(len(cells)), map(chosen.__contains__, cells))) if chosen else []


def _column_flags(rows: list[dict], col: str) -> dict[int, str]:
    """Row index -> reason, for one column.

    The rules are judged on the column's distinct cell objects with their counts (a crusher's rows
    share one cell per repeated value, so a column of 3,000 rows has a few dozen); only a rule
    that flags something scans the rows for the indices. Counts, ties (first seen first) and the
    order of the flags are those of a row-by-row pass."""
    n = len(rows)
    cells = [row.get(col) for row in rows]
    counts = Counter(cells)   # cell object -> rows (cells hash by identity), first-seen order
    live = {c: m for c, m in counts.items() if c is not None and c.kind not in _ABSENT}
    present = sum(live.values())
    flags: dict[int, str] = {}
    if present <= 0.2 * n:
        flags.update((i, f"has {col}") for i in _at(cells, live))
    elif present >= 0.8 * n:
        flags.update((i, f"no {col}") for i in _at(cells, {c for c in counts if c not in live}))
    kinds: Counter[str] = Counter()
    values: Counter[str] = Counter()
    for c, m in live.items():
        kinds[c.kind] += m
        if c.kind not in _NESTED:
            values[c.text] += m
    if kinds and present >= 4:
        kind, count = kinds.most_common(1)[0]
        if count >= 0.8 * present:
            flags.update((i, f"{col} not {kind}") for i in _at(cells, {c for c in live if c.kind != kind}))
    if len(values) >= 2 and present >= 4:
        top, count = sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        if count >= (0.5 if STATUS_RE.search(col) else 0.8) * present:
            odd = {c for c in live if c.text != top and c.kind not in _NESTED}
            flags.update((i, f"{col}={cells[i].text}") for i in _at(cells, odd))  # type: ignore[union-attr]
    nums = {c: float(c.text) for c in live if c.kind == "num"}
    if sum(live[c] for c in nums) >= 8:
        xs = list(chain.from_iterable(repeat(x, live[c]) for c, x in nums.items()))
        med = _median(xs)
        mad = _median([abs(x - med) for x in xs]) * 1.4826
        if mad > 0:
            odd = {c for c, x in nums.items() if abs(x - med) > 5 * mad}
            flags.update((i, f"{col} outlier") for i in _at(cells, odd))
    return flags


def find(rows: list[dict]) -> dict[int, list[tuple[str, int]]]:
    """Row index -> ``(reason, how many rows that column flagged)`` for every anomalous row (empty
    when there are fewer than 4 rows). A column flagging more than a tenth of the rows (at least 2)
    is a distribution, not exceptions, and flags nothing."""
    if len(rows) < 4:
        return {}
    out: dict[int, list[tuple[str, int]]] = {}
    for col in columns(rows):
        flags = _column_flags(rows, col)
        if len(flags) > max(2, len(rows) // 10):
            continue
        for i, why in flags.items():
            out.setdefault(i, []).append((why, len(flags)))
    return dict(sorted(out.items()))


def by_rank(found: dict[int, list[tuple[str, int]]]) -> list[int]:
    """Anomalous row indices, most telling first: a status-like column first, then the rarest
    phenomenon (the column that flagged the fewest rows), then most reasons, then the earliest."""
    def score(item: tuple[int, list[tuple[str, int]]]) -> tuple[bool, int, int, int]:
        i, whys = item
        status = any(STATUS_RE.search(w.split("=")[0].split(" ")[-1]) for w, _ in whys)
        return (not status, min(n for _, n in whys), -len(whys), i)
    return [i for i, _ in sorted(found.items(), key=score)]


def ranked(found: dict[int, list[tuple[str, int]]], cap: int) -> list[int]:
    """The ``cap`` most telling anomalous row indices (:func:`by_rank`), in row order."""
    return sorted(by_rank(found)[:cap])


def profile(rows: list[dict], col: str, max_values: int = 30) -> str:
    """A one-line summary of a column: counts by kind, the values of a low-cardinality column with
    their counts, or the numeric range (every value shown is a cell text from the input)."""
    # judged on the distinct cell objects with their counts (first seen first), as _column_flags
    counts = Counter([row[col] for row in rows if col in row])
    held = sum(counts.values())
    kinds: Counter[str] = Counter()
    values: Counter[str] = Counter()
    for c, m in counts.items():
        kinds[c.kind] += m
        if c.kind not in _ABSENT and c.kind not in _NESTED:
            values[c.text] += m
    parts = [" ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))]
    missing = len(rows) - held
    if missing:
        parts[0] += f", absent {missing}"
    nums = [c for c in counts if c.kind == "num"]   # distinct: min/max give the first one seen
    numeric = kinds["num"] >= 0.8 * max(1, sum(values.values()))
    order = sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))
    if values and len(values) <= (8 if numeric else max_values) and len(values) <= held // 2 \
            and sum(len(v) + 5 for v in values) <= 1000 and max(map(len, values)) <= 40:
        parts.append(", ".join(f"{v} ×{n}" for v, n in order))
    elif kinds["num"] >= 2:
        lo = min(nums, key=lambda c: float(c.text)).text
        hi = max(nums, key=lambda c: float(c.text)).text
        parts.append(f"{lo} to {hi}")
    elif values:
        common = [f"{v} ×{n}" for v, n in order[:5] if n > 1 and len(v) <= 60]
        parts.append(f"{len(values)} distinct" + (f", most often {', '.join(common)}" if common else ""))
    return "; ".join(parts)


def ident_column(rows: list[dict]) -> str | None:
    """The first column whose values are present, short, scalar and distinct in every row (a
    name or id): gap lines list it, so a dropped row can still be found by name."""
    if len(rows) < 2:
        return None
    for col in columns(rows)[:6]:
        texts = [row[col].text if col in row and row[col].kind in ("str", "num") else None
                 for row in rows]
        if None not in texts and len(set(texts)) == len(texts) and max(len(t or "") for t in texts) <= 60:
            return col
    return None


def listing(rows: list[dict], col: str | None, lo: int, hi: int, limit: int = 400) -> str:
    """``": a, b, c"`` — the ``col`` values of rows ``lo..hi`` — or ``""`` when that is longer
    than ``limit`` characters or there is no id column."""
    if col is None:
        return ""
    names = ", ".join(rows[i][col].text for i in range(lo, hi + 1))
    return f": {names}" if len(names) <= limit else ""
