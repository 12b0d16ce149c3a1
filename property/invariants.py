"""Invariant checks over one emission: each raises AssertionError naming the invariant and the evidence.

Every check takes a :class:`~thresher.property.strategies.Case` and what the engine made of it (a
``Result`` of ``compress(..., trace=True)``) and judges it against the raw input with an oracle that is
independent of the engine's own bookkeeping (see ``oracle.py``). Checks that need more runs (INV-1
determinism, INV-5 fail-open) make them through :func:`run_case`.

INV-5 injects faults by pointing one node of a plan copy at :func:`fault_raise`, :func:`fault_sleep`
or :func:`fault_overrun` (plans name stage code as ``"module:attr"``, so no engine hook is needed).
The timers are hang guards only (DESIGN §2b), so a sleeping stage must yield the raw input.
"""

from __future__ import annotations

import copy
import re
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, cast

from thresher.dataflow.api import Result, compress
from thresher.dataflow.errors import ArchiveError
from thresher.dataflow.executor import LOAD_BEARING, LOSSY
from thresher.dataflow.markers import CLIP_RE, FOOTER_RE, is_clip_of
from thresher.dataflow.tokens import estimate

from .oracle import Reading, clean_line, colour_stripped, input_lines, is_error, read_params
from .strategies import Case

if TYPE_CHECKING:
    from thresher.dataflow.shapes import Plan

STRUCTURED_RE = re.compile(r"--porcelain\b|--format[= ]csv\b")
"""Command-line flags that ask for output a program will parse (DESIGN.md INV-9)."""
DOCUMENT_RE = re.compile(r"--json\b|(?:^|\s)-o\s*(?:json|yaml)\b|--format[= ](?:json|yaml)\b"
                         r"|--output[= ](?:json|yaml)\b")
"""Flags that ask for one JSON/YAML document: a program reading it gets it byte-exact, and so does
the agent unless the graph shows documents to the agent (Guard ``sniff_json: false``, issue 16)."""

FAULTS = ("raise", "timeout", "overrun")
"""Faults INV-5 injects; ``"swallow"`` (a stage that catches the timeout) is also understood."""
FAULT_STAGE_MS = 80
"""Stage hang guard of INV-5 runs: low enough to keep the timeout fault cheap."""
OVERRUN_MS = 60
"""Graph hang guard of the ``overrun`` fault (the faulty stage sleeps past it)."""
_HERE = __name__


def run_case(case: Case, plan: dict, archive, trace: bool = True, **kwargs: Any) -> Result:
    """Compress ``case`` with ``plan``, archiving into ``archive`` (the trace costs ~2x the run)."""
    return compress(case.raw, command=case.command, exit_code=case.exit_code, plan=cast("Plan", plan),
                    archive=archive, trace=trace, **kwargs)


def _line(lines: list[str], i: int) -> str:
    return f"output line {i + 1} {lines[i][:120]!r}"


def check_deterministic(case: Case, result: Result, plan: dict, archive) -> None:
    """INV-1: the same case through the same plan twice gives byte-identical output."""
    again = run_case(case, plan, archive, trace=False)
    if again.output != result.output:
        at = next((i for i, (a, b) in enumerate(zip(result.output, again.output)) if a != b),
                  min(len(result.output), len(again.output)))
        raise AssertionError(
            f"INV-1: two runs differ from byte {at} ({result.emission.decision}: "
            f"{result.emission.reason!r} vs {again.emission.decision}: {again.emission.reason!r})")


MASKED_RE = re.compile(r"(?m)\[thresher: value masked, \d+ chars(?:, \d+ lines)?\]"
                       r"|^\[thresher: printenv output (?:line )?masked, ")
"""A secret's value masked (env/printenv/.env ``NAME=[...]``, a JSON ``"key": "[...]"``, a header
``> Authorization: [...]``): the one exemption from INV-2."""


def check_never_worse(case: Case, result: Result) -> None:
    """INV-2: the output's estimated tokens never exceed the raw input's — unless it masks a secret
    (hiding a credential outranks a few tokens)."""
    t_in = estimate(case.raw.decode("utf-8", "replace"))
    out = result.output.decode("utf-8", "replace")
    t_out = estimate(out)
    if t_out > t_in and not MASKED_RE.search(out):
        raise AssertionError(f"INV-2: output estimated at {t_out} tokens, input at {t_in} "
                             f"({result.emission.decision}: {result.emission.reason!r})")


def check_no_fabrication(case: Case, result: Result, plan: dict) -> Reading:
    """INV-3: every output line is a (cleaned or clipped) input line, a true summary, or the footer."""
    r = Reading(case.raw, result.output, plan)
    for i in r.unmatched:
        m = FOOTER_RE.match(r.lines[i])
        what = (f"a footer naming handle {m['handle']}, not this payload's" if m else
                "not an input line (after Read's cleaning), in input order, nor a clipped one")
        raise AssertionError(f"INV-3: {_line(r.lines, i)} is {what}")
    writers = [n for n in plan["nodes"].values() if n["emits_summaries"] and n["phase"] != "route"]
    latest = r.latest() if r.summaries else []
    for i in sorted(set(r.summaries) - r.ambiguous):
        if not writers:
            raise AssertionError(f"INV-3: {_line(r.lines, i)} is a summary, but no stage of this "
                                 f"graph may write one")
        problem = r.summary_problem(i, latest)
        if problem:
            raise AssertionError(f"INV-3: {_line(r.lines, i)}: {problem}")
    return r


def check_one_footer(case: Case, result: Result, plan: dict, archive) -> None:
    """INV-4/INV-7: one footer exactly when lossy, last, with true counts and an expandable handle."""
    r = Reading(case.raw, result.output, plan)
    if r.passthrough:
        return
    amb, clipped = len(r.ambiguous), len(r.clipped_at)
    synthetic = len(r.summaries) - amb
    kept_lo, kept_hi = r.kept, r.kept + amb
    surely_lossy = kept_hi < r.total or clipped or synthetic or r.unmatched
    maybe_lossy = kept_lo < r.total or clipped or r.summaries or r.unmatched
    if len(r.footers) > 1:
        raise AssertionError(f"INV-4: {len(r.footers)} footers (lines {[i + 1 for i in r.footers]})")
    if not r.footers:
        if surely_lossy:
            raise AssertionError(f"INV-4: lossy output without a footer: {kept_lo} of {r.total} input "
                                 f"lines shown, {clipped} clipped, {synthetic} summary lines")
        return
    at = r.footers[0]
    if at != len(r.lines) - 1:
        raise AssertionError(f"INV-4: the footer is {_line(r.lines, at)}, not the last line")
    if not maybe_lossy:
        raise AssertionError("INV-4: a footer on an output that shows every input line unchanged")
    m = FOOTER_RE.match(r.lines[at])
    omitted, total, fclip = int(m["omitted"]), int(m["total"]), int(m["clipped"] or 0)
    if total != r.total:
        raise AssertionError(f"INV-4: footer says {total} lines in all, the input has {r.total}")
    if not r.unmatched and not total - kept_hi <= omitted <= total - kept_lo:
        raise AssertionError(f"INV-4: footer says {omitted} omitted but {kept_lo} of {total} lines "
                             f"are shown (kept + omitted != total)")
    if fclip != clipped:
        raise AssertionError(f"INV-4: footer says {fclip} clipped, the output has {clipped}")
    span = m.groupdict()
    if span.get("first"):
        _check_span(r, int(span["first"]), int(span["last"]))
    try:
        original = archive.get(m["handle"])
    except ArchiveError as exc:
        raise AssertionError(f"INV-7: thresher expand {m['handle']} fails: {exc}") from None
    if original != case.raw:
        raise AssertionError(f"INV-7: thresher expand {m['handle']} is not the original byte-exact")


def _check_span(r: Reading, first: int, last: int) -> None:
    """The footer's ``--lines A-B`` names input lines that exist and are all omitted."""
    if not 1 <= first <= last <= r.total:
        raise AssertionError(f"INV-4: footer names --lines {first}-{last} of a {r.total}-line input")
    shown = r.forced_into(first - 1, last - 1, r.latest())
    if shown is not None:
        raise AssertionError(f"INV-4: footer's --lines {first}-{last} are said to be omitted, but "
                             f"{_line(r.lines, shown)} is one of them")


def error_lines(case: Case, plan: dict) -> list[str]:
    """The input's lines, as Read leaves them, that the oracle's own error shapes call errors.

    Lines matching a ``not_critical`` regex that the graph's Score node declares (diff content,
    passing test rows named after errors) are exempt: the graph says in writing they are data.
    """
    params = read_params(plan)
    p = params[0] if params else {"strip_ansi": False, "redraws": False}
    exempt = [re.compile(rx) for n in plan["nodes"].values() if n["phase"] == "score"
              for rx in n["params"].get("not_critical") or []]
    # When Read declines (no escapes, no CRs) cleaning is the identity, so this is the engine's view.
    failed = failing(case, plan)
    cleaned = (clean_line(s, p["strip_ansi"], p["redraws"], failed) for s in input_lines(case.raw))
    return [s for s in cleaned if is_error(s) and not any(rx.search(s) for rx in exempt)]


def failing(case: Case, plan: dict) -> bool:
    """The command failed: a non-zero exit the graph does not declare in writing as a result
    (``result_exits``: ``diff`` exits 1 when the inputs differ, ``grep`` when nothing matched)."""
    return case.exit_code not in (None, 0) and case.exit_code not in plan.get("result_exits", ())


def check_error_lines_kept(case: Case, result: Result, plan: dict, allow_clipped: bool = False) -> None:
    """INV-6: when the command failed, every error line of the input is in the output byte-exact.

    With ``allow_clipped`` an error line longer than Read's ``max_line_chars`` may instead appear
    clipped with its marker (what the engine does today; see tests/test_properties.py).
    """
    if not failing(case, plan) or result.output in (case.raw, colour_stripped(case.raw)):
        return  # passed whole: every line as a terminal shows it (CR redraws included)
    shown = Counter(result.output.decode("utf-8", "replace").split("\n"))
    errors = error_lines(case, plan)
    if allow_clipped:
        for line in [s for s in shown if CLIP_RE.search(s)]:
            full = next((e for e in errors if is_clip_of(line, e)), None)
            if full is not None:
                shown[full] += shown[line]
    for line, n in Counter(errors).items():
        if shown[line] < n:
            raise AssertionError(f"INV-6: error line {line[:160]!r} occurs {n}x in the input, "
                                 f"{shown[line]}x in the output (exit code {case.exit_code})")


def check_no_rejections(case: Case, result: Result) -> None:  # noqa: ARG001 - every check takes (case, result)
    """No stage of the graph was rejected by the executor's per-stage invariant checks."""
    for rec in result.trace.records:
        if rec["decision"] == "rejected":
            raise AssertionError(f"stage {rec['node']!r} ({rec['stage']}) was rejected: {rec['reason']}")


def sniffs_json(plan: dict) -> bool:
    """False when the graph's Guard declares ``sniff_json: false`` (JSON shown to the agent)."""
    guards = [n for n in plan["nodes"].values() if n["phase"] == "guard"]
    return not guards or any(n["params"].get("sniff_json", True) for n in guards)


def structured_reason(case: Case, plan: dict | None = None) -> str | None:
    """Why ``case`` is data a program will parse (a flag, or a JSON document), or None.

    A JSON document counts unless ``plan``'s Guard opts out with ``sniff_json: false`` (the json
    and log graphs: JSON there is read by the agent, and the flags above still pass byte-exact).
    """
    if STRUCTURED_RE.search(case.command) or \
            (DOCUMENT_RE.search(case.command) and (plan is None or sniffs_json(plan))):
        return f"command {case.command!r} asks for structured output"
    if (plan is None or sniffs_json(plan)) and case.raw.lstrip()[:1] in (b"{", b"["):
        import orjson
        try:
            orjson.loads(case.raw)
            return "the output is a JSON document"
        except orjson.JSONDecodeError:
            return None
    return None


def check_structured_exact(case: Case, result: Result, plan: dict | None = None) -> None:
    """INV-9: output a program will parse (``--json`` etc., or a JSON document) passes byte-exact."""
    why = structured_reason(case, plan)
    if why is None and plan is not None and DOCUMENT_RE.search(case.command):
        # a document the agent reads may be crushed; a program reading it gets every byte
        why, result = (f"command {case.command!r} asks for a document a program reads",
                       compress(case.raw, command=case.command, exit_code=case.exit_code,
                                plan=cast("Plan", plan), reader="program"))
    if why and result.output != case.raw:
        raise AssertionError(f"INV-9: {why}, but the output differs from the input "
                             f"({result.emission.decision}: {result.emission.reason!r})")


# ---- INV-5: fault injection --------------------------------------------------------------------

def fault_raise(payload, params, ctx):  # noqa: ARG001 - a stage: run(payload, params, ctx)
    """A stage that always raises."""
    raise RuntimeError("injected fault")


def fault_sleep(payload, params, ctx):  # noqa: ARG001 - a stage: run(payload, params, ctx)
    """A stage that runs past its hang guard, then returns a drastic change (which must be dropped)."""
    time.sleep(ctx.budget["stage_ms"] / 1000 * 5)
    return payload.select(range(min(1, len(payload.lines))))


def fault_swallow(payload, params, ctx):  # noqa: ARG001 - a stage: run(payload, params, ctx)
    """A stage that catches every exception (the timeout too) while it overruns its budget."""
    end = time.perf_counter() + ctx.budget["stage_ms"] / 1000 * 3
    while time.perf_counter() < end:
        try:
            time.sleep(0.005)
        except Exception:  # noqa: BLE001 - the point: a broad handler deep inside a stage or library
            pass
    return payload.select(range(min(1, len(payload.lines))))


def fault_overrun(payload, params, ctx):  # noqa: ARG001 - a stage: run(payload, params, ctx)
    """A stage that stays within its own budget but overruns the whole graph's, then declines."""
    time.sleep(ctx.budget["total_ms"] / 1000 + 0.02)
    return None


def decline(payload, params, ctx):  # noqa: ARG001 - a stage: run(payload, params, ctx)
    """A stage that always declines (what a failed stage must be equivalent to)."""
    return None


def faulty_plan(plan: dict, node_id: str, impl: str, **budget: int) -> dict:
    """A copy of ``plan`` whose node ``node_id`` runs ``impl`` and whose budget is updated."""
    new = copy.deepcopy(plan)
    new["nodes"][node_id]["impl"] = impl
    new["budget"].update(budget)
    return new


def _records(result: Result, node_id: str) -> list[dict]:
    return [rec for rec in result.trace.records if rec["node"] == node_id]


def check_fail_open(case: Case, plan: dict, archive, node_id: str, fault: str) -> None:
    """INV-5: a stage that raises acts as if it declined, and the trace says why; when Guard or
    Score raises no lossy stage runs (raw, or the error fallback of a failing command); a hang
    guard that fires (a stage that sleeps or swallows the timer) means the raw input, byte-exact."""
    if fault == "overrun":
        return _check_overrun(case, plan, archive, node_id)
    impl, why = {"raise": (f"{_HERE}:fault_raise", "RuntimeError"),
                 "timeout": (f"{_HERE}:fault_sleep", "StageTimeout"),
                 "swallow": (f"{_HERE}:fault_swallow", "StageTimeout")}[fault]
    broken = run_case(case, faulty_plan(plan, node_id, impl, stage_ms=FAULT_STAGE_MS), archive)
    recs = [r for r in _records(broken, node_id) if r["decision"] != "skipped"]  # never ran
    for rec in recs:
        if rec["decision"] != "failed" or "INV-5" not in rec["reason"] or why not in rec["reason"]:
            raise AssertionError(f"INV-5: node {node_id!r} hit by {fault!r} recorded as "
                                 f"{rec['decision']!r} ({rec['reason']!r}), not failed/{why}")
    if not recs:
        return  # the node never ran on this case (another branch, or skipped)
    if fault != "raise" or plan["nodes"][node_id]["phase"] in LOAD_BEARING:
        return _check_halted(case, plan, broken, node_id, fault)
    nxt = plan["nodes"][node_id]["ports"]["out"]
    if nxt and not _records(broken, nxt):
        raise AssertionError(f"INV-5: after {node_id!r} failed, the rest of the graph ({nxt!r}) "
                             f"did not run")
    calm = run_case(case, faulty_plan(plan, node_id, f"{_HERE}:decline", stage_ms=FAULT_STAGE_MS),
                    archive)
    if any(r["decision"] == "failed" for r in calm.trace.records + broken.trace.records
           if r["node"] != node_id):
        return  # another stage overran the lowered hang guard too: the comparison would be noise
    if broken.output != calm.output:
        raise AssertionError(f"INV-5: with {node_id!r} failing ({fault}) the output differs from "
                             f"the output when it declines ({broken.emission.decision} vs "
                             f"{calm.emission.decision})")


def _check_halted(case: Case, plan: dict, res: Result, node_id: str, fault: str) -> None:
    """After a hang guard fired or a load-bearing stage failed: raw output, or (Score failed on
    a failing command) no lossy stage applied and every error line of the input kept."""
    if res.output == case.raw:
        return
    lossy = [r for r in res.trace.records if r["decision"] == "applied"
             and plan["nodes"][r["node"]]["phase"] in LOSSY]
    if fault != "raise" or plan["nodes"][node_id]["phase"] != "score" or not failing(case, plan) or lossy:
        raise AssertionError(f"INV-5: {node_id!r} hit by {fault!r}, but the output is not the raw "
                             f"input ({res.emission.decision}: {res.emission.reason!r}; lossy "
                             f"stages applied: {[r['node'] for r in lossy]})")
    check_error_lines_kept(case, res, plan)


def _check_overrun(case: Case, plan: dict, archive, node_id: str) -> None:
    """A graph-budget overrun: the next stage is not run, the output is raw, the trace says why."""
    p = faulty_plan(plan, node_id, f"{_HERE}:fault_overrun", total_ms=OVERRUN_MS,
                    stage_ms=OVERRUN_MS * 20)
    res = run_case(case, p, archive)
    recs = res.trace.records
    over = [r for r in recs if r["decision"] == "failed" and "graph hang guard" in r["reason"]]
    ran = [i for i, r in enumerate(recs) if r["node"] == node_id]
    if ran and ran[0] < len(recs) - 1 and not over:
        raise AssertionError(f"INV-5: {node_id!r} overran the graph hang guard but the next stage ran "
                             f"({recs[ran[0] + 1]['node']!r}: {recs[ran[0] + 1]['decision']})")
    if over and res.output != case.raw:
        raise AssertionError(f"INV-5: graph hang guard fired but the output is not the raw input "
                             f"({res.emission.decision}: {res.emission.reason!r})")
