"""``thresher graph draw``: one graph (or every graph) as Mermaid, DOT, SVG, HTML or JSON.

Split from ``cmd_graph`` (which parses the arguments): building the models, overlaying a trace of
``--input`` and choosing the renderer. Every format draws one :class:`~thresher.viz.model.GraphModel`.
"""

from __future__ import annotations

import argparse
import json
import sys

from thresher.cmd_graph import param_defaults, read_input, resolve_plan, show_data

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def draw(args: argparse.Namespace) -> int:
    """Write the drawing of one graph (or ``--all``), overlaid with a trace of ``--input``."""
    if args.all:
        if args.graph or args.input:
            raise LookupError("--all draws every graph: give no FILE_OR_ID and no --input")
        if args.format not in ("html", "json"):
            raise LookupError("--all needs --format html (one page) or --format json")
        return _emit(args.output, render_all(args.format))
    if not args.graph:
        raise LookupError("name a graph to draw (a YAML file or an id such as pytest.default), "
                          "or give --all")
    from thresher.viz.model import build_model
    plan = resolve_plan(args.graph)
    trace = result = None
    if args.input:
        from thresher.dataflow.api import compress
        result = compress(read_input(args.input), command=args.trace_cmd, exit_code=args.exit_code,
                          plan=plan, role=plan["role"], trace=True,
                          keep_views=args.format == "html")
        trace = result.trace.to_dict()
    elif args.trace_cmd or args.exit_code is not None:
        raise LookupError("--trace-cmd and --exit-code describe --input; give --input FILE too")
    if result is not None and args.format == "html":
        from thresher.cmd_trace import html_page
        return _emit(args.output, html_page(result, plan, args.trace_cmd, args.exit_code))
    model = build_model(plan, trace, param_defaults())
    if args.format == "html":
        from thresher.viz.html import graph_page
        return _emit(args.output, graph_page([{"model": model}], title=f"thresher graph {model.id}"))
    return _emit(args.output, render_model(model, args.format))


def render_model(model: Any, fmt: str) -> str:
    """``model`` as mermaid, dot, svg or json text."""
    from thresher.viz import dot, mermaid, svg
    if fmt == "json":
        from thresher.viz.model import to_dict
        return json.dumps(to_dict(model), indent=2, ensure_ascii=False) + "\n"
    renderers: dict[str, Callable[..., str]] = {"mermaid": mermaid.render, "dot": dot.render,
                                                "svg": svg.render}
    render = renderers[fmt]
    return render(model)


def all_entries(cwd: str | None = None) -> list[dict]:
    """Every graph in effect as page entries: model, origin, overridden files, replaced graph.

    Graphs are grouped by class, the ``default`` role first, so a role override sits right after
    the graph it replaces for that role.
    """
    from thresher.dataflow.plan import load_plans
    from thresher.viz.model import build_model
    from thresher.viz.model import differences
    plans, defaults, shown = load_plans(cwd), param_defaults(), show_data(cwd)
    models = {gid: build_model(plan, None, defaults) for gid, plan in plans.plans.items()}
    entries = []
    for g in sorted((g for g in shown["graphs"] if g["ok"]),
                    key=lambda g: (models[g["id"]].pclass, models[g["id"]].role != "default",
                                   g["id"])):
        model = models[g["id"]]
        base = f"{model.pclass}.default"
        replaces = base if model.role != "default" and base in models else None
        entries.append({"model": model, "origin": g["origin"], "overrides": g["overrides"],
                        "replaces": replaces,
                        "differs": differences(model, models[base]) if replaces else []})
    return entries


def render_all(fmt: str, cwd: str | None = None) -> str:
    """Every graph in effect as one HTML page, or as JSON (a list of models)."""
    entries = all_entries(cwd)
    if fmt == "json":
        from thresher.viz.model import to_dict
        data = [{**to_dict(e["model"]), **{k: v for k, v in e.items() if k != "model"}}
                for e in entries]
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    from thresher.viz.html import graph_page
    return graph_page(entries, title="thresher graphs")


def _emit(path: str | None, text: str) -> int:
    if path:
        from thresher.cmd_trace import write_html
        write_html(path, text)
    else:
        sys.stdout.write(text)
    return 0
