"""A layered layout of a :class:`~thresher.viz.model.GraphModel`, computed in Python (no Graphviz).

Layers follow the phases: every node of phase *p* sits above every node of a later phase, and nodes
of one phase that feed each other (``collapse`` → ``trim``) take consecutive layers inside the
phase's band. An edge that skips layers (``guard.verbatim`` → ``persist``) is routed through one
virtual slot per layer it crosses (the Sugiyama construction), so no edge runs through a node.
Within a layer, slots are ordered by the median of their predecessors and pushed right until they no
longer overlap, which keeps a chain of stages in one straight column.

The result is plain data (boxes, polyline routes, phase bands) in pixels; :mod:`thresher.viz.svg`
draws it. Labels are drawn in a monospace font, so their width is known here without a font engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import GraphModel, label_lines

PHASE_ORDER = ("read", "guard", "score", "distill", "collapse", "ledger", "route", "persist")
"""The engine's phases in order (as in ``thresher.dataflow.payload.PHASES``; viz keeps its own copy
so a drawing never needs the engine)."""

CHAR_W = 6.6         # width of one character of the 11 px monospace label font
LINE_H = 15          # height of one label line
PAD_X, PAD_Y = 10, 8
GAP_X, GAP_Y = 36, 34
DUMMY_W = 16         # width a virtual slot (an edge passing through a layer) takes
BAND_W = 78          # left margin holding the phase names
MARGIN = 16
MIN_W, MAX_W = 150, 340


@dataclass(frozen=True)
class Box:
    """Where one node is drawn: top-left corner, size, its layer and phase."""

    id: str
    x: float
    y: float
    w: float
    h: float
    layer: int
    phase: str

    @property
    def cx(self) -> float:
        """Horizontal centre."""
        return self.x + self.w / 2


@dataclass(frozen=True)
class Route:
    """One edge as a polyline: bottom of ``src`` to top of ``dst``, or for an edge that skips
    layers, right side of ``src`` down a lane of virtual slots to the right side of ``dst``."""

    src: str
    port: str
    dst: str
    points: tuple[tuple[float, float], ...]

    @property
    def side(self) -> bool:
        """True for a skip edge (it runs down a lane beside the nodes)."""
        return len(self.points) > 2


@dataclass(frozen=True)
class Band:
    """The vertical extent of one phase (a shaded strip with the phase name)."""

    phase: str
    y0: float
    y1: float


@dataclass(frozen=True)
class Layout:
    """A whole drawing: canvas size, node boxes by id, edge routes in model order, phase bands."""

    width: float
    height: float
    boxes: dict[str, Box]
    routes: tuple[Route, ...]
    bands: tuple[Band, ...]


def phase_rank(phase: str) -> int:
    """Position of ``phase`` in the engine's order (unknown phases after all known ones)."""
    return PHASE_ORDER.index(phase) if phase in PHASE_ORDER else len(PHASE_ORDER)


def assign_layers(model: GraphModel) -> dict[str, int]:
    """Layer of every node: phases in order, longest in-phase path inside each phase's band."""
    preds: dict[str, list[str]] = {n.id: [] for n in model.nodes}
    for e in model.edges:
        preds[e.dst].append(e.src)
    phase = {n.id: n.phase for n in model.nodes}
    layers: dict[str, int] = {}
    offset = 0
    for ph in sorted({n.phase for n in model.nodes}, key=lambda p: (phase_rank(p), p)):
        members = [n.id for n in model.nodes if n.phase == ph]
        depth: dict[str, int] = {}
        for _ in members:  # relax in model order; |members| rounds settle any DAG
            for n in members:
                depth[n] = max([depth.get(p, 0) + 1 for p in preds[n] if phase[p] == ph] + [0])
        for n in members:
            layers[n] = offset + depth[n]
        offset += max(depth.values()) + 1
    return layers


def _slots(model: GraphModel, layers: dict[str, int]):
    """Real and virtual slots per layer, and each edge's chain of slots (virtual ones in between)."""
    rows: dict[int, list[str]] = {}
    for n in model.nodes:
        rows.setdefault(layers[n.id], []).append(n.id)
    chains, preds = [], {}
    for i, e in enumerate(model.edges):
        chain, prev = [e.src], e.src
        for layer in range(layers[e.src] + 1, layers[e.dst]):
            slot = f"\0{i}:{layer}"        # NUL cannot occur in a node id read from YAML
            rows.setdefault(layer, []).append(slot)
            preds[slot] = [prev]
            chain.append(slot)
            prev = slot
        chain.append(e.dst)
        preds.setdefault(e.dst, []).append(prev)
        chains.append(chain)
    return rows, chains, preds


def _order(rows: dict[int, list[str]], preds: dict[str, list[str]]) -> None:
    """Sort each layer by the mean position of its slots' predecessors (stable: ties keep order)."""
    pos: dict[str, int] = {}
    for layer in sorted(rows):
        def key(slot: str) -> float:
            ps = [pos[p] for p in preds.get(slot, ()) if p in pos]
            return sum(ps) / len(ps) if ps else float("inf")
        rows[layer].sort(key=key)
        pos.update({s: i for i, s in enumerate(rows[layer])})


def _place_x(rows: dict[int, list[str]], preds: dict[str, list[str]], width: float
             ) -> dict[str, float]:
    """Centre x of every slot: the lower median of its predecessors', pushed right to avoid overlap."""
    cx: dict[str, float] = {}
    for layer in sorted(rows):
        right = -float("inf")
        for slot in rows[layer]:
            w = DUMMY_W if slot.startswith("\0") else width
            ps = sorted(cx[p] for p in preds.get(slot, ()) if p in cx)
            want = ps[(len(ps) - 1) // 2] if ps else width / 2
            centre = max(want, right + GAP_X + w / 2) if right > -float("inf") else want
            cx[slot] = centre
            right = centre + w / 2
    return cx


def node_size(model: GraphModel) -> tuple[float, float]:
    """One width and height for every node: enough for the longest label and the most lines."""
    texts = [label_lines(n) for n in model.nodes] or [[""]]
    longest = max(len(line) for lines in texts for line in lines)
    w = min(max((longest + 1) * CHAR_W + 2 * PAD_X, MIN_W), MAX_W)   # +1: rounding slack
    h = max(len(lines) for lines in texts) * LINE_H + 2 * PAD_Y
    return w, h


def layout(model: GraphModel) -> Layout:
    """The layout of ``model`` (deterministic: same model, same coordinates)."""
    layers = assign_layers(model)
    rows, chains, preds = _slots(model, layers)
    _order(rows, preds)
    w, h = node_size(model)
    cx = _place_x(rows, preds, w)
    shift = BAND_W + MARGIN - min([cx[s] - (DUMMY_W if s.startswith("\0") else w) / 2
                                   for s in cx] or [0])
    top = lambda layer: MARGIN + GAP_Y / 2 + layer * (h + GAP_Y)  # noqa: E731 - local scale
    phase = {n.id: n.phase for n in model.nodes}
    boxes = {n: Box(n, cx[n] + shift - w / 2, top(layers[n]), w, h, layers[n], phase[n])
             for n in phase}
    routes = []
    for e, chain in zip(model.edges, chains):
        a, b = boxes[e.src], boxes[e.dst]
        lane = [(cx[s] + shift, top(int(s.split(":")[1])) + h / 2) for s in chain[1:-1]]
        if lane:  # a skip edge leaves and enters by the right side, so it never crosses a node
            pts = [(a.x + a.w, a.y + h / 2), *lane, (b.x + b.w, b.y + h / 2)]
        else:
            pts = [(a.cx, a.y + h), (b.cx, b.y)]
        routes.append(Route(e.src, e.port, e.dst, tuple(pts)))
    bands = []
    for ph in dict.fromkeys(sorted(phase.values(), key=lambda p: (phase_rank(p), p))):
        ls = [layers[n] for n in phase if phase[n] == ph]
        bands.append(Band(ph, top(min(ls)) - GAP_Y / 2, top(max(ls)) + h + GAP_Y / 2))
    # A skip edge's port name is written beside its lane: the canvas must hold it too.
    labels = [r.points[1][0] + 5 + len(r.port) * CHAR_W for r in routes
              if r.side and r.port != "out"]
    width = max([b.x + b.w for b in boxes.values()] + [cx[s] + shift + DUMMY_W for s in cx]
                + labels + [BAND_W]) + MARGIN
    height = (bands[-1].y1 if bands else 0) + MARGIN / 2
    return Layout(width, height, boxes, tuple(routes), tuple(bands))
