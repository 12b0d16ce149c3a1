"""What the declarative-filter stage costs `thresher pipe`, measured side by side.

Every round runs each arm once, in turn (machine noise hits all arms alike), on warm plan and
filter caches; the report gives the median wall time per arm and its ratio to ``python3 -c pass``.
Arms, all on the captured ``./configure`` output (tests/fixtures/configure-demo-ok.json):
- ``filter hit``: ``--cmd ./configure`` (the shipped ``configure`` filter applies);
- ``no filter matches``: a command no filter matches (every filter's ``match`` is tried);
- ``filter stage off``: the same, with a user graph setting ``filter: {enabled: false}``.
Usage: ``python benchmarks/filter_latency.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "..", "tests", "fixtures", "configure-demo-ok.json")
PIPE = [sys.executable, "-m", "thresher", "pipe", "--exit-code", "0", "--cmd"]
OFF = "extends: generic.default\nparams: {filter: {enabled: false}}\n"


def main() -> None:
    """Print one row per arm: median ms and the ratio to ``python3 -c pass``."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with open(CASE, encoding="utf-8") as fh:
        data = json.load(fh)["stdout"].encode()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "THRESHER_HOME": os.path.join(tmp, "home"),
               "THRESHER_CACHE_HOME": os.path.join(tmp, "cache"),
               "THRESHER_CONFIG_HOME": os.path.join(tmp, "config")}
        off_cfg = os.path.join(tmp, "config-off")
        os.makedirs(os.path.join(off_cfg, "graphs"))
        with open(os.path.join(off_cfg, "graphs", "generic.default.yaml"), "w") as fh:
            fh.write(OFF)
        arms = {
            "python3 -c pass": ([sys.executable, "-c", "pass"], env),
            "filter hit": (PIPE + ["./configure"], env),
            "no filter matches": (PIPE + ["xyzzy --all"], env),
            "filter stage off": (PIPE + ["xyzzy --all"], {**env, "THRESHER_CONFIG_HOME": off_cfg}),
        }
        times: dict[str, list[float]] = {name: [] for name in arms}
        for round_ in range(args.runs + 1):
            for name, (argv, arm_env) in arms.items():
                t0 = time.perf_counter()
                subprocess.run(argv, input=data, capture_output=True, env=arm_env, check=True)
                if round_:  # round 0 warms the caches
                    times[name].append((time.perf_counter() - t0) * 1000)
    base = statistics.median(times["python3 -c pass"])
    print(f"{'arm':<20} {'median ms':>10} {'x python':>9}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<20} {med:>10.1f} {med / base:>9.2f}")


if __name__ == "__main__":
    main()
