"""Start-up cost of thresher on the agent's path, measured side by side with bare commands.

Every round runs each arm once, in turn (so machine noise hits all arms alike), on a warm plan
cache; the report gives the median wall time per arm and its ratio to ``python3 -c pass``.
Arms: ``python3 -c pass``, ``true`` and ``thresher run -- true``, ``git status`` and
``thresher run -- git status`` (in this repository), ``thresher pipe`` on the README example, and
``thresher hook claude`` on a PreToolUse input it rewrites and on one it leaves alone (the hook
runs before every Bash call of a Claude Code agent), and on PostToolUse inputs: a ``git status``
whose real output (``git-status-huge-untracked`` fixture, 61 KB) it compresses, and a small one
it leaves alone (the PostToolUse handler starts only for calls its ``if`` conditions match).
Usage: ``python benchmarks/latency.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "pytest-fail-verbose.txt")
TH = [sys.executable, "-m", "thresher"]


def arms() -> dict:
    """Name → (argv, stdin bytes, or a function making fresh ones for each run)."""
    with open(EXAMPLE, "rb") as fh:
        example = fh.read()
    big = _fixture_stdout()
    return {
        "python3 -c pass": ([sys.executable, "-c", "pass"], b""),
        "true": (["true"], b""),
        "thresher run -- true": (TH + ["run", "--", "true"], b""),
        "git status": (["git", "status"], b""),
        "thresher run -- git status": (TH + ["run", "--", "git", "status"], b""),
        "thresher pipe (example)": (TH + ["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"],
                                    example),
        "hook claude (rewrite)": (TH + ["hook", "claude"], _hook_input("pytest -q")),
        "hook claude (left alone)": (TH + ["hook", "claude"], _hook_input("ls -la")),
        "post hook (git status 61 KB)": (TH + ["hook", "claude"],
                                         lambda: _post_input(big)),
        "post hook (small output)": (TH + ["hook", "claude"],
                                     lambda: _post_input("On branch main\nnothing to commit\n")),
    }


def _fixture_stdout() -> str:
    import json
    path = os.path.join(HERE, "..", "tests", "fixtures", "git-status-huge-untracked.json")
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["stdout"]


_POSTS = [0]


def _post_input(stdout: str) -> bytes:
    """A PostToolUse Bash input in the documented schema; each call gets a fresh session and
    tool_use_id, so nothing is folded as already shown and no call is answered as a duplicate."""
    import json
    _POSTS[0] += 1
    n = f"{os.getpid()}-{_POSTS[0]}-{time.perf_counter_ns()}"
    return json.dumps({"session_id": f"bench-{n}", "cwd": os.getcwd(),
                       "permission_mode": "default", "hook_event_name": "PostToolUse",
                       "tool_name": "Bash", "tool_input": {"command": "git status"},
                       "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False,
                                         "isImage": False},
                       "tool_use_id": f"toolu_{n}"}).encode()


def _hook_input(command: str) -> bytes:
    """A PreToolUse Bash input in the documented schema (code.claude.com/docs/en/hooks)."""
    import json
    return json.dumps({"session_id": "bench", "cwd": os.getcwd(), "permission_mode": "default",
                       "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": command}, "tool_use_id": "toolu_bench"}).encode()


def _time(argv: list[str], data) -> float:
    data = data() if callable(data) else data
    t0 = time.perf_counter()
    subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def measure(runs: int) -> dict[str, float]:
    """Median seconds per arm."""
    table = arms()
    for argv, data in table.values():  # warm caches (plans, page cache)
        _time(argv, data)
    samples: dict[str, list[float]] = {name: [] for name in table}
    for _ in range(runs):
        for name, (argv, data) in table.items():
            samples[name].append(_time(argv, data))
    return {name: statistics.median(s) for name, s in samples.items()}


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    med = measure(args.runs)
    base = med["python3 -c pass"]
    print(f"median of {args.runs} alternating runs (ratio to python3 -c pass)")
    for name, sec in med.items():
        print(f"  {name:<30} {sec * 1000:7.1f} ms  {sec / base:5.2f}x")
    print(f"  run -- git status vs bare git status: {med['thresher run -- git status'] / med['git status']:.2f}x")


if __name__ == "__main__":
    main()
