"""Every shipped regex stays linear on adversarial lines (issue 18 §3), and user regexes with a
catastrophic shape are refused at load (§1).

The shipped regexes are collected, not listed: module-level compiled patterns of stages/, dataflow/,
shell/ and filters/ (also inside module-level tuples, lists and dicts), and the regexes of
graphs/*.yaml params (Score's critical/noise/not_critical, Guard's structured_flags),
graphs/classify.yaml and graphs/filters/*. Two checks per regex:

- *shape* (deterministic): :mod:`thresher.dataflow.regex_safety` finds no nested quantifier or
  overlapping alternation (the exponential shapes);
- *scaling*: on lines of 2,000 and 8,000 characters shaped to make backtracking regexes retry (runs
  of one character, of ``::``, of spaces, digits, ``a ``..., and whole inputs of many short lines),
  the work must grow about linearly. Work is the CPU time of this thread (``time.thread_time``:
  time spent descheduled on a busy machine does not count), best of three runs, judged only when
  the long run costs more than 10 ms (a linear regex needs well under 1 ms for 8,000 characters):
  then a ratio above 10 for 4x the input is super-linear (quadratic gives 16). The offenders the
  issue found (0.5-11 s) fail it by far. A wall-clock timer guards against a hang only (2 s).
"""

from __future__ import annotations

import glob
import importlib
import os
import pkgutil
import re
import signal
import time

import pytest
import yaml

from thresher.dataflow.regex_safety import UnsafeRegex, check, find_problem

ROOT = os.path.join(os.path.dirname(__file__), "..")
PACKAGES = ("stages", "dataflow", "shell", "filters")
REGEX_PARAMS = {"critical", "noise", "not_critical", "structured_flags"}
"""Param names whose values are lists of regexes (see stages/params.py)."""
NOT_SHIPPED = {"dataflow.rxcache._BUILT", "dataflow.rxcache._STATE"}
"""The regex cache's own state: patterns of whoever compiled them in this process (the standard
library's among them), not patterns we ship; what it holds depends on what ran before."""
MATCH_ONLY: dict[str, str] = {}
"""Regexes whose every use is ``.match(text, pos)`` with ``pos`` advancing: measured that way."""
SHORT, LONG = 2000, 8000
FLOOR_S = 0.010
MAX_RATIO = 10.0
HANG_S = 2.0


def _walk(obj, name: str, out: list, depth: int = 0) -> None:
    if isinstance(obj, re.Pattern):
        out.append((name, obj.pattern, obj.flags))
    elif depth < 3 and isinstance(obj, (list, tuple, frozenset, set)):
        for i, x in enumerate(obj):
            _walk(x, f"{name}[{i}]", out, depth + 1)
    elif depth < 3 and isinstance(obj, dict):
        for k, v in obj.items():
            _walk(v, f"{name}[{k!r}]", out, depth + 1)


def module_patterns() -> list[tuple[str, str, int]]:
    """``(name, pattern, flags)`` of every module-level compiled regex of the shipped packages."""
    out: list = []
    from thresher.dataflow import plan
    plan.content_member("git show HEAD:a")  # compiles the content-mode patterns (lazy, in a dict)
    for pkg in PACKAGES:
        package = importlib.import_module(f"thresher.{pkg}")
        for info in pkgutil.walk_packages(package.__path__, f"thresher.{pkg}."):
            mod = importlib.import_module(info.name)
            short = info.name.removeprefix("thresher.")
            for attr, value in vars(mod).items():
                if f"{short}.{attr}" in NOT_SHIPPED:
                    continue
                _walk(value, f"{short}.{attr}", out)
    return out


def _graph_patterns(path: str) -> list[tuple[str, str, int]]:
    doc = yaml.safe_load(open(path, encoding="utf-8")) or {}
    layers = [(nid, (node or {}).get("params") or {}) for nid, node in (doc.get("nodes") or {}).items()
              if isinstance(node, dict)]
    layers += list((doc.get("params") or {}).items())
    name = os.path.basename(path)
    return [(f"{name}:{nid}.{key}[{i}]", rx, 0) for nid, params in layers
            for key, value in (params or {}).items() if key in REGEX_PARAMS
            for i, rx in enumerate(value)]


def yaml_patterns() -> list[tuple[str, str, int]]:
    """``(name, pattern, flags)`` of every regex in the shipped graph, classify and filter files."""
    from thresher.filters.load import parse, regex_fields
    out: list = []
    for path in sorted(glob.glob(os.path.join(ROOT, "graphs", "*.yaml"))):
        if path.endswith("classify.yaml"):
            doc = yaml.safe_load(open(path, encoding="utf-8"))
            out += [(f"classify.yaml:{sec}[{i}]", rule["match"], 0)
                    for sec in ("rules", "sniff") for i, rule in enumerate(doc.get(sec) or [])]
        else:
            out += _graph_patterns(path)
    for path in sorted(glob.glob(os.path.join(ROOT, "graphs", "filters", "*.yaml"))):
        with open(path, "rb") as fh:
            for spec in parse(path, fh.read()):
                out += [(f"{os.path.basename(path)}:{spec.name}.{'.'.join(map(str, loc))}", rx, fl)
                        for loc, rx, fl in regex_fields(spec)]
    return out


def shipped() -> list[tuple[str, str, int]]:
    """Every shipped regex once (the first name it was found under)."""
    seen: set = set()
    out = []
    for name, rx, flags in module_patterns() + yaml_patterns():
        if (rx, flags) not in seen:
            seen.add((rx, flags))
            out.append((name, rx, flags))
    return out


SHIPPED = shipped()
_UNITS = ("::", "a ", "0.", "a=", "0:", "a.", "- ", "a/", "ab", "0 ", ", ", "a\t", "_ ", "= ", "'a",
          "a_", "E ", "0,", "1a", " a", ": ", "a:", "|a", "(a", "a-", "Aa", "a,")


def adversarial(n: int) -> dict[str, str]:
    """Lines of about ``n`` characters shaped to make a backtracking regex retry or re-split:
    runs of one character or of a short unit, each also followed by a character nothing expects."""
    out = {}
    for ch in "a: 0.-=_/\\#*(<[\"'|,\t>xEZ|^%":
        out[f"{ch!r}*n"] = ch * n
    for unit in _UNITS:
        out[f"{unit!r}*n"] = unit * (n // len(unit))
    out["E :: a"] = "E " + ":: a " * (n // 5)
    out["pytest id ::"] = "tests/test_x.py::" + "::" * (n // 2) + " PASSED"
    out["pytest param"] = "tests/test_x.py::test_a[" + "a-" * (n // 2) + " FAILED"
    out["prose"] = "Word word, word; word: word " * (n // 28)
    out["gutter"] = "   " + "1 " * (n // 2) + "|"
    # whole inputs (filters' short_circuit regexes search the whole output, multi-line)
    for unit in ("\n", " \n", "\r\n", "a\n", ":\n", "E \n"):
        out[f"lines of {unit!r}"] = unit * (n // len(unit))
    out["prose lines"] = ("The fox, who was tired; jumps over: the dog. " * 4 + "\n") * (n // 181)
    for key in list(out):
        out[key + " + \\x01"] = out[key] + "\x01"
    return out


SHAPES = {SHORT: adversarial(SHORT), LONG: adversarial(LONG)}


class _Hang(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Hang()


def _cost(rx: re.Pattern, text: str, match_only: bool) -> float:
    """Seconds of the regex's use on ``text``: every match found (as sub/findall/search would)."""
    if isinstance(rx.pattern, bytes):
        text = text.encode("utf-8")  # type: ignore[assignment] - a bytes pattern scans raw bytes
    t0 = time.thread_time()
    if match_only:  # as a tokenizer: match where the last token ended, stop at the first miss
        pos = 0
        while pos < len(text) and (m := rx.match(text, pos)) is not None and m.end() > pos:
            pos = m.end()
    else:
        for _ in rx.finditer(text):
            pass
    return time.thread_time() - t0


def _best(rx: re.Pattern, text: str, match_only: bool) -> float:
    return min(_cost(rx, text, match_only) for _ in range(3))


def super_linear(rx: re.Pattern, match_only: bool = False) -> list[str]:
    """The adversarial shapes on which ``rx`` grows super-linearly, with the numbers."""
    bad = []
    old = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for shape, text in SHAPES[LONG].items():
            if len(bad) >= 2:
                break  # enough to show what is wrong, and a failing run stays short
            signal.setitimer(signal.ITIMER_REAL, HANG_S)
            try:
                long_s = _cost(rx, text, match_only)
                if long_s > FLOOR_S:
                    long_s = _best(rx, text, match_only)
            except _Hang:
                bad.append(f"{shape}: over {HANG_S:.0f} s on {len(text)} chars")
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if long_s <= FLOOR_S:
                continue
            short_s = max(_best(rx, SHAPES[SHORT][shape], match_only), 1e-6)
            if long_s / short_s > MAX_RATIO:
                bad.append(f"{shape}: {short_s * 1000:.1f} ms -> {long_s * 1000:.1f} ms for 4x the input")
    finally:
        signal.signal(signal.SIGALRM, old)
    return bad


@pytest.mark.parametrize("name,rx,flags", SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_regex_has_no_catastrophic_shape(name, rx, flags):
    """No shipped regex has a shape the load-time checker refuses in user files."""
    assert find_problem(rx, flags) is None, f"{name}: {find_problem(rx, flags)}"


@pytest.mark.parametrize("name,rx,flags", SHIPPED, ids=[s[0] for s in SHIPPED])
def test_shipped_regex_scales_linearly(name, rx, flags):
    """Each shipped regex's work on adversarial lines grows about linearly with their length."""
    bad = super_linear(re.compile(rx, flags), name in MATCH_ONLY)
    assert not bad, f"{name} {rx!r} is super-linear on: " + "; ".join(bad)


def test_collection_finds_the_regexes_the_issue_named():
    """The collector is not vacuous: the offenders issue 18 named are among the checked regexes."""
    names = {s[0] for s in module_patterns()}
    for want in ("stages.lib.anomaly.NUM_RE", "stages.documents.prose._SENTENCE",
                 "stages.lib.diagnostics.RUST_SNIPPET_RE", "stages.lib.diagnostics.GUTTER_RE",
                 "stages.runners.distill_pytest.PASSED_ROW_RE", "stages.runners.distill_pip._QUOTED",
                 "stages.listings.distill_env._SECRET_VALUE"):
        assert want in names
    assert set(MATCH_ONLY) <= names
    ymls = [s[0] for s in yaml_patterns()]
    assert any(n.startswith("pytest.default.yaml:score.critical") for n in ymls)
    assert any(n.startswith("classify.yaml:rules") for n in ymls)
    assert any(".strip." in n for n in ymls) and len(SHIPPED) > 300


def test_scaling_check_catches_a_quadratic_regex():
    """The scaling check itself works: a known quadratic shape fails it, its linear form passes."""
    assert super_linear(re.compile(r"\s+$"))
    assert not super_linear(re.compile(r"(?<!\s)\s+$"))


# ---- user regexes: refused at load -------------------------------------------------------------

CATASTROPHIC = [r"^(\w+\s?)*$", r"(a+)+b", r"(.*,)*x", r"(?:a|aa)+$", r"(.|\s)*!", r"(\d+\.?)+x",
                r"^(?:[-=*]+\s*)+$", r"(?:\s+\S+|\s+-\S+)*;"]
SAFE = [r"^(\w+\s)*$", r"(\d+\.)+x", r"(\w++\s?)*", r"(?>\w+\s?)*", r"(?:\\.|[^\"\\])*", r"^\s*#",
        r"(?:export|extern|pub(?:\([^)]*\))?)\s+", r"(?:\s+-[cC]\s+\S+|\s+--\S+)*\s+grep",
        r"^(?:FAILED|ERROR) \S", r"^\s*(?:\d+\s*)?\|"]
BAD_RX = r"^(\w+\s?)*$"
"""The classify rule of issue 18 that made `thresher run -- echo ...` take 89 s."""


@pytest.mark.parametrize("rx", CATASTROPHIC)
def test_checker_refuses_catastrophic_shapes(rx):
    """Each exponential shape is refused, and the refusal says what to change."""
    with pytest.raises(UnsafeRegex) as info:
        check(rx)
    assert "fix:" in str(info.value) and repr(rx) in str(info.value)


@pytest.mark.parametrize("rx", SAFE)
def test_checker_accepts_delimited_and_possessive_forms(rx):
    """Delimited, possessive, atomic and alternation-with-distinct-starts forms are accepted."""
    check(rx)


def test_project_graph_with_a_catastrophic_score_regex_is_refused(tmp_path):
    """A graph param regex with a catastrophic shape is a graph error naming file, node and fix."""
    from thresher.dataflow.build import finder, load_all
    from thresher.dataflow.compile import compile_graph
    from thresher.dataflow.errors import GraphErrors
    from thresher.dataflow.plan import discover
    from thresher.dataflow.spec import load_graph
    path = tmp_path / "pytest.default.yaml"
    path.write_text("extends: pytest.default\nparams:\n  score:\n    critical: ['" + BAD_RX + "']\n")
    by_id, _ = load_all(discover() + [("project", str(path))])
    g = load_graph(str(path))
    with pytest.raises(GraphErrors) as info:
        compile_graph(g, None, finder(by_id, g))
    msg = str(info.value)
    assert str(path) in msg and "node 'score'" in msg and "exponential" in msg
    assert "bad param critical" in msg and "item 0" in msg and "possessive" in msg


def test_classify_rule_with_a_catastrophic_regex_is_refused(tmp_path):
    """A classify table's catastrophic rule is an error naming the file, the rule and the fix."""
    from thresher.dataflow.build import load_classify
    path = tmp_path / "classify.yaml"
    path.write_text("rules:\n  - {match: '^ok', class: log}\n  - {match: '" + BAD_RX + "', class: log}\n")
    tables, errors = load_classify([("project", str(path))])
    assert tables["rules"] == [] and len(errors) == 1
    msg = errors[0].render()
    assert str(path) in msg and "rules[1]" in msg and "exponential" in msg and "hint:" in msg


def test_filter_with_a_catastrophic_regex_is_refused_with_its_line(tmp_path):
    """A filter's catastrophic strip regex is refused with its file line and the fix."""
    from thresher.filters.load import FilterErrors, parse
    text = ("filters:\n  - name: demo\n    description: one line\n    match: '(?:^|\\s)rsync\\s'\n"
            "    strip: ['^ok', '" + BAD_RX + "']\n    tests:\n      - name: t\n        input: |\n"
            "          a\n        expected: |\n          a\n")
    path = tmp_path / "f.yaml"
    path.write_text(text)
    with pytest.raises(FilterErrors) as info:
        parse(str(path), text.encode())
    (err,) = info.value.errors
    assert err.line == 5 and "strip.1" in err.problem and "exponential" in err.problem
    assert err.hint and "possessive" in err.hint
