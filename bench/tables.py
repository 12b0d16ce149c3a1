"""Plain-text report tables, shared by ``thresher gain``, ``thresher bench`` and ``thresher replay``.

Below the command layer so the bench renderers and the ``gain`` command both import it (nothing
under ``cli/`` is imported from here). No imports: ``thresher gain``'s terminal path stays light.
"""

from __future__ import annotations


def text_table(title: str, rows: list[dict], cols: list[tuple[str, str]]) -> list[str]:
    """A plain aligned table: ``cols`` are (header, key)."""
    if not rows:
        return []
    cells = [[h for h, _ in cols]] + [[cell(r[k]) for _, k in cols] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    out = ["", title]
    for n, row in enumerate(cells):
        out.append("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                    for i, (c, w) in enumerate(zip(row, widths))))
        if n == 0:
            out.append("  " + "  ".join("-" * w for w in widths))
    return out


def cell(value: object) -> str:
    """One table cell: ints with thousands separators, floats to one decimal."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}"
    return str(value)
