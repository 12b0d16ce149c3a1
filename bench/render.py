"""Render a ``thresher bench`` report: terminal text, Markdown (for the README), offline HTML.

The HTML page is self-contained (inline SVG, no script, no CDN, no web font): one scatter chart of
tokens saved vs facts kept per arm — the trade-off every compressor makes, on one picture — one bar
chart of savings per class per arm, and the same tables as the terminal report.
"""

from __future__ import annotations

from html import escape

from .charts import CSS, bar_chart, html_table
from .tables import cell, text_table

ARM_COLS = [("arm", "arm"), ("cases", "cases"), ("tokens in", "tokens_in"),
            ("tokens out", "tokens_out"), ("saved %", "pct"), ("median %/case", "median_pct"),
            ("facts kept %", "facts_pct"), ("cases missing facts", "cases_missing"),
            ("grew", "grew"), ("verbatim broken", "verbatim_failed"), ("passed", "passed"),
            ("errors", "errors"), ("median ms", "median_ms")]


def arm_rows(report: dict) -> list[dict]:
    """One summary row per arm."""
    return [{"arm": a["arm"], **a["totals"]} for a in report["arms"]]


def class_rows(report: dict) -> tuple[list[tuple[str, str]], list[dict]]:
    """The per-class table across arms: class, cases, tokens in, then saved % / facts % / failing
    cases for every arm but ``raw``."""
    cols = [("class", "class"), ("cases", "cases"), ("tokens in", "tokens_in")]
    rows: dict[str, dict] = {}
    for a in report["arms"]:
        name = a["arm"]
        if name == "raw":  # 0 % saved, every fact kept, nothing failing: by definition
            continue
        cols += [(f"{name} saved %", f"{name}:pct"), (f"{name} facts %", f"{name}:facts_pct"),
                 (f"{name} failing", f"{name}:failing")]
        for c in a["by_class"]:
            row = rows.setdefault(c["key"], {"class": c["key"], "cases": c["cases"],
                                             "tokens_in": c["tokens_in"]})
            row[f"{name}:pct"] = c["pct"]
            row[f"{name}:facts_pct"] = c["facts_pct"]
            row[f"{name}:failing"] = c["cases"] - c["passed"]
    return cols, [rows[k] for k in sorted(rows)]


def _md_table(rows: list[dict], cols: list[tuple[str, str]]) -> list[str]:
    out = ["| " + " | ".join(h for h, _ in cols) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(cols))) + "|"]
    out += ["| " + " | ".join(cell(r[k]).replace("|", "\\|") for _, k in cols) + " |"
            for r in rows]
    return out


def headline(report: dict) -> str:
    """One line: what ran, on what, counted how."""
    return (f"thresher bench: {report['case_count']} cases from {', '.join(report['corpus'])}; "
            f"tokens: {report['tokenizer_note']}; {report['date']}; {report['seconds']}s")


def failing_lines(report: dict, limit: int | None = 20) -> list[str]:
    """The failing cases per arm: missing facts, growth, broken verbatim, arm errors."""
    out = []
    for a in report["arms"]:
        fails = a["failing"]
        if not fails:
            continue
        out += ["", f"failing cases, {a['arm']} ({len(fails)})"]
        for f in fails if limit is None else fails[:limit]:
            why = []
            if f["missing"]:
                why.append(f"missing {len(f['missing'])} fact(s), e.g. {f['missing'][0][:80]!r}")
            if f["grew"]:
                why.append(f"grew by {-f['saved']:,} tokens")
            if f["verbatim_failed"]:
                why.append("verbatim case not byte-exact")
            if f["error"]:
                why.append(f"arm error: {f['error']}")
            out.append(f"  {f['id']}: " + "; ".join(why))
        if limit is not None and len(fails) > limit:
            out.append(f"  ... {len(fails) - limit} more (--show-failing all, or --json)")
    return out


def render_text(report: dict, show_failing: int | None = 20) -> str:
    """The terminal report."""
    cols, rows = class_rows(report)
    lines = [headline(report)]
    lines += text_table("per arm (saved = tokens in - tokens out, signed; a grown output counts "
                        "negative)", arm_rows(report), ARM_COLS)
    lines += text_table("per class", rows, cols)
    lines += failing_lines(report, show_failing)
    return "\n".join(lines) + "\n"


def render_markdown(report: dict) -> str:
    """The tables as Markdown, with the date and the command that produced them."""
    cols, rows = class_rows(report)
    lines = [f"Generated {report['date']} by `{report['command'] or 'thresher bench'}` "
             f"({report['case_count']} cases; tokens: {report['tokenizer_note']}).", ""]
    lines += _md_table(arm_rows(report), ARM_COLS) + ["", "Per class:", ""]
    lines += _md_table(rows, cols)
    return "\n".join(lines) + "\n"


CHART_CLASSES = 30
COLORS = ("#555", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#827717")


def scatter(report: dict, width: int = 720, height: int = 360) -> str:
    """Tokens saved % (x, signed) vs facts kept % (y) per arm, as an SVG element."""
    pts = [(a["arm"], a["totals"]["pct"], a["totals"]["facts_pct"]) for a in report["arms"]]
    left, right, top, bottom = 56, 24, 30, 46
    pw, ph = width - left - right, height - top - bottom
    xlo = min([0.0] + [p[1] for p in pts])
    xhi = max([100.0] + [p[1] for p in pts])
    ylo = min([0.0] + [p[2] for p in pts])
    x = lambda v: left + (v - xlo) / ((xhi - xlo) or 1) * pw  # noqa: E731 - local scale
    y = lambda v: top + (100 - v) / ((100 - ylo) or 1) * ph  # noqa: E731
    ink, grid = "#222", "#ddd"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="tokens saved vs facts kept per arm">',
             f'<text x="{left}" y="18" font-size="14" font-weight="bold" fill="{ink}">'
             "Tokens saved vs facts kept, per arm (top right is best)</text>"]
    for i in range(5):
        xv, yv = xlo + (xhi - xlo) * i / 4, ylo + (100 - ylo) * i / 4
        parts.append(f'<line x1="{x(xv):.1f}" x2="{x(xv):.1f}" y1="{top}" y2="{top + ph}" '
                     f'stroke="{grid}"/><text x="{x(xv):.1f}" y="{top + ph + 14}" font-size="10" '
                     f'text-anchor="middle" fill="{ink}">{xv:.0f}%</text>')
        parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(yv):.1f}" y2="{y(yv):.1f}" '
                     f'stroke="{grid}"/><text x="{left - 6}" y="{y(yv) + 4:.1f}" font-size="10" '
                     f'text-anchor="end" fill="{ink}">{yv:.0f}%</text>')
    parts.append(f'<text x="{left + pw / 2}" y="{height - 6}" font-size="11" text-anchor="middle" '
                 f'fill="{ink}">tokens saved (signed)</text>')
    parts.append(f'<text x="14" y="{top + ph / 2}" font-size="11" text-anchor="middle" '
                 f'transform="rotate(-90 14 {top + ph / 2})" fill="{ink}">facts kept</text>')
    placed: list[tuple[float, float]] = []
    for i, (name, sx, sy) in enumerate(pts):
        c = COLORS[i % len(COLORS)]
        near = sum(1 for px, py in placed if abs(px - x(sx)) < 60 and abs(py - y(sy)) < 14)
        placed.append((x(sx), y(sy)))
        parts.append(f'<circle class="arm" cx="{x(sx):.1f}" cy="{y(sy):.1f}" r="6" fill="{c}">'
                     f'<title>{escape(name)}: {sx}% saved, {sy}% facts kept</title></circle>'
                     f'<text x="{x(sx) + 9:.1f}" y="{y(sy) + 4 + 13 * near:.1f}" font-size="11" '
                     f'fill="{c}">{escape(name[:30])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: dict) -> str:
    """The whole page (offline: inline SVG and CSS only)."""
    cols, rows = class_rows(report)
    charts = [f'<div class="chart" id="scatter">{scatter(report)}</div>']
    for a in report["arms"]:
        if a["arm"] == "raw":
            continue
        biggest = sorted(a["by_class"], key=lambda c: -c["tokens_in"])[:CHART_CLASSES]
        items = [(c["key"], c["pct"]) for c in biggest]
        title = f"Tokens saved % per class ({len(items)} largest by tokens in): {a['arm']}"
        charts.append(f'<div class="chart">{bar_chart(title, items)}</div>')
    fails = "".join(f"<li>{escape(line.strip())}</li>" for line in failing_lines(report, None)
                    if line.strip())
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>thresher bench</title><style>{CSS}</style></head><body>"
            f"<h1>thresher bench</h1><p class=\"note\">{escape(headline(report))}</p>"
            f"<p class=\"note\">command: <code>{escape(report['command'] or 'thresher bench')}</code>"
            "; saved = tokens in − tokens out, signed (a grown output counts negative).</p>"
            + "".join(charts) + html_table("Per arm", arm_rows(report), ARM_COLS)
            + html_table("Per class", rows, cols)
            + (f"<h2>Failing cases</h2><ul>{fails}</ul>" if fails else "")
            + "</body></html>\n")
