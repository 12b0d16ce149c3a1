"""Graphviz DOT text of a :class:`~thresher.viz.model.GraphModel` (``thresher graph draw | dot -Tsvg``).

Every id and label is a double-quoted DOT string with backslashes and quotes escaped, so node ids
such as ``drop-noise`` and params holding regexes need no special care. With a trace, nodes are
filled by outcome and edges the payload did not take are dashed and grey.
"""

from __future__ import annotations

from .model import NOT_RUN, STYLES, GraphModel, final_text, label_lines


def _escape(text: str) -> str:
    # Backslashes first: DOT reads "\n", "\l", "\N"... in labels as escapes of its own.
    body = text.replace("\\", "\\\\").replace('"', '\\"')
    return body.replace("\r", " ").replace("\n", " ")


def quote(text: str) -> str:
    """``text`` as a double-quoted DOT string (its own newlines become spaces)."""
    return f'"{_escape(text)}"'


def label(lines: list[str]) -> str:
    """A multi-line DOT label: each line escaped, joined by the ``\\n`` DOT reads as a line break."""
    return '"' + "\\n".join(_escape(line) for line in lines) + '"'


def render(model: GraphModel, rankdir: str = "TB") -> str:
    """The DOT ``digraph`` text of ``model`` (deterministic: same model, same bytes)."""
    title = [model.id] + ([final_text(model.final)] if model.traced else [])
    out = [f"digraph {quote(model.id)} {{",
           f"    graph [rankdir={rankdir}, labelloc=t, fontname=Helvetica, "
           f"label={label(title)}];",
           '    node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname=Helvetica, '
           "fontsize=10];",
           "    edge [fontname=Helvetica, fontsize=9];"]
    for node in model.nodes:
        attrs = [f"label={label(label_lines(node))}"]
        if node.outcome is not None:
            fill, stroke = STYLES[node.outcome]
            style = '"rounded,filled,dashed"' if node.outcome == NOT_RUN else '"rounded,filled"'
            attrs += [f'fillcolor="{fill}"', f'color="{stroke}"', f"style={style}"]
        out.append(f"    {quote(node.id)} [{', '.join(attrs)}];")
    for edge in model.edges:
        attrs = [f"label={quote(edge.port)}"] if edge.port != "out" else []
        if edge.taken is False:
            attrs += ["style=dashed", 'color="#9e9e9e"']
        elif edge.taken:
            attrs += ["penwidth=2"]
        tail = f" [{', '.join(attrs)}]" if attrs else ""
        out.append(f"    {quote(edge.src)} -> {quote(edge.dst)}{tail};")
    out.append("}")
    return "\n".join(out) + "\n"
