"""The data plane on big real-shaped outputs: cost, memory, what it kept, and determinism under load.

For every shape of ``bench_inputs`` (access log, failing ``pytest -v``, JSON array, ``find /``,
``git log -p``, ``cat big.py``) and every size (default 1, 10 and 50 MB) this runs, through the
public entry points only:

1. ``python -m thresher pipe --cmd CMD [--exit-code N]`` once, the input file on stdin: whole-process
   wall and CPU seconds (rusage of the child) and peak RSS (``wait4`` ``ru_maxrss``);
2. ``thresher.dataflow.compress(..., trace=True)`` in a child process: the emission decision and
   reason, output tokens, and any reason in the trace that blames time;
3. the same ``pipe`` run ``--loaded-runs`` times (default 5) while two busy-loop processes saturate
   the CPU (bounded, always killed): every output must be byte-identical to the one of step 1.

Targets checked per row: never raw because of time (no time-blaming reason, no run raw under load
that was not raw unloaded); every error line and failed-request kind of the input kept (computed from
the input alone, see ``bench_inputs.expected``; gated for the failing ``pytest`` and the access log);
CPU <= 1.0 s per 10 MB (at sizes >= 10 MB: below that start-up dominates); peak RSS growth over the
same command's start-up baseline <= 3x the input; identical output under load. Per shape: time per
MB flat (CPU per MB above the start-up baseline at the largest size <= 1.5x the smallest size's).
Every child gets a private THRESHER_HOME, a shared warmed plan cache, no user graphs and no session.

Usage: ``python benchmarks/data_plane.py [--sizes 1,10,50] [--shapes access,pytest,...] [--quick]
[--check] [--loaded-runs 5] [--json FILE]``. ``--quick``: 1 MB only, 2 loaded runs (about 25 child
processes: well under a minute on an engine that meets the targets; 1m41s on the engine of 2 Dec 2026
at load 8 on 2 CPUs, whose 1 MB runs take 2-6 s each). ``--check``: exit 1
when a target fails (otherwise the table is the result and the exit status is 0).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_inputs as inputs
from bench_proc import Burners, bench_env, decision, load_note, measure

MB = 1_000_000
CPU_PER_10MB, RSS_FACTOR, FLAT = 1.0, 3.0, 1.5


def pipe_argv(python: str, shape: str) -> list[str]:
    """The ``thresher pipe`` command line of ``shape``."""
    command, code = inputs.SHAPES[shape]
    return [python, "-m", "thresher", "pipe", "--cmd", command] + (["--exit-code", str(code)] if code else [])


def baselines(python: str, shapes: list[str], tmp: str, access_log: str) -> dict:
    """Per shape, CPU and peak RSS of ``pipe`` on a 64 KB input (a first run warms the plan cache,
    which holds every graph's plan in one file)."""
    out = {}
    for i, shape in enumerate(shapes):
        path = os.path.join(tmp, f"{shape}-base.txt")
        with open(path, "wb") as fh:
            fh.write(inputs.build(shape, 64_000, access_log))
        for _ in range(2 if i == 0 else 1):
            run = measure(pipe_argv(python, shape), path, bench_env(tmp, "base"), tmp, keep_output=False)
        out[shape] = run
    return out


def one_case(python: str, shape: str, mb: float, tmp: str, access_log: str, loaded_runs: int) -> dict:
    """Measure ``shape`` at ``mb`` megabytes; return the row's numbers and verdicts."""
    data = inputs.build(shape, int(mb * MB), access_log)
    path = os.path.join(tmp, f"{shape}-{mb:g}MB.txt")
    with open(path, "wb") as fh:
        fh.write(data)
    exp = inputs.expected(shape, data)
    argv, (command, code) = pipe_argv(python, shape), inputs.SHAPES[shape]
    home = os.path.join(tmp, "run")
    first = measure(argv, path, bench_env(tmp, "run"), tmp)
    shutil.rmtree(home, ignore_errors=True)
    info = decision(python, path, command, code or None, bench_env(tmp, "run"), tmp)
    shutil.rmtree(home, ignore_errors=True)
    loaded = []  # (sha256 of the output, output is the raw input, wall, hung) per loaded run
    with Burners(2):
        for _ in range(loaded_runs):
            r = measure(argv, path, bench_env(tmp, "run"), tmp)
            loaded.append((hashlib.sha256(r.output).hexdigest(), r.output == data, r.wall, r.timed_out))
            shutil.rmtree(home, ignore_errors=True)
    digest = hashlib.sha256(first.output).hexdigest()
    row = {"shape": shape, "mb": mb, "bytes": len(data), "lines": data.count(b"\n"),
           "wall": first.wall, "cpu": first.cpu, "rss_mib": first.rss_kib / 1024,
           "out_bytes": len(first.output), "raw": first.output == data, "decision": info["decision"],
           "reason": info.get("reason", ""), "tokens_in": info.get("tokens_in"),
           "tokens_out": info.get("tokens_out"), "time_texts": info["time_texts"],
           "api_matches_pipe": info.get("out_sha") == hashlib.sha256(first.output).hexdigest(),
           "loaded_identical": sum(sha == digest for sha, _, _, _ in loaded),
           "loaded_raw": sum(raw for _, raw, _, _ in loaded), "loaded_runs": len(loaded),
           "loaded_wall_max": max((wall for _, _, wall, _ in loaded), default=0.0),
           "timed_out": first.timed_out or any(hung for _, _, _, hung in loaded)}
    row.update(kept=inputs.kept(exp, first.output), gated=exp["gated"])
    os.unlink(path)
    return row


def time_raw(row: dict) -> bool:
    """True when time decided ``row``: a reason blames time, a run went raw only under load, or hung."""
    return bool(row["time_texts"] or (row["loaded_raw"] and not row["raw"]) or row["timed_out"])


def verdicts(row: dict, base) -> list[str]:
    """The targets ``row`` misses (empty: all met)."""
    fails = []
    if time_raw(row):
        fails.append("raw/slow because of time")
    k = row["kept"]
    if row["gated"] and (k["errors"][0] < k["errors"][1] or k["kinds"][0] < k["kinds"][1]):
        fails.append("error lines/kinds lost")
    if row["mb"] >= 10 and row["cpu"] / row["mb"] * 10 > CPU_PER_10MB:
        fails.append("CPU > 1.0 s/10 MB")
    if row["rss_mib"] - base.rss_kib / 1024 > RSS_FACTOR * row["bytes"] / 2**20:
        fails.append("RSS growth > 3x input")
    if row["loaded_identical"] < row["loaded_runs"]:
        fails.append("output differs under load")
    return fails


def flatness(rows: list[dict], base) -> tuple[float, float] | str | None:
    """(ratio of CPU per MB above start-up, largest size vs smallest; same for wall), None with one
    size, or a string when an end was cut short by a time budget (its cost is not the whole work)."""
    rows = sorted(rows, key=lambda r: r["mb"])
    if len(rows) < 2:
        return None
    if time_raw(rows[0]) or time_raw(rows[-1]):
        return "n/a: " + " and ".join(f"{r['mb']:g} MB" for r in (rows[0], rows[-1]) if time_raw(r)) \
            + " cut short by a time budget"
    per = [max(r["cpu"] - base.cpu, 1e-3) / r["mb"] for r in (rows[0], rows[-1])]
    wall = [max(r["wall"] - base.wall, 1e-3) / r["mb"] for r in (rows[0], rows[-1])]
    return per[1] / per[0], wall[1] / wall[0]


def table(rows: list[dict], bases: dict) -> tuple[str, list[str]]:
    """The markdown table and the list of failed targets."""
    head = ("| shape | MB | lines | decision | out tokens | out KB | wall s | CPU s | CPU s/10MB "
            "| peak RSS MiB | RSS growth / input | errors kept | kinds kept | same under load | targets |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    failed = []
    for r in rows:
        base = bases[r["shape"]]
        fails = verdicts(r, base)
        failed += [f"{r['shape']} {r['mb']:g} MB: {f}" for f in fails]
        k = r["kept"]
        err = f"{k['errors'][0]}/{k['errors'][1]}" + ("" if r["gated"] else " (info)")
        kinds = f"{k['kinds'][0]}/{k['kinds'][1]}" if k["kinds"][1] else "-"
        growth = (r["rss_mib"] - base.rss_kib / 1024) / (r["bytes"] / 2**20)
        dec = r["decision"] + ("" if r["api_matches_pipe"] else " (pipe: raw)" if r["raw"] else " (pipe differs)")
        lines.append(f"| {r['shape']} | {r['mb']:g} | {r['lines']:,} | {dec} | {r['tokens_out'] or 0:,} "
                     f"| {r['out_bytes'] / 1000:,.1f} | {r['wall']:.2f} | {r['cpu']:.2f} "
                     f"| {r['cpu'] / r['mb'] * 10:.2f} | {r['rss_mib']:.0f} | {growth:.2f} | {err} | {kinds} "
                     f"| {r['loaded_identical']}/{r['loaded_runs']} | {'ok' if not fails else '; '.join(fails)} |")
    return "\n".join(lines), failed


def report(rows: list[dict], bases: dict) -> list[str]:
    """Print every table; return the failed targets."""
    text, failed = table(rows, bases)
    print(text)
    print("\n| shape | start-up CPU s | start-up RSS MiB | CPU/MB above start-up, largest vs smallest size "
          "| wall/MB, same | flat (<= 1.5x) |\n|---|---|---|---|---|---|")
    for shape, base in bases.items():
        flat = flatness([r for r in rows if r["shape"] == shape], base)
        if flat is None or isinstance(flat, str):
            ratio, cell = "- | -", flat or "-"
        else:
            ratio, cell = f"{flat[0]:.2f}x | {flat[1]:.2f}x", "yes" if flat[0] <= FLAT else "NO"
            if flat[0] > FLAT:
                failed.append(f"{shape}: CPU per MB grows {flat[0]:.2f}x from smallest to largest size")
        print(f"| {shape} | {base.cpu:.2f} | {base.rss_kib / 1024:.0f} | {ratio} | {cell} |")
    print("\nreasons:")
    for r in rows:
        extra = f"; trace blames time: {r['time_texts'][:2]}" if r["time_texts"] else ""
        lost = r["kept"]["lost_errors"][:1] + [str(x) for x in r["kept"]["lost_kinds"][:3]]
        print(f"- {r['shape']} {r['mb']:g} MB: {r['decision']}: {r['reason'][:150]}{extra}"
              + (f"; lost e.g. {lost}" if lost else "")
              + ("" if r["api_matches_pipe"] else "; the compress() run's output differs from the measured pipe run's"))
    return failed


def main() -> int:
    """Build the inputs, run every case, print the tables; exit 1 on --check when a target fails."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1,10,50", help="input sizes in MB (default 1,10,50)")
    ap.add_argument("--shapes", default=",".join(inputs.SHAPES), help="comma-separated subset of shapes")
    ap.add_argument("--loaded-runs", type=int, default=5, help="pipe runs with the CPU saturated (5)")
    ap.add_argument("--quick", action="store_true", help="1 MB only and 2 loaded runs (a smoke run)")
    ap.add_argument("--check", action="store_true", help="exit 1 if any target fails")
    ap.add_argument("--python", default=sys.executable, help="interpreter with thresher installed")
    ap.add_argument("--json", metavar="FILE", help="also write every row as JSON to FILE")
    args = ap.parse_args()
    shapes = [s for s in args.shapes.split(",") if s]
    unknown = [s for s in shapes if s not in inputs.SHAPES]
    if unknown:
        ap.error(f"unknown shape(s) {unknown}; choose from {', '.join(inputs.SHAPES)}")
    sizes = [1.0] if args.quick else [float(s) for s in args.sizes.split(",")]
    loaded_runs = 2 if args.quick else args.loaded_runs
    load0 = load_note()
    access_log = inputs.capture_access_log() if "access" in shapes else ""
    rows = []
    with tempfile.TemporaryDirectory(prefix="thresher-dp-") as tmp:
        bases = baselines(args.python, shapes, tmp, access_log)
        for mb in sizes:
            for shape in shapes:
                rows.append(one_case(args.python, shape, mb, tmp, access_log, loaded_runs))
                print(f"  done {shape} {mb:g} MB: {rows[-1]['decision']} in {rows[-1]['wall']:.2f} s",
                      file=sys.stderr, flush=True)
    print(f"\ncommand: {' '.join(sys.argv)}  (python: {args.python})\nat start: {load0}; at end: {load_note()}\n")
    failed = report(rows, bases)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "failed": failed, "baselines": {
                k: {"wall": b.wall, "cpu": b.cpu, "rss_kib": b.rss_kib} for k, b in bases.items()}},
                fh, indent=1, default=str)
    print("\n" + ("all targets met" if not failed else f"{len(failed)} target(s) missed:\n- " + "\n- ".join(failed)))
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
