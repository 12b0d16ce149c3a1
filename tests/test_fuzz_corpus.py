"""Fuzz: real tool outputs, damaged the way terminals, pipes and failures damage them, through the
engine (issue 18, "Done when").

Sources: the project's captured fixtures and, when present, the shared corpus (/work/shared/corpus,
read only; skipped when absent). Every mutation family damages a deterministic sample of them
(``random.Random`` seeded by case id and family), bounded so the whole file runs in well under a
minute. Each mutated output goes through :func:`thresher.dataflow.compress` and must hold:

- no exception: ``compress`` returns, and no stage raised (a stage exception is recorded as a
  ``failed`` trace record whose reason names the exception; time-budget overruns are load, not bugs);
- never larger (INV-2, estimated tokens; masked secrets exempt);
- no fabrication (INV-3): every output line is an input line (as Read cleans it, maybe clipped), the
  footer, a marker line of the engine's grammar (:data:`MARKER_LINE`, indented elision lines
  included) whose counts check out, or a shipped filter's declared message or rewrite;
- one footer with kept + omitted == total, expandable byte-exact (INV-4/INV-7);
- for a failing command, every error line of the input is in the output byte-exact (INV-6);
- no 8-bit CSI/OSC escape in an output the engine rewrote (they go like their 7-bit forms).

``python tests/test_fuzz_corpus.py`` prints the tried/survived counts per family.
"""

from __future__ import annotations

import functools
import glob
import os
import random
import re
import sys

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans
from thresher.property.corpus import iter_cases, payload_text
from thresher.property.invariants import (MASKED_RE, check_error_lines_kept, check_never_worse,
                                          check_no_fabrication, check_one_footer)
from thresher.property.oracle import Reading, clean_line, is_declared
from thresher.property.relayout import relays_out
from thresher.property.strategies import Case
from thresher.stores.archive import default_archive

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = (os.path.join(HERE, "fixtures"), os.path.join(HERE, "..", "..", "shared", "corpus"))
PER_SOURCE = 15
"""Cases sampled from each source folder (spread over the folder's sorted ids)."""
MAX_BYTES = 120_000
"""Larger cases are left out of the sample (the engine's speed on them is the benchmarks' job)."""

MARKER_LINE = re.compile(
    r"^\s*\[thresher: .*\]$"                              # whole-line markers
    r"|^\s*\u2026\d+-\d+$"                                 # an elision line (markers.ELISION_RE)
    r"|^(?:export\s+)?[A-Za-z_]\w*=\[thresher: value (?:masked|not shown), [^\]]*\]$"  # env value
    r"|^\s*\"[^\"\n]*\": \"\[thresher: value masked, [^\]]*\]\",?$"  # a masked JSON value
    r"|^[<>*]? ?[\w-]+: \[thresher: value masked, [^\]]*\]$"  # a masked HTTP header
    r"|^\s*(?:- )?\"?[^\"\n]*\"?: \[thresher: [^\]\n]*\]$"  # a YAML/JSON key whose value was summarised
    r"|^\[thresher: printenv output masked, [^\]]*\]$")
"""What a line the engine wrote (not an input line) may look like."""

C1_ESCAPE = re.compile("[\x9b\x9d]")
"""8-bit CSI and OSC introducers: gone from any output the engine rewrote, like ESC [ and ESC ]."""

ERRORS = ("error: linker command failed with exit code 1 (use -v to see invocation)",
          "E       AssertionError: assert 41 == 42",
          "FAILED tests/test_api.py::test_create_user - KeyError: 'id'",
          "src/main.c:12:5: error: expected ';' before '}' token",
          "fatal: not a git repository (or any of the parent directories): .git",
          "Traceback (most recent call last):",
          "npm ERR! code ELIFECYCLE")
"""Error lines as tools print them (gcc/clang, pytest, git, npm, Python)."""


def _failing(code: int | None) -> int:
    return code if code not in (None, 0) else 1


def _lines(text: str) -> list[str]:
    return text.split("\n")


def duplicate(rng: random.Random, text: str, code):
    """A line repeated many times and a block repeated a few times (retries, loops, re-runs)."""
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines[i:i + 1] = [lines[i]] * rng.randint(3, 60)
    j = rng.randrange(len(lines))
    block = lines[j:j + rng.randint(2, 10)]
    lines[j:j] = block * rng.randint(1, 4)
    return "\n".join(lines), code


def truncate(rng: random.Random, text: str, code):
    """Output cut short (a killed process, a full pipe): at a line end or in mid-line."""
    cut = rng.randint(len(text) // 10, max(len(text) * 9 // 10, 1))
    if rng.random() < 0.5:
        cut = text.rfind("\n", 0, cut) + 1 or cut
    return text[:cut], code


def inject_errors(rng: random.Random, text: str, code):
    """Error lines inserted among the output, and the command now failing."""
    lines = _lines(text)
    for _ in range(rng.randint(1, 5)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(ERRORS))
    return "\n".join(lines), _failing(code)


def crlf(rng: random.Random, text: str, code):
    """Windows line ends throughout, half the time from a failing command with an error line."""
    if rng.random() < 0.5:
        text, code = inject_errors(rng, text, code)
    return text.replace("\n", "\r\n"), code


def redraw(rng: random.Random, text: str, code):
    """Carriage-return progress redraws, one of them over an error, the command failing."""
    lines = _lines(text)
    for _ in range(rng.randint(1, 4)):
        steps = "\r".join(f"{p:3d}%" for p in sorted(rng.sample(range(101), 4)))
        lines.insert(rng.randrange(len(lines) + 1), steps)
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(ERRORS) + "\r 50%")
    return "\n".join(lines), _failing(code)


def c1_codes(rng: random.Random, text: str, code):
    """8-bit C1 escapes: 7-bit SGR turned 8-bit, words coloured with U+009B CSI, an OSC link."""
    text = text.replace("\x1b[", "\x9b")
    words = re.findall(r"\b[A-Za-z]{4,}\b", text)
    for word in rng.sample(sorted(set(words)), min(5, len(set(words)))):
        text = text.replace(word, f"\x9b1;31m{word}\x9b0m", 1)
    lines = _lines(text)
    lines.insert(rng.randrange(len(lines) + 1), "\x9d8;;https://example.com\x9cdocs\x9d8;;\x9c")
    return "\n".join(lines), code


def huge_lines(rng: random.Random, text: str, code):
    """A 100 KB line, an 8,000-character run of colons, a 20 KB error line and one whose error
    word comes after 6,000 characters (a long command line echoed before its failure); failing."""
    lines = _lines(text)
    seed = rng.choice([s for s in lines if s.strip()] or ["x"])
    for line in ((seed + " ") * (100_000 // (len(seed) + 1)), ":" * 8000,
                 "error: " + "undefined symbol " * 1200, "-I/usr/include " * 400 + "failed: cc1"):
        lines.insert(rng.randrange(len(lines) + 1), line)
    return "\n".join(lines), _failing(code)


FAMILIES = {f.__name__.replace("_", "-"): f for f in
            (duplicate, truncate, inject_errors, crlf, redraw, c1_codes, huge_lines)}


def sample() -> list[dict]:
    """A deterministic spread of cases from each source folder (absent folders give none)."""
    out = []
    for folder in SOURCES:
        cases = sorted((c for c in iter_cases([folder]) if payload_text(c).strip()
                        and len(payload_text(c).encode()) <= MAX_BYTES), key=lambda c: c["id"])
        step = max(len(cases) // PER_SOURCE, 1)
        out += cases[::step][:PER_SOURCE]
    return out


SAMPLE = sample()


@functools.cache
def filter_rewrites() -> tuple[frozenset, tuple]:
    """What the shipped declarative filters may write instead of an input line: their messages
    (``short_circuit``, ``on_empty``) and their ``replace`` rules."""
    from thresher.filters.load import parse
    messages, rules = set(), []
    for path in sorted(glob.glob(os.path.join(HERE, "..", "graphs", "filters", "*.yaml"))):
        with open(path, "rb") as fh:
            for spec in parse(path, fh.read()):
                messages |= {sc.message for sc in spec.short_circuit} | {spec.on_empty or ""}
                rules += [(re.compile(r.pattern), r.with_) for r in spec.replace]
    return frozenset(messages - {""}), tuple(rules)


def _rewritten(line: str, inputs: list[str]) -> bool:
    """True when ``line`` is a shipped filter's message or its replacement of an input line."""
    messages, rules = filter_rewrites()
    return line in messages or any(rx.search(s) and rx.sub(repl, s) == line
                                   for rx, repl in rules for s in inputs)


def _check_lines(case: Case, res, plan: dict) -> None:
    """INV-3 with the marker grammar: each line an input line, a marker line, or (when a filter
    ran) a filter's declared message or rewrite; counted summaries checked when nothing was
    rewritten."""
    reading = Reading(case.raw, res.output, plan)
    filtered = any(r["stage"] == "filter" and r["decision"] == "applied" for r in res.trace.records)
    inputs = [clean_line(s) for s in reading.source] if reading.unmatched and filtered else []
    for i in reading.unmatched:
        if not (filtered and _rewritten(reading.lines[i], inputs)):
            raise AssertionError(f"INV-3: output line {i + 1} {reading.lines[i][:120]!r} is not an "
                                 "input line, a marker or a filter's declared rewrite")
    for i in reading.summaries:
        if is_declared(reading.lines[i]) and not MARKER_LINE.match(reading.lines[i]) \
                and i not in reading.ambiguous and not _masked_input_line(reading, reading.lines[i]) \
                and not _group_line(reading, reading.lines[i]):
            raise AssertionError(f"INV-3: line {i + 1} {reading.lines[i][:120]!r} carries a marker "
                                 "but is not a marker line")
    if not reading.unmatched:
        check_no_fabrication(case, res, plan)


def _masked_input_line(reading, line: str) -> bool:
    """True when ``line`` is an input line whose secret values were masked: with each
    ``[thresher: value masked, N chars]`` standing for any N characters, it equals an input line
    (mask-json and the env/.env masks write the marker inside the line, in place of the value)."""
    parts = MASKED_RE.split(line)
    if len(parts) < 2 or any(is_declared(p) for p in parts):
        return False
    counts = [int(m) for m in re.findall(r"\[thresher: value masked, (\d+) chars", line)]
    if len(counts) != len(parts) - 1:
        return False
    rx = re.compile("".join(re.escape(p) + (f".{{{n}}}" if k < len(counts) else "")
                            for k, (p, n) in enumerate(zip(parts, [*counts, 0]))), re.S)
    return any(rx.fullmatch(f) for forms in reading.forms for f in forms)


GROUP_LINE = re.compile(r"^\[thresher: the finding above recurs at (\d+) more locations?\] (\S.*)$")


def _group_line(reading, line: str) -> bool:
    """True for a linter/compiler group line (stages/lib/lint_groups.summary) that counts its
    locations exactly and names only locations some input line holds."""
    m = GROUP_LINE.match(line)
    if m is None:
        return False
    body = m[2]
    locs = [x.strip() for x in body.split("-->") if x.strip()] if "-->" in body else body.split()
    return len(locs) == int(m[1]) and all(any(loc in f for forms in reading.forms for f in forms)
                                          for loc in locs)


def _last_line_vanishes(raw: bytes) -> bool:
    text = raw.decode("utf-8", "replace")
    return not text.endswith("\n") and clean_line(text.rsplit("\n", 1)[-1]) == ""


def fuzz_one(case: dict, family: str) -> str | None:
    """Mutate ``case`` with ``family``, compress it, check it; the problem found, or ``None``."""
    rng = random.Random(f"{case['id']}/{family}")
    text, code = FAMILIES[family](rng, payload_text(case), case.get("exit_code"))
    raw = text.encode("utf-8", "surrogateescape")
    mutated = Case(raw, case.get("command", ""), code)
    try:
        res = compress(raw, command=mutated.command, exit_code=code, trace=True)
    except Exception as exc:  # noqa: BLE001 - the point: compress must never raise
        return f"compress raised {type(exc).__name__}: {exc}"
    if "engine error" in res.emission.reason:
        return f"engine error: {res.emission.reason}"
    crashed = [r for r in res.trace.records if r["decision"] == "failed"
               and "StageTimeout" not in r["reason"] and "time budget" not in r["reason"]]
    if crashed:
        return f"stage {crashed[0]['node']!r} raised: {crashed[0]['reason']}"
    if res.emission.decision in ("compressed", "cleaned") and C1_ESCAPE.search(res.text):
        return f"an 8-bit escape left in {res.emission.decision} output [graph {res.graph_id}]"
    plan = load_plans().plans.get(res.graph_id)
    try:
        check_never_worse(mutated, res)
        if plan is not None:
            _check_lines(mutated, res, plan)
            try:
                check_one_footer(mutated, res, plan, default_archive())
            except AssertionError as exc:
                # An unterminated last line that is only an escape (mvn ends with `\n ESC[0m`)
                # cleans to "" and then cannot be told from no line at all: nothing is lost.
                # A JSON re-layout writes `[`, `},` ... lines that equal input lines by chance: the
                # oracle then counts them as kept, and the footer's count looks short.
                if not (str(exc).startswith("INV-4: lossy output without a footer")
                        and _last_line_vanishes(raw)) and not (
                        "kept + omitted != total" in str(exc) and relays_out(plan)):
                    raise
            check_error_lines_kept(mutated, res, plan)
    except AssertionError as exc:
        return f"{exc} [graph {res.graph_id}, {res.emission.decision}]"
    return None


def run_family(family: str) -> tuple[int, list[str]]:
    """``(tried, problems)`` of one family over the whole sample."""
    problems = []
    for case in SAMPLE:
        problem = fuzz_one(case, family)
        if problem:
            problems.append(f"{case['id']}: {problem}")
    return len(SAMPLE), problems


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_mutated_outputs_keep_the_invariants(family):
    """Every mutated output of the family survives: no exception, never larger, no fabrication,
    one true footer, every error line of a failing command kept byte-exact."""
    if not SAMPLE:
        pytest.skip("no fixtures or corpus cases found")
    tried, problems = run_family(family)
    print(f"\nfuzz {family}: tried {tried}, survived {tried - len(problems)}")
    assert not problems, f"{len(problems)} of {tried} failed:\n" + "\n".join(problems[:8])


if __name__ == "__main__":
    total = [0, 0]
    for name in sorted(FAMILIES):
        n, bad = run_family(name)
        total[0] += n
        total[1] += n - len(bad)
        print(f"{name:15s} tried {n:4d}  survived {n - len(bad):4d}")
        for b in bad[:int(sys.argv[1]) if len(sys.argv) > 1 else 3]:
            print("   ", b[:400])
    print(f"{'all':15s} tried {total[0]:4d}  survived {total[1]:4d}")
