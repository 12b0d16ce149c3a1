"""Wall time of ``thresher pipe`` next to ``python3 -c pass``, measured side by side.

Runs both commands alternately (so machine noise hits both alike) on a warm plan cache and reports
the medians and their ratio. Usage: ``python benchmarks/pipe_latency.py [--runs N] [FILE]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _time(cmd: list[str], data: bytes) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def measure(data: bytes, runs: int, command: str, exit_code: int) -> dict:
    """Median wall times (seconds) of the baseline and of ``thresher pipe``, and their ratio."""
    pipe = [sys.executable, "-m", "thresher", "pipe", "--cmd", command, "--exit-code", str(exit_code)]
    base = [sys.executable, "-c", "pass"]
    _time(pipe, data)  # warm the plan cache
    b, p = [], []
    for _ in range(runs):
        b.append(_time(base, b""))
        p.append(_time(pipe, data))
    mb, mp = statistics.median(b), statistics.median(p)
    return {"runs": runs, "baseline_ms": mb * 1000, "pipe_ms": mp * 1000, "ratio": mp / mb}


def main() -> None:
    """Print the measurement for FILE (default: the README's example)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("file", nargs="?", default=os.path.join(HERE, "..", "examples",
                                                            "pytest-fail-verbose.txt"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--cmd", default="python -m pytest -v")
    ap.add_argument("--exit-code", type=int, default=1)
    args = ap.parse_args()
    with open(args.file, "rb") as fh:
        data = fh.read()
    r = measure(data, args.runs, args.cmd, args.exit_code)
    print(f"python3 -c pass : {r['baseline_ms']:.1f} ms (median of {r['runs']})")
    print(f"thresher pipe   : {r['pipe_ms']:.1f} ms (median of {r['runs']}, {len(data)} bytes in)")
    print(f"ratio           : {r['ratio']:.2f}x")


if __name__ == "__main__":
    main()
