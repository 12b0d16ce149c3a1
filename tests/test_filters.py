"""Declarative filters: every shipped filter's inline tests, and the engine's own rules.

Inputs are real captured outputs (tests/fixtures, captured by benchmarks/capture_filter_examples.py);
the filters written here are configuration that exercises one rule each.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.markers import FOOTER_RE, clip
from thresher.filters import engine, runtime
from thresher.filters.load import FilterErrors, load_files, parse, plain
from thresher.filter_tests import cases, check, emission

from .conftest import fixture_case


def _shipped():
    entries, _ = runtime.read_entries([("shipped", p) for p in runtime.listing(runtime.shipped_dir())])
    return load_files(entries)


_LOADED, _ERRORS = _shipped()


def test_every_shipped_filter_file_loads():
    assert not _ERRORS, "\n".join(e.render() for e in _ERRORS)
    assert _LOADED


@pytest.mark.parametrize("case_id,f,test", cases(_LOADED), ids=[c[0] for c in cases(_LOADED)])
def test_shipped_inline_test(case_id, f, test):
    report = check(f, test)
    assert report is None, f"{f['file']} {case_id}:\n{report}"


# -- loading and validation -------------------------------------------------------------------

_FILTER = """\
filters:
  - name: demo
    description: one line
    match: '(?:^|\\s)rsync\\s'
{extra}    tests:
      - name: t
        input: |
          a
        expected: |
          a
"""


def _write(tmp_path, text: str, name: str = "f.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _errors(path: str) -> list:
    with pytest.raises(FilterErrors) as exc:
        parse(path, open(path, "rb").read())
    return exc.value.errors


def test_unknown_key_is_rejected_with_file_line_filter_and_suggestion(tmp_path):
    path = _write(tmp_path, _FILTER.format(extra="    stirp: ['^x']\n"))
    (err,) = _errors(path)
    assert (err.file, err.line, err.node) == (path, 5, "demo")
    assert "unknown key 'stirp'" in err.render() and "did you mean 'strip'" in err.render()


def test_unknown_key_in_a_toml_file_names_its_line(tmp_path):
    text = textwrap.dedent("""\
        [[filters]]
        name = "demo"
        description = "one line"
        match = 'rsync'
        on_emtpy = "nothing"

        [[filters.tests]]
        name = "t"
        input = "a"
        expected = "a"
    """)
    (err,) = _errors(_write(tmp_path, text, "f.toml"))
    assert err.line == 5 and "did you mean 'on_empty'" in err.render()


def test_short_circuit_without_unless_is_rejected_and_never_is_accepted(tmp_path):
    rule = "    short_circuit:\n      - when: '^sent'\n        message: ok\n{unless}"
    (err,) = _errors(_write(tmp_path, _FILTER.format(extra=rule.format(unless=""))))
    assert "without `unless`" in err.problem and err.line == 6 and "unless: never" in err.hint
    ok = _write(tmp_path, _FILTER.format(extra=rule.format(unless="        unless: never\n")), "ok.yaml")
    (spec,) = parse(ok, open(ok, "rb").read())
    assert plain(spec, "user", ok)["short_circuit"] == [["^sent", "ok", None]]


def test_a_key_given_twice_is_rejected(tmp_path):
    (err,) = _errors(_write(tmp_path, _FILTER.format(extra="    strip: ['^a']\n    strip: ['^b']\n")))
    assert err.line == 6 and "'strip' given twice" in err.problem


def test_bad_regex_is_named_with_its_line(tmp_path):
    (err,) = _errors(_write(tmp_path, _FILTER.format(extra="    strip: ['^ok', '(unclosed']\n")))
    assert err.line == 5 and "'(unclosed'" in err.problem and "strip.1" in err.problem


def test_replacement_naming_a_missing_group_is_rejected(tmp_path):
    extra = "    replace:\n      - {pattern: '^(\\w+) x', with: '\\2'}\n"
    (err,) = _errors(_write(tmp_path, _FILTER.format(extra=extra)))
    assert "group reference '2'" in err.problem


def test_duplicate_names_are_rejected_within_and_across_files(tmp_path):
    one = _FILTER.format(extra="")
    two = one + one.split("filters:\n", 1)[1]
    errs = _errors(_write(tmp_path, two))
    assert any("duplicate filter name" in e.problem for e in errs)
    a, b = _write(tmp_path, one, "a.yaml"), _write(tmp_path, one, "b.yaml")
    loaded, errors = load_files([("user", a, open(a, "rb").read()), ("shipped", b, open(b, "rb").read())])
    assert [p for _, p, _ in loaded] == [a]
    assert errors[0].file == b and "already defined in" in errors[0].problem


# -- the engine's safety rules -----------------------------------------------------------------

def _filter(**kw) -> dict:
    base = {"name": "t", "description": "d", "file": "t.yaml", "origin": "user", "match": ".",
            "strip_ansi": True, "replace": [], "short_circuit": [], "strip": [], "keep": None,
            "max_line_chars": None, "head": None, "tail": None, "max_lines": None, "on_empty": None}
    return {**base, **kw}


def _emit(f: dict, case: dict, streams=("stdout", "stderr"), exit_code="case") -> list[str]:
    from thresher.filters.model import FilterTest
    text = "".join(case[s] for s in streams)
    code = case["exit_code"] if exit_code == "case" else exit_code
    return emission(f, FilterTest(name="x", input=text, expected="", exit_code=code)).split("\n")


_FAIL = fixture_case("django-migrate-demo-fail")
_TRACEBACK = [line for line in _FAIL["stderr"].splitlines() if line.startswith('  File "')]


@pytest.mark.parametrize("rule", [{"strip": ["."]}, {"keep": ["^nothing$"]}, {"head": 1},
                                  {"tail": 1}, {"max_lines": 1}])
def test_critical_lines_survive_strip_keep_head_tail_max_lines(rule):
    out = _emit(_filter(**rule), _FAIL, streams=("stderr",))
    assert len(_TRACEBACK) > 10 and all(line in out for line in _TRACEBACK)
    assert len(out) < len(_FAIL["stderr"].splitlines())


def test_replace_and_max_line_chars_never_alter_critical_lines():
    f = _filter(replace=[["line", "LINE"], ["^Running", "RUNNING"]], max_line_chars=20)
    out = _emit(f, _FAIL)
    assert all(line in out for line in _TRACEBACK)
    assert "RUNNING migrations:" in out  # a non-critical line was rewritten
    apply_row = _FAIL["stdout"].splitlines()[1]
    assert clip(apply_row, 20) in out and apply_row not in out  # clipped with the engine's marker


def test_short_circuit_fires_only_when_unless_misses_and_the_exit_code_is_zero():
    case = fixture_case("configure-demo-ok")
    whole = case["stdout"].rstrip("\n").split("\n")
    fires = _filter(short_circuit=[["^config.status: creating", "configured", None]])
    assert _emit(fires, case) == ["configured"]
    blocked = _filter(short_circuit=[["^config.status: creating", "configured", "cross compiling"]])
    assert _emit(blocked, case) == whole
    assert _emit(fires, case, exit_code=1) == whole


def test_short_circuit_never_swallows_error_lines_even_with_unless_never():
    case = fixture_case("configure-demo-missing-lib")
    f = _filter(short_circuit=[["^checking for gcc", "configured", None]])
    out = _emit(f, case, exit_code=0)
    assert "configured" not in out and case["stderr"].strip() in out


def test_on_empty_and_head_tail_window():
    case = fixture_case("configure-demo-ok")
    assert _emit(_filter(strip=["^"]), case) == [""]  # nothing left, no on_empty: no lines
    assert _emit(_filter(strip=["^"], on_empty="rsync: nothing"), case) == ["rsync: nothing"]
    lines = case["stdout"].rstrip("\n").split("\n")
    assert _emit(_filter(head=3, tail=2), case) == lines[:3] + lines[-2:]
    assert _emit(_filter(head=3, tail=10, max_lines=5), case) == lines[:3] + lines[-2:]
    assert _emit(_filter(max_lines=4), case) == lines[:4]


def test_stage_declines_when_nothing_matches_changes_or_shrinks():
    case = fixture_case("configure-demo-ok")
    text, cmd = case["stdout"], case["command"]
    other = compress(text, command="unknown-tool --flag", exit_code=0, trace=True)
    assert "filter" not in other.applied
    hit = compress(text, command=cmd, exit_code=0, trace=True)
    assert "filter" in hit.applied
    payload = _payload(text, cmd)
    assert engine.apply(_filter(strip=["^no such line$"]), payload) is None
    assert engine.apply(_filter(replace=[["^(.*)$", "\\1 and more words"]]), payload) is None


def _payload(text: str, cmd: str, exit_code: int = 0):
    from thresher.dataflow.executor import initial_payload
    return initial_payload(text.encode(), command=cmd, exit_code=exit_code)


def test_configure_through_the_generic_graph_keeps_the_answer_and_one_footer():
    case = fixture_case("configure-demo-ok")
    out = compress(case["stdout"], command=case["command"], exit_code=0).text.splitlines()
    assert out[:-1] == ["checking whether we are cross compiling... no",
                        "configure: creating ./config.status", "config.status: creating Makefile"]
    m = FOOTER_RE.match(out[-1])
    assert m and (m["omitted"], m["total"]) == ("29", "32")


# -- trust ------------------------------------------------------------------------------------

_PROJECT = """\
filters:
  - name: project-configure
    description: project rule for configure
    match: 'configure'
    keep: ['^{keep}']
    tests:
      - name: t
        input: |
          config.status: creating Makefile
        expected: |
          config.status: creating Makefile
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder with .thresher/filters.yaml, as the working directory."""
    (tmp_path / ".thresher").mkdir()
    path = tmp_path / ".thresher" / "filters.yaml"
    path.write_text(_PROJECT.format(keep="config.status"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runtime, "_WARNED", set())
    return path


def _seen(case: dict) -> str:
    return compress(case["stdout"], command=case["command"], exit_code=0).text


def _trust(*args: str) -> int:
    from thresher.cmd_trust import main
    return main(list(args))


def test_trust_flow_untrusted_trusted_edited_retrusted(project, capsys):
    case = fixture_case("configure-demo-ok")
    shipped = ["cross compiling... no", "config.status: creating Makefile"]
    untrusted = _seen(case)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".thresher/filters.yaml" in err
    assert "thresher trust .thresher/filters.yaml" in err
    assert all(s in untrusted for s in shipped)  # the shipped filter, not the project's
    assert _trust(".thresher/filters.yaml") == 0
    trusted = _seen(case)
    assert "cross compiling" not in trusted and "config.status: creating Makefile" in trusted
    assert "ignoring untrusted" not in capsys.readouterr().err
    project.write_text(_PROJECT.format(keep="configure:"))
    edited = _seen(case)
    assert all(s in edited for s in shipped)
    assert "ignoring untrusted" in capsys.readouterr().err
    assert _trust(".thresher/filters.yaml") == 0
    retrusted = _seen(case)
    assert "configure: creating ./config.status" in retrusted
    assert not any(s in retrusted for s in shipped)
    assert _trust("--revoke", ".thresher/filters.yaml") == 0
    assert all(s in _seen(case) for s in shipped)


def test_trust_refuses_a_file_that_does_not_validate(project, capsys):
    project.write_text(_PROJECT.format(keep="x").replace("keep:", "kep:"))
    assert _trust(str(project)) == 2
    assert "did you mean 'keep'" in capsys.readouterr().err
    entries, untrusted = runtime.read_entries(runtime.discover())
    assert [p for p, _ in untrusted] == [str(project)] and all(origin != "project" for origin, _, _ in entries)


def test_user_filters_are_searched_before_shipped(monkeypatch):
    folder = runtime.user_filter_dir()
    os.makedirs(folder)
    with open(os.path.join(folder, "mine.yaml"), "w") as fh:
        fh.write(_PROJECT.format(keep="x").replace("project-configure", "my-configure"))
    loaded = runtime.load(warn=False)
    assert [f["origin"] for f in loaded.filters][:1] == ["user"]
    assert engine.first_match(loaded.filters, "./configure --prefix=/usr")["name"] == "my-configure"


# -- CLI and hot path ---------------------------------------------------------------------------

def test_filters_test_cli_prints_a_diff_and_exits_1_on_failure(tmp_path, capsys):
    from thresher.cmd_filters import main
    good = _write(tmp_path, _FILTER.format(extra=""), "good.yaml")
    assert main(["test", good]) == 0
    bad = _write(tmp_path, _FILTER.format(extra="    strip: ['^a$']\n"), "bad.yaml")
    assert main(["test", bad]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "demo::t" in out and "-a" in out.split("FAIL", 1)[1]
    assert main(["check", bad]) == 0 and main(["check", str(tmp_path / "missing.yaml")]) == 2


def _light(argv: list[str], stdin: bytes, cwd: str | None = None) -> str:
    """Run a thresher command twice (the first warms the caches); check the second imported no
    control-plane module and did run the filter stage; return its stdout."""
    cmd = [sys.executable, "-X", "importtime", "-m", "thresher", *argv]
    subprocess.run(cmd, input=stdin, capture_output=True, check=True, cwd=cwd)
    res = subprocess.run(cmd, input=stdin, capture_output=True, check=True, cwd=cwd)
    imported = {line.split("|")[-1].strip() for line in res.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert "thresher.filters.engine" in imported  # the filter stage ran
    heavy = {m for m in imported if m.split(".")[0] in ("yaml", "pydantic", "networkx", "numpy")}
    assert not heavy, sorted(heavy)
    return res.stdout.decode()


_CONFIGURED = ["checking whether we are cross compiling... no", "configure: creating ./config.status"]


def test_pipe_with_a_filter_on_a_warm_cache_imports_no_control_plane_module():
    case = fixture_case("configure-demo-ok")
    out = _light(["pipe", "--cmd", case["command"], "--exit-code", "0"], case["stdout"].encode())
    assert out.splitlines()[:2] == _CONFIGURED


def test_run_with_a_filter_on_a_warm_cache_imports_no_control_plane_module(tmp_path):
    case = fixture_case("configure-demo-ok")
    (tmp_path / "captured.txt").write_text(case["stdout"])
    script = tmp_path / "configure"  # replays the captured ./configure output
    script.write_text("#!/bin/sh\ncat \"$(dirname \"$0\")/captured.txt\"\n")
    script.chmod(0o755)
    out = _light(["run", "--", "./configure"], b"", cwd=str(tmp_path))
    assert out.splitlines()[:2] == _CONFIGURED


def test_a_toml_filter_file_loads_and_its_inline_test_runs(tmp_path, capsys):
    from thresher.cmd_filters import main
    case = fixture_case("mkdocs-demo-build")
    text = "[[filters]]\n" + "\n".join([
        'name = "mkdocs-toml"', 'description = "mkdocs: warnings only"',
        "match = 'mkdocs\\s+build'", "keep = ['^WARNING']",
        "", "[[filters.tests]]", 'name = "broken link"', 'command = "mkdocs build"',
        f"input = '''\n{case['stderr']}'''",
        f"expected = '''\n{case['stderr'].splitlines()[2]}\n'''"]) + "\n"
    path = _write(tmp_path, text, "mk.toml")
    assert main(["test", path]) == 0, capsys.readouterr().out
    assert "1 passed, 0 failed" in capsys.readouterr().out


def test_a_broken_user_file_is_ignored_with_one_warning_and_the_rest_still_load(monkeypatch, capsys):
    monkeypatch.setattr(runtime, "_WARNED", set())
    folder = runtime.user_filter_dir()
    os.makedirs(folder)
    with open(os.path.join(folder, "broken.yaml"), "w") as fh:
        fh.write(_FILTER.format(extra="    heda: 3\n"))
    loaded = runtime.load()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "broken.yaml:5" in err and "did you mean 'head'" in err
    assert loaded.filters and all(f["origin"] == "shipped" for f in loaded.filters)


def test_filters_list_names_every_loaded_filter(capsys):
    from thresher.cmd_filters import main
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(f"{spec.name} " in out for _, _, spec in _LOADED)


def test_plan_compilation_warms_the_filter_cache_and_tracks_filter_edits(monkeypatch, tmp_path):
    from thresher.dataflow import plan
    from thresher.dataflow.plan import load_plans
    from thresher.filters import load as loader
    monkeypatch.setattr(plan, "shipped_filter_dir", lambda: str(tmp_path))  # shipped edits: noise
    real, allowed = loader.compile_files, [True]

    def guarded(entries):
        assert allowed[0], "the filter stage compiled inside its time budget"
        return real(entries)
    monkeypatch.setattr(loader, "compile_files", guarded)
    folder = runtime.user_filter_dir()
    os.makedirs(folder)
    mine = os.path.join(folder, "mine.yaml")
    case = fixture_case("configure-demo-ok")
    for keep, first in (("config.status", "config.status: creating Makefile"),
                        ("configure:", "configure: creating ./config.status")):
        with open(mine, "w") as fh:  # each edit changes the plan key: plans rebuild, filters warm
            fh.write(_PROJECT.format(keep=keep).replace("project-configure", "my-configure"))
        allowed[0] = True
        plans = load_plans()
        allowed[0] = False
        out = compress(case["stdout"], command=case["command"], exit_code=0, plans=plans, trace=True)
        assert "filter" in out.applied and out.text.splitlines()[0] == first
