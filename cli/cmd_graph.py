"""``thresher graph check|show|draw|stages|schema``: validate graph files, list the graphs in effect,
draw one, list the stages a graph may name, print the JSON Schema of graph files.

This is control-plane tooling (it imports yaml, pydantic and networkx through ``dataflow.build``);
nothing here is on the hot path. Graph files are validated exactly as the plan cache compiles them,
so ``graph check`` passing means ``thresher pipe`` will use the graph.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from thresher.dataflow.shapes import Plan
    from thresher.stages.plugins import Stages

DESCRIPTION = """Check, list and draw thresher graphs; list the stages they may name; print
their JSON Schema.

A graph is a YAML file <class>.<role>.yaml wiring typed stages (read → guard → score → distill →
collapse → ledger → route → persist). Graphs come from three places, later ones winning for the
same class.role: built-in, user ($THRESHER_CONFIG_HOME/graphs or ~/.config/thresher/graphs) and
project (the nearest .thresher/graphs at or above the working directory)."""

EPILOG = """examples:
  thresher graph check .thresher/graphs/pytest.default.yaml
  thresher graph show
  thresher graph draw pytest.default --format dot | dot -Tsvg > pytest.svg
  thresher graph draw pytest.default --trace-cmd "pytest -q" --exit-code 1 --input out.txt
  thresher graph draw pytest.default --format svg -o pytest.svg
  thresher graph draw --all --html -o graphs.html
  thresher graph stages                      # built-in and installed user stages
  thresher graph schema -o .thresher/graph.schema.json   # for editors (see the README)"""

FORMATS = ("mermaid", "dot", "svg", "html", "json")
"""What ``graph draw`` writes: text for Markdown/Graphviz, a standalone SVG, a page, the model."""

GIVEN = "project"
"""Origin given to files named on the command line: they win over every discovered graph."""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher graph", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True, metavar="{check,show,draw,stages,schema}")
    check = sub.add_parser("check", help="validate graph files (exit 2 on any error)",
                           description="Validate graph files the way the plan cache compiles them. "
                           "`extends:` bases are looked up among the given files and the "
                           "discovered graphs. With no FILE, every discovered graph is checked.")
    check.add_argument("files", nargs="*", metavar="FILE", help="graph YAML files to validate")
    show = sub.add_parser("show", help="list every graph in effect and where it comes from",
                          description="List every graph id: the winning file and its origin, the "
                          "lower-origin files it overrides, and the errors of graphs that failed.")
    show.add_argument("--json", action="store_true", help="print JSON instead of a table")
    draw = sub.add_parser("draw", help="draw a graph: Mermaid, DOT, SVG, HTML or JSON",
                          description="Draw a graph; with --input, run it on that output and "
                          "show each node's decision and tokens in→out (--format html: the trace "
                          "explorer, as `thresher trace --html`). SVG and HTML are laid out in "
                          "Python (no Graphviz needed) and work offline; JSON is the data model "
                          "every format draws.")
    draw.add_argument("graph", metavar="FILE_OR_ID", nargs="?",
                      help="a graph YAML file, or a graph id such as pytest.default")
    draw.add_argument("--format", choices=FORMATS, default="mermaid",
                      help="output format (default: mermaid)")
    draw.add_argument("--html", dest="format", action="store_const", const="html",
                      help="same as --format html")
    draw.add_argument("--all", action="store_true", help="every graph in effect on one page "
                      "(built-in, user and project, role overrides next to the graph they "
                      "replace); --format html or json")
    draw.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    draw.add_argument("--input", metavar="FILE",
                      help="tool output to run through the graph and overlay (- for stdin)")
    draw.add_argument("--trace-cmd", metavar="CMD", default="",
                      help="the command that produced --input (turns on its rules)")
    draw.add_argument("--exit-code", type=int, metavar="N",
                      help="exit status of that command (non-zero: failure rules)")
    stages = sub.add_parser("stages", help="list the stages a graph may name",
                            description="List every stage: built-in ones, then users' own from "
                            "installed distributions (entry point group thresher.stages), with "
                            "phase, ports and what it does; a user stage that cannot be used is "
                            "listed with its error (exit 2).")
    stages.add_argument("--json", action="store_true", help="print JSON instead of a table")
    schema = sub.add_parser("schema", help="print the JSON Schema of graph YAML files (for editors)",
                            description="Print a JSON Schema (draft 2020-12) of graph and role "
                            "files, generated from the models the loader validates with: stage "
                            "names (built-in and installed user stages) and each stage's params. "
                            "Point a YAML language server at it with a first line "
                            "`# yaml-language-server: $schema=PATH`.")
    schema.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    return ap


def stage_rows() -> list[dict]:
    """Every stage a graph may name, built-in first, JSON-ready; a user stage that cannot be used
    (one named like a built-in stage included) has ``error`` and ``hint`` instead."""
    from thresher.dataflow.compile import default_registry
    from thresher.dataflow.errors import StageLoadError
    from thresher.stages.registry import REGISTRY
    registry = cast("Stages", default_registry())  # the wired registry: built-in + users'
    rows: list[dict[str, Any]] = []
    for key in [*REGISTRY, *registry.user_keys()]:
        origin = "built-in" if key in REGISTRY and len(rows) < len(REGISTRY) else "user"
        try:
            info = REGISTRY[key] if origin == "built-in" else registry.user(key)
        except StageLoadError as exc:
            rows.append({"stage": key, "origin": origin, "error": exc.problem, "hint": exc.hint})
            continue
        rows.append({"stage": key, "origin": origin, "phase": info.phase, "ports": list(info.ports),
                     "impl": info.impl, "summary": info.summary})
    return rows


def stages(as_json: bool) -> int:
    """Print :func:`stage_rows` (table or JSON); 2 when a user stage cannot be used."""
    rows = stage_rows()
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        from thresher.viz.table import format_rows
        table: list[tuple[str, ...]] = [("stage", "origin", "phase", "ports", "does")]
        table += [(r["stage"], r["origin"], r.get("phase", "ERROR"), ",".join(r.get("ports", [])),
                   r.get("summary") or f"{r['error']} (hint: {r['hint']})") for r in rows]
        for line in format_rows(table, set()):
            print(line)
    return 2 if any("error" in r for r in rows) else 0


def param_defaults() -> dict[str, dict[str, Any]]:
    """Default params of every registered stage, normalised the way compile stores them.

    viz/ may not import stages/, so the CLI works these out and hands them to the drawing, which
    then labels nodes with only the params a graph changed.
    """
    from thresher.dataflow.compile import default_registry
    out: dict[str, dict[str, Any]] = {}
    registry = default_registry()
    for key in registry:
        try:
            module, _, attr = registry[key].params.partition(":")
            model = getattr(importlib.import_module(module), attr)
            out[key] = model.model_validate({}).model_dump(mode="json")
        except Exception:  # noqa: BLE001 - required params (show them all), or a broken user stage
            continue
    return out


def compile_files(files: list[str], cwd: str | None = None) -> list[tuple[str, Any, list]]:
    """``(file, plan or None, errors)`` for each file, bases resolved among it and discovered ones."""
    from thresher.dataflow.build import finder, load_all, load_classify
    from thresher.dataflow.compile import compile_graph, default_registry
    from thresher.dataflow.errors import GraphError, GraphErrors
    from thresher.dataflow.plan import discover
    given = list(dict.fromkeys(files))
    real = {os.path.realpath(f) for f in given}
    # A discovered copy of a given file would shadow nothing but could pose as its own base.
    found = [(o, p) for o, p in discover(cwd) if os.path.realpath(p) not in real]
    by_id, load_errors = load_all(found + [(GIVEN, f) for f in given])
    mine = {g.file: g for cands in by_id.values() for o, g in cands if o == GIVEN}
    registry = default_registry()
    results: list[tuple[str, Any, list]] = []  # (file, its plan or classify table sizes, errors)
    for f in given:
        if os.path.basename(f) in ("classify.yaml", "classify.yml"):
            tables, errs = load_classify([(GIVEN, f)])
            results.append((f, None if errs else {"classify": _table_sizes(tables)}, errs))
            continue
        errs = [e for e in load_errors if e.file == f]
        plan = None
        if not errs and f in mine:
            try:
                plan = compile_graph(mine[f], registry, finder(by_id, mine[f]))
            except GraphErrors as exc:
                errs = list(exc.errors)
            except GraphError as exc:
                errs = [exc]
        results.append((f, plan, errs))
    return results


def _table_sizes(tables: "dict | list") -> str:
    # load_classify returns a list of command rules, or a dict of rule lists by section.
    if isinstance(tables, dict):
        return ", ".join(f"{len(rules)} {section}" for section, rules in tables.items())
    return f"{len(tables)} rules"


def check(files: list[str], cwd: str | None = None) -> int:
    """Print ``FILE: ok (...)`` or every error of each file; 2 when any file has an error."""
    if not files:
        from thresher.dataflow.plan import discover
        files = [p for _, p in discover(cwd)]
    bad = 0
    for f, plan, errs in compile_files(files, cwd):
        if errs:
            bad += 1
            for e in errs:
                print(e.render())
        elif "classify" in plan:
            print(f"{f}: ok (classify table, {plan['classify']})")
        else:
            print(f"{f}: ok ({plan['id']}, {len(plan['nodes'])} nodes)")
    if bad:
        print(f"{bad} of {len(set(files))} file(s) have errors", file=sys.stderr)
    return 2 if bad else 0


def show_data(cwd: str | None = None) -> dict:
    """Every graph id with its winner, the files it overrides, and all errors (JSON-ready)."""
    from thresher.dataflow.plan import load_plans
    plans = load_plans(cwd)
    graphs = []
    for gid in sorted(plans.sources):
        (origin, path), *lower = plans.sources[gid]
        plan = plans.plans.get(gid)
        graphs.append({"id": gid, "ok": plan is not None, "origin": origin, "file": path,
                       "nodes": len(plan["nodes"]) if plan else None,
                       "files": plan["files"] if plan else [path],
                       "description": plan["description"] if plan else "",
                       "overrides": [{"origin": o, "file": p} for o, p in lower]})
    untrusted = [{"file": p, "blake3": h} for p, h in plans.untrusted]
    return {"graphs": graphs, "errors": list(plans.errors), "untrusted": untrusted}


def show(as_json: bool, cwd: str | None = None) -> int:
    """Print the graphs in effect (table or JSON); 0 even when some graph failed (they are listed)."""
    data = show_data(cwd)
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return 0
    from thresher.viz.table import format_rows
    rows: list[tuple[str, ...]] = [("graph", "status", "origin", "nodes", "file")]
    for g in data["graphs"]:
        rows.append((g["id"], "ok" if g["ok"] else "ERROR", g["origin"],
                     str(g["nodes"]) if g["ok"] else "-", g["file"]))
        # Continuation rows, so an override is read right under the graph that shadows it.
        rows += [("", "", f"  overrides {o['origin']}", "", o["file"]) for o in g["overrides"]]
    for line in format_rows(rows, {3}):
        print(line)
    if data["untrusted"]:
        print(f"\nignored, not trusted ({len(data['untrusted'])}; review, then `thresher trust FILE`):")
        for u in data["untrusted"]:
            print(f"  {u['file']}")
    if data["errors"]:
        print(f"\nerrors ({len(data['errors'])}):")
        for err in data["errors"]:
            print(f"  {err}")
    return 0


def resolve_plan(ref: str, cwd: str | None = None) -> Plan:
    """The compiled plan of a graph file or graph id; raise GraphErrors/LookupError when none."""
    from thresher.dataflow.errors import GraphErrors
    if os.path.exists(ref) or ref.endswith((".yaml", ".yml")):
        (_, plan, errs), = compile_files([ref], cwd)
        if errs:
            raise GraphErrors(errs)
        if "classify" in plan:
            raise LookupError(f"{ref} is a classify table, not a graph")
        return plan
    from thresher.dataflow.plan import load_plans
    plans = load_plans(cwd)
    if ref in plans.plans:
        return plans.plans[ref]
    if ref in plans.sources:
        failing = [e for e in plans.errors if any(e.startswith(p) for _, p in plans.sources[ref])]
        raise LookupError(f"graph {ref!r} does not compile:\n" + "\n".join(failing or plans.errors))
    raise LookupError(f"unknown graph {ref!r}; known graphs: {', '.join(sorted(plans.plans))}")


def read_input(path: str) -> bytes:
    """The bytes of ``path`` (``-``: stdin)."""
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as fh:
        return fh.read()


def _dispatch(args) -> int:
    if args.action == "check":
        return check(args.files)
    if args.action == "show":
        return show(args.json)
    if args.action == "stages":
        return stages(args.json)
    if args.action == "schema":
        from thresher.graph_schema import main as schema_main
        return schema_main(args.output)
    from thresher.graph_draw import draw
    return draw(args)


def main(argv: list[str]) -> int:
    """Run ``thresher graph``; exit 2 on a bad graph or bad arguments."""
    from thresher.common import run_command
    return run_command("thresher graph", _parser(), argv, _dispatch)
