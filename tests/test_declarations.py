"""Declarations without bodies are the API (issue 16, mechanisms 3 and 6).

A header, a ``.d.ts``, a Java interface or an abstract class read whole keeps every declaration in
its outline, and the elision lines that stand for the rest are compact, counted and recoverable.
Facts come from parsers independent of the outline: ``gcc -aux-info`` for the headers installed
here, the TypeScript compiler, ``javap`` and Python's ``ast`` for the fixtures
(``benchmarks/capture_declarations.py``).
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.markers import FOOTER_RE, elided, elision
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.tokens import estimate
from thresher.stages.documents import code_outline

from .conftest import FIXTURES, fixture_case

HEADERS = ("zlib.h", "bzlib.h", "expat.h", "png.h", "stdio.h", "stdlib.h", "string.h", "unistd.h",
           "pthread.h", "sqlite3.h", "openssl/ssl.h", "openssl/evp.h", "yaml.h", "magic.h",
           "curses.h", "gnutls/gnutls.h", "readline/readline.h", "uuid/uuid.h", "idn2.h",
           "libtasn1.h", "mqueue.h", "signal.h", "time.h", "wchar.h", "netdb.h")
"""Headers of glibc and of Debian -dev packages; those not installed are left out."""
DECL_CASES = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(FIXTURES, "decl-own-*.json")))


def gcc_prototypes(header: str) -> list[tuple[int, str]] | None:
    """``(line, name)`` of every function prototype gcc reads from ``header``, or ``None``."""
    with tempfile.TemporaryDirectory() as tmp:
        src, aux = os.path.join(tmp, "t.c"), os.path.join(tmp, "aux")
        with open(src, "w") as fh:
            fh.write(f'#include "{header}"\n')
        p = subprocess.run(["gcc", "-w", "-aux-info", aux, "-c", src, "-o", os.devnull],
                           capture_output=True)
        if p.returncode:
            return None
        real, out = os.path.realpath(header), []
        with open(aux, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = re.match(r"/\* (.+?):(\d+):[NO][CF] \*/ .*?(\w+) \(", line)
                if m and os.path.realpath(m[1]) == real:
                    out.append((int(m[2]), m[3]))
        return out


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_every_extern_prototype_of_real_headers_survives_cat():
    measured, total, kept, lost, tokens_in, tokens_out = 0, 0, 0, [], 0, 0
    for rel in HEADERS:
        path = os.path.join("/usr/include", rel)
        protos = gcc_prototypes(path) if os.path.exists(path) else None
        if not protos:
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        src = text.split("\n")
        res = compress(text, command=f"cat {path}", exit_code=0)
        shown = set(res.text.split("\n"))
        assert res.emission.tokens_out <= res.emission.tokens_in, rel
        tokens_in, tokens_out = tokens_in + res.emission.tokens_in, tokens_out + res.emission.tokens_out
        measured, total = measured + 1, total + len(protos)
        for line, name in protos:
            if src[line - 1] in shown:
                kept += 1
            else:
                lost.append(f"{rel}:{line} {name}")
    if measured < 5:
        pytest.skip("fewer than 5 of the headers are installed")
    assert kept == total, f"{kept}/{total} prototypes kept; lost e.g. {lost[:5]}"
    assert tokens_out < tokens_in * 0.5  # dense headers save little, long documented ones much


@pytest.mark.parametrize("case_id", DECL_CASES)
def test_every_declaration_of_an_api_file_is_kept_and_it_shrinks(case_id):
    case = fixture_case(case_id)
    res = compress(case["stdout"], command=case["command"], exit_code=0)
    missing = [f for f in case["must_keep"] if f not in res.text]
    assert not missing, missing[:5]
    assert res.emission.tokens_out < res.emission.tokens_in * 0.85  # a dense header saves least
    footers = [line for line in res.text.split("\n") if FOOTER_RE.match(line)]
    assert len(footers) == 1


def test_api_files_shrink_to_under_half_together():
    tokens = [(r.emission.tokens_in, r.emission.tokens_out) for r in (
        compress(c["stdout"], command=c["command"], exit_code=0)
        for c in map(fixture_case, DECL_CASES))]
    assert len(tokens) >= 10
    assert sum(o for _, o in tokens) < sum(i for i, _ in tokens) * 0.5


def outline_view(case: dict):
    p = initial_payload(case["stdout"].encode(), command=case["command"], exit_code=0)
    ctx = Context({"max_lines": 500, "max_tokens": 10000}, None, "0123456789ab", "code.default")
    params = {"min_lines": 200, "min_tokens": 3000, "language": None, "min_saving": 0.2}
    return p, code_outline.run(p, params, ctx)


@pytest.mark.parametrize("case_id", DECL_CASES + ["code-own-java-arraylist",
                                                  "code-own-py-pydantic-main"])
def test_elision_lines_are_compact_counted_and_give_back_line_numbers(case_id):
    p, view = outline_view(fixture_case(case_id))
    assert view is not None
    number, marks, cost, sentence_cost = 1, 0, 0, 0
    for line, o in zip(view.lines, view.origin):
        gap = elided(line)
        if gap:  # the range starts where the shown lines stopped: every line number recoverable
            assert o == SYNTHETIC and gap[0] == number and gap[1] >= gap[0]
            number, marks = gap[1] + 1, marks + 1
            indent = line[:len(line) - len(line.lstrip())]
            cost += estimate(line)
            sentence_cost += estimate(f"{indent}[thresher: lines {gap[0]}-{gap[1]} elided, "
                                      f"{gap[1] - gap[0] + 1} lines]")
            assert estimate(line) <= 9
        elif o == SYNTHETIC:
            assert line.startswith("[thresher: ") and "\u2026A-B" in line
        else:
            assert o == number - 1 and line == p.source[o]
            number += 1
    assert number - 1 == len(p.source) and marks > 0
    # side by side with the bracketed sentence these lines replaced
    assert cost < sentence_cost * 0.6  # (the estimator; cl100k counts about a third)


def test_the_elision_grammar_parses_what_it_writes_and_nothing_like_code():
    assert elided(elision("    ", 12, 40)) == (12, 40) and elided(elision("", 7, 7)) == (7, 7)
    for code in ("...", "    ...rest", "  /* 12-40 */", "[thresher: lines 2-18 elided, 17 lines]",
                 "x = 12-40", "\u202640-12"):
        assert elided(code) is None
