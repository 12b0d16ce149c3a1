"""distill-pytest: drop pytest's session header and passing progress, keep every failure.

Kept byte-exact: the FAILURES and ERRORS sections, the warnings summary, the short test summary
info, ``!!! Interrupted``/``stopping after`` lines, progress lines that show an ``F`` or ``E``, and
the final counts line. Dropped: the session header (platform, rootdir, plugins, collected …) and
progress lines made only of passing/skipped/xfail marks, replaced by one summary line with the
exact counts read from the dropped lines. Of the one-row-per-test lines of ``-v`` (and xdist's
``[gw0] [ 5%] PASSED …`` form), every row that is not a pass stays where it is; the PASSED rows of
each test file fold to the file's first one and a counted line (:mod:`passing_rows`).

Native tracebacks (``--tb=native``; pytest 9 prints its whole call chain there) lose the frames in
pytest's and pluggy's own code: each run of them becomes one counted line (not with
``--full-trace``, and only where the graph's score left none of their lines critical).

When the view is still over the graph budget, each failure block is shortened to its header,
``>`` and ``E`` lines and ``file:line`` locations, and in ``--tb=short`` form the innermost frame's
code line above the ``E`` lines (what the long form marks with ``>``) (unless the user asked for ``--tb=long``,
``--showlocals``, ``-vv`` …). Output without pytest's final counts line goes to the unittest distiller
(``python -m unittest`` shares the class); it declines too unless unittest's closing lines are there
(killed run, internal error, something else): a run we did not parse is never summarised.
"""

from __future__ import annotations

from thresher.dataflow.rxcache import re_lazy as re  # re.compile from the start-up regex cache

from itertools import compress, repeat

from thresher.dataflow.payload import CRITICAL
from thresher.dataflow.errorscan import candidate_mask, ones

from thresher.stages.lib import passing_rows
from thresher.stages.lib.common import build, critical_flags, has_flag, over_budget, plural

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

COUNTS_RE = re.compile(
    r"^(?:=+ )?(?:no tests ran|\d+ \w+(?: \w+)?(?:, \d+ \w+(?: \w+)?)*)"
    r" in [\d.]+s(?: \([\d:.]+\))?(?: =+)?$")
BANNER_RE = re.compile(r"^=+ (?P<title>.+?) =+$")
HEADER_RE = re.compile(
    r"^(?:=+ test session starts =+|platform \S+ -- Python .*|"
    r"(?:cachedir|rootdir|configfile|inifile|testpaths|plugins|asyncio|anyio|django|benchmark|"
    r"timeout|Using --randomly-seed|required plugins)[:=].*|hypothesis profile .*|"
    r"collect(?:ing|ed) (?!.*\berrors?\b).*|bringing up nodes\.\.\.|created: \d+/\d+ workers?|"
    r"\d+ workers? \[\d+ items?\]|\[gw\d+\] \w+ Python [\d.]+ .*|gw\d+ (?:\[\d+\]|I|C|ok)(?: / gw\d+ .*)?)$")
PROGRESS_RE = re.compile(
    r"^(?:\S+\.\w+(?:::\S+)? )?(?P<marks>[.sxXFE]+) *(?:\[\s*\d+%\]|\[\s*\d+/\s*\d+\])?$")
# (the space after the file is required: without it, xdist's `file::test_keys ` announce line
# read as the file and one `s` mark)
# The test function is the id's run up to its first `[`, holding a `::` with a character after it
# (checked by the lookahead): `\S+::[^\s\[]+` split a long run of colons in n^2 ways.
# A verbose row: the file is the run before the first `::`; the test id runs to the verdict (it may
# hold spaces: parametrize ids), then the progress column (`[ 42%]`, or `[ 12/300]` by count).
_PROGRESS_COL = r"(?: +\[\s*\d+(?:%|/\s*\d+)\])?"
PASSED_ROW_RE = re.compile(r"^(?P<id>(?P<file>[^\s:]+)::\S.*) (?P<v>(?:SUB)?PASSED)" + _PROGRESS_COL + r" *$")
XDIST_PASSED_RE = re.compile(r"^\[gw\d+\]" + _PROGRESS_COL +
                             r" (?P<v>PASSED|SUBPASSED(?:\([^()]*\))?) (?P<id>(?P<file>[^\s:]+)::\S.*)$")
ANNOUNCE_RE = re.compile(r"^(?P<id>[^\s:]+::\S.*?) $")
CARET_RE = re.compile(r"^\s*\^+\s*$")
DOCS_RE = re.compile(r"^-- Docs: https://docs\.pytest\.org/\S*$")
BLOCK_HEAD_RE = re.compile(r"^_{3,} .+ _{3,}$|^_ .+ _$")
KEEP_IN_BLOCK_RE = re.compile(r"^(?:>|E(?:\s|$))|^\S+:\d+: \S|^-{3,} .+ -{3,}$")
LONG_TB_RE = re.compile(r"--tb=(?:long|native)|--full-trace|-l|--showlocals|-vv+|-[a-zA-Z]*vv[a-zA-Z]*")

FRAME_RE = re.compile(r'^\s+File "(?P<path>[^"]+)", line \d+, in \S')
INTERNAL_PATH_RE = re.compile(r"[/\\](?:site|dist)-packages[/\\](?:_pytest|pluggy)[/\\]")
FRAME_BODY_RE = re.compile(r"^\s{4,}\S")
SHORT_FRAME_RE = re.compile(r"^\S+:\d+: in \S+$")
"""A ``--tb=short`` frame's location line (its code line follows)."""
FULL_TRACE_RE = re.compile(r"--full-trace")

_MARK_NAMES = {".": "passed", "s": "skipped", "x": "xfailed", "X": "xpassed"}
_FAIL_SECTIONS = ("FAILURES", "ERRORS")


def _final_line(lines: tuple[str, ...]) -> int | None:
    """Index of pytest's final counts line (among the last non-blank lines), or ``None``."""
    seen = 0
    for i in range(len(lines) - 1, -1, -1):
        if not lines[i].strip():
            continue
        if COUNTS_RE.match(lines[i]):
            return i
        seen += 1
        if seen >= 3:
            return None
    return None


def _progress_outcomes(line: str) -> dict[str, int] | None:
    """Counts of a droppable progress line (no failure in it), or ``None`` to keep the line.

    Only lines of marks are progress: the one-row-per-test lines of ``-v`` are what the user asked
    for, so they are never dropped here (passing ones fold per file, see ``_fold_passing``).
    """
    m = PROGRESS_RE.match(line)
    if m is None or "F" in m.group("marks") or "E" in m.group("marks"):
        return None
    counts: dict[str, int] = {}
    for ch in m.group("marks"):
        counts[_MARK_NAMES[ch]] = counts.get(_MARK_NAMES[ch], 0) + 1
    return counts


def _summary(dropped: int, totals: dict[str, int]) -> str:
    """The one declared line standing for the dropped progress lines."""
    order = ("passed", "skipped", "xfailed", "xpassed")
    parts = ", ".join(f"{totals[k]} {k}" for k in order if totals.get(k))
    return f"[thresher: {plural(dropped, 'progress line')} not shown ({parts})]"


def _run_region(lines, crit: list[bool], final: int):
    """Keep flags for the lines before the first section banner, plus progress counts."""
    keep = [True] * len(lines)
    totals: dict[str, int] = {}
    dropped, first = 0, None
    for i, line in enumerate(lines[:final]):
        if BANNER_RE.match(line) and not HEADER_RE.match(line):
            return keep, totals, dropped, first, i
        if crit[i]:
            continue
        if HEADER_RE.match(line):
            keep[i] = False
            continue
        counts = _progress_outcomes(line)
        if counts is not None:
            keep[i] = False
            dropped += 1
            first = i if first is None else first
            for k, v in counts.items():
                totals[k] = totals.get(k, 0) + v
        elif not line.strip() and i > 0 and not keep[i - 1]:
            keep[i] = False
    return keep, totals, dropped, first, final


def _fold_passing(lines, crit: list[bool], keep: list[bool], start: int, summaries: dict[int, str]) -> None:
    """Verbose runs: per test file, its first PASSED row stays and the others go, counted.

    Rows are ``file::id PASSED [ n%]`` and xdist's ``[gwN] [ n%] PASSED file::id`` (whose
    ``file::id `` announce line goes with it); SUBPASSED rows of subtests are counted apart. Every other row (FAILED, ERROR, SKIPPED, XFAIL, XPASS)
    and every critical line stays where it is; see :mod:`passing_rows`.
    """
    announced: dict[str, int] = {}
    rows = []
    for i in range(start):
        line = lines[i]
        m = PASSED_ROW_RE.match(line) or XDIST_PASSED_RE.match(line)
        if m is None:
            if a := ANNOUNCE_RE.match(line):
                announced[a["id"]] = i
            continue
        if crit[i]:
            continue
        a = announced.pop(m["id"].rstrip(), None)
        verdict = "SUBPASSED" if m["v"].startswith("SUB") else "PASSED"   # subtests count apart
        rows.append(passing_rows.Row(i, f"{verdict} rows of {m['file']}", () if a is None or crit[a] else (a,)))
    passing_rows.fold(rows, keep, summaries)


def _condense(lines, crit: list[bool], keep: list[bool], start: int, final: int) -> tuple[int, int]:
    """Shorten failure blocks in FAILURES/ERRORS to their essential lines; (blocks, lines dropped)."""
    section, blocks, dropped = None, 0, 0
    for i in range(start, final):
        line = lines[i]
        m = BANNER_RE.match(line)
        if m:
            section = m.group("title")
            continue
        if section not in _FAIL_SECTIONS:
            continue
        if BLOCK_HEAD_RE.match(line):
            blocks += 1
        elif keep[i] and not crit[i] and not KEEP_IN_BLOCK_RE.match(line):
            keep[i] = False
            dropped += 1
        elif CARET_RE.match(line) and i > start and not keep[i - 1]:
            keep[i - 1] = True  # a kept ^^^ marker keeps the code line it points into
            dropped -= 1
        elif (line.startswith("E") and i - 1 > start and not keep[i - 1] and keep[i - 2]
              and FRAME_BODY_RE.match(lines[i - 1]) and SHORT_FRAME_RE.match(lines[i - 2])):
            keep[i - 1] = True  # --tb=short: the innermost frame's code line (long form's `>`)
            dropped -= 1
    return blocks, dropped


def _fold_internal_frames(payload, keep: list[bool], start: int, final: int) -> dict[int, str]:
    """Drop runs of native-traceback frames inside pytest/pluggy; one counted line per run."""
    lines, summaries = payload.lines, {}
    # a run starts at an internal frame line only: those are found first (one find pass for the
    # 'File "' every frame line holds, a match on the lines holding it), the walk jumps between them
    cands = candidate_mask(lines[start:final], ('File "',), "", False)
    at = range(final - start) if cands is None else ones(cands)
    heads = [start + k for k in at
             if (m := FRAME_RE.match(lines[start + k])) and INTERNAL_PATH_RE.search(m.group("path"))]
    tiers, origin = payload.tiers, payload.origin
    i = start
    for head in heads:
        if head < i:
            continue
        i = run_start = head
        cut = 0
        while i < final and (m := FRAME_RE.match(lines[i])) and INTERNAL_PATH_RE.search(m.group("path")):
            j = i + 1
            while j < final and FRAME_BODY_RE.match(lines[j]) and not FRAME_RE.match(lines[j]):
                j += 1
            if any(origin[k] < 0 or tiers[origin[k]] == CRITICAL for k in range(i, j)):
                break
            for k in range(i, j):
                keep[k] = False
            cut, i = cut + j - i, j
        if cut:
            summaries[run_start] = f"[thresher: {plural(cut, 'line')} of frames inside pytest/pluggy not shown]"
        else:
            i += 1
    return summaries


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Payload | None:
    """The distilled pytest view, or ``None`` when this is not a complete pytest run."""
    lines = payload.lines
    if any(map(str.startswith, lines, repeat("INTERNALERROR>"))):
        return None
    final = _final_line(lines)
    if final is None:  # `python -m unittest` shares the class: try its shape before declining
        from thresher.stages.runners import distill_unittest  # (only then: a pytest run skips it)
        return distill_unittest.distill(payload, ctx.budget if ctx is not None else None)
    crit = critical_flags(payload)
    keep, totals, dropped, first, start = _run_region(lines, crit, final)
    docs = candidate_mask(lines[start:final], ("-- Docs: ",), "", False)   # (DOCS_RE's literal)
    for i in (range(start, final) if docs is None else (start + k for k in ones(docs))):
        if DOCS_RE.match(lines[i]) and not crit[i]:
            keep[i] = False
    summaries = {first: _summary(dropped, totals)} if dropped else {}
    if not has_flag(payload.argv, FULL_TRACE_RE):
        summaries.update(_fold_internal_frames(payload, keep, start, final))
    if params["fold_passing"]:
        _fold_passing(lines, crit, keep, start, summaries)
    view = list(compress(lines, keep))
    if (params["condense_over_budget"] and over_budget(view, ctx.budget)
            and not has_flag(payload.argv, LONG_TB_RE)):
        blocks, cut = _condense(lines, crit, keep, start, final)
        if cut:
            at = next(i for i in range(start, final) if BANNER_RE.match(lines[i])
                      and BANNER_RE.match(lines[i]).group("title") in _FAIL_SECTIONS) + 1
            summaries[at] = (f"[thresher: {plural(blocks, 'failure block')} shortened to header, "
                             f"> and E lines and locations ({plural(cut, 'line')} not shown)]")
    return build(payload, keep, summaries)
