"""HTML report pieces, shared by ``thresher gain --html`` and ``thresher bench --html``: an inline
SVG bar chart, an HTML table and the page's CSS.

No script, no CDN, no web font: the pages must open from a file on a machine with no network and
render the same in any browser. Negative bars (outputs that grew, or bounced back more than they
saved) are drawn below the axis in red: a report never hides a loss.
"""

from __future__ import annotations

from html import escape

POS, NEG, INK, GRID = "#2e7d32", "#c62828", "#222", "#ddd"


def _num(v: float) -> str:
    """Compact number for axis labels: 1.2k, 3.4M."""
    a = abs(v)
    for size, suffix in ((1e6, "M"), (1e3, "k")):
        if a >= size:
            return f"{v / size:.1f}{suffix}"
    return f"{v:.0f}"


def bar_chart(title: str, items: list[tuple[str, float]], width: int = 720, height: int = 260) -> str:
    """Vertical bars with a zero line, value labels and category labels, as an SVG element."""
    left, right, bottom = 56, 12, 72
    plot_w = width - left - right
    slot = plot_w / max(len(items), 1)
    top = 30 if slot >= 28 else 58   # room for upright value labels over the tallest bar
    plot_h = height - top - bottom
    hi = max([v for _, v in items] + [0.0])
    lo = min([v for _, v in items] + [0.0])
    span = (hi - lo) or 1.0
    y = lambda v: top + (hi - v) / span * plot_h  # noqa: E731 - local scale
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" aria-label="{escape(title)}">',
             f'<text x="{left}" y="18" font-size="14" font-weight="bold" fill="{INK}">'
             f'{escape(title)}</text>']
    for frac in (0, 0.25, 0.5, 0.75, 1):
        v = lo + span * frac
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                     f'stroke="{GRID}"/><text x="{left - 6}" y="{y(v) + 4:.1f}" font-size="10" '
                     f'text-anchor="end" fill="{INK}">{_num(v)}</text>')
    n = max(len(items), 1)
    bar = max(min(slot * 0.7, 60), 2)
    for i, (label, v) in enumerate(items):
        x = left + i * slot + (slot - bar) / 2
        y0, y1 = sorted((y(0), y(v)))
        color = POS if v >= 0 else NEG
        parts.append(f'<rect class="bar" x="{x:.1f}" y="{y0:.1f}" width="{bar:.1f}" '
                     f'height="{max(y1 - y0, 1):.1f}" fill="{color}"><title>{escape(label)}: '
                     f'{v:,.0f}</title></rect>')
        if n <= 40 and slot >= 28:
            ty = y0 - 3 if v >= 0 else y1 + 11
            parts.append(f'<text x="{x + bar / 2:.1f}" y="{ty:.1f}" font-size="9" '
                         f'text-anchor="middle" fill="{INK}">{_num(v)}</text>')
        elif n <= 40:   # narrow bars: the value label stands upright so neighbours do not overlap
            tx, ty = x + bar / 2 + 3, (y0 - 3 if v >= 0 else y1 + 3)
            anchor = "start" if v >= 0 else "end"
            parts.append(f'<text x="{tx:.1f}" y="{ty:.1f}" font-size="9" text-anchor="{anchor}" '
                         f'transform="rotate(-90 {tx:.1f} {ty:.1f})" fill="{INK}">{_num(v)}</text>')
        if n <= 40:
            lx, ly = x + bar / 2, height - bottom + 26  # below a negative bar's value label
            parts.append(f'<text x="{lx:.1f}" y="{ly:.1f}" font-size="10" text-anchor="end" '
                         f'transform="rotate(-35 {lx:.1f} {ly:.1f})" fill="{INK}">'
                         f'{escape(label[:18])}</text>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
                 f'stroke="{INK}"/></svg>')
    return "".join(parts)


def html_table(title: str, rows: list[dict], cols: list[tuple[str, str]]) -> str:
    """A titled HTML table (``cols`` are (header, key)); negative numbers get class ``neg``."""
    if not rows:
        return ""
    head = "".join(f"<th>{escape(h)}</th>" for h, _ in cols)
    body = []
    for r in rows:
        cells = []
        for _, k in cols:
            v = r[k]
            cls = ' class="neg"' if isinstance(v, (int, float)) and v < 0 else ""
            text = f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else str(v)
            cells.append(f"<td{cls}>{escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<h2>{escape(title)}</h2><table><tr>{head}</tr>{''.join(body)}</table>"


CSS = """body{font-family:sans-serif;margin:24px;color:#222;max-width:980px}
h1{font-size:22px}h2{font-size:16px;margin-top:28px}.note{color:#555;font-size:13px}
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 10px;border-bottom:1px solid #eee}
td{text-align:right}td:first-child,th:first-child{text-align:left}.neg{color:#c62828}
.cards{display:flex;gap:16px;flex-wrap:wrap}.card{border:1px solid #ddd;border-radius:6px;
padding:10px 16px}.card b{display:block;font-size:20px}"""
