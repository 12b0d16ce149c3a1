"""Standalone SVG of a :class:`~thresher.viz.model.GraphModel`, laid out by :mod:`.layout`.

No external binary: the layout is computed in Python and every style is an attribute, so the file
opens the same in a browser, an image viewer or inside the HTML pages (which add hover and click
behaviour through the ``data-*`` attributes and classes). Phases are shaded bands with their name on
the left; nodes show ``id · stage``, the params a graph changed, and with a trace the decision and
tokens in→out, filled by outcome; edges carry their port name when it is not ``out``; edges the
payload did not take are dashed. Graphviz (``--format dot | dot -Tsvg``) stays an option.
"""

from __future__ import annotations

from html import escape

from .layout import CHAR_W, LINE_H, PAD_X, PAD_Y, Layout, layout
from .model import NOT_RUN, STYLES, GraphModel, NodeModel, brief_value, label_lines

INK, EDGE, EDGE_OFF = "#263238", "#546e7a", "#b0bec5"
BAND_FILLS = ("#f7f9fb", "#eef2f5")
FONT = "ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace"


def _fit(text: str, width: float) -> str:
    """``text`` clipped with "…" to what fits in ``width`` pixels of label font."""
    room = max(int((width - 2 * PAD_X) / CHAR_W), 4)
    return text if len(text) <= room else text[:room - 1] + "…"


def _tooltip(node: NodeModel) -> str:
    lines = [f"{node.id} ({node.stage}, phase {node.phase})"]
    lines += [f"  {k} = {brief_value(v)}" for k, v in sorted(node.params.items())]
    if node.outcome is not None:
        lines.append(f"{node.outcome}: {node.reason}" if node.reason else node.outcome)
    return "\n".join(lines)


def _node(node: NodeModel, box) -> str:
    fill, stroke = STYLES.get(node.outcome or "", ("#ffffff", INK))
    dash = ' stroke-dasharray="4 3"' if node.outcome == NOT_RUN else ""
    cls = "node" + (f" outcome-{node.outcome}" if node.outcome else "")
    parts = [f'<g class="{cls}" data-node="{escape(node.id)}" data-stage="{escape(node.stage)}" '
             f'data-phase="{escape(node.phase)}" tabindex="0">',
             f"<title>{escape(_tooltip(node))}</title>",
             f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}" height="{box.h:.1f}" '
             f'rx="6" fill="{fill}" stroke="{stroke}" stroke-width="1.5"{dash}/>']
    for i, line in enumerate(label_lines(node)):
        weight = ' font-weight="bold"' if i == 0 else ""
        y = box.y + PAD_Y + LINE_H * (i + 1) - 4
        parts.append(f'<text x="{box.x + PAD_X:.1f}" y="{y:.1f}"{weight}>'
                     f"{escape(_fit(line, box.w))}</text>")
    parts.append("</g>")
    return "".join(parts)


def path_d(points: tuple[tuple[float, float], ...], side: bool = False) -> str:
    """An SVG path through ``points``: smooth vertical S-curves between consecutive points.

    A ``side`` route leaves its first point horizontally and enters its last one horizontally
    (it runs from a node's right side down a lane and back), with rounded corners.
    """
    (x0, y0), rest = points[0], points[1:]
    d = [f"M{x0:.1f},{y0:.1f}"]
    for i, (x1, y1) in enumerate(rest):
        if side and i == 0:
            c1, c2 = (x1, y0), (x1, y0)
        elif side and i == len(rest) - 1:
            c1, c2 = (x0, y1), (x0, y1)
        else:
            my = (y0 + y1) / 2
            c1, c2 = (x0, my), (x1, my)
        d.append(f"C{c1[0]:.1f},{c1[1]:.1f} {c2[0]:.1f},{c2[1]:.1f} {x1:.1f},{y1:.1f}")
        x0, y0 = x1, y1
    return " ".join(d)


def _edge(route, taken: bool | None) -> str:
    colour = EDGE_OFF if taken is False else (INK if taken else EDGE)
    width = 2.2 if taken else 1.4
    dash = ' stroke-dasharray="5 4"' if taken is False else ""
    marker = "arrow-off" if taken is False else "arrow"
    state = "" if taken is None else f' data-taken="{str(taken).lower()}"'
    parts = [f'<g class="edge" data-src="{escape(route.src)}" data-port="{escape(route.port)}" '
             f'data-dst="{escape(route.dst)}"{state}>',
             f"<title>{escape(f'{route.src}.{route.port} → {route.dst}')}</title>",
             f'<path d="{path_d(route.points, route.side)}" fill="none" stroke="{colour}" '
             f'stroke-width="{width}"{dash} marker-end="url(#{marker})"/>']
    if route.port != "out":
        # Beside the first bend: for a skip edge that is the lane it runs down, clear of the nodes.
        (x0, y0), (x1, y1) = route.points[0], route.points[1]
        x, y = (x1, y1) if route.side else ((x0 + x1) / 2, (y0 + y1) / 2)
        parts.append(f'<text class="port" x="{x + 5:.1f}" y="{y + 4:.1f}" fill="{colour}" '
                     f'font-style="italic">{escape(route.port)}</text>')
    parts.append("</g>")
    return "".join(parts)


def _defs() -> str:
    marks = []
    for name, colour in (("arrow", INK), ("arrow-off", EDGE_OFF)):
        marks.append(f'<marker id="{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
                     f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
                     f'fill="{colour}"/></marker>')
    return "<defs>" + "".join(marks) + "</defs>"


def render(model: GraphModel, lay: Layout | None = None, svg_id: str = "") -> str:
    """The ``<svg>`` element of ``model`` (deterministic: same model, same bytes).

    ``svg_id`` namespaces the arrow markers when several drawings share one HTML page.
    """
    lay = lay or layout(model)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="thresher-graph" '
           f'data-graph="{escape(model.id)}" width="{lay.width:.0f}" height="{lay.height:.0f}" '
           f'viewBox="0 0 {lay.width:.0f} {lay.height:.0f}" font-family="{FONT}" font-size="11" '
           f'fill="{INK}" role="img" aria-label="graph {escape(model.id)}">',
           f"<title>{escape(model.id)}</title>", _defs()]
    for i, band in enumerate(lay.bands):
        out.append(f'<g class="band" data-phase="{escape(band.phase)}"><rect x="0" '
                   f'y="{band.y0:.1f}" width="{lay.width:.0f}" height="{band.y1 - band.y0:.1f}" '
                   f'fill="{BAND_FILLS[i % 2]}"/><text x="8" y="{(band.y0 + band.y1) / 2 + 4:.1f}" '
                   f'fill="#78909c">{escape(band.phase)}</text></g>')
    taken = {(e.src, e.port, e.dst): e.taken for e in model.edges}
    out += [_edge(r, taken.get((r.src, r.port, r.dst))) for r in lay.routes]
    out += [_node(n, lay.boxes[n.id]) for n in model.nodes]
    out.append("</svg>")
    text = "\n".join(out) + "\n"
    if svg_id:  # marker ids are document-wide in HTML: make them unique per drawing
        text = text.replace('id="arrow', f'id="{svg_id}-arrow').replace("url(#arrow",
                                                                         f"url(#{svg_id}-arrow")
    return text
