"""How long thresher can hold the agent up in the fault cases of issue 18 §4 (wall clock, median).

- ``yes | head -1``: through ``thresher run`` against the bare shell (both end at once: SIGPIPE);
- a held database lock: ``thresher run`` of a 500-line output while another connection holds
  ``BEGIN IMMEDIATE`` on thresher.db, against the same run with the lock free (the bound is one
  ``stores.db.BUSY_TIMEOUT_S`` per process).

Usage: ``python benchmarks/hang_bounds.py [RUNS]`` (default 5). Prints one line per measure.
"""

from __future__ import annotations

import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

TH = [sys.executable, "-m", "thresher", "run", "--"]
CODE = "for i in range(500): print('line', i % 7)"


def _time(cmd, env, shell: bool = False) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, shell=shell, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120)
    return time.perf_counter() - t0


def _median(runs: int, fn) -> float:
    return statistics.median(fn() for _ in range(runs))


def main() -> None:
    """Measure and print."""
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, THRESHER_HOME=os.path.join(tmp, "h"),
                   THRESHER_CACHE_HOME=os.path.join(tmp, "c"))
        subprocess.run(TH + [sys.executable, "-c", CODE], env=env, capture_output=True, check=True)
        th_yes = " ".join(TH) + " yes | head -1"
        print(f"yes | head -1: thresher {_median(runs, lambda: _time(th_yes, env, True)):.2f} s, "
              f"shell {_median(runs, lambda: _time('yes | head -1', env, True)):.2f} s")
        free = _median(runs, lambda: _time(TH + [sys.executable, "-c", CODE], env))
        holder = sqlite3.connect(os.path.join(env["THRESHER_HOME"], "thresher.db"),
                                 isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            held = _median(runs, lambda: _time(TH + [sys.executable, "-c", CODE], env))
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        print(f"held database lock: {held:.2f} s per command (lock free: {free:.2f} s)")


if __name__ == "__main__":
    main()
