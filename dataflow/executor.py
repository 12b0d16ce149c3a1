"""Run a compiled plan on one payload, enforcing the invariants at the edges.

Stages stay simple; the executor owns:
- fail-open (INV-5): a stage that raises is treated as declined, its input passes on, and the trace
  says why — except Guard and Score, which are load-bearing: when either fails no lossy stage runs
  (raw, or for a failing command a fallback of every error line plus head and tail);
- work, not time (DESIGN §2b): every decision depends on the input alone. A stage declaring a work
  cap (``max_input`` bytes) declines larger inputs up front; the timers are only hang guards, and
  when one fires the emission is raw — never a lossy continuation;
- the core error scan (``errorscan.py``): after Score, a failing command's error lines are critical
  whatever the graph's patterns say, so no graph can configure INV-6 away;
- per-stage checks: no fabrication (INV-3: every view line is a source line, a clipped source line,
  or a declared summary of a stage allowed to write one), error lines kept on failure (INV-6), and
  distill/collapse output not larger than its input (INV-2) — a stage that breaks one is *rejected*;
- distill first: a Collapse-phase node is skipped when a distiller applied and met the budget;
- the final emission (see ``finalize.py``, the one owner of both): the one footer with kept +
  omitted == total (INV-4; written by ``finalize.emission_view``, which Route calls; any other
  stage that writes a footer line is rejected), never-worse against the raw input (INV-2) and
  Route's guardrail, archived before any handle is shown (INV-7), and byte-exact raw passthrough
  for Guard verdicts and every fallback.
"""

from __future__ import annotations

import sys
import time
from itertools import compress
from operator import eq, ne

try:  # the C module: ``signal`` wraps it in enums, an import on every command's path
    import _signal as signal  # type: ignore[import-not-found]  # (no stubs: signal's own C half)
except ImportError:  # pragma: no cover - an interpreter without it
    import signal

from .contract import Context
from .errors import StageRejected, StageTimeout
from .errorscan import fallback, protect
from .markers import is_clip_of, is_footer
from .payload import (CRITICAL, IMPORTANT, PHASE_INDEX, RELEASE_ABOVE, SYNTHETIC, Original, Out, Payload,
                      dirty_bytes)
from .tokens import SAMPLE_ABOVE, estimate_joined, estimate_utf8
from .trace import APPLIED, DECLINED, FAILED, REJECTED, SKIPPED, NullTrace

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import Any

    from .shapes import Budget, Plan, PlanNode, Stage

_IMPLS: dict[str, Stage] = {}


def load_impl(ref: str) -> Stage:
    """The stage function named ``"module:attr"`` (imported once per process)."""
    fn = _IMPLS.get(ref)
    if fn is None:
        module, _, attr = ref.partition(":")
        __import__(module)  # (not importlib: its import is a start-up cost of every payload)
        fn = _IMPLS[ref] = getattr(sys.modules[module], attr)
    return fn


DECODE_CHUNK = 1 << 20
"""Bytes of input decoded at a time (up to the next line end) by :func:`decode_lines`."""


def decode_lines(raw: bytes) -> tuple[list[str], bool, bool]:
    """``raw`` decoded (UTF-8, invalid bytes replaced) and split at ``\n``, without the empty
    string after a final newline; whether there was one; and whether the decoding is exact (no
    U+FFFD in it: the bytes are valid UTF-8, so the lines joined and encoded are the bytes).

    That is ``text.split("\n")`` of the whole decoded text, built a chunk of lines at a time so
    that text is never held whole (a non-ASCII character makes every character of a ``str`` 2 or
    4 bytes: 40 MB for a 10 MB ``git log -p``). A chunk ends just after a ``\n``, and no UTF-8
    sequence, valid or replaced, spans one (``\x0a`` is never a continuation byte), so the
    chunks decode to the whole text's pieces."""
    n = len(raw)
    if n <= DECODE_CHUNK:
        text = str(raw, "utf-8", "replace")
        lines = text.split("\n")
        trailing = n > 0 and raw[-1] == 10
        if trailing:
            lines.pop()
        return lines, trailing, "\ufffd" not in text
    view, lines, start, exact = memoryview(raw), [], 0, True
    while start < n:
        end = raw.find(b"\n", start + DECODE_CHUNK - 1)
        end = n if end < 0 else end + 1
        text = str(view[start:end], "utf-8", "replace")
        exact = exact and "\ufffd" not in text
        part = text.split("\n")
        del text
        if raw[end - 1] == 10:
            part.pop()
        lines += part
        start = end
    view.release()
    return lines, raw[-1] == 10, exact


def initial_payload(raw: bytes | Original, **fields: Any) -> Payload:
    """The payload a graph starts from: raw bytes, and a first decoded view of all its lines.

    ``raw`` given as a releasable :class:`Original` lets go of its bytes once they are decoded
    exactly (what the raw bytes are needed for later is computed from them first)."""
    orig = raw if isinstance(raw, Original) else Original(raw)
    data = orig.tobytes()
    decoded, trailing, exact = decode_lines(data)
    lines = tuple(decoded)
    del decoded
    n = len(lines)
    p = Payload(orig, source=lines, lines=lines, origin=tuple(range(n)),
                tiers=(IMPORTANT,) * n, trailing_newline=trailing, **fields)
    memo = p._rawmemo
    if exact:
        # the raw text is the first view's text (its lines joined): its estimate is that view's,
        # made once (decoding the bytes again for it would hold the whole text at once)
        memo["raw_tokens"] = p.tokens()
    elif len(data) > SAMPLE_ABOVE and not data.isascii():
        memo["raw_tokens"] = estimate_joined(lines, "\n" if trailing else "")
    if exact and orig.releasable and orig.size > RELEASE_ABOVE:
        memo["dirty"] = int(dirty_bytes(data))
        if "raw_tokens" not in memo:
            memo["raw_tokens"] = estimate_utf8(data)
        del data
        orig.release(lines, trailing)
    return p


def _alarm(signum: int, frame: FrameType | None) -> None:  # noqa: ARG001 - a signal handler
    raise StageTimeout("hang guard fired")


REFIRE_S = 0.1
"""After the hang guard first fires it fires again every this many seconds until the stage
returns: one firing swallowed (a stage's broad ``except``, a garbage-collection callback that
happened to be running) must not leave a real hang unguarded."""


def call_with_deadline(fn: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
    """Call ``fn(*args)``; raise :class:`StageTimeout` when it runs longer than ``seconds``.

    Uses a real-time interval timer in the main thread (it interrupts a runaway stage, and keeps
    firing every :data:`REFIRE_S` until the stage gives up); the elapsed time is also checked after
    the call returns, because a stage with a broad ``except`` may swallow the timer's exception,
    and off the main thread there is no timer at all.
    """
    t0 = time.perf_counter()
    timed = hasattr(signal, "setitimer")
    if timed:
        try:
            old = signal.signal(signal.SIGALRM, _alarm)
        except ValueError:  # not the main thread (the only one that may set handlers): no timer
            timed = False
    if timed:
        signal.setitimer(signal.ITIMER_REAL, seconds, REFIRE_S)
        try:
            result = fn(*args)
        finally:
            _disarm(old)
    else:
        result = fn(*args)
    if time.perf_counter() - t0 > seconds:
        raise StageTimeout("hang guard fired")
    return result


def _disarm(old: Any) -> None:
    """Stop the hang guard and put back the previous SIGALRM handler. A firing that lands while
    this runs is caught and the step retried: no StageTimeout may escape past the guarded call,
    and the timer must never stay armed."""
    while True:
        try:
            signal.signal(signal.SIGALRM, signal.SIG_IGN)   # a late or pending firing: ignored
            break
        except StageTimeout:
            pass
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)


def check_stage(node: PlanNode, before: Payload, after: Payload) -> None:
    """Raise :class:`StageRejected` when ``after`` breaks an invariant a stage must keep."""
    if after.original is not before.original and after.raw != before.raw:
        raise StageRejected("INV-7", "a stage may not change the raw bytes")
    if len(after.lines) != len(after.origin):
        raise StageRejected("INV-4", "view and provenance differ in length")
    if node["phase"] == "read":
        n = len(after.source)
        # (C-speed passes: no tuple(range(n)) to compare with, and is_clip_of only where a view
        # line is not its source line)
        if len(after.origin) != n or not all(map(eq, after.origin, range(n))) or any(
                not is_clip_of(a, s) for a, s in
                compress(zip(after.lines, after.source), map(ne, after.lines, after.source))):
            raise StageRejected("INV-3", "Read must produce a view of its new source, line for line")
        return
    if after.source is not before.source and after.source != before.source:
        raise StageRejected("INV-3", "only Read may change the source lines")
    src, summaries = after.source, node["emits_summaries"]
    # A stage that writes no summaries may still carry (keep) those an earlier stage declared,
    # e.g. trim keeping a distiller's counted line: only *new* synthetic lines need the right.
    # A view left as it was (the same line and origin tuples, no summary line) was checked when
    # the stage that made it ran, against the same source: only the tiers below may have changed.
    unchanged = after.lines is before.lines and after.origin is before.origin \
        and SYNTHETIC not in after.origin
    origin, n = after.origin, len(src)
    if not unchanged and origin and SYNTHETIC not in origin and 0 <= min(origin) and max(origin) < n:
        # no summary line, every origin a source line: only the lines that differ from theirs
        # (found in C) need the clip test
        lines = after.lines
        for line, o in compress(zip(lines, origin), map(ne, lines, map(src.__getitem__, origin))):
            if not is_clip_of(line, src[o]):
                raise StageRejected("INV-3", f"view line does not match source line {o}: {line[:80]!r}")
        unchanged = True   # (as checked as an unchanged view: the loop below is not needed)
    carried = set() if unchanged else {line for line, o in zip(before.lines, before.origin) if o == SYNTHETIC}
    for line, o in zip(() if unchanged else after.lines, after.origin):
        if o == SYNTHETIC:
            if not summaries and line not in carried:
                raise StageRejected("INV-3", f"wrote a line not in the input: {line[:80]!r}")
            if is_footer(line) and node["phase"] != "route":
                raise StageRejected("INV-4", "only Route may write the footer marker "
                                    "(through dataflow.finalize.emission_view)")
        elif not (0 <= o < len(src)) or (line != src[o] and not is_clip_of(line, src[o])):
            raise StageRejected("INV-3", f"view line does not match source line {o}: {line[:80]!r}")
    # (a view and tiers passed on as they were lose nothing their check did not see: each
    # payload a stage gets passed this check, or is Read's, whose view is its whole source)
    if after.failed and not (after.origin is before.origin and after.tiers is before.tiers):
        kept = set(after.origin)
        tiers = after.tiers
        crit = compress(range(len(tiers)), map(CRITICAL.__eq__, tiers))
        lost = [] if kept.issuperset(crit) else \
            [i for i, t in enumerate(tiers) if t == CRITICAL and i not in kept]
        if lost:
            raise StageRejected("INV-6", f"dropped or altered error line {lost[0] + 1}: "
                                f"{src[lost[0]][:80]!r}")
    if node["phase"] in ("distill", "collapse") and not after.redacted \
            and after.tokens() > before.tokens():
        raise StageRejected("INV-2", "output is larger than input")


def fits(p: Payload, budget: Budget) -> bool:
    """True when the view meets the graph's guardrail (lines and estimated tokens)."""
    return len(p.lines) <= budget["max_lines"] and p.tokens() <= budget["max_tokens"]


LOAD_BEARING = ("guard", "score")
"""Phases whose failure stops every lossy stage (their verdicts and tiers protect INV-9/INV-6)."""
LOSSY = ("distill", "collapse", "ledger")
_SCORE = PHASE_INDEX["score"]


def _call(node: PlanNode, cur: Payload, ctx: Context, hang_s: float
          ) -> tuple[str, Payload | None, str, str]:
    """Run one node: ``(port, new payload or None, decision, reason)``; raises StageTimeout only."""
    cap = node.get("max_input")
    if cap is not None and cur.raw_size > cap:
        return "out", None, DECLINED, f"input of {cur.raw_size} bytes is over this stage's work cap ({cap})"
    try:
        result = call_with_deadline(load_impl(node["impl"]), (cur, node["params"], ctx), hang_s)
        if result is None:
            return "out", None, DECLINED, "declined"
        port, new = (result.port, result.payload) if isinstance(result, Out) else ("out", result)
        if port not in node["ports"]:
            raise StageRejected("contract", f"undeclared output port {port!r}")
        check_stage(node, cur, new)
        return port, new, APPLIED, ""
    except StageTimeout:
        raise
    except StageRejected as exc:
        return "out", None, REJECTED, str(exc)
    except Exception as exc:  # noqa: BLE001 - INV-5: any stage failure → its input passes on
        return "out", None, FAILED, f"INV-5: {type(exc).__name__}: {str(exc)[:200]}"


def run_plan(plan: Plan, payload: Payload, ctx: Context, trace: NullTrace | None = None
             ) -> tuple[Payload, str]:
    """Walk ``plan`` from its entry; return the last payload and why to emit raw ("" = don't).

    A non-empty reason means a hang guard fired or Guard failed (or Score failed on a command that
    did not fail): the caller emits the raw input whatever the payload holds.
    """
    trace = trace or NullTrace()
    budget, nodes = plan["budget"], plan["nodes"]
    hang_s, deadline = budget["stage_ms"] / 1000, time.perf_counter() + budget["total_ms"] / 1000
    distilled = scanned = unguarded = False
    cur = payload
    node_id: str | None = plan["entry"]
    while node_id is not None:
        node = nodes[node_id]
        ctx.node_id = node_id
        phase = node["phase"]
        if not scanned and PHASE_INDEX[phase] > _SCORE:
            cur, scanned = protect(cur), True
        skip = ""
        if unguarded and phase in LOSSY:
            skip = "Guard or Score failed: no lossy stage runs"
        elif phase == "collapse" and distilled and fits(cur, budget):
            skip = "distilled form already meets the budget"
        if skip:
            trace.stage(node, SKIPPED, skip, cur, None, 0.0)
            node_id = node["ports"]["out"]
            continue
        if time.perf_counter() > deadline:
            trace.stage(node, FAILED, "INV-5: graph hang guard fired; emitting raw", cur, None, 0.0)
            return cur, "INV-5: graph hang guard fired"
        t0 = time.perf_counter()
        try:
            port, new, decision, reason = _call(node, cur, ctx, hang_s)
        except StageTimeout:
            trace.stage(node, FAILED, "INV-5: StageTimeout: hang guard fired; emitting raw", cur,
                        None, (time.perf_counter() - t0) * 1000)
            return cur, f"INV-5: stage {node_id!r} hit the hang guard"
        trace.stage(node, decision, reason, cur, new, (time.perf_counter() - t0) * 1000, port)
        if new is not None:
            cur = new
            distilled = distilled or phase == "distill"
        elif phase in LOAD_BEARING and decision in (FAILED, REJECTED):
            if phase == "guard" or not cur.failed:
                return cur, f"{phase} {decision}: no lossy stage may run ({reason[:120]})"
            cur, scanned, unguarded = fallback(cur, budget["max_lines"]), True, True
        node_id = node["ports"][port]
    return cur, ""
