"""crush-table: a CSV/TSV table over budget → its header, a schema, anomalous rows, head and tail.

Rows stay byte-exact source lines (a quoted field spanning lines keeps all its lines); what is
written is declared and counted from the input:
- ``[thresher: 344 rows × 7 columns (comma-separated); 13 anomalous rows kept]``
- one schema line per column: kinds with counts, then the values of a low-cardinality column with
  their counts, or the numeric range (``bill_length_mm: num 342, empty 2; 32.1 to 59.6``);
- every anomalous row (see ``anomaly.py``: an empty cell among filled ones, a rare value, a number
  far from the rest, a row with the wrong number of fields), up to ``max_anomalies``;
- the rows holding each numeric column's minimum and maximum (the ends of the schema's ranges),
  column by column while the budget holds;
- as many head and tail rows as the budget holds; one line above the rows names those shown
  (``[thresher: rows shown: 1-40, 57, 300-344; 260 rows not shown]``): no marker between rows,
  so the rows read as the table they are.
Up to 3 leading records of another width, or before a header record (scikit-learn's
``569,30,malignant,benign`` count line), are shown as they are and are not rows. Leading ``#``
comment lines are a preamble: their first and last lines stay (the last is often the
header, as in tzdata's ``zone1970.tab``). Declines on input that is not a table: fewer than 3
columns on most rows, or rows whose field counts disagree too often. On incompressible input
(gzip probe) no row is sampled away: only the preamble is shortened.
"""

from __future__ import annotations

import csv
from collections import Counter

from thresher.dataflow.payload import CRITICAL, SYNTHETIC
from thresher.dataflow.tokens import estimate

from thresher.stages.lib import anomaly
from thresher.stages.lib.text import spans
from thresher.stages.generic.lossless import compressibility
from thresher.stages.lib.common import over_budget

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Budget
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}
LEAD_MAX = 3   # leading records (before the header, or of another width) shown as a preamble


def _delimiter(lines: list[str], forced: str) -> str | None:
    """The separator giving the same field count (≥ 2) on most sample lines."""
    sample = [s for s in lines[:50] if s and not s.startswith("#")]
    if forced or not sample:
        return forced or None
    best = None
    for d in (",", "\t", ";", "|"):
        counts = [len(r) for r in csv.reader(sample, delimiter=d)]
        top = max(set(counts), key=counts.count)
        share = counts.count(top) / len(counts)
        if top >= 2 and share >= 0.8 and (best is None or (share, top) > best[0]):
            best = ((share, top), d)
    return best[1] if best else None


def records(lines: list[str], start: int, delim: str) -> list[tuple[int, int, list[str]]]:
    """``(first line, end line (exclusive), fields)`` of every record from line ``start`` on."""
    out = []
    reader = csv.reader(iter(lines[start:]), delimiter=delim)
    prev = 0
    for fields in reader:
        if fields and not fields[0].startswith("#"):  # blank and comment lines are not rows
            out.append((start + prev, start + reader.line_num, fields))
        prev = reader.line_num
    return out


class Table:
    """A parsed table: preamble, header record, data records, and their rows as cells."""

    def __init__(self, lines: list[str], delim: str) -> None:
        pre = 0
        while pre < len(lines) and (lines[pre].startswith("#") or not lines[pre].strip()):
            pre += 1
        self.preamble = pre
        self.delim = delim
        recs = records(lines, pre, delim)
        counts = Counter(len(f) for _, _, f in recs)
        # the widest field count that 5% of the records have: rows that leave out optional
        # trailing fields (tzdata's comments column) are not ragged, their missing cells are empty
        width = max((w for w, c in counts.items() if c >= 0.05 * len(recs)), default=0)
        header_line = lines[pre - 1].lstrip("#") if pre else ""
        pre_fields = next(csv.reader([header_line], delimiter=delim)) if header_line else []
        # leading records of another width (a count line: scikit-learn's "569,30,malignant,benign")
        # or before a header line (boston's "506,13,,,..."): shown as they are, not rows
        lead = 0
        while lead < min(LEAD_MAX, len(recs) - 8) and len(recs[lead][2]) != width:
            lead += 1
        at = next((j for j in range(lead, min(lead + LEAD_MAX, len(recs) - 8))
                   if _looks_header(recs[j][2], recs[j + 1:j + 4])), None)
        if at is not None and not (pre and len(pre_fields) == width):
            lead = at
        self.lead = [i for _, (a, b, _) in zip(range(lead), recs) for i in range(a, b)]
        recs = recs[lead:]
        self.header: int | None
        if pre and len(pre_fields) == width and width >= 2:
            self.header, self.names = pre - 1, [f.strip() for f in pre_fields]
        elif recs and _looks_header(recs[0][2], recs[1:4]):
            self.header, self.names = recs[0][0], recs[0][2]
            recs = recs[1:]
        else:
            self.header, self.names = None, [f"column {i + 1}" for i in range(width)]
        self.width = width
        self.names = list(self.names) + [f"column {i + 1}" for i in range(len(self.names), width)]
        self.recs = recs
        self.rows = [self.row(f) for _, _, f in recs]

    def row(self, fields: list[str]) -> dict:
        """``column name -> Cell``, plus a ``fields`` column when the field count is off."""
        row = {name: anomaly.text_cell(fields[i].strip() if i < len(fields) else "")
               for i, name in enumerate(self.names)}
        if len(fields) > self.width:
            row["(extra fields)"] = anomaly.Cell("num", str(len(fields) - self.width))
        return row


def _looks_header(first: list[str], after: list) -> bool:
    """A first record of distinct, non-empty, non-numeric names, unlike the rows after it."""
    if not first or len(set(first)) != len(first) or any(not f.strip() for f in first):
        return False
    if any(anomaly.NUM_RE.match(f.strip()) for f in first):
        return False
    return any(anomaly.NUM_RE.match(f.strip()) or not f.strip() for _, _, fs in after for f in fs) \
        or not after


def _schema(t: Table, found: dict, shown: int) -> list[str]:
    """The summary line and one line per column."""
    kind = _NAMES.get(t.delim, repr(t.delim))
    odd = f"; {len(found)} anomalous rows, {shown} shown" if found else ""
    out = [f"[thresher: {len(t.rows)} rows × {t.width} columns ({kind}-separated){odd}]"]
    for name in t.names:
        out.append(f"[thresher: column {name}: {anomaly.profile(t.rows, name)}]")
    return out


def _shown(keep: list[int], n: int) -> str:
    """The one line saying which rows (numbered from 1 after the header) are shown."""
    shown = ", ".join(spans(keep, shift=1)) or "none"
    return f"[thresher: rows shown: {shown}; {n - len(keep)} rows not shown]"


def _assemble(lines, t: Table, keep_recs: set[int], fixed: list[int], head: list[str]):
    """View lines and origins: preamble/header lines, schema lines, the line naming the rows shown
    (when some are not), then the kept records, with no marker between them."""
    view, origin = [], []
    for i in fixed:
        view.append(lines[i])
        origin.append(i)
    keep = [k for k in range(len(t.recs)) if k in keep_recs]
    head = head + ([_shown(keep, len(t.recs))] if len(keep) < len(t.recs) else [])
    view.extend(head)
    origin.extend([SYNTHETIC] * len(head))
    for k in keep:
        a, b, _ = t.recs[k]
        view.extend(lines[a:b])
        origin.extend(range(a, b))
    return view, origin



def _table(payload, params) -> Table | None:
    """The table in ``payload.source``, or ``None`` when it does not look like one."""
    lines = list(payload.source)
    if lines and lines[0].lstrip()[:1] in ("{", "["):
        return None  # a JSON document: its "key": value, lines split on commas too
    if any("\r" in s for s in lines):
        return None  # a redraw Read kept (an error under a progress bar): the csv module
        # reads a bare CR as a record end and raises on it inside a field
    delim = _delimiter(lines, params["delimiter"])
    if delim is None:
        return None
    t = Table(lines, delim)
    if t.width < 2 or len(t.rows) < 8:
        return None
    ragged = sum(1 for _, _, f in t.recs if len(f) > t.width)
    thin = sum(1 for _, _, f in t.recs if sum(1 for x in f if x.strip()) < 2)
    if ragged > len(t.recs) // 10 or thin > len(t.recs) // 2:
        return None  # not a table: rows of one value and separators (prose, key: value, ...)
    return t


def extremes(t: Table) -> list[int]:
    """Row indices holding each numeric column's smallest and largest value (first such row),
    column by column: the rows the schema's ranges point at."""
    out: list[int] = []
    for name in t.names:
        nums = [(float(r[name].text), k) for k, r in enumerate(t.rows) if r[name].kind == "num"]
        if len(nums) < max(8, 0.8 * len(t.rows)):
            continue
        for k in (min(nums)[1], max(nums, key=lambda v: (v[0], -v[1]))[1]):
            if k not in out:
                out.append(k)
    return out


def _over(view: list[str], budget: Budget) -> bool:
    """:func:`over_budget` of the view as emitted (with its final newline, as Trim counts it)."""
    return over_budget(view, budget) or over_budget(["\n".join(view) + "\n"], budget)


def _fill(payload, params, ctx, t: Table, fixed: list[int], crit: set[int]):
    """The view with every anomalous row (fewer if they alone overflow the budget), then the rows
    holding each numeric column's minimum and maximum, then as many head and tail rows as the
    budget holds."""
    lines, n = list(payload.source), len(t.recs)
    found = anomaly.find(t.rows)
    cap = params["max_anomalies"]
    odd = set(anomaly.ranked(found, cap))
    ext_all = [k for k in extremes(t) if k not in odd]
    ext: set[int] = set()
    head = _schema(t, found, len(odd))

    def attempt(count: int):
        tail = int(count * params["tail_share"])
        keep = set(range(count - tail)) | set(range(n - tail, n)) | odd | crit | ext
        return _assemble(lines, t, keep, fixed, head)

    best = attempt(0)
    while _over(best[0], ctx.budget) and odd:  # too many anomalies for the budget: fewer
        cap //= 2
        odd = set(anomaly.ranked(found, cap))
        head = _schema(t, found, len(odd))
        best = attempt(0)
    lo, hi = 1, len(ext_all)
    while lo <= hi:  # the most column extremes (in column order) that still fit
        mid = (lo + hi) // 2
        ext = set(ext_all[:mid])
        view, origin = attempt(0)
        if not _over(view, ctx.budget):
            best, lo = (view, origin), mid + 1
        else:
            hi = mid - 1
    ext = set(ext_all[:hi])
    lo, hi = 1, n
    while lo <= hi:  # the most head/tail rows that still fit
        mid = (lo + hi) // 2
        view, origin = attempt(mid)
        if not _over(view, ctx.budget):
            best, lo = (view, origin), mid + 1
        else:
            hi = mid - 1
    return best


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The crushed table, or ``None`` (fits the budget, or not a table)."""
    if not over_budget(list(payload.lines), ctx.budget):
        return None
    t = _table(payload, params)
    if t is None:
        return None
    failed, tiers = payload.failed, payload.tiers
    crit = {k for k, (a, b, _) in enumerate(t.recs) if failed and
            any(tiers[i] == CRITICAL for i in range(a, b))}
    fixed = ({0, t.preamble - 1} if t.preamble else set()) | ({t.header} if t.header is not None
                                                             else set())
    fixed |= {i for i in range(t.preamble) if failed and tiers[i] == CRITICAL} | set(t.lead)
    lines = list(payload.source)
    if compressibility("\n".join(lines)) > params["max_ratio"]:  # no row sampling
        view = _assemble(lines, t, set(range(len(t.recs))), sorted(fixed),
                         _schema(t, anomaly.find(t.rows), 0))
    else:
        view = _fill(payload, params, ctx, t, sorted(fixed), crit)
        if _over(view[0], ctx.budget):
            return None  # even the schema and anomalies overflow: a trimmed view would make the
            # line naming the rows shown untrue; Trim cuts the table itself instead
    out = payload.with_view(*view)
    return out if estimate(out.text()) < payload.tokens() else None
