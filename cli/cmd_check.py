"""``thresher check [GRAPH.yaml ...]``: validate graphs, then property-test them against the invariants.

Exit status: 0 when every property holds, 1 when one fails (its minimal falsifying example is
printed), 2 when a graph file does not validate (or on bad arguments).
"""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """Validate graph files, then property-test them: generated tool outputs are run through
each graph and every invariant is checked. Exit 0 when all hold, 1 when one fails (the minimal
falsifying example is printed), 2 when a graph does not validate."""

EPILOG = """invariants checked (see DESIGN.md §2):
  INV-1  deterministic: the same input gives byte-identical output
  INV-2  never worse: estimated tokens out <= tokens in
  INV-3  no fabrication: every line is an input line (cleaned or clipped), a true summary or the footer
  INV-4  one footer exactly when lossy, last, kept + omitted == total; `expand` gives the original
  INV-5  fail open: a stage that raises or overruns acts as if it declined; the trace says why
  INV-6  a failing command's error lines are kept
  INV-9  structured output (--json, --porcelain, -o json, JSON documents) passes byte-exact
  STAGE  no stage is rejected by the executor's per-stage checks

Inputs are generated shaped like real tool output (ANSI colour, CR progress bars, invalid UTF-8,
100 KB lines, near-identical runs, tracebacks, pytest/log/git output, JSON, thresher's own markers).
Users' own stages (entry point group thresher.stages, see `thresher graph stages`) are checked
exactly as the built-in ones.

examples:
  thresher check                                  # every graph found (built-in, user, project)
  thresher check .thresher/graphs/pytest.default.yaml --examples 200
  thresher check my.default.yaml --profile ci     # reproducible: the same examples every run
"""


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    from thresher.property.profiles import ENV, PROFILES
    from thresher.property.runner import PROPERTIES
    ap = argparse.ArgumentParser(prog="thresher check", description=DESCRIPTION,
                                 epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graphs", nargs="*", metavar="GRAPH.yaml",
                    help="graph files to check (default: every graph thresher finds)")
    ap.add_argument("--examples", type=_positive, metavar="N",
                    help="generated examples per invariant and graph (default: the profile's, "
                    + ", ".join(f"{k} {v['max_examples']}" for k, v in PROFILES.items()) + ")")
    ap.add_argument("--profile", choices=sorted(PROFILES),
                    help=f"hypothesis profile: dev is fast, ci is thorough and reproducible "
                    f"(default: ${ENV} or dev)")
    ap.add_argument("--invariant", action="append", metavar="ID", choices=list(PROPERTIES),
                    help="check only this invariant (repeatable): " + ", ".join(PROPERTIES))
    return ap


def _report(outcome) -> None:
    print(outcome.line(), flush=True)
    if not outcome.ok:
        for line in outcome.message.splitlines() or [""]:
            print(f"      {line}")
        if outcome.example:
            print(f"      minimal example: {outcome.example}", flush=True)


def main(argv: list[str]) -> int:
    """Validate the graphs, run the property checks, print PASS/FAIL per invariant; exit 0, 1 or 2."""
    from thresher.common import run_command
    return run_command("thresher check", _parser(), argv, _run)


def _run(args: argparse.Namespace) -> int:
    from thresher.property.runner import check_plans, compile_files
    if args.graphs:
        plans, errors = compile_files(args.graphs)
    else:
        from thresher.dataflow.plan import load_plans
        found = load_plans()
        plans, errors = found.plans, found.errors
    for err in errors:
        sys.stderr.write(err + "\n")
    if not plans:
        print("thresher check: no valid graph to check")
        return 2 if errors else 0
    outcomes = check_plans(plans, properties=args.invariant, profile=args.profile,
                           examples=args.examples, report=_report)
    failed = sum(not o.ok for o in outcomes)
    print(f"\n{len(outcomes) - failed} of {len(outcomes)} properties hold over {len(plans)} "
          f"graph(s); {sum(o.examples for o in outcomes)} examples in "
          f"{sum(o.seconds for o in outcomes):.1f}s")
    if errors:
        print(f"{len(errors)} validation error(s) (above)")
        return 2
    return 1 if failed else 0
