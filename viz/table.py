"""The terminal table of a trace: one row per stage run, then one line about the emission.

Columns: node, stage, decision, lines in→out, tokens in→out, ms, reason. The table is plain text
with space-aligned columns (no colours), so it reads the same in a terminal, a log and a test.
"""

from __future__ import annotations

from .model import final_text

HEADERS = ("node", "stage", "decision", "lines in→out", "tokens in→out", "ms", "reason")
_RIGHT = frozenset({3, 4, 5})          # numeric columns are right-aligned so the digits line up
MAX_REASON = 80             # long reasons (an exception message) would wrap every row


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


def row(rec: dict, max_reason: int = MAX_REASON) -> tuple[str, ...]:
    """The table cells of one trace record."""
    reason = rec.get("reason", "")
    # The executor records "declined" as the reason of a plain decline: saying it twice is noise.
    if reason == rec.get("decision"):
        reason = ""
    return (str(rec.get("node", "")), str(rec.get("stage", "")), str(rec.get("decision", "")),
            f"{rec.get('lines_in', 0)}→{rec.get('lines_out', 0)}",
            f"{rec.get('tokens_in', 0)}→{rec.get('tokens_out', 0)}",
            f"{float(rec.get('ms', 0.0)):.2f}", _clip(reason, max_reason))


def format_rows(rows: list[tuple[str, ...]], right: "frozenset[int] | set[int]" = frozenset()
                ) -> list[str]:
    """Space-aligned lines of ``rows`` (the first is the header); columns in ``right`` right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


def render(trace: dict, max_reason: int = MAX_REASON) -> str:
    """The whole table of ``trace`` (``Trace.to_dict()``), ending in the emission line."""
    out = [f"graph: {trace.get('graph') or '(none)'}"]
    records = trace.get("stages", [])
    if records:
        out += format_rows([HEADERS] + [row(r, max_reason) for r in records], _RIGHT)
    else:
        out.append("(no stage ran)")
    if trace.get("budget"):
        out.append(budget_line(trace["budget"]))
    final = trace.get("final") or {}
    line = f"emission: {final_text(final) or '(none)'}"
    if final.get("handle"):
        line += f" · thresher expand {final['handle']}"
    out.append(line)
    return "\n".join(out) + "\n"


def budget_line(adapt: dict) -> str:
    """The bounce-adaptive budget decision: command family, its counts in this scope, the factor."""
    factor = float(adapt.get("factor", 1.0))
    caps = f"max_lines {adapt.get('max_lines')}, max_tokens {adapt.get('max_tokens')}"
    return (f"budget: ×{factor:g} for `{adapt.get('family', '')}` in this scope "
            f"({adapt.get('expanded', 0)} of {adapt.get('payloads', 0)} compressed payloads "
            f"expanded): {caps}" + ("" if factor > 1 else " (the graph's own)"))
