"""distill-jsonl: JSON Lines (structured logs, event streams) shown as their exceptions, not their bulk.

Recognised only when at least 80% of the non-blank lines are JSON objects (at least 8 of them);
anything else declines. Every kept line is an input line, byte-exact. Kept:
- every line Score made critical, and every line that is not a JSON object (banners, stack lines);
- the first and the last records;
- the first record of every distinct *kind* — the values of its low-cardinality status-like and
  message fields (``level``, ``status``, ``msg``, ``event``…): one example of each thing that
  happened;
- every anomalous record (``anomaly.py``: a 404 among 200s, a missing field, an outlier duration),
  rarest first, as many as the budget holds.
One declared summary line at the end profiles those fields across all records with exact counts
(``res.statusCode num 300; 200 ×289, 404 ×8, 500 ×3``); the footer counts the records not shown.
"""

from __future__ import annotations

import re

import orjson

from thresher.stages.lib import anomaly
from thresher.stages.lib.common import build, critical_flags, over_budget

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

MIN_RECORDS = 8
_KIND_RE = anomaly.STATUS_RE
_MSG_KEYS = ("msg", "message", "event", "type", "action")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _cell(value) -> anomaly.Cell:
    if isinstance(value, dict):
        return anomaly.Cell("obj", "{}")
    if isinstance(value, list):
        return anomaly.Cell("arr", "[]")
    text = orjson.dumps(value).decode()
    if value is None:
        return anomaly.Cell("null", text)
    if isinstance(value, bool):
        return anomaly.Cell("bool", text)
    if isinstance(value, (int, float)):
        return anomaly.Cell("num", text)
    return anomaly.Cell("str" if value else "empty", text)


def _row(obj: dict) -> dict:
    """A record flattened two levels deep into ``column -> Cell``."""
    row = {}
    for k, v in obj.items():
        row[k] = _cell(v)
        if isinstance(v, dict):
            for k2, v2 in v.items():
                row[f"{k}.{k2}"] = _cell(v2)
    return row


def records(lines) -> dict[int, dict] | None:
    """View index -> flattened record, or ``None`` when the lines are not JSON Lines."""
    rows, other = {}, 0
    room = len(lines) // 5   # other > n / 5 leaves rows < n - other < 4 * other: not JSON Lines
    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        if other > room:
            return None
        obj = None
        if s[0] == "{" and s[-1] == "}":
            try:
                obj = orjson.loads(s)
            except orjson.JSONDecodeError:
                obj = None
        if isinstance(obj, dict):
            rows[i] = _row(obj)
        else:
            other += 1
    if len(rows) < MIN_RECORDS or len(rows) < 4 * other:
        return None
    return rows


def kind_columns(rows: list[dict]) -> list[str]:
    """Columns that say what kind of record a row is: status-like or message fields whose values
    repeat (at most 12 distinct scalar values, each seen at least twice on average)."""
    out = []
    for col in anomaly.columns(rows):
        snake = _CAMEL_RE.sub("_", col)   # statusCode -> status_Code
        if not (_KIND_RE.search(snake) or snake.rsplit(".", 1)[-1].lower() in _MSG_KEYS):
            continue
        values = {r[col].text for r in rows if col in r and r[col].kind not in ("obj", "arr")}
        if values and len(values) <= min(12, len(rows) // 2):
            out.append(col)
    return out


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The JSON Lines view, or ``None`` when the input is not JSON Lines or already fits."""
    lines = payload.lines
    if not over_budget(lines, ctx.budget):
        return None
    found = records(lines)
    if found is None:
        return None
    idx = list(found)
    rows = [found[i] for i in idx]
    crit = critical_flags(payload)
    keep = [crit[i] or i not in found for i in range(len(lines))]
    for i in idx[:params["head"]] + idx[-params["tail"]:]:
        keep[i] = True
    kinds = kind_columns(rows)
    seen = set()
    for i, row in zip(idx, rows):
        key = tuple(row[c].text if c in row else None for c in kinds)
        if key not in seen:
            seen.add(key)
            keep[i] = True
    summary = {}
    if kinds:
        profiles = "; ".join(f"{c} {anomaly.profile(rows, c, 12)}" for c in kinds)
        summary[len(lines)] = f"[thresher: {len(rows)} JSON records; {profiles}]"
    for j in anomaly.by_rank(anomaly.find(rows))[:params["max_anomalies"]]:
        i = idx[j]
        if keep[i]:
            continue
        keep[i] = True
        if over_budget([ln for ln, k in zip(lines, keep) if k] + list(summary.values()), ctx.budget):
            keep[i] = False   # the rest are less telling: the footer counts them
            break
    return build(payload, keep, summary)
