"""Run a filter's inline tests (control plane; used by ``thresher filters test`` and pytest).

A test feeds its ``input`` through what the generic graph does before the ``filter`` stage — Read
(escape codes and carriage-return redraws cleaned, as the filter's ``strip_ansi`` says) and Score
(line tiers, failure rules when ``exit_code`` is non-zero) — then through the filter, and compares
the filter stage's emission with ``expected``:
- the footer is NOT part of it: the executor appends its single footer line
  (``[thresher: N of M lines omitted · thresher expand …]``) after the filter, on every lossy
  emission, so ``expected`` holds only the lines the filter keeps or writes;
- when the stage declines (nothing changed, or the result would not be smaller), the emission is
  the input itself, so ``expected`` equals the (cleaned) input;
- the Guard stage (tiny outputs, small failures passing byte-exact) is not applied, so short inputs
  test the filter's rules; in a graph such inputs pass whole anyway.
Trailing newlines are not significant (YAML ``|`` and TOML strings differ there). A test with a
``command`` also checks that the filter's ``match`` hits it.
"""

from __future__ import annotations

import difflib

from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload

from thresher.filters import engine
from thresher.filters.model import FilterSpec, FilterTest

_SCORE = {"critical": [], "noise": [], "not_critical": [], "locations_on_failure": True}


def emission(f: dict, test: FilterTest) -> str:
    """What the filter stage emits for ``test`` (before the footer), as text."""
    from thresher.stages.ingest import read
    from thresher.stages.ingest import score
    payload = initial_payload(test.input.encode("utf-8"), command=test.command or "",
                              exit_code=test.exit_code)
    read_params = {"strip_ansi": f["strip_ansi"], "redraws": True, "max_line_chars": 4000}
    ctx = Context({"max_lines": 1 << 30, "max_tokens": 1 << 30, "stage_ms": 0, "total_ms": 0},
                  None, "", "filters-test")   # read and score use no budget, archive or handle
    payload = read.run(payload, read_params, ctx) or payload
    payload = score.run(payload, _SCORE, ctx) or payload
    out = engine.apply(f, payload) or payload
    return "\n".join(out.lines)


def check(f: dict, test: FilterTest) -> str | None:
    """``None`` when ``test`` passes, else a report: why, or a unified diff expected → got."""
    if test.command is not None and not engine.rx(f["match"]).search(test.command):
        return f"match {f['match']!r} does not hit the test's command {test.command!r}"
    got = emission(f, test).rstrip("\n")
    want = test.expected.rstrip("\n")
    if got == want:
        return None
    diff = difflib.unified_diff(want.split("\n"), got.split("\n"), "expected", "got", lineterm="")
    return "\n".join(diff)


def cases(loaded: list[tuple[str, str, FilterSpec]]) -> list[tuple[str, dict, FilterTest]]:
    """``(id, plain filter, test)`` for every inline test of the loaded filters."""
    from thresher.filters.load import plain
    out = []
    for origin, path, spec in loaded:
        f = plain(spec, origin, path)
        for test in spec.tests:
            out.append((f"{spec.name}::{test.name}", f, test))
    return out
