"""``thresher gain --html``: one self-contained page, charts drawn as inline SVG (works offline).

No script, no CDN, no web font: the page must open from a file on a machine with no network and
render the same in any browser. Two charts — net tokens saved per day, and per payload class —
plus the tables of the terminal report. Negative bars (outputs that grew, or bounced back more than
they saved) are drawn below the axis in red: the report never hides a loss.
"""

from __future__ import annotations

from html import escape

from thresher.bench.charts import CSS, bar_chart, html_table as _table


def render_html(report: dict) -> str:
    """The whole page."""
    from thresher.cmd_gain import EVENT_COLS, GROUP_COLS, LEGEND
    from thresher.stores.report import tokenizer_note
    t, m = report["totals"], report["measure_only"]
    cards = [("payloads", f"{t['events']:,}"), ("tokens in", f"{t['tokens_in']:,}"),
             ("tokens out", f"{t['tokens_out']:,}"), ("tokens saved", f"{t['saved']:,}"),
             ("tokens re-read", f"{t['bounce_tokens']:,}"),
             ("tokens net", f"{t['net']:,} ({t['pct']}%)"),
             ("payloads expanded", f"{t['expanded']:,}")]
    if m["events"]:
        cards.append(("measure-only would save", f"{m['net']:,}"))
    days = [(r["key"], r["net"]) for r in report["by_day"]]
    classes = [(r["key"], r["net"]) for r in report["by_class"]]
    sections = [
        '<div class="cards">' + "".join(f'<div class="card">{escape(k)}<b>{escape(v)}</b></div>'
                                        for k, v in cards) + "</div>",
        f'<p class="note">{escape(tokenizer_note(report))}; counterfactual capped at 30,000 '
        "characters per payload; savings are signed and bounces count against them.</p>",
        f'<p class="note">{escape(LEGEND)}.</p>',
        '<div class="chart" id="by-day">' + bar_chart("Net tokens saved per day", days) + "</div>",
        '<div class="chart" id="by-class">' + bar_chart("Net tokens saved per class", classes)
        + "</div>",
        _table("Per command", report["by_command"], GROUP_COLS),
        _table("Per class", report["by_class"], GROUP_COLS),
        _table("Per transform", report["by_transform"], GROUP_COLS),
        _table("Per day", report["by_day"], GROUP_COLS),
        _table("Outputs that grew", report["grew"], EVENT_COLS),
        _table("Most bounced", report["most_bounced"], EVENT_COLS),
    ]
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>thresher gain</title><style>{CSS}</style></head><body>"
            "<h1>thresher gain</h1>" + "\n".join(s for s in sections if s) + "</body></html>\n")
