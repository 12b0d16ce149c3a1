"""Running a child process the way the benchmarks measure it: whole process, rusage, peak RSS.

- :func:`measure` runs argv with a file on stdin and stdout to a temporary file, through a small
  launcher that forks, execs and ``os.wait4``s it, and returns wall seconds, CPU seconds (user +
  system of the child), peak RSS (KiB, ``ru_maxrss``) and the output bytes; a hung child is killed
  after ``timeout`` seconds.
- :class:`Burners` starts N busy-loop processes (each also stops itself after ``limit`` seconds) and
  always kills them on exit from the ``with`` block, so the CPU is saturated only while measuring.
- :func:`decision` runs ``thresher.dataflow.compress`` with tracing in a child process and returns
  its emission (decision, reason, tokens) and every string of the trace that speaks of time.
- :func:`bench_env` is the environment every thresher child gets: a private data home, a shared
  plan cache, no user graphs, no session (so no ledger folds one run against another).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time

TIME_WORDS = re.compile(r"time budget|timed? ?out|timeout|deadline|wall.?clock", re.I)
"""Words of a reason that blame time (the engine's wording today: "graph time budget overrun",
"StageTimeout"; a decline on a work budget must not use them, and "overrun" alone is not time)."""

DECIDE = r"""
import hashlib, json, sys
from thresher.dataflow import compress
path, command, code = sys.argv[1], sys.argv[2], sys.argv[3]
with open(path, "rb") as fh:
    data = fh.read()
res = compress(data, command=command, exit_code=None if code == "" else int(code), trace=True)
em = res.emission
def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)
try:
    texts = list(strings(res.as_dict()))
except Exception as exc:
    texts = ["trace unavailable: %s" % exc]
print(json.dumps({"decision": getattr(em, "decision", "?"), "reason": getattr(em, "reason", ""),
                  "tokens_in": getattr(em, "tokens_in", None), "tokens_out": getattr(em, "tokens_out", None),
                  "graph": getattr(res, "graph_id", ""), "texts": texts,
                  "out_sha": hashlib.sha256(res.output).hexdigest()}))
"""


def load_note() -> str:
    """The machine's load average and CPU count, to read wall times against."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f} (1/5/15 min) on {os.cpu_count()} CPUs"


def bench_env(tmp: str, name: str = "home") -> dict:
    """Environment for a thresher child: data under ``tmp/name``, plan cache shared under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("THRESHER_")}
    env.update(THRESHER_HOME=os.path.join(tmp, name), THRESHER_CACHE_HOME=os.path.join(tmp, "cache"),
               THRESHER_CONFIG_HOME=os.path.join(tmp, "config"))
    return env


class Run:
    """One measured child: wall and CPU seconds, peak RSS in KiB, exit status, output bytes."""

    __slots__ = ("wall", "cpu", "rss_kib", "status", "output", "timed_out")

    def __init__(self, wall: float, cpu: float, rss_kib: int, status: int, output: bytes,
                 timed_out: bool) -> None:
        self.wall, self.cpu, self.rss_kib = wall, cpu, rss_kib
        self.status, self.output, self.timed_out = status, output, timed_out


LAUNCH = r"""
import json, os, sys, time
result, argv = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(result, "w") as fh:
    json.dump({"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_kib": ru.ru_maxrss,
               "status": os.waitstatus_to_exitcode(status)}, fh)
"""
"""A small launcher between the benchmark and the measured child.

Linux carries a process's peak RSS across ``exec`` (the forked copy of the parent counts), so a
child forked straight from this benchmark, which holds the 50 MB input, would report at least the
benchmark's own size. The launcher is a fresh interpreter (~10 MB), the same for every arm."""


def measure(argv: list[str], stdin_path: str | None, env: dict, cwd: str, timeout: float = 900,
            keep_output: bool = True) -> Run:
    """Run ``argv`` once (stdin from ``stdin_path``), whole process, and return its :class:`Run`."""
    src = open(stdin_path, "rb") if stdin_path else open(os.devnull, "rb")
    fd, result = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    with src, tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, "-c", LAUNCH, result] + argv, stdin=src, stdout=out,
                                stderr=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)  # the launcher's own session: it and the measured child only
            proc.wait()
            timed_out = True
        out.seek(0)
        data = out.read() if keep_output else b""
    try:
        with open(result) as fh:
            info = json.load(fh)
    except ValueError:
        info = {"wall": float(timeout), "cpu": 0.0, "rss_kib": 0, "status": -9}
    os.unlink(result)
    return Run(info["wall"], info["cpu"], info["rss_kib"], info["status"], data, timed_out)


class Burners:
    """``with Burners(2):`` keeps two CPU-bound processes running for the duration of the block."""

    def __init__(self, n: int = 2, limit: float = 1800) -> None:
        self.n, self.limit, self.procs = n, limit, []

    def __enter__(self) -> "Burners":
        loop = f"import time\nend = time.monotonic() + {self.limit}\nwhile time.monotonic() < end: pass\n"
        for _ in range(self.n):
            self.procs.append(subprocess.Popen([sys.executable, "-c", loop], stdin=subprocess.DEVNULL,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.2)  # let them reach the busy loop before the first measured run
        return self

    def __exit__(self, *exc) -> None:
        for proc in self.procs:  # only the processes started here, by their own handles
            if proc.poll() is None:
                proc.kill()
        for proc in self.procs:
            proc.wait()
        self.procs = []


def decision(python: str, path: str, command: str, exit_code: int | None, env: dict, cwd: str,
             timeout: float = 900) -> dict:
    """The emission of ``compress`` on the file ``path`` (in a child), plus the time-blaming texts."""
    argv = [python, "-c", DECIDE, path, command, "" if exit_code is None else str(exit_code)]
    try:
        res = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"decision": "timeout", "reason": f"child ran over {timeout:g} s", "time_texts": []}
    try:
        info = json.loads(res.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        err = res.stderr.decode(errors="replace").strip().splitlines()
        return {"decision": "error", "reason": (err[-1] if err else f"exit {res.returncode}")[:200],
                "time_texts": []}
    info["time_texts"] = sorted({t for t in info.pop("texts") if TIME_WORDS.search(t)})
    return info
