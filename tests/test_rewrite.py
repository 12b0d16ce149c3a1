"""``thresher rewrite``: the table of real agent lines, byte preservation, the CLI contract, start-up."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thresher import cmd_rewrite
from thresher.shell import lexer, segments
from thresher.shell.rewrite import WRAP, analyze, apply, rewrite

sys.path.insert(0, os.path.dirname(__file__))
from rewrite_table import CASES

HEAVY = ("yaml", "pydantic", "networkx", "numpy", "rank_bm25", "argparse", "blake3", "orjson")


@pytest.mark.parametrize("line,expected", CASES, ids=[repr(c[0])[:60] for c in CASES])
def test_table(line, expected):
    assert rewrite(line, user=[]) == expected


def test_table_is_large_and_mixed():
    wrapped = sum(1 for _, exp in CASES if exp is not None)
    assert len(CASES) >= 90 and 40 <= wrapped <= len(CASES) - 40


@pytest.mark.parametrize("line", [c[0] for c in CASES if c[1] is not None])
def test_unchanged_bytes_are_preserved_and_structure_kept(line):
    out = rewrite(line, user=[])
    wraps = sum(d.wrap for d in analyze(line, user=[]))
    assert out.count(WRAP) - line.count(WRAP) == wraps
    assert out.replace(WRAP, "") == line.replace(WRAP, "")
    before = segments.split(lexer.tokenize(line))
    after = segments.split(lexer.tokenize(out))
    assert [s.sep for s in before] == [s.sep for s in after]
    assert rewrite(out, user=[]) is None  # idempotent: wrapped segments start with thresher


SHELLISH = st.lists(st.sampled_from(
    list(" -|&;<>()'\"\\$`{}[]#=\n\tab12") + ["git status", "pytest", "$(", "${", "$((", "<<",
                                              "&&", "||", "2>&1", "for ", "; do ", "done", "if ",
                                              "; then ", "fi", "case ", " in ", ";;", "esac",
                                              "function ", "time ", "sudo -u x ", "A=1 ", "[[ ",
                                              " ]]", "ls -l ", "\\\n", "uv run "]),
    max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(SHELLISH)
def test_any_input_is_analysed_without_error_and_only_gains_wrappers(line):
    decisions = analyze(line, user=[])  # analyze itself must not raise (rewrite would hide it)
    out = apply(line, decisions)
    if out is not None:
        assert out.replace(WRAP, "") == line.replace(WRAP, "")
        assert rewrite(out, user=[]) is None


def test_spans_reproduce_the_source_exactly():
    line = "A=1  sudo  'x y' \"$(echo ')')\" ${v:-\"}\"} 2>&1 # c\nls -l | wc -l &"
    toks = lexer.tokenize(line)
    assert [line[t.start:t.end] for t in toks] == [t.text for t in toks]
    segs = segments.split(toks)
    assert [s.text(line) for s in segs] == [
        "A=1  sudo  'x y' \"$(echo ')')\" ${v:-\"}\"} 2>&1", "ls -l", "wc -l"]
    assert [s.sep for s in segs] == ["\n", "|", "&"]


@pytest.mark.parametrize("line", ["cat <<< \"$x\"", "echo $((1<<2))", "x='<<EOF'"])
def test_only_real_heredocs_count(line):
    lexer.tokenize(line)  # no Heredoc raised


def test_explain_names_segment_real_command_and_reason():
    decisions = analyze("cd src && FOO=1 sudo -u app pytest -q | tail", user=[])
    assert [(d.wrap, d.real) for d in decisions] == [
        (False, "cd src"), (False, ""), (False, "")]
    assert "feeds a pipe" in decisions[1].reason and "reads a pipe" in decisions[2].reason
    d = analyze("FOO=1 sudo -u app pytest -q", user=[])[0]
    assert (d.wrap, d.real, d.text) == (True, "pytest -q", "FOO=1 sudo -u app pytest -q")


# --- user-configured prefixes

def test_prefixes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("THRESHER_PREFIXES", "mise exec --, devbox run")
    assert rewrite("mise exec -- pytest -q") == WRAP + "mise exec -- pytest -q"
    assert rewrite("devbox run make test") == WRAP + "devbox run make test"
    assert rewrite("mise exec -- ./serve.sh") is None
    assert rewrite("mise install") is None


def test_prefixes_from_the_nearest_project_file(monkeypatch, tmp_path, capsys):
    from thresher.filters import trust
    (tmp_path / ".thresher").mkdir()
    path = tmp_path / ".thresher" / "prefixes"
    path.write_text("# team wrappers\nrun-in-env\nci/with-db --\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    monkeypatch.delenv("THRESHER_PREFIXES", raising=False)
    # a repository's prefixes are used only once trusted (they steer the wrap decision)
    assert rewrite("run-in-env cargo test") is None
    assert "ignoring untrusted project prefixes" in capsys.readouterr().err
    trust.record(str(path), path.read_bytes())
    assert rewrite("run-in-env cargo test") == WRAP + "run-in-env cargo test"
    assert rewrite("ci/with-db -- pytest") == WRAP + "ci/with-db -- pytest"
    assert rewrite("other cargo test") is None


# --- the CLI contract

def _cli(*args: str | bytes, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thresher", "rewrite", *args], input=stdin,
                          capture_output=True)


def test_cli_prints_the_rewrite_and_exits_0():
    res = _cli("cd app && pytest -q")
    assert (res.returncode, res.stdout) == (0, b"cd app && thresher run -- pytest -q\n")


def test_cli_no_rewrite_exits_3_and_prints_nothing():
    for line in ("ls", "pytest | tail", "echo 'unbalanced", ""):
        res = _cli(line)
        assert (res.returncode, res.stdout) == (3, b""), line


def test_cli_reads_stdin_with_dash():
    res = _cli("-", stdin=b"git status\n")
    assert (res.returncode, res.stdout) == (0, b"thresher run -- git status\n")
    res = _cli("--", "-", stdin=b"git status && cat <<EOF\nx\nEOF\n")
    assert res.returncode == 3


def test_cli_passes_non_utf8_bytes_through():
    res = _cli(b"grep -rn \xff\xfe src")
    assert (res.returncode, res.stdout) == (0, b"thresher run -- grep -rn \xff\xfe src\n")


def test_cli_explain_writes_one_line_per_segment_to_stderr():
    res = _cli("--explain", "cd src && make 2>&1 | tee log")
    lines = res.stderr.decode().splitlines()
    assert res.returncode == 3 and len(lines) == 3
    assert lines[0].startswith("keep | builtin") and lines[0].endswith("| cd src")
    assert "feeds a pipe" in lines[1] and "reads a pipe" in lines[2]


def test_cli_help_and_usage():
    res = _cli("--help")
    assert res.returncode == 0 and b"3  no rewrite" in res.stdout and b"--explain" in res.stdout
    assert _cli().returncode == 2
    assert _cli("a", "b").returncode == 2


def test_cli_internal_error_means_no_rewrite(monkeypatch, capsys):
    import thresher.shell.rewrite as rw

    def boom(*_a, **_k):
        raise RuntimeError("bug")

    monkeypatch.setattr(rw, "analyze", boom)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"pytest")))
    assert cmd_rewrite.main(["pytest -q"]) == 3
    assert capsys.readouterr().out == ""


def test_rewrite_start_up_imports_no_heavy_module():
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "thresher", "rewrite",
                          "cd src && pytest -q"], capture_output=True, check=True)
    imported = {line.split("|")[-1].strip() for line in res.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert "thresher.shell.rewrite" in imported
    roots = {name.split(".")[0] for name in imported}
    assert not roots & set(HEAVY), sorted(roots & set(HEAVY))
    assert not {n for n in imported if n.startswith(("thresher.dataflow.", "thresher.stages"))}
