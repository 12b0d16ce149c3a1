"""Side-by-side rows of one stage's input and output views, and what each marker line means.

Views come from a trace recorded with ``keep_views`` (``{"lines", "origin", "source", "tiers"}``
per stage input and output). Lines are paired by provenance, not by text: a view line with origin
*o* is source line *o*, so an input line is *removed* when no output line has its origin, and an
output line with origin -1 is a summary/marker line the stage wrote (or carried from an earlier
stage). Pairing by origin is exact where a text diff would guess (repeated lines, clipped lines).
"""

from __future__ import annotations

from thresher.dataflow.markers import CLIP_RE, FOOTER_RE

SYNTHETIC = -1
CRITICAL = 2

SAME, CHANGED, REMOVED, MARKER, ADDED = "same", "changed", "removed", "marker", "added"
"""Row kinds: kept as is; kept but altered (clipped, escape codes stripped); dropped by the stage;
a summary/marker line with no source line; a source line the input view did not show."""


def explain(line: str, origin: int, writer: str = "") -> str:
    """What a marker line says, in words ("" for an ordinary line of the tool's output)."""
    m = FOOTER_RE.match(line) if origin == SYNTHETIC else None
    if m:
        text = (f"footer: {m['omitted']} of {m['total']} source lines are not shown"
                + (f", {m['clipped']} lines are clipped" if m["clipped"] else "")
                + f"; `thresher expand {m['handle']}` prints the original byte-exact")
        if m["first"]:
            text += f"; `--lines {m['first']}-{m['last']}` prints the largest omitted block"
        return text
    c = CLIP_RE.search(line)
    if c and origin >= 0:
        return (f"clipped: {c['chars']} characters of source line {origin + 1} cut here; "
                "the archive keeps the whole line")
    if origin == SYNTHETIC:
        who = f"by {writer}" if writer else "by a stage"
        return (f"summary line written {who}: it stands for input lines and its numbers are "
                "counted from the input")
    return ""


def align(view_in: dict, view_out: dict) -> list[tuple[str, int | None, int | None]]:
    """``(kind, input index, output index)`` rows pairing the two views by line origin."""
    lin, oin = view_in["lines"], view_in["origin"]
    lout, oout = view_out["lines"], view_out["origin"]
    pos: dict[int, int] = {}
    for n, o in enumerate(oin):
        if o >= 0:
            pos.setdefault(o, n)
    rows: list[tuple[str, int | None, int | None]] = []
    i = 0
    for j, (line, o) in enumerate(zip(lout, oout)):
        k = pos.get(o) if o >= 0 else _same_marker(lin, oin, line, i)
        if k is not None and k >= i:
            rows += [(REMOVED, r, None) for r in range(i, k)]
            rows.append((SAME if lin[k] == line else CHANGED, k, j))
            i = k + 1
        else:
            rows.append((MARKER if o == SYNTHETIC else ADDED, None, j))
    rows += [(REMOVED, r, None) for r in range(i, len(lin))]
    return rows


def _same_marker(lines: list[str], origin: list[int], line: str, start: int) -> int | None:
    """Index of the first synthetic input line equal to ``line`` at or after ``start``."""
    for k in range(start, len(lines)):
        if origin[k] == SYNTHETIC and lines[k] == line:
            return k
    return None


def marker_writers(records: list[dict]) -> dict[str, str]:
    """Each synthetic line's text → the node that first wrote it (from records with views)."""
    writers: dict[str, str] = {}
    for rec in records:
        if "view_out" not in rec:
            continue
        before = {ln for ln, o in zip(rec["view_in"]["lines"], rec["view_in"]["origin"])
                  if o == SYNTHETIC}
        for ln, o in zip(rec["view_out"]["lines"], rec["view_out"]["origin"]):
            if o == SYNTHETIC and ln not in before:
                writers.setdefault(ln, rec["node"])
    return writers


def stage_rows(rec: dict, writers: dict[str, str]) -> dict:
    """The rows of one trace record (with views), critical-line flags and marker notes.

    ``rows`` holds ``[kind, in_index, out_index, critical]``; ``notes`` maps an output index to the
    explanation of its marker line. A critical line is one Score marked as part of the answer.
    """
    vin, vout = rec["view_in"], rec["view_out"]
    tiers = vout.get("tiers") or []
    rows, notes = [], {}
    for kind, i, j in align(vin, vout):
        o = vout["origin"][j] if j is not None else vin["origin"][i]
        rows.append([kind, i, j, 0 <= o < len(tiers) and tiers[o] == CRITICAL])
        if j is None:
            continue
        line = vout["lines"][j]
        note = explain(line, o, writers.get(line, rec["node"]))
        if kind == SAME and o == SYNTHETIC:
            note = "carried: " + note
        elif kind == CHANGED and not note:
            note = f"source line {o + 1} as cleaned by {rec['node']} (escape codes, redraws)"
        elif kind == ADDED:
            note = f"source line {o + 1}, which the input view did not show"
        if note:
            notes[j] = note
    return {"rows": rows, "notes": notes}


def output_notes(lines: list[str], records: list[dict], writers: dict[str, str]) -> dict[int, str]:
    """Explanations for the marker lines of the final emission, by line index.

    When the emission is the last stage's view (the usual compressed case) each line's origin is
    known; otherwise (raw passthrough) only the footer shape can mark a line.
    """
    last = records[-1]["view_out"] if records and "view_out" in records[-1] else None
    origins = last["origin"] if last and last["lines"] == lines else None
    notes = {}
    for j, line in enumerate(lines):
        if origins is not None:
            o = origins[j]
        else:
            o = SYNTHETIC if FOOTER_RE.match(line) else None
        note = explain(line, o, writers.get(line, "")) if o is not None else ""
        if note:
            notes[j] = note
    return notes
