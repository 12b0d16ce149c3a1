"""Run a compiled plan on one payload, enforcing the invariants at the edges.

Stages stay simple; the executor owns:
- fail-open (INV-5): a stage that raises or overruns its time budget is treated as declined, its
  input passes on, and the trace says why;
- per-stage checks: no fabrication (INV-3: every view line is a source line, a clipped source line,
  or a declared summary of a stage allowed to write one), error lines kept on failure (INV-6), and
  distill/collapse output not larger than its input (INV-2) — a stage that breaks one is *rejected*;
- distill first: a Collapse-phase node is skipped when a distiller applied and met the budget;
- the final emission (see ``finalize.py``): one footer with kept + omitted == total (INV-4),
  never-worse against the raw input (INV-2), archived before any handle is shown (INV-7), and
  byte-exact raw passthrough for Guard verdicts and every fallback.
"""

from __future__ import annotations

import importlib
import signal
import threading
import time

from .contract import Context
from .errors import StageRejected, StageTimeout
from .markers import is_clip_of, is_footer
from .payload import CRITICAL, IMPORTANT, SYNTHETIC, Out, Payload
from .tokens import estimate
from .trace import APPLIED, DECLINED, FAILED, REJECTED, SKIPPED, NullTrace

_IMPLS: dict[str, object] = {}


def load_impl(ref: str):
    """The stage function named ``"module:attr"`` (imported once per process)."""
    fn = _IMPLS.get(ref)
    if fn is None:
        module, _, attr = ref.partition(":")
        fn = _IMPLS[ref] = getattr(importlib.import_module(module), attr)
    return fn


def initial_payload(raw: bytes, **fields: object) -> Payload:
    """The payload a graph starts from: raw bytes, and a first decoded view of all its lines."""
    text = raw.decode("utf-8", "replace")
    trailing = text.endswith("\n")
    lines = tuple(text.split("\n"))
    if trailing:
        lines = lines[:-1]
    n = len(lines)
    return Payload(raw, source=lines, lines=lines, origin=tuple(range(n)),
                   tiers=(IMPORTANT,) * n, trailing_newline=trailing, **fields)


def _alarm(signum, frame):  # noqa: ARG001 - signal handler signature
    raise StageTimeout("stage time budget overrun")


def call_with_deadline(fn, args: tuple, seconds: float):
    """Call ``fn(*args)``; raise :class:`StageTimeout` when it runs longer than ``seconds``.

    Uses a real-time interval timer in the main thread (it interrupts a runaway stage); the elapsed
    time is also checked after the call returns, because a stage with a broad ``except`` may swallow
    the timer's exception, and off the main thread there is no timer at all.
    """
    t0 = time.perf_counter()
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            result = fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    else:
        result = fn(*args)
    if time.perf_counter() - t0 > seconds:
        raise StageTimeout("stage time budget overrun")
    return result


def check_stage(node: dict, before: Payload, after: Payload) -> None:
    """Raise :class:`StageRejected` when ``after`` breaks an invariant a stage must keep."""
    if after.raw is not before.raw and after.raw != before.raw:
        raise StageRejected("INV-7", "a stage may not change the raw bytes")
    if len(after.lines) != len(after.origin):
        raise StageRejected("INV-4", "view and provenance differ in length")
    if node["phase"] == "read":
        if after.origin != tuple(range(len(after.source))) or any(
                a != s and not is_clip_of(a, s) for a, s in zip(after.lines, after.source)):
            raise StageRejected("INV-3", "Read must produce a view of its new source, line for line")
        return
    if after.source is not before.source and after.source != before.source:
        raise StageRejected("INV-3", "only Read may change the source lines")
    src, summaries = after.source, node["emits_summaries"]
    # A stage that writes no summaries may still carry (keep) those an earlier stage declared,
    # e.g. trim keeping a distiller's counted line: only *new* synthetic lines need the right.
    carried = {line for line, o in zip(before.lines, before.origin) if o == SYNTHETIC}
    for line, o in zip(after.lines, after.origin):
        if o == SYNTHETIC:
            if not summaries and line not in carried:
                raise StageRejected("INV-3", f"wrote a line not in the input: {line[:80]!r}")
            if is_footer(line) and node["phase"] != "route":
                raise StageRejected("INV-4", "only Route may write the footer marker")
        elif not (0 <= o < len(src)) or (line != src[o] and not is_clip_of(line, src[o])):
            raise StageRejected("INV-3", f"view line does not match source line {o}: {line[:80]!r}")
    if after.failed:
        kept = set(after.origin)
        lost = [i for i, t in enumerate(after.tiers) if t == CRITICAL and i not in kept]
        if lost:
            raise StageRejected("INV-6", f"dropped or altered error line {lost[0] + 1}: "
                                f"{src[lost[0]][:80]!r}")
    if node["phase"] in ("distill", "collapse") and not after.redacted \
            and estimate(after.text()) > estimate(before.text()):
        raise StageRejected("INV-2", "output is larger than input")


def fits(p: Payload, budget: dict) -> bool:
    """True when the view meets the graph's guardrail (lines and estimated tokens)."""
    return len(p.lines) <= budget["max_lines"] and estimate(p.text()) <= budget["max_tokens"]


def run_plan(plan: dict, payload: Payload, ctx: Context, trace=None) -> tuple[Payload, bool]:
    """Walk ``plan`` from its entry; return the last payload and whether the time budget held."""
    trace = trace or NullTrace()
    budget, nodes = plan["budget"], plan["nodes"]
    stage_s, deadline = budget["stage_ms"] / 1000, time.perf_counter() + budget["total_ms"] / 1000
    distilled = False
    cur, node_id = payload, plan["entry"]
    while node_id is not None:
        node = nodes[node_id]
        ctx.node_id = node_id
        if node["phase"] == "collapse" and distilled and fits(cur, budget):
            trace.stage(node, SKIPPED, "distilled form already meets the budget", cur, None, 0.0)
            node_id = node["ports"]["out"]
            continue
        if time.perf_counter() > deadline:
            trace.stage(node, FAILED, "INV-5: graph time budget overrun; emitting raw", cur, None, 0.0)
            return cur, False
        port, new, decision, reason = "out", None, DECLINED, "declined"
        t0 = time.perf_counter()
        try:
            result = call_with_deadline(load_impl(node["impl"]), (cur, node["params"], ctx), stage_s)
            if result is not None:
                port, new = (result.port, result.payload) if isinstance(result, Out) else ("out", result)
                if port not in node["ports"]:
                    raise StageRejected("contract", f"undeclared output port {port!r}")
                check_stage(node, cur, new)
                decision, reason = APPLIED, ""
        except StageRejected as exc:
            port, new, decision, reason = "out", None, REJECTED, str(exc)
        except Exception as exc:  # INV-5: any stage failure → its input passes on
            port, new, decision = "out", None, FAILED
            reason = f"INV-5: {type(exc).__name__}: {str(exc)[:200]}"
        trace.stage(node, decision, reason, cur, new, (time.perf_counter() - t0) * 1000, port)
        if new is not None:
            cur = new
            distilled = distilled or node["phase"] == "distill"
        node_id = node["ports"][port]
    return cur, True
