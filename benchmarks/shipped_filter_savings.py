"""Per-filter savings of the shipped declarative filters on the fixtures captured for them.

Every fixture written by benchmarks/capture_filters.py goes through the whole engine (both streams,
as the agent reads them); cases are grouped by the shipped filter whose ``match`` hits their
command. Tokens are the engine's estimate (cl100k-calibrated). Failing runs of up to 40 lines pass
whole by design (Guard), so they count at 0 % saving here.

Usage: ``python benchmarks/shipped_filter_savings.py [--markdown]``
"""

from __future__ import annotations

import argparse
import os
import sys

from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans
from thresher.dataflow.tokens import estimate
from thresher.filters import engine, runtime
from thresher.property.corpus import iter_cases

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
SOURCE = "benchmarks/capture_filters.py"


def rows() -> list[tuple[str, int, int, int, int]]:
    """``(filter, cases, failing cases, tokens in, tokens out)`` per shipped filter."""
    plans = load_plans(use_cache=False)
    shipped = [f for f in runtime.load(use_cache=False, warn=False).filters if f["origin"] == "shipped"]
    table: dict[str, list[int]] = {}
    for case in iter_cases([FIXTURES]):
        if not case.get("source", "").startswith(SOURCE):
            continue
        f = engine.first_match(shipped, case["command"])
        name = f["name"] if f else "(no filter)"
        raw = out = ""
        for stream in ("stdout", "stderr"):
            if case[stream]:
                raw += case[stream]
                out += compress(case[stream], command=case["command"], exit_code=case["exit_code"],
                                stream=stream, plans=plans).text
        acc = table.setdefault(name, [0, 0, 0, 0])
        acc[0] += 1
        acc[1] += case["exit_code"] not in (0, None)
        acc[2] += estimate(raw)
        acc[3] += estimate(out)
    return sorted((name, *acc) for name, acc in table.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = ap.parse_args(argv)
    data = rows()
    fmt = "| {} | {} | {} | {} → {} | {:.0f} % |" if args.markdown else "{:18} {:>5} {:>5} {:>7} -> {:<7} {:>4.0f} %"
    if args.markdown:
        print("| filter | cases | failing | tokens in → out | saved |\n|---|---|---|---|---|")
    for name, n, failing, tin, tout in data:
        print(fmt.format(name, n, failing, tin, tout, 100 * (1 - tout / tin) if tin else 0))
    tin, tout = sum(r[3] for r in data), sum(r[4] for r in data)
    print(fmt.format("all", sum(r[1] for r in data), sum(r[2] for r in data), tin, tout,
                     100 * (1 - tout / tin) if tin else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
