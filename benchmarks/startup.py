"""Start-up of thresher on a regular install against a clean venv's ``python -c pass``.

An agent's shim or hook starts thresher on every command, so start-up is the product's latency, and an
editable install (import hooks, a source tree on sys.path) is not what users run. This script:

1. builds a regular, non-editable install of this repository in a temporary venv
   (``python3 -m venv DIR && DIR/bin/pip install REPO``; reused when it is already there, ``--fresh``
   rebuilds it) and a second venv with nothing installed;
2. warms the plan cache (THRESHER_CACHE_HOME in a temporary folder, shared by every run);
3. runs, in turn in every round (so machine noise hits all arms alike), each arm once, whole process,
   through the small launcher of ``bench_proc.measure`` (wall inside it, CPU and peak RSS of the child):
   - ``python -c pass`` of the clean venv (the baseline),
   - ``python -c pass`` of the thresher venv (information: what its site-packages alone cost),
   - ``thresher run -- true``,
   - ``thresher pipe --cmd "python -m pytest -v" --exit-code 1`` on examples/pytest-fail-verbose.txt,
   - ``thresher hook claude`` on a PreToolUse Bash payload for ``pytest -q`` (the one latency.py uses);
4. prints medians and ratios to the baseline as a markdown table, with the command that made it.
Targets: run <= 1.5x, pipe <= 2.5x, hook <= 2.0x.

``--compare DIR`` adds the three thresher arms of a second regular install (a venv made from
another checkout, e.g. ``main`` before a change: ``python3 -m venv DIR && DIR/bin/pip install
CHECKOUT``) to the same rounds, labelled ``before:``, with a plan cache of its own: before and
after are then measured side by side, under the same noise, against the same baseline.

Usage: ``python benchmarks/startup.py [--runs 30] [--venv /tmp/thresher-startup-venv] [--fresh]
[--compare DIR] [--check]`` (the first run installs, which needs the package index the repo's
dependencies come from).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_proc import bench_env, load_note, measure
from latency import _hook_input

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "pytest-fail-verbose.txt")
TARGETS = {"thresher run -- true": 1.5, "thresher pipe (README example)": 2.5, "thresher hook claude": 2.0}


def ensure_venv(path: str, install: str | None, fresh: bool) -> str:
    """Create the venv at ``path`` (and ``pip install`` ``install`` into it); return its python."""
    python = os.path.join(path, "bin", "python")
    if fresh and os.path.isdir(path):
        shutil.rmtree(path)
    marker = os.path.join(path, ".bench-installed")
    if os.path.exists(python) and (install is None or os.path.exists(marker)):
        return python
    subprocess.run([sys.executable, "-m", "venv", path], check=True)
    if install is not None:
        print(f"installing {install} into {path} (regular, non-editable install) ...", file=sys.stderr)
        subprocess.run([python, "-m", "pip", "install", "-q", install], check=True)
        with open(marker, "w") as fh:
            fh.write(install + "\n")
    return python


def arms(th_venv: str, clean_python: str, tmp: str, compare: str | None = None
         ) -> dict[str, tuple[list[str], str | None, str]]:
    """Arm name -> (argv, stdin file or None, environment name); ``compare``'s arms are named
    ``before: ...`` and get an environment (data home, plan cache) of their own."""
    hook = os.path.join(tmp, "pretooluse.json")
    with open(hook, "wb") as fh:
        fh.write(_hook_input("pytest -q"))
    table: dict[str, tuple[list[str], str | None, str]] = {
        "python -c pass (clean venv)": ([clean_python, "-c", "pass"], None, "after"),
        "python -c pass (thresher venv)": ([os.path.join(th_venv, "bin", "python"), "-c", "pass"], None,
                                           "after"),
    }
    installs = [("", th_venv, "after")] + ([("before: ", compare, "before")] if compare else [])
    for label, venv, env_name in installs:
        thresher = os.path.join(venv, "bin", "thresher")
        table[label + "thresher run -- true"] = ([thresher, "run", "--", "true"], None, env_name)
        table[label + "thresher pipe (README example)"] = (
            [thresher, "pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"], EXAMPLE, env_name)
        table[label + "thresher hook claude"] = ([thresher, "hook", "claude"], hook, env_name)
    return table


def env_for(tmp: str, name: str) -> dict:
    """The children's environment for one install: :func:`bench_env`, its own plan cache."""
    env = bench_env(tmp, "home-" + name)
    env["THRESHER_CACHE_HOME"] = os.path.join(tmp, "cache-" + name)
    return env


def main() -> int:
    """Build the venvs, time the arms, print the table; exit 1 on --check when a target fails."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30, help="alternating rounds (30)")
    ap.add_argument("--venv", default="/tmp/thresher-startup-venv", help="venv of the regular install")
    ap.add_argument("--clean-venv", default="/tmp/thresher-startup-clean", help="venv with nothing installed")
    ap.add_argument("--fresh", action="store_true", help="rebuild both venvs (reinstall this repository)")
    ap.add_argument("--compare", metavar="DIR", help="a second regular install's venv, run in the "
                    "same rounds as 'before:' (e.g. main before a change)")
    ap.add_argument("--check", action="store_true", help="exit 1 if a target fails")
    args = ap.parse_args()
    ensure_venv(args.venv, ROOT, args.fresh)  # the arms run its bin/thresher
    clean_python = ensure_venv(args.clean_venv, None, args.fresh)
    with tempfile.TemporaryDirectory(prefix="thresher-startup-") as tmp:
        table = arms(args.venv, clean_python, tmp, args.compare)
        envs = {name: env_for(tmp, name) for name in ("after", "before")}
        for _ in range(2):  # warm: plan and regex caches built, files in the page cache
            for argv, stdin, env_name in table.values():
                measure(argv, stdin, envs[env_name], tmp, keep_output=False)
        samples: dict[str, list] = {name: [] for name in table}
        for _ in range(args.runs):
            for name, (argv, stdin, env_name) in table.items():
                samples[name].append(measure(argv, stdin, envs[env_name], tmp, keep_output=False))
    return report(samples, args)


def report(samples: dict[str, list], args) -> int:
    """Print the markdown table and the verdicts."""
    med = {name: statistics.median(r.wall for r in runs) for name, runs in samples.items()}
    cpu = {name: statistics.median(r.cpu for r in runs) for name, runs in samples.items()}
    base = med["python -c pass (clean venv)"]
    print(f"command: python benchmarks/{os.path.basename(__file__)} {' '.join(sys.argv[1:])}".rstrip())
    print(f"regular install in {args.venv}; medians of {args.runs} alternating rounds, whole process; "
          f"{load_note()}\n")
    print("| arm | median wall ms | median CPU ms | wall ratio to clean `python -c pass` | CPU ratio "
          "| target (wall) | verdict |")
    print("|---|---|---|---|---|---|---|")
    failed = []
    for name in samples:
        ratio = med[name] / base
        target = TARGETS.get(name)  # (the before: arms are information)
        verdict = "-" if target is None else ("ok" if ratio <= target else "MISSED")
        if verdict == "MISSED":
            failed.append(f"{name}: {ratio:.2f}x > {target}x")
        print(f"| {name} | {med[name] * 1000:.1f} | {cpu[name] * 1000:.1f} | {ratio:.2f}x "
              f"| {cpu[name] / cpu['python -c pass (clean venv)']:.2f}x "
              f"| {'-' if target is None else f'<= {target}x'} | {verdict} |")
    print("\n" + ("all targets met" if not failed else "missed:\n- " + "\n- ".join(failed)))
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
