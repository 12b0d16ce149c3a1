"""distill-go on real go runs: banners and no-test rows counted, failures and diagnostics kept."""

from __future__ import annotations

import pytest
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.stages.runners import distill_go

from .conftest import fixture_case, seen_by_agent


def _distill(text: str, exit_code: int = 1):
    return distill_go.run(initial_payload(text.encode(), command="go test ./...", exit_code=exit_code), {}, None)


@pytest.mark.parametrize("cid", ["go-own-test-fail", "go-own-test-verbose-huge", "go-own-build-error",
                                 "go-own-vet"])
def test_every_fact_survives(cid):
    case = fixture_case(cid)
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_banners_are_counted_exactly_and_failures_stay():
    case = fixture_case("go-own-test-verbose-huge")
    p = _distill(case["stdout"])
    src = case["stdout"].splitlines()
    kept = [i for i, line in enumerate(src) if distill_go.BANNER_RE.match(line) and line in p.lines]
    # a banner stays only where the test's own output follows it (it names whose output that is)
    assert all(not distill_go.BANNER_RE.match(src[i + 1]) and "--- " not in src[i + 1] for i in kept)
    banners = sum(1 for line in src if distill_go.BANNER_RE.match(line)) - len(kept)
    passes = [line for line in src if "--- PASS" in line]
    assert [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC] == [
        f"[thresher: {banners} lines not shown ({banners} RUN/PAUSE/CONT banners)]",
        f"[thresher: {len(passes) - 1} more --- PASS rows of example.com/shop/cart not shown]"]
    assert all(line in p.lines for line in src if "--- FAIL" in line or line.startswith(("FAIL", "    cart_test")))
    assert passes[0] in p.lines   # the package's first --- PASS row stays


def test_no_test_files_rows_are_counted_and_panics_stay():
    case = fixture_case("go-own-test-fail")
    p = _distill(case["stdout"])
    summary = [line for line, o in zip(p.lines, p.origin) if o == SYNTHETIC][0]
    assert "1 packages without test files" in summary
    assert all(line in p.lines for line in case["stdout"].splitlines()
               if line.startswith(("panic:", "goroutine", "\t/")) or "FAIL" in line)


def test_json_events_and_plain_diagnostics_are_left_alone():
    events = '{"Action":"run","Test":"TestA"}\n' * 5 + '{"Action":"output","Output":"=== RUN   TestA\\n"}\n'
    assert _distill(events) is None
    assert _distill(fixture_case("go-own-build-error")["stderr"]) is None
