"""Capture pytest and unittest fixtures by running the real tools on test modules written here.

Cases (tests/fixtures/<id>.json, corpus schema): a default-mode run with failures, a huge run
(hundreds of passing tests plus failures with long tracebacks, over any budget), a verbose run of
parametrized tests, ``-s`` with prints, a collection error, an internal error, ``no tests ran``,
and unittest quiet/failing runs. Re-run with ``.venv/bin/python benchmarks/capture_pytest.py``;
outputs differ run to run only in timings, temp paths and object addresses.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap

from capture_fixtures import save

CALC = '''
import pytest

def parse_pair(text):
    left, right = text.split("=")
    return left.strip(), int(right)

@pytest.mark.parametrize("n", range({n}))
def test_square_is_positive(n):
    assert n * n >= 0

@pytest.mark.parametrize("word", ["alpha", "beta", "gamma", "delta"])
def test_word_is_lower(word):
    assert word == word.lower()

@pytest.mark.skip(reason="needs a network")
def test_download():
    pass

@pytest.mark.xfail(reason="known rounding bug")
def test_rounding():
    assert round(2.675, 2) == 2.68

def test_parse_pair_value():
    assert parse_pair("width = 12") == ("width", 13)

def test_parse_pair_missing_equals():
    assert parse_pair("height 7") == ("height", 7)
'''

DEEP = '''
def level_{i}(data, depth):
    """Walk one level down; the docstring and the lines around the call are long on purpose.

    pytest shows this whole function in a long traceback entry, which is what makes a failing
    run of a large suite hard to read whole.
    """
    checked = []
    for key in sorted(data):
        checked.append(key)
    if depth == 0:
        return data["missing_{i}"]
    return level_{i}(data, depth - 1)

def test_deep_failure_{i}():
    payload = {{"present": {i}}}
    assert level_{i}(payload, 3) == {i}
'''

UNIT = '''
import unittest

class Inventory(unittest.TestCase):
    def test_count(self):
        self.assertEqual(len([1, 2, 3]), 3)

    def test_total(self):
        for n in range(40):
            with self.subTest(n=n):
                self.assertGreaterEqual(n, 0)

    def test_restock(self):
        stock = {"apples": 3}
        stock["apples"] += 2
        self.assertEqual(stock["apples"], {expected})

    @unittest.skip("slow")
    def test_audit(self):
        pass

def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    for i in range({copies}):
        suite.addTests(loader.loadTestsFromTestCase(Inventory))
    return suite
'''


def run(cmd: list[str], cwd: str) -> tuple[int, str, str]:
    """Run ``cmd`` and return (exit code, stdout, stderr) as text."""
    env = dict(os.environ, PYTEST_ADDOPTS="", COLUMNS="100", NO_COLOR="1")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def write(folder: str, name: str, text: str) -> None:
    """Write one source file into ``folder``."""
    with open(os.path.join(folder, name), "w") as fh:
        fh.write(textwrap.dedent(text))


def facts(out: str) -> list[str]:
    """The lines an agent needs from a pytest run: failures, E lines, locations, counts, errors."""
    keep = []
    for line in out.splitlines():
        if re.match(r"^(?:FAILED|ERROR) \S|^E\s+\S|^\S+\.py:\d+: \w*(?:Error|Exception)|^!{3,}", line):
            keep.append(line)
        elif re.match(r"^(?:=+ )?(?:\d+ \w+.*|no tests ran) in [\d.]+s", line):
            keep.append(line.strip("= "))
        elif line.startswith("INTERNALERROR>") and "Error" in line:
            keep.append(line)
    return list(dict.fromkeys(keep))


def pytest_case(tmp: str, cid: str, flags: list[str], files: list[str], note: str) -> None:
    """Run pytest with ``flags`` on ``files`` in ``tmp`` and save the case."""
    cmd = [sys.executable, "-m", "pytest", *flags, "-p", "no:cacheprovider", *files]
    code, out, err = run(cmd, tmp)
    save({"id": cid, "class": "pytest", "command": " ".join(["python -m pytest", *flags, *files]),
          "exit_code": code, "stdout": out, "stderr": err, "must_keep": facts(out), "verbatim": False,
          "source": f"benchmarks/capture_pytest.py: {note}"})


def pytest_cases(tmp: str) -> None:
    """The pytest fixtures."""
    write(tmp, "test_calc.py", CALC.replace("{n}", "150"))
    write(tmp, "test_deep.py", "".join(DEEP.format(i=i) for i in range(8)))
    pytest_case(tmp, "pytest-own-fail-default", [], ["test_calc.py"],
                "default mode, 2 failures among 150+ passing, skip and xfail")
    pytest_case(tmp, "pytest-own-huge-fail", [], ["test_calc.py", "test_deep.py"],
                "huge run: 10 failures, 8 of them with long tracebacks (over any budget)")
    pytest_case(tmp, "pytest-own-verbose-params", ["-v"], ["test_calc.py"],
                "verbose run of parametrized tests (rows are the answer)")
    write(tmp, "test_prints.py", "def test_a():\n    print('connecting to db')\n    assert True\n\n"
          "def test_b():\n    print('retrying after timeout')\n    assert 1 == 2\n")
    pytest_case(tmp, "pytest-own-capture-off", ["-s"], ["test_prints.py", "test_calc.py"],
                "-s: test prints interleaved with progress")
    write(tmp, "test_broken_import.py", "import json\nfrom collections import OrderedDictt\n\n"
          "def test_never_runs():\n    assert json\n")
    pytest_case(tmp, "pytest-own-collect-error", [], ["test_calc.py", "test_broken_import.py"],
                "collection error (ImportError) next to a collectable module")
    os.makedirs(os.path.join(tmp, "internal"))
    write(os.path.join(tmp, "internal"), "conftest.py",
          "def pytest_collection_modifyitems(items):\n    raise RuntimeError('plugin hook exploded')\n")
    write(os.path.join(tmp, "internal"), "test_one.py", "def test_one():\n    assert True\n")
    pytest_case(os.path.join(tmp, "internal"), "pytest-own-internal-error", [], ["test_one.py"],
                "INTERNALERROR from a conftest hook")
    write(tmp, "test_empty.py", "# no tests here\nVALUE = 1\n")
    pytest_case(tmp, "pytest-own-no-tests", [], ["test_empty.py"], "no tests ran (exit 5)")


def unittest_cases(tmp: str) -> None:
    """unittest runs: a quiet pass (marks only) and a failing run (stderr)."""
    for cid, expected, copies in (("unittest-own-pass", 5, 30), ("unittest-own-fail", 6, 3)):
        write(tmp, "test_inventory.py", UNIT.replace("{expected}", str(expected)).replace("{copies}", str(copies)))
        code, out, err = run([sys.executable, "-m", "unittest", "test_inventory"], tmp)
        keep = [line for line in err.splitlines()
                if re.match(r"^(?:Ran \d+|OK|FAILED|FAIL:|ERROR:|AssertionError)", line)]
        save({"id": cid, "class": "unittest", "command": "python -m unittest test_inventory",
              "exit_code": code, "stdout": out, "stderr": err, "must_keep": list(dict.fromkeys(keep)),
              "verbatim": False, "source": "benchmarks/capture_pytest.py: unittest on a module written here"})


def main() -> None:
    """Capture every pytest/unittest fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        pytest_cases(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        unittest_cases(tmp)


if __name__ == "__main__":
    main()
