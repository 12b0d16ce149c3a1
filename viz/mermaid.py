"""Mermaid flowchart text of a :class:`~thresher.viz.model.GraphModel` (paste into any Markdown).

Node ids are sanitised (Mermaid chokes on ``-`` in some positions and on the id ``end``); labels are
quoted and escaped with Mermaid's ``#code;`` entities, so params holding quotes, ``#`` or ``<`` draw
as written. With a trace, each node carries a class named after its outcome and edges the payload
did not take are dotted.
"""

from __future__ import annotations

import json
import re

from .model import NOT_RUN, OUTCOMES, STYLES, GraphModel, final_text, label_lines

# Characters that would end a quoted label or be read as HTML/markdown, as Mermaid entity codes.
# "#" comes first in spirit: every replacement below introduces a "#", so it must not be re-escaped
# (str.translate maps each source character once, which guarantees that).
_ESCAPES = str.maketrans({"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;",
                          "`": "#96;", "|": "#124;", "\n": " ", "\r": " "})


def escape(text: str) -> str:
    """``text`` made safe inside a double-quoted Mermaid label."""
    return text.translate(_ESCAPES)


def class_name(outcome: str) -> str:
    """The Mermaid class of an outcome (``not-run`` → ``notrun``: class names are identifiers)."""
    return outcome.replace("-", "")


def node_ids(model: GraphModel) -> dict[str, str]:
    """A unique, Mermaid-safe id for every node, stable for a given graph."""
    ids: dict[str, str] = {}
    used: set[str] = set()
    for node in model.nodes:
        base = "n_" + re.sub(r"[^A-Za-z0-9_]", "_", node.id)
        cand, i = base, 2
        while cand in used:  # "a-b" and "a_b" both sanitise to "n_a_b"
            cand, i = f"{base}_{i}", i + 1
        used.add(cand)
        ids[node.id] = cand
    return ids


def render(model: GraphModel, direction: str = "TD") -> str:
    """The Mermaid ``flowchart`` text of ``model`` (deterministic: same model, same bytes)."""
    title = model.id if not model.traced else f"{model.id} · {final_text(model.final)}"
    out = ["---", f"title: {json.dumps(title, ensure_ascii=False)}", "---",
           f"flowchart {direction}"]
    ids = node_ids(model)
    for node in model.nodes:
        label = "<br/>".join(escape(line) for line in label_lines(node))
        out.append(f'    {ids[node.id]}["{label}"]')
    for edge in model.edges:
        arrow = "-.->" if edge.taken is False else "-->"
        label = f'|"{escape(edge.port)}"|' if edge.port != "out" else ""
        out.append(f"    {ids[edge.src]} {arrow}{label} {ids[edge.dst]}")
    if model.traced:
        out.extend(_classes(model, ids))
    return "\n".join(out) + "\n"


def _classes(model: GraphModel, ids: dict[str, str]) -> list[str]:
    lines = []
    for outcome in OUTCOMES:
        fill, stroke = STYLES[outcome]
        dash = ",stroke-dasharray:4 3" if outcome == NOT_RUN else ""
        lines.append(f"    classDef {class_name(outcome)} fill:{fill},stroke:{stroke}{dash}")
    for outcome in OUTCOMES:
        members = [ids[n.id] for n in model.nodes if n.outcome == outcome]
        if members:
            lines.append(f"    class {','.join(members)} {class_name(outcome)}")
    return lines
