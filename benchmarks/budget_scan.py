"""Facts kept and tokens out when a class's budget is scaled: the data behind a budget change.

For every case of the given folders whose command classifies into one of the given classes, the
case is compressed with that class's default graph at 1/4, 1/2 and the whole of its budget
(``max_lines`` and ``max_tokens`` scaled together); each column shows the exact cl100k tokens out
and the number of the case's facts (``must_keep``) missing. A budget may go down only where no
column to its left loses a fact the whole budget keeps.

    python benchmarks/budget_scan.py listing,git-log,git-status,pip,process tests/fixtures ../shared/corpus/public
"""

from __future__ import annotations

import copy
import glob
import json
import sys

from thresher.bench.score import counter
from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans

SCALES = (0.25, 0.5, 1.0)


def scan(classes: set[str], folders: list[str]) -> dict[str, list]:
    """``{case id: [class, tokens in, (tokens out, facts missing) per scale]}``."""
    _, ntok = counter("cl100k")
    plans = load_plans()
    rows: dict[str, list] = {}
    for path in sorted(f for d in folders for f in glob.glob(d + "/*.json")):
        with open(path, encoding="utf-8") as fh:
            case = json.load(fh)
        cls = plans.classify(case["command"])
        gid = cls + ".default"
        if case.get("verbatim") or cls not in classes or gid not in plans.plans or not case["stdout"]:
            continue
        row: list = [cls, ntok(case["stdout"])]
        for scale in SCALES:
            plan = copy.deepcopy(plans.plans[gid])
            plan["budget"] = {k: int(v * scale) for k, v in plan["budget"].items()}
            out = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                           plan=plan).output.decode("utf-8", "replace")
            row.append((ntok(out), sum(1 for m in case["must_keep"] if m not in out)))
        rows[case["id"]] = row
    return rows


def main() -> None:
    rows = scan(set(sys.argv[1].split(",")), sys.argv[2:])
    for cid, (cls, tin, *cols) in sorted(rows.items(), key=lambda kv: (kv[1][0], kv[0])):
        cells = "  ".join(f"x{s}: {t:6d} tok {m} miss" for s, (t, m) in zip(SCALES, cols))
        print(f"{cid:40s} {cls:10s} in {tin:6d}  {cells}")
    for cls in sorted({r[0] for r in rows.values()}):
        mine = [r for r in rows.values() if r[0] == cls]
        sums = "  ".join(f"x{s}: {sum(r[2 + k][0] for r in mine):7d} tok, {sum(r[2 + k][1] for r in mine)} miss"
                         for k, s in enumerate(SCALES))
        print(f"== {cls:10s} {len(mine):3d} cases, in {sum(r[1] for r in mine):7d}  {sums}")


if __name__ == "__main__":
    main()
