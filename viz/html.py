"""Self-contained HTML pages: graph drawings, and the trace explorer of one run.

Everything is inline (the SVG from :mod:`.svg`, CSS and script from :mod:`.assets`, the data as a
JSON island), so a page opens from a file with no network. The data island holds the same model
``--format json`` prints; the page's script only reads it.

* :func:`graph_page` — one or many graphs (``thresher graph draw --all --html``): each drawing,
  its description, files, budget and which graph a role override replaces; click a node for its
  params.
* :func:`trace_page` — one run (``thresher trace --html``): nodes coloured by decision with tokens
  in→out, a click on a node shows that stage's input and output side by side (removed lines
  highlighted, marker lines explained), the final emission with its footer, and totals.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from . import svg
from .assets import CSS, JS
from .diff import marker_writers, output_notes, stage_rows
from .model import OUTCOMES, STYLES, GraphModel, final_text, to_dict
from .table import HEADERS, row


def data_island(data: dict) -> str:
    """``data`` as a JSON ``<script>`` block (``<`` escaped, so no text can close the tag)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="thresher-data">{text}</script>'


def page(title: str, body: str, data: dict) -> str:
    """A whole HTML document with the inline CSS, ``body``, the data island and the script."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n{body}\n"
            f"{data_island(data)}\n<script>{JS}</script></body></html>\n")


def _anchor(gid: str) -> str:
    return "g-" + "".join(c if c.isalnum() else "-" for c in gid)


def _graph_section(entry: dict) -> str:
    model: GraphModel = entry["model"]
    facts = [f"class <code>{escape(model.pclass)}</code>, role <code>{escape(model.role)}</code>"]
    if entry.get("replaces"):
        facts.append(f"role override: replaces <a href=\"#{_anchor(entry['replaces'])}\">"
                     f"{escape(entry['replaces'])}</a> for role {escape(model.role)}")
    if entry.get("origin"):
        facts.append(f"origin {escape(entry['origin'])}")
    facts.append("budget " + ", ".join(f"{k}={v}" for k, v in sorted(model.budget.items())))
    files = "".join(f"<li><code>{escape(f)}</code></li>" for f in model.files)
    overrides = "".join(f"<li>overrides {escape(o['origin'])} <code>{escape(o['file'])}</code></li>"
                        for o in entry.get("overrides", ()))
    if entry.get("differs"):
        overrides += (f"<li>differs from {escape(entry['replaces'])}: "
                      + "; ".join(f"<code>{escape(d)}</code>" for d in entry["differs"]) + "</li>")
    return (f'<section class="graph-section" id="{_anchor(model.id)}"><h2>{escape(model.id)}</h2>'
            f"<p>{escape(model.description)}</p><p class=\"small muted\">{' · '.join(facts)}</p>"
            f'<ul class="small">{files}{overrides}</ul><div class="main">'
            f'<div class="graphcol">{svg.render(model, svg_id=_anchor(model.id))}</div>'
            '<div class="detail params"><p class="muted small">Click a node to see its params.'
            "</p></div></div></section>")


def graph_page(entries: list[dict], title: str = "thresher graphs") -> str:
    """A page drawing every graph in ``entries`` (``{"model", "origin", "overrides", "replaces",
    "differs"}``, all but ``model`` optional).

    ``replaces`` names the graph a role override stands in for (``pytest.default`` for
    ``pytest.ci``) and ``differs`` what it changes; ``overrides`` lists lower-origin files the
    graph shadows.
    """
    toc = "".join(f'<li><a href="#{_anchor(e["model"].id)}">{escape(e["model"].id)}</a></li>'
                  for e in entries)
    body = (f"<h1>{escape(title)}</h1><p class=\"muted small\">{len(entries)} graph(s); layers "
            "follow the phases read → guard → score → distill → collapse → ledger → route → "
            "persist; edges name their port when it is not <code>out</code>.</p>"
            + (f'<nav class="toc"><ul>{toc}</ul></nav>' if len(entries) > 1 else "")
            + "".join(_graph_section(e) for e in entries))
    data = {"kind": "graphs", "graphs": {e["model"].id: to_dict(e["model"]) for e in entries}}
    return page(title, body, data)


def _views(records: list[dict]) -> tuple[list[dict], dict[str, dict]]:
    """Unique views (declined stages share theirs) and, per node, its rows into them."""
    views: list[dict] = []
    index: dict[tuple, int] = {}

    def ref(view: dict) -> int:
        key = (tuple(view["lines"]), tuple(view["origin"]))
        if key not in index:
            index[key] = len(views)
            views.append({"lines": view["lines"], "origin": view["origin"]})
        return index[key]

    writers = marker_writers(records)
    stages = {}
    for rec in records:
        if "view_in" in rec:
            vin, vout = rec["view_in"], rec["view_out"]
            stages[rec["node"]] = {"in": ref(vin), "out": ref(vout), **stage_rows(rec, writers),
                                   # Why a Guard sent the payload through byte-exact, and any note
                                   # the stage left: the "why" beside the lines.
                                   "verdict": vout.get("verdict") if vout.get("verdict") !=
                                   vin.get("verdict") else None,
                                   "notes_added": [n for n in vout.get("notes", ())
                                                   if n not in vin.get("notes", ())]}
    return views, stages


def _initial(model: GraphModel, stages: dict[str, dict]) -> str:
    """The node shown first: the first one that removed or wrote lines, else the first applied."""
    for n in model.nodes:
        rows = stages.get(n.id, {}).get("rows", ())
        if any(r[0] != "same" for r in rows):
            return n.id
    applied = [n.id for n in model.nodes if n.outcome == "applied"]
    return (applied or [model.entry])[0]


def _cards(model: GraphModel, final: dict, out_lines: int, records: list[dict]) -> str:
    t_in, t_out = final.get("tokens_in", 0), final.get("tokens_out", 0)
    saved = f"{100 * (t_in - t_out) / t_in:.0f}%" if t_in else "0%"
    by = {o: sum(1 for n in model.nodes if n.outcome == o) for o in OUTCOMES}
    cards = [("emission", final.get("decision", "?")),
             ("lines", f"{final.get('total', 0)} → {out_lines}"),
             ("tokens", f"{t_in} → {t_out}"), ("saved", saved),
             ("stages", ", ".join(f"{v} {k}" for k, v in by.items() if v)),
             ("stage time", f"{sum(r.get('ms', 0.0) for r in records):.1f} ms")]
    return '<div class="cards">' + "".join(
        f'<div class="card">{escape(k)}<b>{escape(str(v))}</b></div>' for k, v in cards) + "</div>"


def _legend() -> str:
    items = []
    for outcome in OUTCOMES:
        fill, stroke = STYLES[outcome]
        items.append(f'<span><i style="background:{fill};border-color:{stroke}"></i>'
                     f"{escape(outcome)}</span>")
    return '<div class="legend">' + "".join(items) + "</div>"


def _stage_table(records: list[dict]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    body = []
    for rec in records:
        cells = "".join(f'<td{" class=num" if 3 <= i <= 5 else ""}>{escape(c)}</td>'
                        for i, c in enumerate(row(rec, max_reason=200)))
        body.append(f'<tr data-node="{escape(rec["node"])}">{cells}</tr>')
    return f'<table class="stages" id="stages"><tr>{head}</tr>{"".join(body)}</table>'


def _emission(final: dict, lines: list[str], notes: dict[int, str]) -> str:
    parts = []
    for j, line in enumerate(lines):
        if j in notes:
            parts.append(f'<span class="marker">{escape(line)}<span class="note">'
                         f"{escape(notes[j])}</span></span>")
        else:
            parts.append(escape(line) + "\n")
    why = ""
    if final.get("decision") in ("raw", "verbatim", "unchanged"):
        why = (f"<p>The agent sees the tool's output byte-exact: {escape(final.get('reason', ''))}"
               ".</p>")
    return (f"<h2>What the agent sees</h2><p class=\"small\">{escape(final_text(final))}</p>{why}"
            f'<pre class="emission" id="emission">{"".join(parts)}</pre>')


def trace_data(model: GraphModel, trace: dict) -> dict[str, Any]:
    """The trace page's data island: model, unique views, per-stage rows and notes, styles."""
    views, stages = _views(trace.get("stages", []))
    return {"kind": "trace", "graph": to_dict(model), "views": views, "stages": stages,
            "styles": STYLES, "initial": _initial(model, stages)}


def trace_page(model: GraphModel, trace: dict, output: str, meta: dict[str, Any]) -> str:
    """The trace explorer of one run; ``trace`` recorded with ``keep_views``, ``output`` emitted.

    ``meta`` holds ``command``, ``exit_code`` and ``pclass`` for the heading.
    """
    records = trace.get("stages", [])
    final = model.final or {}
    lines = output.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    notes = output_notes(lines, records, marker_writers(records))
    exit_code = meta.get("exit_code")
    head = (f"<h1>thresher trace · <code>{escape(meta.get('command') or '(no command)')}</code>"
            "</h1><p class=\"muted small\">"
            + (f"exit {exit_code} · " if exit_code is not None else "")
            + f"graph <code>{escape(model.id)}</code> · class {escape(model.pclass)} · role "
            f"{escape(model.role)}</p>")
    body = (head + _cards(model, final, len(lines), records) + _legend()
            + '<div class="main"><div class="graphcol">' + svg.render(model) + "</div>"
            '<div class="detail"><label class="small"><input type="checkbox" id="only-changes" '
            "checked> only changed lines (±3 lines of context)</label><div id=\"detail\"></div>"
            "</div></div>" + _emission(final, lines, notes)
            + "<h2>Stages</h2>" + _stage_table(records))
    return page(f"thresher trace · {model.id}", body, trace_data(model, trace))
