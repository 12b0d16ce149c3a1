"""CPU time of the engine on the adversarial inputs of issue 18 §3, per graph stage.

Inputs: a million empty lines, 80 KB of long prose lines, and 20 lines of 8,000 characters of one
shape (colons, spaces, digits, ``a ``), each under the commands that route them to the graphs that
read such text (a file, a manual page, a log, pytest). CPU time (``thread_time``), not wall time:
the numbers mean the same on a loaded machine. The regex-level guarantee (every shipped regex
linear) is tests/test_regex_safety.py; this script shows what the whole engine costs.

Run with ``.venv/bin/python benchmarks/adversarial_inputs.py``.
"""

from __future__ import annotations

import time

from thresher.dataflow.api import compress

PROSE = ("The quick brown fox, who was tired; jumps over the lazy dog: again and again. " * 52
         + "\n") * 20
INPUTS = {
    "1M empty lines": "\n" * 1_000_000,
    "80 KB prose lines": PROSE,
    "20 x 8,000 colons": (":" * 8000 + "\n") * 20,
    "20 x 8,000 spaces+x": (" " * 8000 + "x\n") * 20,
    "20 x 8,000 digits+x": ("0" * 8000 + "x\n") * 20,
    "20 x 8,000 'a '": ("a " * 4000 + "\n") * 20,
}
COMMANDS = ("cat notes.txt", "man -P cat ls", "cat /var/log/syslog", "pytest -v")


def main() -> None:
    """Print one row per input and command: CPU seconds, graph, decision, slowest stages."""
    compress("warm up\n", command="cat x.txt")
    for name, text in INPUTS.items():
        for cmd in COMMANDS:
            t0 = time.thread_time()
            res = compress(text, command=cmd, trace=True)
            cpu = time.thread_time() - t0
            slow = sorted(res.trace.records, key=lambda r: -r.get("ms", 0))[:3]
            stages = ", ".join(f"{r['node']} {r['decision']} {r.get('ms', 0):.0f} ms" for r in slow)
            print(f"{name:20s} {cmd:20s} {cpu:6.2f} s cpu  {res.graph_id:24s} "
                  f"{res.emission.decision:10s} {stages}")


if __name__ == "__main__":
    main()
