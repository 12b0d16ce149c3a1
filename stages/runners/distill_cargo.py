"""distill-cargo: cargo build/check/clippy/test/nextest without progress and passing-test rows.

Dropped (one counted summary line): ``Compiling``/``Checking``/``Downloaded``/``Updating``/…
progress, ``running N tests`` banners, ``test name ... ok``/``ignored`` rows and nextest
``PASS``/``START``/``SKIP`` rows. Kept byte-exact: every diagnostic (``error[E…]``/``warning:``
headers, ``-->`` locations, notes and help), ``FAILED`` rows, the ``failures:`` sections with panic
messages, every ``test result:`` line, ``Running``/``Finished``/``Doc-tests`` lines and anything
printed by the tests (``--nocapture`` output is not a row). Under ``stack backtrace:`` (a run with
``RUST_BACKTRACE`` set), frames whose every location is in the Rust toolchain (``at /rustc/<hash>/``,
or no location and a ``std::``/``core::``/``alloc::``/``test::`` name) go with one counted line per
backtrace, when the graph's score left none of their lines critical; frames in the user's code
stay whole. Over the budget, code snippets of diagnostics go too (counted). Declines when there is
nothing to drop.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import CRITICAL

from thresher.stages.lib.diagnostics import drop_snippets, snippet_summary
from thresher.stages.lib.common import build, critical_flags, over_budget, plural

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

PROGRESS_RE = re.compile(
    r"^\s+(?P<verb>Compiling|Checking|Downloaded|Downloading|Fresh|Updating|Locking|Adding|"
    r"Blocking|Documenting|Packaging|Verifying|Archiving|Unpacking|Removing|Updated)\s\S")
ROW_RE = re.compile(r"^test .+ \.\.\. (?P<o>ok|ignored(?:, .*)?)$")
RUNNING_RE = re.compile(r"^running \d+ tests?$")
BACKTRACE_RE = re.compile(r"^stack backtrace:$")
FRAME_RE = re.compile(r"^\s*\d+: \S")
FRAME_AT_RE = re.compile(r"^\s+at \S")
TOOLCHAIN_AT_RE = re.compile(r"^\s+at /rustc/[0-9a-f]{7,}/")
TOOLCHAIN_FN_RE = re.compile(r"^\s*\d+: (?:__rustc|std|core|alloc|test)::|^\s*\d+: <(?:fn\(|F as |(?:std|core|alloc|test)::)")
NEXTEST_RE = re.compile(r"^\s+(?P<o>PASS|START|SKIP) \[\s*[\d.]+s\] |^\s+(?P<o2>START|SKIP)\s+\S")

_VERB = {"Compiling": "compiled", "Checking": "checked", "Downloaded": "downloaded",
         "Downloading": "downloaded", "Documenting": "documented"}
_ORDER = ("passed", "ignored", "skipped", "compiled", "checked", "documented", "downloaded",
          "other progress")


def _classify(line: str) -> str | None:
    """The counter a droppable line adds to, ``""`` for a dropped uncounted line, else ``None``."""
    m = PROGRESS_RE.match(line)
    if m:
        return _VERB.get(m.group("verb"), "other progress")
    m = ROW_RE.match(line)
    if m:
        return "passed" if m.group("o") == "ok" else "ignored"
    if RUNNING_RE.match(line):
        return ""
    m = NEXTEST_RE.match(line)
    if m:
        o = m.group("o") or m.group("o2")
        return {"PASS": "passed", "SKIP": "skipped"}.get(o, "")
    return None


def _summary(dropped: int, totals: dict[str, int]) -> str:
    parts = ", ".join(f"{totals[k]} {k}" for k in _ORDER if totals.get(k))
    noun = "line" if dropped == 1 else "lines"
    return (f"[thresher: {dropped} {noun} of progress and passing tests not shown"
            + (f" ({parts})]" if parts else "]"))


def _fold_backtraces(payload, keep: list[bool]) -> dict[int, str]:
    """Drop toolchain frames of every ``stack backtrace:``; one counted line per backtrace."""
    lines, summaries = payload.lines, {}
    tiers = [payload.tiers[o] if o >= 0 else CRITICAL for o in payload.origin]
    i = 0
    while i < len(lines):
        if not BACKTRACE_RE.match(lines[i]):
            i += 1
            continue
        i += 1
        cut, first = 0, None
        while i < len(lines) and FRAME_RE.match(lines[i]):
            j = i + 1
            while j < len(lines) and FRAME_AT_RE.match(lines[j]):
                j += 1
            ats = lines[i + 1:j]
            toolchain = (all(TOOLCHAIN_AT_RE.match(a) for a in ats) if ats
                         else TOOLCHAIN_FN_RE.match(lines[i]) is not None)
            if toolchain and all(tiers[k] != CRITICAL for k in range(i, j)):
                for k in range(i, j):
                    keep[k] = False
                cut += j - i
                first = i if first is None else first
            i = j
        if cut and first is not None:   # (set with the first cut)
            summaries[first] = f"[thresher: {plural(cut, 'line')} of Rust toolchain backtrace frames not shown]"
    return summaries


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The distilled cargo view, or ``None`` when there is nothing to drop."""
    lines = payload.lines
    crit = critical_flags(payload)
    keep = [True] * len(lines)
    totals: dict[str, int] = {}
    for i, line in enumerate(lines):
        if crit[i]:
            continue
        what = _classify(line)
        if what is not None:
            keep[i] = False
            if what:
                totals[what] = totals.get(what, 0) + 1
        elif not line.strip() and i > 0 and not keep[i - 1]:
            keep[i] = False   # the blank line after a dropped banner or row block
    summaries = {}
    dropped = sum(1 for i, k in enumerate(keep) if not k and lines[i].strip())
    if dropped:
        summaries[keep.index(False)] = _summary(dropped, totals)
    summaries.update(_fold_backtraces(payload, keep))
    if params["snippets_over_budget"] and over_budget([ln for ln, k in zip(lines, keep) if k], ctx.budget):
        diags, cut = drop_snippets(lines, keep, crit)
        if cut:
            summaries[len(lines)] = snippet_summary(diags, cut)
    return build(payload, keep, summaries)
