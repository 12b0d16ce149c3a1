"""Throughput and peak memory of ``thresher pipe`` on 1, 10 and 100 MB logs — does cost grow linearly?

The logs are real: a local ``python -m http.server`` is hit with a few thousand requests (files that
exist, missing ones, a folder listing), its access-log lines are captured, and those lines are
replayed with advancing timestamps until each size is reached. Every size runs ``thresher pipe
--cmd "cat access.log"`` (class ``log``) and, side by side, ``cat`` on the same file; each arm runs
``--runs`` times in turn and the median is reported, with the peak RSS of the child process
(``wait4``). THRESHER_HOME points at a temporary folder, so the archive write is measured but the
user's archive is left alone. Inputs over 64 MiB are streamed through raw by design (the report
says so), so the 100 MB row measures the bounded-memory passthrough, not the graph.
Usage: ``python benchmarks/pipe_throughput.py [--sizes 1,10,50,100] [--runs 3]`` (50 MB is the largest size
still under the 64 MiB passthrough limit, so the graph path gets three points).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

TH = [sys.executable, "-m", "thresher", "pipe", "--cmd", "cat access.log"]
STAMP = re.compile(r"\[(\d\d)/(\w\w\w)/(\d{4}) (\d\d):(\d\d):(\d\d)\]")


def capture_access_log(requests: int = 3000) -> list[str]:
    """Run http.server on a free local port, request a mix of paths, return its access-log lines."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "static", "img"))
        for i in range(20):
            with open(os.path.join(root, "static", f"page{i}.html"), "w") as fh:
                fh.write("<p>page %d</p>\n" % i * (i + 1))
        proc = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
                                cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        port_line = proc.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N (...)"
        port = int(re.search(r"port (\d+)", port_line).group(1))
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
        reader.start()
        paths = ([f"/static/page{i}.html" for i in range(20)] + ["/static/", "/", "/static/img/"]
                 + [f"/missing/{i}.js" for i in range(5)] + ["/static/page3.html?v=2"])
        for n in range(requests):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}{paths[(n * 7) % len(paths)]}").read()
            except urllib.error.HTTPError:
                pass
        proc.terminate()
        proc.wait()
        reader.join(timeout=5)
    return [ln for ln in lines if STAMP.search(ln)]


def build_log(lines: list[str], size: int, path: str) -> int:
    """Write ``lines`` over and over, timestamps advancing one second per line, up to ``size`` bytes."""
    t = time.mktime((2026, 11, 30, 8, 0, 0, 0, 0, -1))
    written, n = 0, 0
    with open(path, "w") as fh:
        while written < size:
            stamp = time.strftime("[%d/%b/%Y %H:%M:%S]", time.localtime(t + n))
            line = STAMP.sub(stamp, lines[n % len(lines)], count=1)
            fh.write(line)
            written += len(line)
            n += 1
    return n


def run_once(argv: list[str], path: str, env: dict) -> tuple[float, int, int]:
    """Wall seconds, peak RSS (KiB) and output bytes of one run with ``path`` on stdin."""
    with open(path, "rb") as src, tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=src, stdout=out, stderr=subprocess.DEVNULL, env=env)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
        wall = time.perf_counter() - t0
        out.seek(0, 2)
        return wall, usage.ru_maxrss, out.tell()


def main() -> None:
    """Print one row per size and the linearity verdict."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1,10,50,100", help="sizes in MB (default 1,10,50,100)")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    lines = capture_access_log()
    print(f"captured {len(lines)} access-log lines from a local http.server")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "THRESHER_HOME": os.path.join(tmp, "home")}
        for mb in (float(s) for s in args.sizes.split(",")):
            path = os.path.join(tmp, f"access-{mb:g}MB.log")
            n = build_log(lines, int(mb * 1_000_000), path)
            samples = {"pipe": [], "cat": []}
            for _ in range(args.runs):
                samples["pipe"].append(run_once(TH, path, env))
                samples["cat"].append(run_once(["cat"], path, env))
            pipe = statistics.median(s[0] for s in samples["pipe"])
            cat = statistics.median(s[0] for s in samples["cat"])
            rss = max(s[1] for s in samples["pipe"]) / 1024
            out = samples["pipe"][0][2]
            rows.append((mb, n, pipe, cat, rss, out))
            os.unlink(path)
    print(f"median of {args.runs} runs; thresher pipe --cmd 'cat access.log' vs cat on the same file")
    print(f"  {'size':>6} {'lines':>9} {'pipe s':>8} {'MB/s':>7} {'s/MB':>7} {'cat s':>7} "
          f"{'peak RSS MB':>11} {'RSS/input':>9} {'out bytes':>11}")
    for mb, n, pipe, cat, rss, out in rows:
        raw = " (raw stream: over 64 MiB)" if mb * 1e6 > 64 * 1024 * 1024 else ""
        print(f"  {mb:>4g}MB {n:>9,} {pipe:>8.2f} {mb / pipe:>7.1f} {pipe / mb:>7.3f} {cat:>7.3f} "
              f"{rss:>11.1f} {rss / mb:>9.2f} {out:>11,}{raw}")
    graph = [r for r in rows if r[0] * 1e6 <= 64 * 1024 * 1024]
    if len(graph) >= 2:
        per_mb = [r[2] / r[0] for r in graph]
        ratio = per_mb[-1] / per_mb[0]
        verdict = "linear (or better)" if ratio <= 1.5 else "super-linear"
        print(f"  time: seconds per MB from {graph[0][0]:g} to {graph[-1][0]:g} MB: x{ratio:.2f} -> "
              f"{verdict} (fixed start-up cost makes small inputs look slower per MB)")
        steps = [f"{a[0]:g}->{b[0]:g} MB: {(b[4] - a[4]) / (b[0] - a[0]):.2f}"
                 for a, b in zip(graph, graph[1:])]
        print("  memory: peak RSS added per input MB, " + "; ".join(steps)
              + " (similar steps = linear growth)")


if __name__ == "__main__":
    main()
