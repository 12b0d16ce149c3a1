"""The deterministic data plane: work budgets, load-bearing Guard/Score, the core error scan,
and the fast paths that must agree exactly with the slow definitions they replace."""

from __future__ import annotations

import copy
import glob
import json
import os
import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.errorscan import ERROR_RE, error_indices, fallback, is_error_line
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import CRITICAL
from thresher.dataflow.plan import load_plans, program_basenames
from thresher.dataflow.tokens import estimate

from .conftest import fixture_case

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_TEXTS = []
for _path in sorted(glob.glob(os.path.join(HERE, "fixtures", "*.json"))):
    with open(_path, encoding="utf-8") as _fh:
        _case = json.load(_fh)
    FIXTURE_TEXTS.append((_case.get("stdout") or "") + (_case.get("stderr") or ""))


def _plan(gid: str) -> dict:
    return copy.deepcopy(load_plans().plans[gid])


# ---- fast paths equal their definitions ----------------------------------------------------------

_FOUR = [re.compile(r"[^\W\d_]{1,8}"), re.compile(r"\d{1,3}"),
         re.compile(r"\*{4,}|={4,}|-{4,}|#{4,}|\.{4,}|_{4,}|/{4,}|~{4,}|\+{4,}|[^\w\s]{1,2}|_"),
         re.compile(r"\s{2,}|\n")]


def _four_scan(text: str) -> int:
    n = sum(len(rx.findall(text)) for rx in _FOUR)
    return n if text.isascii() else n + (len(text.encode("utf-8", "surrogatepass")) - len(text)) // 2


def test_one_scan_estimator_counts_what_four_separate_scans_count():
    """The estimator's single alternation gives the same count as its four character classes
    scanned one by one, on every captured fixture (ASCII and not)."""
    assert len(FIXTURE_TEXTS) > 100
    for text in FIXTURE_TEXTS + ["", "héllo wörld ——— ****\n\n  x_y__z 12345", "\x1c\x1d a\u3000b"]:
        assert estimate(text) == _four_scan(text[:1 << 20]) or len(text) > 1 << 20


def test_fast_error_search_agrees_with_the_case_insensitive_pattern():
    """Score's lower-cased ASCII search finds exactly the lines the IGNORECASE pattern finds."""
    checked = 0
    for text in FIXTURE_TEXTS:
        for line in text.split("\n"):
            assert is_error_line(line) == bool(ERROR_RE.search(line)), line
            checked += 1
    assert checked > 50_000


# ---- classify by program basename (issue 14 defect 5) -------------------------------------------

@pytest.mark.parametrize("command, expected", [
    ("/usr/bin/git status", "git-status"), ("/usr/bin/git diff HEAD~1", "git-diff"),
    ("/usr/local/bin/cargo test", "cargo"), ("./node_modules/.bin/tsc --noEmit", "lint"),
    ("/opt/venv/bin/python3 -m pytest -q", "pytest"), ("/usr/bin/ls -la", "listing"),
    ("FOO=1 /usr/bin/npm install", "npm"), ("make && /usr/bin/go test ./...", "go"),
])
def test_a_program_given_by_path_gets_the_graph_of_its_basename(command, expected):
    """PATH shims run the real tool by absolute path; the class is the bare name's."""
    plans = load_plans()
    assert plans.classify(command) == expected
    assert plans.classify(command) == plans.classify(program_basenames(command))


def test_only_program_words_lose_their_directory():
    assert program_basenames("cat /var/log/syslog") == "cat /var/log/syslog"
    assert program_basenames("git -C /tmp/repo status") == "git -C /tmp/repo status"
    assert program_basenames("/bin/cat ./src/x.py | /usr/bin/grep -n def") == "cat ./src/x.py | grep -n def"


# ---- Guard and Score are load-bearing ------------------------------------------------------------

def _boom(payload, params, ctx):
    raise RuntimeError("score exploded")


def test_failed_score_on_a_failing_command_emits_the_error_fallback_and_no_lossy_stage():
    """With Score failing, no distiller/collapse/ledger runs; every error line is kept byte-exact,
    plus head and tail, and the footer counts what went."""
    case = fixture_case("pytest-sweep-tb-native")
    plan = _plan("pytest.default")
    plan["nodes"]["score"]["impl"] = "tests.test_data_plane:_boom"
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    by_node = {r["node"]: r for r in res.trace.records}
    assert by_node["score"]["decision"] == "failed"
    lossy = [n for n, r in by_node.items() if plan["nodes"][n]["phase"] in ("distill", "collapse", "ledger")]
    assert lossy and all(by_node[n]["decision"] == "skipped" for n in lossy)
    assert res.emission.decision == "compressed"
    shown = res.text.splitlines()
    for line in case["stdout"].splitlines():
        if ERROR_RE.search(line):
            assert line in shown
    assert shown[-1].startswith("[thresher: ") and "thresher expand" in shown[-1]


@pytest.mark.parametrize("node", ["guard", "score"])
def test_failed_guard_or_score_on_a_passing_command_emits_raw(node):
    case = fixture_case("pytest-fail-verbose")
    plan = _plan("pytest.default")
    plan["nodes"][node]["impl"] = "tests.test_data_plane:_boom"
    res = compress(case["stdout"], command=case["command"], exit_code=0, plan=plan, trace=True)
    assert res.output == case["stdout"].encode()
    assert f"{node} failed" in res.emission.reason


def test_fallback_keeps_every_error_line_and_fills_the_rest_with_head_and_tail():
    lines = [f"step {i} ok" for i in range(300)]
    lines[150] = "error: linker failed: undefined reference to `main'"
    lines[151] = "ValueError: bad value"
    p = initial_payload(("\n".join(lines) + "\n").encode(), exit_code=1)
    view = fallback(p, 20)
    kept = list(view.origin)
    assert 150 in kept and 151 in kept
    assert kept == sorted(kept) and len(kept) == 20
    assert kept[:9] == list(range(9)) and kept[-9:] == list(range(291, 300))


def test_core_scan_finds_errors_a_graph_exempts_but_not_passing_rows():
    src = ("tests/test_x.py::test_handles_errors PASSED", "   Compiling serde v1.0.1",
           "E       assert 4 == 5", "error[E0308]: mismatched types", "fatal: not a git repository",
           "Traceback (most recent call last):", "npm ERR! code ENOENT", "panic: runtime error",
           "error TS2322: Type 'string' is not assignable", "  at std::panicking::begin_panic")
    assert error_indices(src) == [2, 3, 4, 5, 6, 7, 8]


# ---- work, not time ------------------------------------------------------------------------------

def _sleepy(payload, params, ctx):
    import time
    time.sleep(0.3)
    return payload.select(range(min(3, len(payload.lines))))


def test_a_hang_guard_that_fires_emits_the_raw_input_never_a_lossy_continuation():
    case = fixture_case("pytest-fail-verbose")
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["impl"] = "tests.test_data_plane:_sleepy"
    plan["budget"]["stage_ms"] = 50
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    assert res.output == case["stdout"].encode()
    assert "hang guard" in res.emission.reason
    assert not [r for r in res.trace.records if r["node"] in ("collapse", "trim")]


def test_a_stage_over_its_work_cap_declines_up_front_whatever_the_clock():
    case = fixture_case("pytest-fail-verbose")
    plan = _plan("pytest.default")
    plan["nodes"]["distill"]["max_input"] = 100
    res = compress(case["stdout"], command=case["command"], exit_code=1, plan=plan, trace=True)
    rec = next(r for r in res.trace.records if r["node"] == "distill")
    assert rec["decision"] == "declined" and "work cap (100)" in rec["reason"]


def test_default_hang_guards_are_generous():
    for plan in load_plans().plans.values():
        assert plan["budget"]["stage_ms"] >= 30_000 and plan["budget"]["total_ms"] >= 60_000


# ---- templates keep what tells kinds apart (issue 15 item 3) -------------------------------------

def _failed_kinds(text: str) -> dict[str, str]:
    """(method, path with digits masked, status) of each failed request → its first line."""
    kinds: dict[str, str] = {}
    for line in text.splitlines():
        m = re.search(r'"([A-Z]+) (\S*) HTTP/[\d.]+" ([45]\d\d) ', line)
        if m:
            kinds.setdefault(f"{m[1]} {re.sub(r'[0-9]+', '#', m[2])} {m[3]}", line)
    return kinds


def test_low_cardinality_fields_split_a_template_group_by_kind():
    """The real nginx access log, all in one masked group: statuses and methods (few distinct
    values) split it; paths, sizes and times (many values, or masked) do not."""
    from thresher.stages.logs.distill_log import refine
    lines = fixture_case("log-sweep-nginx-access")["stdout"].splitlines()
    blocks = [(i, i + 1) for i in range(len(lines))]
    groups = refine({"all": list(range(len(lines)))}, blocks, lines)
    statuses = {re.search(r'" (\d{3}) ', lines[m[0]])[1] for m in groups.values()}
    assert {"200", "404", "403", "502", "405"} <= statuses
    for members in groups.values():
        assert len({re.search(r'" (\d{3}) ', lines[b])[1] for b in members}) == 1
    assert len(groups) <= 12


def test_every_kind_of_failed_request_keeps_a_verbatim_line_in_a_large_access_log():
    """The real nginx log replayed to ~1.5 MB (its lines, unchanged, repeated): compressed, and
    each (method, path shape, status) of a failed request shows one byte-exact line."""
    text = fixture_case("log-sweep-nginx-access")["stdout"]
    big = text * (1_500_000 // len(text))
    res = compress(big, command="cat /var/log/nginx/access.log", exit_code=0)
    assert res.emission.decision == "compressed"
    shown = set(res.text.splitlines())
    kinds = _failed_kinds(big)
    assert len(kinds) >= 4
    for kind in kinds:
        assert any(_failed_kinds(s) == {kind: s} for s in shown), kind


# ---- INV-1 under load (issue 15 item 6) ----------------------------------------------------------

_BUSY = "import time\nend = time.monotonic() + 90\nwhile time.monotonic() < end:\n    pass\n"


def test_output_is_byte_identical_while_other_processes_saturate_the_cpu():
    """Determinism does not depend on machine load: the same inputs give the same bytes on a
    quiet machine and with two busy loops per core running (bounded, always cleaned up)."""
    import subprocess
    import sys
    ids = ["log-sweep-nginx-access", "pytest-sweep-tb-native", "build-own-gcc-warnings-huge",
           "cargo-own-check-warnings-huge", "git-log-patch", "log-own-http-server"]
    cases = [fixture_case(i) for i in ids]
    runs = [(c["stdout"] + c["stderr"]) * 20 if i.startswith("log") else c["stdout"] + c["stderr"]
            for i, c in zip(ids, cases)]
    quiet = [compress(t, command=c["command"], exit_code=c["exit_code"]).output
             for t, c in zip(runs, cases)]
    busy = [subprocess.Popen([sys.executable, "-c", _BUSY]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        for _ in range(2):
            loaded = [compress(t, command=c["command"], exit_code=c["exit_code"]).output
                      for t, c in zip(runs, cases)]
            assert loaded == quiet
    finally:
        for p in busy:
            p.kill()
            p.wait()
    assert sum(1 for q, t in zip(quiet, runs) if len(q) < len(t.encode())) >= 4


def test_code_outline_declines_a_source_file_over_its_work_cap_before_parsing(tmp_path):
    """tree-sitter's parse cannot be interrupted: a 5 MB `cat big.py` is declined by size, up
    front, and still comes back compressed (head, tail, footer) rather than raw."""
    import thresher.dataflow.executor as ex
    with open(ex.__file__, encoding="utf-8") as fh:
        src = fh.read()
    big = src * (5_000_000 // len(src) + 1)
    res = compress(big, command="cat big.py", exit_code=0, trace=True)
    rec = next(r for r in res.trace.records if r["stage"] == "code-outline")
    assert rec["decision"] == "declined" and "work cap" in rec["reason"]
    assert res.emission.decision == "compressed" and res.text.splitlines()[0] == src.splitlines()[0]


def test_run_streams_raw_only_past_a_generous_hang_guard():
    """`thresher run` holds output until the command ends unless it runs past the hang guard:
    a suite that takes 25 s on a busy machine is compressed like one that takes 15 s."""
    from thresher.cmd_run import parse
    opts, cmd = parse(["--", "pytest", "-q"])
    assert cmd == ["pytest", "-q"] and opts["stream_after"] >= 300


def test_log_templates_depend_only_on_the_digit_shape_of_a_line():
    """The template memo keys lines by their digits 1-9 mapped to 1: on every captured line the
    template of the line and of its digit shape agree (critical or not)."""
    from thresher.stages.logs.distill_log import Templates, template
    memo = Templates()
    checked = 0
    for text in FIXTURE_TEXTS:
        for line in text.split("\n")[:400]:
            for crit in (False, True):
                assert memo(line, crit) == template(line, crit), line
            checked += 1
    assert checked > 30_000


# CORE_ERROR_RE as first written, one alternative per shape: the factored pattern must agree
_CORE_PLAIN = re.compile(
    r"(?i:\b(?:error|fatal|panic|exception|failure)\b\s?[:\[(!]|^\s*\[?(?:error|fatal|failed|panic)\]?\s"
    r"|\berror\[?[A-Z]+\d+\]?\b|\bnpm ERR!|\bsegmentation fault\b|\bcore dumped\b|\btraceback \(most"
    r"|\bundefined reference\b|\bno such file or directory\b|\bpermission denied\b|\bcommand not "
    r"found\b)"
    r"|^(?:E|FAILED|ERROR|FAIL)(?:\s|:)|^\s*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)\b"
    r"|\bAssertionError\b|\bCaused by:|^Exception in thread \"|\bassert(?:ion)? failed\b|--- FAIL:")


def test_error_candidates_are_a_superset_of_the_error_lines():
    """Score searches ERROR_RE only on lines holding one of its words: no fixture line that the
    pattern matches is outside the candidate set."""
    from thresher.dataflow.errorscan import error_candidates
    for text in FIXTURE_TEXTS:
        lines = text.split("\n")
        assert error_indices(lines) == [i for i, line in enumerate(lines) if _CORE_PLAIN.search(line, 0, 4096)]
        cands = error_candidates(lines)
        if cands is None:
            continue
        assert all(cands[i] for i, line in enumerate(lines) if ERROR_RE.search(line))


def test_candidates_survive_lower_casing_that_changes_lengths():
    """U+0130 lower-cases to two characters: offsets of later lines still map to the right line."""
    from thresher.dataflow.errorscan import candidates
    lines = ["\u0130\u0130\u0130 ok", "all fine", "ERROR: disk full", "\u212a fatal: bad object"]
    assert candidates(lines, ("error", "fatal")) == {2, 3}
    assert error_indices(lines) == [2, 3]


def test_every_graph_that_lists_its_own_structured_flags_keeps_porcelain():
    """A graph overriding Guard's structured-output flags must still pass `--porcelain` output
    byte-exact (the toml graph's list lacked it: a property-test failure under the ci profile)."""
    text = "".join(f"  - name: svc-{i}\n    replicas: {i % 4}\n" for i in range(200))
    for gid, plan in load_plans().plans.items():
        guard = next(n for n in plan["nodes"].values() if n["phase"] == "guard")
        if "structured_flags" in guard["params"]:
            res = compress(text, command="tool --porcelain", plan=plan)
            assert res.output == text.encode(), gid


def test_line_patterns_agree_with_one_union_search():
    """LinePatterns (anchored patterns tried at position 0 only) gives the answer of one plain
    union search, for every graph's Score patterns on every fixture line."""
    from thresher.stages.lib.text import LinePatterns, anchored
    assert anchored(r"^a|^b") and anchored(r"(?:^x|^y)z") and anchored(r"(^E)\s")
    assert not anchored(r"a|^b") and not anchored(r"(?:^|\s)x") and not anchored(r"(?=^x)")
    sets = set()
    for plan in load_plans().plans.values():
        for node in plan["nodes"].values():
            if node["stage"] == "score":
                for key in ("critical", "noise", "not_critical"):
                    if node["params"].get(key):
                        sets.add(tuple(node["params"][key]))
    assert len(sets) > 10
    lines = [line for text in FIXTURE_TEXTS for line in text.split("\n")[:300]]
    for pats in sets:
        fast, plain = LinePatterns(pats), re.compile("|".join(f"(?:{p})" for p in pats))
        want = [plain.search(s) is not None for s in lines]
        assert [fast.search(s) for s in lines] == want, pats
        assert fast.scan(lines) == want, pats


def test_needed_literals_are_needed():
    """Every line a graph pattern matches holds one of the literals needed_literals names."""
    from thresher.stages.lib.text import needed_literals
    assert needed_literals(r"\b(?:DETAIL|HINT):  \S|\bdeadlock\b") == {"DETAIL", "HINT", "deadlock"}
    assert needed_literals(r"(?i:warn)") is None and needed_literals(r"a?|b") is None
    assert needed_literals(r"(?=.*\bfoo\b)x+") == {"x"} and needed_literals(r"x(?!abcd)") == {"x"}
    pats = {p for plan in load_plans().plans.values() for node in plan["nodes"].values()
            if node["stage"] == "score" for key in ("critical", "noise", "not_critical")
            for p in node["params"].get(key) or ()}
    lines = [line for text in FIXTURE_TEXTS for line in text.split("\n")[:300]]
    told = 0
    for p in pats:
        lits, rx = needed_literals(p), re.compile(p)
        if lits is None:
            continue
        told += 1
        for s in lines:
            if rx.search(s):
                assert any(lit in s for lit in lits), (p, lits, s)
    assert told > len(pats) // 2


def test_digit_blind_patterns_answer_the_same_for_a_line_and_its_digit_key():
    """A pattern digit_blind calls blind matches a line exactly when it matches the line with
    every digit made 0 (checked for every graph pattern on every fixture line, and on lines
    built to tell digits apart); patterns that read digits are not called blind."""
    from thresher.dataflow.errorscan import digit_keys
    from thresher.dataflow.regex_needles import digit_blind
    from thresher.stages.lib.text import LOCATION_RE
    for p in (r"[45]\d\d", r"0x", r"[^0-5]", r"(a)\1", r"(?(1)a|b)", r"\x31"):
        assert not digit_blind(p), p
    for p in (r"\d+ passed", r"[0-9a-f]{7,}", r"[^\s:]+:\d+", r"\bline \d+\b", r"(?i:error)\b"):
        assert digit_blind(p), p
    pats = {p for plan in load_plans().plans.values() for node in plan["nodes"].values()
            if node["stage"] == "score" for key in ("critical", "noise", "not_critical", "critical_next")
            for p in node["params"].get(key) or ()} | {LOCATION_RE.pattern}
    blind = [re.compile(p) for p in pats if digit_blind(p)]
    assert len(blind) > len(pats) // 2
    lines = [line for text in FIXTURE_TEXTS for line in text.split("\n")[:300]]
    lines += ["GET / HTTP/1.1\" 404 -", "1 passed in 0.12s", "a.py:12:3: E501", "level=50"]
    keys, index = digit_keys(lines)
    assert len(index) == len(lines) and len(keys) < len(lines)
    checked = 0
    for rx in blind:
        for line, k in zip(lines, index):
            assert (rx.search(line) is None) == (rx.search(keys[k]) is None), (rx.pattern, line)
            checked += 1
    assert checked > 100_000
    assert keys[index[-2]] == "a.py:00:0: E000" and digit_keys(["a\nb"]) is None


def test_score_from_digit_keys_tiers_as_the_per_line_rule_does():
    """Forced onto its digit-key path (lines sharing a key scored once, digit-reading patterns on
    the lines), Score gives the tiers of the plain per-line rule on every fixture, for every
    graph's score params, failing or not (the other fixtures than the test above: every third)."""
    from thresher.dataflow import errorscan
    from thresher.dataflow.payload import IMPORTANT
    from thresher.stages.ingest import score
    plans = load_plans().plans
    params = {json.dumps(n["params"], sort_keys=True): n["params"] for p in plans.values()
              for n in p["nodes"].values() if n["stage"] == "score"}
    compared = keyed = 0
    for text in FIXTURE_TEXTS[1::3]:
        memo: dict = {}
        for code in (0, 1):
            p = initial_payload(text.encode("utf-8", "surrogateescape"), exit_code=code)
            scan = errorscan.source_scan(p)
            scan._keys[:] = [errorscan.digit_keys(p.source)]   # whatever the sample says
            keyed += scan._keys[0] is not None
            for par in params.values():
                got = score.run(p, par, None)
                want = _plain_tiers(p.source, par, bool(code), memo)
                assert (got.tiers if got is not None else (IMPORTANT,) * len(p.source)) == want
                compared += 1
    assert compared > 500 and keyed > 50


def test_critical_flags_from_digit_keys_are_those_from_the_lines():
    """critical_flags and the core error scan answer the same through the source's digit keys as
    line by line, on every
    fixture of a failing command, for its first view and for a view with a clipped line."""
    from thresher.dataflow import errorscan
    compared = flagged = 0
    for text in FIXTURE_TEXTS[::2]:
        p = initial_payload(text.encode("utf-8", "surrogateescape"), exit_code=1)
        if len(p.source) < 3:
            continue
        views = [p, p.with_view((p.lines[0][:5],) + p.lines[1:], p.origin)]
        for v in views:
            plain = errorscan.source_scan(v)
            plain._keys[:] = [None]
            want = errorscan.critical_flags(v)
            keyed = initial_payload(text.encode("utf-8", "surrogateescape"), exit_code=1)
            kv = keyed if v is p else keyed.with_view((keyed.lines[0][:5],) + keyed.lines[1:], keyed.origin)
            errorscan.source_scan(kv)._keys[:] = [errorscan.digit_keys(kv.source)]
            assert errorscan.critical_flags(kv) == want
            assert errorscan.error_indices(kv.source, errorscan.source_scan(kv)) == \
                errorscan.error_indices(kv.source)
            compared += 1
            flagged += sum(want)
    assert compared > 100 and flagged > 1000


def test_a_critical_traceback_frame_keeps_its_source_line():
    """The source line under a critical `File "...", line N` frame is critical too (it says what
    failed); a frame the graph exempts keeps its code line exempt."""
    from thresher.stages.ingest import score
    src = ['Traceback (most recent call last):',
           '  File "/srv/app/server.py", line 14, in do_GET',
           '    share = 100 // totals[key]',
           '            ~~~~^^~~~~~~~~~~~',
           'ZeroDivisionError: integer division or modulo by zero',
           '127.0.0.1 - - "GET / HTTP/1.1" 200 -']
    p = initial_payload("\n".join(src).encode(), command="cat app.log", exit_code=0)
    params = {"critical": [r"^\w+Error: "], "noise": [], "locations_on_failure": False}
    tiers = score.run(p, params, None).tiers
    assert [t == CRITICAL for t in tiers] == [True, True, True, False, True, False]
    exempt = score.run(p, {**params, "not_critical": [r'^\s+File "/srv/']}, None).tiers
    assert exempt[1] != CRITICAL and exempt[2] != CRITICAL


def test_kind_fields_match_the_plain_rule_on_fixture_logs():
    """distill-log's one-pass kind fields equal the rule written plainly (every row's fields
    held at once), on each fixture's lines grouped by template."""
    from thresher.stages.logs import distill_log as dl

    def plain(members, blocks, lines):
        rows = [lines[blocks[b][0]].split() for b in members]
        width = min(len(r) for r in rows)
        return [pos for pos in range(width)
                if 1 < len(vals := {r[pos] for r in rows}) <= dl.LOW_CARDINALITY
                and len(vals) * dl.KIND_REPEATS <= len(members)
                and not any(dl._TIME_FIELD.search(v) for v in vals)]

    checked = 0
    for text in FIXTURE_TEXTS:
        lines = text.split("\n")
        blocks = [(i, i + 1) for i in range(len(lines))]
        groups: dict = {}
        shape = dl.Templates()
        for b, line in enumerate(lines):
            groups.setdefault(shape(line, False), []).append(b)
        for members in groups.values():
            if len(members) >= 2 * dl.KIND_REPEATS:
                assert dl._kind_fields(members, blocks, lines) == plain(members, blocks, lines)
                checked += 1
    assert checked > 50


# TIMESTAMP_RE as first written, each alternative opening with its word boundary: the form that
# opens with one character class must mask the same spans
_TIMESTAMP_PLAIN = re.compile(
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?"
    r"(?:Z|[+-]\d\d:?\d\d| (?:UTC|GMT|[A-Z]{1,2}[SD]T|MSK|JST|IST)\b)?"
    r"|\b[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?"
    r"|\[\d\d/[A-Z][a-z]{2}/\d{4}[: ]\d\d:\d\d:\d\d(?: [+-]\d{4})?\]"
    r"|\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b")


def test_log_timestamps_are_masked_as_by_the_word_boundary_first_pattern():
    """On every fixture line (and on lines starting or ending with each kind of stamp) the log
    timestamp pattern finds the same spans as its plain form; masking a chunk of lines at once
    gives the per-line results."""
    from thresher.stages.logs.distill_log import TIMESTAMP_RE, masked_times
    edge = ["2026-12-02 05:29:50,123 x", "Dec  2 05:29:50 host", "[02/Dec/2026 05:29:50] GET",
            "x 05:29:50", "a05:29:50", "ADec  2 05:29:50", "Dec  2 05:29:50"]
    checked = 0
    for text in FIXTURE_TEXTS + ["\n".join(edge)]:
        lines = text.split("\n")
        for line in lines:
            assert [m.span() for m in TIMESTAMP_RE.finditer(line)] == \
                [m.span() for m in _TIMESTAMP_PLAIN.finditer(line)], line
            checked += 1
        assert masked_times(lines, range(len(lines))) == \
            {i: _TIMESTAMP_PLAIN.sub("<ts>", line) for i, line in enumerate(lines)}
    assert checked > 30_000


def _plain_tiers(lines, params, failed, memo=None):
    """Score's rule applied line by line, as first written (the reference for its fast form).

    ``memo``: a dict kept for one text across calls, so each pattern set is searched and each
    line's error test run once per text, not once per graph and exit status (pure functions of
    the line: the same answers, fewer calls)."""
    from thresher.dataflow.errorscan import is_error_line
    from thresher.stages.ingest.score import _FRAME, tier
    from thresher.stages.lib.text import LinePatterns
    from thresher.dataflow.payload import CRITICAL
    memo = {} if memo is None else memo

    def hits(patterns):
        key = tuple(patterns)
        if key not in memo:
            union = LinePatterns(patterns) if patterns else None
            memo[key] = [union is not None and union.search(s) for s in lines]
        return memo[key]
    if "errors" not in memo:
        memo["errors"] = [is_error_line(s) for s in lines]
    errs = memo["errors"]
    ex, no, cr = hits(params.get("not_critical") or []), hits(params["noise"]), hits(params["critical"])
    tiers = [tier(s, failed, cr[i], no[i], params["locations_on_failure"], ex[i], errs[i])
             for i, s in enumerate(lines)]
    for i in range(len(lines) - 1):
        if tiers[i] == CRITICAL and tiers[i + 1] != CRITICAL and not ex[i + 1] and "File" in lines[i]:
            m = _FRAME.match(lines[i])
            if m and lines[i + 1].startswith(m[1] + " ") and lines[i + 1].strip():
                tiers[i + 1] = CRITICAL
    heads = hits(params.get("critical_next") or [])   # a header's message: the next non-blank line
    for i in (i for i, h in enumerate(heads) if h):
        j = next((j for j in range(i + 1, min(i + 3, len(lines))) if lines[j].strip()), None)
        if j is not None:
            tiers[j] = CRITICAL
    return tuple(tiers)


def test_score_tiers_every_fixture_line_as_the_per_line_rule_does():
    """Score scores each distinct line once and looks one by one only at lines that can be
    critical: on every fixture, for the score params of every graph, failing or not, its tiers
    are those of the plain per-line rule."""
    from thresher.dataflow.payload import IMPORTANT
    from thresher.stages.ingest import score
    plans = load_plans().plans
    params = {json.dumps(n["params"], sort_keys=True): n["params"] for p in plans.values()
              for n in p["nodes"].values() if n["stage"] == "score"}
    assert len(params) >= 5
    compared = 0
    for text in FIXTURE_TEXTS[::3]:
        memo: dict = {}
        for code in (0, 1):
            p = initial_payload(text.encode("utf-8", "surrogateescape"), exit_code=code)
            for par in params.values():
                got = score.run(p, par, None)
                want = _plain_tiers(p.source, par, bool(code), memo)
                assert (got.tiers if got is not None else (IMPORTANT,) * len(p.source)) == want
                compared += 1
    assert compared > 500


def test_candidate_masks_are_the_plain_per_line_test():
    """The chunked literal prefilter marks exactly the lines that hold a word (lower-cased, or as
    written) or start with one of the given characters."""
    from thresher.dataflow.errorscan import _CORE_WORDS, _WORDS, candidate_mask
    wants = [(_WORDS, "eE", True), (_CORE_WORDS, "EF", True), ((":1", "line "), "", False),
             (("x",), "EF>", False)]
    mixed = "\n".join(["Error: ascii", "ünïcode error", "İNVALID", "", "Ünknown x", "E ok", "plain"] * 3)
    for text in FIXTURE_TEXTS + [mixed]:
        lines = text.split("\n")
        for words, firsts, fold in wants:
            got = candidate_mask(lines, words, firsts, fold)
            if got is None:
                continue
            assert list(got) == [int(bool(s) and s[0] in firsts or any(
                w in (s.lower() if fold else s) for w in words)) for s in lines]


def test_one_source_scan_serves_both_error_scans():
    """Every core-scan word holds an error word or one of the extra words, so the one superset
    scan of a source (SourceScan) gives Score, protect and critical_flags the very masks and lines
    their own scans did, on every fixture."""
    from thresher.dataflow.errorscan import (_CORE_WORDS, _MORE_WORDS, _WORDS, SourceScan,
                                             candidate_mask, error_candidates)
    assert all(any(w in core for w in _WORDS + _MORE_WORDS) for core in _CORE_WORDS)
    for text in FIXTURE_TEXTS:
        lines = text.split("\n")
        scan = SourceScan(lines)
        uniq = list(dict.fromkeys(lines))
        assert scan.uniq == uniq
        assert scan.error_mask() == error_candidates(uniq)
        assert scan.core_mask() == candidate_mask(uniq, _CORE_WORDS, "EF")
        assert error_indices(lines, scan) == error_indices(lines)
        view = lines[::3] + ["not a line of the source: error here", "E   also new"]
        maybe = set(scan.maybe(dict.fromkeys(view)))
        cands = error_candidates(view)
        assert {s for s, c in zip(view, cands) if c} <= maybe


def test_round_robin_interleaves_depth_by_depth():
    """Every first item, then every second, ...: the order of padding all sequences to the
    longest, on sequences of very different lengths."""
    from itertools import zip_longest
    from thresher.stages.lib.budget import round_robin
    gap = object()
    for seqs in ([[1], [2, 3, 4, 5], [], [6, 7]], [list(range(50))] + [[i] for i in range(100, 130)],
                 [[], []], [[1, 2]], [[1], [2], [3]]):
        want = [x for row in zip_longest(*seqs, fillvalue=gap) for x in row if x is not gap]
        assert round_robin(seqs) == want
