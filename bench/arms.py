"""The arms a benchmark measures side by side, each a function ``case -> bytes the agent would see``.

- ``raw``: the payload unchanged (stdout then stderr) — the baseline every saving is counted from;
- ``headtail``: the first and last 40 lines with one marker counting the lines left out — the naive
  baseline any compressor has to beat on facts kept;
- ``thresher`` / ``thresher:ROLE``: what ``thresher run`` emits for the case: stdout through the
  graph of the command's class, stderr of a failing command byte-exact, stderr of a successful one
  compressed as its own payload. Nothing is written to the archive or the ledgers;
- ``cmd:SHELL COMMAND``: any external compressor — the payload on stdin, the result read from
  stdout; ``THRESHER_BENCH_COMMAND`` holds the case's command line and ``THRESHER_BENCH_EXIT_CODE``
  its exit code (empty when unknown). It runs under ``sh -c`` with a timeout per case.
"""

from __future__ import annotations

import os
import subprocess

from .score import payload, to_bytes

HEADTAIL_LINES = 40
CMD_TIMEOUT = 120.0


def parse_arm(spec: str) -> tuple[str, str]:
    """``(kind, arg)`` of an arm spec; raise ValueError naming the accepted forms."""
    spec = spec.strip()
    if spec in ("raw", "headtail"):
        return spec, ""
    if spec == "thresher":
        return "thresher", "default"
    if spec.startswith("thresher:") and spec[9:]:
        return "thresher", spec[9:]
    if spec.startswith("cmd:") and spec[4:].strip():
        return "cmd", spec[4:].strip()
    raise ValueError(f"unknown arm {spec!r}: use raw, headtail, thresher, thresher:ROLE or "
                     "cmd:\"SHELL COMMAND\" (e.g. --arm 'cmd:head -n 20')")


def arm_name(kind: str, arg: str) -> str:
    """The label of an arm in reports."""
    if kind == "thresher":
        return "thresher" if arg == "default" else f"thresher:{arg}"
    return f"cmd:{arg}" if kind == "cmd" else kind


def headtail(data: bytes, keep: int = HEADTAIL_LINES) -> bytes:
    """The first and last ``keep`` lines, with a marker saying how many lines were left out."""
    lines = data.splitlines(keepends=True)
    if len(lines) <= 2 * keep:
        return data
    gap = len(lines) - 2 * keep
    return b"".join(lines[:keep] + [f"[... {gap} lines omitted ...]\n".encode()] + lines[-keep:])


_PLANS: dict = {}


def cached_plans():
    """The compiled plans, loaded once per process."""
    if "plans" not in _PLANS:
        from thresher.dataflow.plan import load_plans
        _PLANS["plans"] = load_plans()
    return _PLANS["plans"]


def thresher_view(case: dict, role: str = "default", plans=None) -> bytes:
    """What ``thresher run`` would show the agent for ``case`` (no archive or ledger writes)."""
    from thresher.dataflow.api import compress
    from thresher.dataflow.contract import Archive
    plans = cached_plans() if plans is None else plans
    exit_code, command = case.get("exit_code"), case.get("command") or ""
    out = b""
    for stream in ("stdout", "stderr"):
        raw = to_bytes(case.get(stream) or "")
        if not raw:
            continue
        if stream == "stderr" and exit_code not in (None, 0):
            out += raw  # thresher run: a failing command's stderr passes byte-exact
            continue
        out += compress(raw, command=command, exit_code=exit_code, stream=stream, role=role,
                        plans=plans, archive=Archive()).output
    return out


def external(case: dict, shell_command: str, timeout: float = CMD_TIMEOUT) -> tuple[bytes, str]:
    """Run an external compressor on the case's payload: ``(stdout, error or "")``."""
    env = dict(os.environ)
    env["THRESHER_BENCH_COMMAND"] = case.get("command") or ""
    code = case.get("exit_code")
    env["THRESHER_BENCH_EXIT_CODE"] = "" if code is None else str(code)
    try:
        proc = subprocess.run(["sh", "-c", shell_command], input=payload(case), env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        return exc.stdout or b"", f"timed out after {timeout:g}s"
    except OSError as exc:
        return b"", f"could not start sh: {exc}"
    err = ""
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        err = f"exit {proc.returncode}: {tail[0][:200]}"
    return proc.stdout, err


def apply(kind: str, arg: str, case: dict) -> tuple[bytes, str]:
    """Run one arm on one case: ``(output, error or "")``."""
    if kind == "raw":
        return payload(case), ""
    if kind == "headtail":
        return headtail(payload(case)), ""
    if kind == "thresher":
        return thresher_view(case, arg), ""
    if kind == "cmd":
        return external(case, arg)
    raise ValueError(f"unknown arm kind {kind!r}")
