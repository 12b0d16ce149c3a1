"""Shapes found by the developer-tool generalization sweep (fixtures: benchmarks/capture_sweep_dev.py)."""

from __future__ import annotations

import re

from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.stages.runners import distill_go
from thresher.stages.runners import distill_unittest

from .conftest import fixture_case, seen_by_agent


def test_go_verbose_keeps_the_banner_naming_a_failing_subtests_message():
    case = fixture_case("go-sweep-test-v-messages")
    src = case["stdout"].splitlines()
    p = distill_go.run(initial_payload(case["stdout"].encode(), command=case["command"],
                                       exit_code=case["exit_code"]), {}, None)
    assert p is not None
    view = list(p.lines)
    for i, line in enumerate(src[:-1]):
        if line.startswith("    ") and ".go:" in line and src[i - 1].startswith("=== RUN"):
            at = view.index(line)
            assert view[at - 1] == src[i - 1]  # the subtest's banner right above its message
    dropped = sum(1 for line in src if distill_go.BANNER_RE.match(line)) - sum(
        1 for line in view if distill_go.BANNER_RE.match(line))
    assert dropped > 0
    assert any(f"{dropped} lines not shown ({dropped} RUN/PAUSE/CONT banners)" in line for line in view)
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_go_test_single_dash_json_passes_byte_exact():
    case = fixture_case("go-sweep-test-json")
    assert case["verbatim"] and case["stdout"].count("\n") > 20
    assert seen_by_agent(case) == case["stdout"] + case["stderr"]


def test_tsc_pretty_frames_go_without_leaving_runs_of_blank_lines():
    case = fixture_case("tsc-sweep-pretty-many")
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    assert "\n\n\n" in case["stdout"]  # a blank line on each side of every code frame
    assert "\n\n\n" not in out
    m = re.search(r"\[thresher: code snippets of (\d+) diagnostics not shown \((\d+) lines\)\]", out)
    assert m and int(m.group(1)) == sum(1 for f in case["must_keep"] if " - error TS" in f)
    shown = [line for line in out.splitlines() if not line.startswith("[thresher:")]
    assert int(m.group(2)) == case["stdout"].count("\n") - len(shown)


def test_cargo_backtrace_toolchain_frames_go_counted_and_assert_values_stay():
    case = fixture_case("cargo-sweep-test-backtrace")
    src = case["stdout"].splitlines()
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    shown = out.splitlines()
    for line in src:   # every left/right value and every frame in the crate's own code stays
        if re.match(r"^\s*(?:left|right): |^\s+at \./src/", line):
            assert line in shown, line
    assert not any("at /rustc/" in line for line in shown)
    # each backtrace's counted line says exactly how many toolchain frame lines it stands for
    counted = [int(m.group(1)) for m in re.finditer(
        r"\[thresher: (\d+) lines of Rust toolchain backtrace frames not shown\]", out)]
    toolchain = sum(1 for line in src if "at /rustc/" in line) * 2   # a name line and its location
    assert counted and sum(counted) == toolchain
    assert len(counted) == sum(1 for line in src if line == "stack backtrace:")


def _internal_frame_lines(src: list[str]) -> int:
    """Lines of native-traceback frames in pytest's/pluggy's code: File line, code, markers."""
    n, inside = 0, False
    for line in src:
        m = re.match(r'^\s+File "([^"]+)", line \d+, in \S', line)
        if m:
            inside = re.search(r"[/\\](?:site|dist)-packages[/\\](?:_pytest|pluggy)[/\\]", m.group(1)) is not None
        elif not re.match(r"^\s{4,}\S", line):
            inside = False
        n += inside
    return n


def test_pytest_native_tracebacks_lose_pytest_internal_frames_with_exact_counts():
    case = fixture_case("pytest-sweep-tb-native")
    src = case["stdout"].splitlines()
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact
    shown = out.splitlines()
    counted = [int(m.group(1)) for m in re.finditer(
        r"\[thresher: (\d+) lines of frames inside pytest/pluggy not shown\]", out)]
    internal = _internal_frame_lines(src)
    still = _internal_frame_lines([line for line in shown if not line.startswith("[thresher:")])
    assert counted and sum(counted) + still == internal
    assert len(out) < len(case["stdout"]) / 3
    # the user's own frames and the failing lines stay whole
    for i, line in enumerate(src):
        if re.match(r'^\s+File "\S*test_native\.py"', line):
            assert line in shown and src[i + 1] in shown


def test_unittest_over_budget_drops_block_rules_not_traceback_lines():
    case = fixture_case("unittest-sweep-many-failures")
    src = case["stderr"].splitlines()
    for fact in case["must_keep"]:
        assert fact in seen_by_agent(case), fact
    # the distiller itself, over a budget the run exceeds: the rules go, counted, and every
    # traceback line (File line, code line, exception) stays
    payload = initial_payload(case["stderr"].encode(), command=case["command"],
                              exit_code=case["exit_code"])
    view = distill_unittest.run(payload, {}, Context({"max_lines": 100, "max_tokens": 2000},
                                                     None, "0" * 12, "t"))
    shown = list(view.lines)
    for line in src:
        if line.startswith(("  File ", "    ", "Traceback ")):
            assert line in shown, line
    out = "\n".join(shown)
    m = re.search(r"\[thresher: (\d+) lines framing the failure blocks not shown", out)
    rule = re.compile(r"^(?:={20,}|-{20,})$")
    heads = [i for i, line in enumerate(src) if re.match(r"^(?:FAIL|ERROR): ", line)]
    framing = sum(bool(rule.match(src[i - 1])) + bool(rule.match(src[i + 1]))
                  + (rule.match(src[i - 1]) is not None and i >= 2 and not src[i - 2].strip()) for i in heads)
    assert m and int(m.group(1)) == framing > 2 * len(heads)  # the rules on each side, blank lines


def test_cargo_snippets_go_but_underline_labels_stay():
    case = fixture_case("cargo-sweep-build-labels")
    src = case["stderr"].splitlines()
    out = seen_by_agent(case)
    shown = out.splitlines()
    for fact in case["must_keep"]:
        assert fact in out, fact
    assert "code snippets of" in out   # over budget: the snippets did go
    assert not any(re.match(r"^\s*\d+ \| ", line) for line in shown)   # numbered code lines
    for line in src:   # every error's labels ("expected `String`, found integer") stay
        if re.match(r"^\s*\|.*[\^-]+ expected ", line):
            assert line in shown, line


def _check_sections(case_id: str, row_re: str):
    case = fixture_case(case_id)
    src = case["stdout"].splitlines()
    where, names = None, set()
    for line in src:   # (directory, row) pairs of the real listing
        if line.endswith(":"):
            where = line
        elif re.match(row_re, line):
            names.add((where, line))
    out = seen_by_agent(case)
    shown = out.splitlines()
    for fact in case["must_keep"]:
        assert fact in out, fact
    where, rows = None, 0
    for line in shown:
        if line.startswith("[thresher:"):
            continue
        if line.endswith(":"):
            where = line
        elif re.match(row_re, line):
            assert (where, line) in names, (where, line)   # never under another directory
            rows += 1
    root = src[0][:-1]
    first = re.search(rf"\[thresher: (\d+) more entries in {re.escape(root)} (?:not shown|shown by "
                      rf"name only: [^\]]*)\]", out)
    rest = re.search(r"\[thresher: (\d+) of (\d+) directory listings not shown \((\d+) entries\)", out)
    assert first and rest and rows > 50
    assert int(rest.group(2)) == sum(1 for line in src if line.endswith(":")) - 1
    assert rows + int(first.group(1)) + int(rest.group(3)) == len(names)
    return shown


def test_plain_ls_recursive_never_shows_a_name_under_the_wrong_directory():
    _check_sections("ls-sweep-recursive-plain", r"^(?!total \d)\S")


def test_long_ls_recursive_with_more_headers_than_budget_still_shows_rows():
    shown = _check_sections("ls-sweep-recursive-long", r"^[-dl][-rwxsStT]{9}")
    assert len(shown) <= 801   # the listing budget (800 lines) and the footer
