"""``thresher trace``: run one tool output through its graph and show what every stage did.

The same engine call as ``thresher pipe`` (so the graph, the decisions and the emission are the ones
an agent would get), with the trace switched on: a table of stage decisions, lines and tokens in→out,
time and reason, or the whole result as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Plan

DESCRIPTION = """Show what each stage of a graph does to one tool output.

Reads the output on stdin (or --input FILE), chooses the graph as `thresher pipe` would (from
--cmd, --class and --role) unless --graph names one, runs it with tracing on, and prints one row per
stage: node, stage, decision (applied / declined / rejected / failed / skipped), lines and tokens
in→out, milliseconds and the reason; then the emission: what the agent would see, and why.
With a reader scope (--scope, or THRESHER_SESSION[/THRESHER_AGENT]) the trace applies that
scope's state as `thresher pipe` would — blocks it was already shown, and its bounce-adaptive
budget (a `budget:` line says which) — without recording anything."""

EPILOG = """examples:
  pytest -q > out.txt; thresher trace --cmd "pytest -q" --exit-code $? < out.txt
  git status | thresher trace --cmd "git status" --json
  thresher trace --graph .thresher/graphs/pytest.default.yaml --cmd pytest --input out.txt
  thresher trace --cmd "pytest -q" --exit-code 1 --html trace.html < out.txt
  thresher trace --cmd "git log" --scope "$THRESHER_SESSION" < log.txt   # as that reader gets it

--html writes one offline page (no network needed): the graph with each node coloured by its
decision and tokens in→out; click a node to see that stage's input and output side by side
(removed lines highlighted, marker lines explained); the final emission and totals."""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher trace", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cmd", default="", metavar="CMD",
                    help="the command line that produced the output (chooses the graph)")
    ap.add_argument("--exit-code", type=int, metavar="N",
                    help="its exit status (non-zero turns on the failure rules)")
    ap.add_argument("--role", default=os.environ.get("THRESHER_ROLE", "default"), metavar="R",
                    help="consumer role: default, ci, reviewer, ... (env THRESHER_ROLE)")
    ap.add_argument("--class", dest="pclass", metavar="C",
                    help="force the payload class instead of classifying --cmd")
    ap.add_argument("--graph", metavar="FILE_OR_ID",
                    help="run this graph (a YAML file or an id like pytest.default) instead")
    ap.add_argument("--input", default="-", metavar="FILE", help="read the output from FILE "
                    "instead of stdin")
    ap.add_argument("--json", action="store_true", help="print the result as JSON: graph, class, "
                    "emission, trace, and `output` (what the agent would see)")
    ap.add_argument("--show-output", action="store_true",
                    help="after the table, also print what the agent would see")
    ap.add_argument("--views", action="store_true", help="with --json, add each stage's input "
                    "and output view (lines, line origins, tiers): the data the --html page draws")
    ap.add_argument("--html", metavar="FILE", help="write the trace explorer page to FILE "
                    "(self-contained HTML) instead of printing the table")
    ap.add_argument("--scope", metavar="S", help="the reader scope whose state to apply, read "
                    "only: blocks already shown to it, and its bounce-adaptive budget (default: "
                    "THRESHER_SESSION[/THRESHER_AGENT]; '' for none)")
    return ap


def preview_ledger(args: argparse.Namespace):
    """``(scope, ledger)``: the reader scope the trace applies, and a ledger that reads its state
    without recording anything (``("", None)`` without a scope or with the ledger off)."""
    from thresher.boundary import switches
    scope = switches.scope() if args.scope is None else args.scope.strip()
    if not scope or switches.ledger_disabled():
        return "", None
    from thresher.stores.sessions import PreviewLedger
    return scope, PreviewLedger()


def chosen_plan(args: argparse.Namespace) -> Plan | None:
    """The compiled plan named by ``--graph`` (None: the engine chooses as ``thresher pipe``)."""
    if not args.graph:
        return None
    from thresher.cmd_graph import resolve_plan
    return resolve_plan(args.graph)


def run(args: argparse.Namespace, plan: Plan | None = None):
    """Compress the input as ``args`` say, with the trace on; return the engine's Result."""
    from thresher.cmd_graph import read_input
    from thresher.dataflow.api import compress
    plan = plan if plan is not None else chosen_plan(args)
    data = read_input(args.input)
    scope, ledger = preview_ledger(args) if hasattr(args, "scope") else ("", None)
    # The explorer needs every stage's input and output view; the table does not pay for them.
    return compress(data, command=args.cmd, exit_code=args.exit_code, role=args.role,
                    pclass=args.pclass, plan=plan, trace=True, scope=scope, ledger=ledger,
                    keep_views=bool(getattr(args, "html", None) or getattr(args, "views", False)))


def render(result, as_json: bool, show_output: bool) -> str:
    """The text to print for ``result``: the stage table (plus the output if asked), or JSON."""
    if as_json:
        # The emitted text belongs in the JSON: it is what a test or a script checks the trace against.
        data = {**result.as_dict(), "output": result.text}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    from thresher.viz.table import render as table
    # The engine returns no trace records when it failed before running a graph: say so plainly.
    trace = result.trace.to_dict() if getattr(result.trace, "enabled", False) else {}
    trace.setdefault("graph", result.graph_id)
    trace["final"] = trace.get("final") or result.emission.as_dict()
    text = table(trace)
    if show_output:
        text += "---- output ----\n" + result.text
        text += "" if text.endswith("\n") else "\n"
    return text


def html_page(result, plan: Plan | None, command: str, exit_code: int | None) -> str:
    """The trace explorer page of ``result`` (run with ``keep_views``) over its graph's ``plan``.

    Raise LookupError when no graph ran (a passthrough class): there is nothing to draw.
    """
    from thresher.cmd_graph import param_defaults
    from thresher.viz.html import trace_page
    from thresher.viz.model import build_model
    if plan is None and result.graph_id:
        from thresher.dataflow.plan import load_plans
        plan = load_plans().plans.get(result.graph_id)
    if plan is None or not getattr(result.trace, "enabled", False):
        raise LookupError(f"no graph ran for this output ({result.emission.reason}): nothing to "
                          "draw; name one with --graph or --class")
    trace = result.trace.to_dict()
    model = build_model(plan, trace, param_defaults())
    return trace_page(model, trace, result.text,
                      {"command": command, "exit_code": exit_code, "pclass": result.pclass})


def write_html(path: str, text: str) -> None:
    """Write ``text`` to ``path`` and say where it went (on stderr: stdout may be piped)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {path} ({len(text.encode()) // 1024} KiB)", file=sys.stderr)


def main(argv: list[str]) -> int:
    """Run ``thresher trace``; exit 2 on bad arguments or a graph that does not compile."""
    from thresher.common import run_command

    def body(args) -> int:
        plan = chosen_plan(args)
        result = run(args, plan)
        if args.html:
            write_html(args.html, html_page(result, plan, args.cmd, args.exit_code))
            return 0
        sys.stdout.write(render(result, args.json, args.show_output))
        return 0
    return run_command("thresher trace", _parser(), argv, body)
