"""Capture developer-tool outputs found by the generalization sweep, each one a shape a fix covers.

Cases (tests/fixtures/<id>.json, corpus schema):
- ``go-sweep-test-v-messages``: ``go test -v`` where failing subtests print ``t.Errorf`` messages
  under their ``=== RUN`` banner (the banner is what names the subtest a message belongs to);
- ``go-sweep-test-json``: ``go test -json`` (Go's single-dash flag): one JSON event a line, parsed
  by programs, so byte-exact;
- ``cargo-sweep-test-backtrace``: ``cargo test`` with ``RUST_BACKTRACE=1`` (as many agents run it):
  24 failing ``assert_eq!`` tests, each with its left/right values and a stack backtrace of
  toolchain frames around the two frames in the crate's own code;
- ``cargo-sweep-build-labels``: ``cargo build`` with 16 type errors and 26 warnings, over budget:
  the code snippets go but each underline's label (``expected `String`, found integer``) is the
  answer and must stay;
- ``pytest-sweep-tb-native``: ``pytest --tb=native -q`` with failing tests and a failing fixture:
  pytest 9 prints its whole hook chain (frames in _pytest/ and pluggy/) in every traceback;
- ``unittest-sweep-many-failures``: ``python -m unittest`` on 120 tests, 19 failing or erroring:
  over budget, the rules framing each block go so that no traceback line has to;
- ``ls-sweep-recursive-plain``: names-only ``ls -R`` of a generated tree (300 top-level files, 60
  directories with files and subdirectories), over the listing budget: every name shown must sit
  under the header of its own directory;
- ``ls-sweep-recursive-long``: ``ls -lR`` of a generated tree of 301 directories: their headers
  and ``total`` lines alone are more than the listing budget;
- ``tsc-sweep-pretty-many``: ``tsc --pretty`` (colour, code frames between blank lines) on 15 files
  with 4 errors each: over budget the frames go and must not leave runs of blank lines behind.
Re-run with ``.venv/bin/python benchmarks/capture_sweep_dev.py`` (needs go, cargo, and npm to fetch typescript); outputs
differ run to run only in timings, temp paths and goroutine addresses.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import capture_cargo
from capture_go import facts, gorun, write
from capture_fixtures import save

GOMOD = "module example.com/sweep\n\ngo 1.19\n"

CALC = '''package sweep

// Add returns a + b.
func Add(a, b int) int { return a + b }

// Clamp limits v to [lo, hi]; the upper bound is off by one on purpose.
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi+1 {
		return hi
	}
	return v
}
'''

CALC_TEST = '''package sweep

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(2, 2); got != 4 {
		t.Errorf("Add(2, 2) = %d, want 4", got)
	}
}

func TestClamp(t *testing.T) {
	for v := 0; v < 24; v++ {
		v := v
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			want := v
			if want > 20 {
				want = 20
			}
			if got := Clamp(v, 0, 20); got != want {
				t.Errorf("got %d, want %d", got, want)
			}
		})
	}
}
'''


TS = """export function f{i}(a: number, b: string): number {{ return a + b; }}
const x{i}: string = 42;
let unused{i} = undefined_thing{i};
export const g{i} = (o: {{k: number}}) => o.q;
"""


def cargo_backtrace() -> None:
    """cargo test with RUST_BACKTRACE=1 on a crate with 120 tests, every fifth one failing."""
    cases = "".join(f"    #[test]\n    fn case_{i}() {{ assert_eq!(double({i}), {2 * i + (i % 5 == 0)}, \"case {i}\"); }}\n"
                    for i in range(120))
    lib = ("/// Twice `x`.\npub fn double(x: i64) -> i64 {\n    x * 2\n}\n\n#[cfg(test)]\nmod tests {\n"
           "    use super::*;\n" + cases + "}\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = capture_cargo.crate(tmp, "bt", lib)
        env = dict(os.environ, CARGO_TERM_COLOR="never", RUST_BACKTRACE="1")
        p = subprocess.run(["cargo", "test", "--offline"], cwd=path, capture_output=True, text=True,
                           env=env, timeout=600)
        text = p.stdout + "\n" + p.stderr
        keep = capture_cargo.facts(text) + [line.strip() for line in p.stdout.splitlines()
                                            if re.match(r"^\s*(?:left|right): ", line)][:10]
        save({"id": "cargo-sweep-test-backtrace", "class": "cargo", "command": "RUST_BACKTRACE=1 cargo test",
              "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "must_keep": keep,
              "verbatim": False, "source": "benchmarks/capture_sweep_dev.py: cargo test, RUST_BACKTRACE=1"})


def cargo_labels() -> None:
    """cargo build on a crate with unused variables everywhere and eight functions of wrong types."""
    warn = "".join(f"pub fn w{i}(v: &Vec<i32>) -> usize {{ let unused_{i} = 1; if v.len() == 0 {{ 0 }} else {{ v.len() }} }}\n"
                   for i in range(25))
    bad = "".join(f"pub fn bad{i}() -> i32 {{ let s: String = {i}; s.len() }}\n" for i in range(8))
    with tempfile.TemporaryDirectory() as tmp:
        path = capture_cargo.crate(tmp, "labels", "pub fn add(a: i32, b: i32) -> i32 { let unused = 3; a + b }\n" + warn + bad)
        code, out, err = capture_cargo.cargo(["build"], path)
        keep = capture_cargo.facts(out + "\n" + err) + list(dict.fromkeys(
            line.strip() for line in err.splitlines() if re.match(r"^\s*\|.*\^+ expected ", line)))
        save({"id": "cargo-sweep-build-labels", "class": "cargo", "command": "cargo build",
              "exit_code": code, "stdout": out, "stderr": err, "must_keep": keep, "verbatim": False,
              "source": "benchmarks/capture_sweep_dev.py: cargo build, type errors and warnings"})


NATIVE = '''import pytest


def ratio(a, b):
    return a / b


@pytest.fixture
def account():
    raise ConnectionError("ledger service unreachable")


def test_uses_account(account):
    assert account


@pytest.mark.parametrize("n", range(6))
def test_ratio(n):
    assert ratio(n, 2) == n // 2


def test_zero():
    assert ratio(1, 0) == 0


def test_must_raise():
    with pytest.raises(KeyError):
        {"a": 1}["a"]
'''


def pytest_native() -> None:
    """pytest --tb=native on failing tests and a failing fixture (this interpreter's pytest)."""
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, "test_native.py", NATIVE)
        p = subprocess.run([sys.executable, "-m", "pytest", "--tb=native", "-q", "-p", "no:cacheprovider",
                            "test_native.py"], cwd=tmp, capture_output=True, text=True, timeout=600)
        keep = [line for line in p.stdout.splitlines()
                if re.match(r"^(?:FAILED|ERROR) |^\d+ failed|^[A-Z]\w*(?:Error|Failed): |^  File \"\S*test_native", line)]
        save({"id": "pytest-sweep-tb-native", "class": "pytest", "command": "pytest --tb=native -q test_native.py",
              "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "must_keep": list(dict.fromkeys(keep)),
              "verbatim": False, "source": "benchmarks/capture_sweep_dev.py: pytest --tb=native, hook chain in each traceback"})


def unittest_many() -> None:
    """python -m unittest on a generated class of 120 tests: every ninth fails, some raise."""
    body = ["import unittest", "", "", "def total(xs):", "    return sum(xs) + (1 if len(xs) > 3 else 0)",
            "", "", "class Grid(unittest.TestCase):"]
    for i in range(120):
        body.append(f"    def test_case_{i:03d}(self):")
        if i % 9 == 4:
            body.append(f"        self.assertEqual(total([{i}] * 4), {4 * i}, 'total of four {i}s')")
        elif i % 17 == 5:
            body.append(f"        raise KeyError('missing key {i}')")
        else:
            body.append(f"        self.assertEqual(total([{i}]), {i})")
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, "test_grid.py", "\n".join(body) + "\n")
        p = subprocess.run([sys.executable, "-m", "unittest", "test_grid"], cwd=tmp, capture_output=True,
                           text=True, timeout=600)
        keep = [line for line in p.stderr.splitlines()
                if re.match(r"^(?:FAIL|ERROR): |^(?:AssertionError|KeyError): |^Ran \d+ |^FAILED \(", line)]
        save({"id": "unittest-sweep-many-failures", "class": "unittest", "command": "python -m unittest test_grid",
              "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "must_keep": keep,
              "verbatim": False, "source": "benchmarks/capture_sweep_dev.py: unittest, 19 of 120 failing"})


def ls_recursive() -> None:
    """ls -R (names only) of a tree generated here: files, directories, nested directories."""
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "assets")
        for i in range(300):
            write(root, f"item_{i:03d}.dat", "x")
        for d in range(60):
            for f in range(15):
                write(root, f"pkg{d:02d}/file_{f:02d}.txt", "x")
            for sub in ("docs", "tests"):
                for f in range(10):
                    write(root, f"pkg{d:02d}/{sub}/part_{f:02d}.md", "x")
        p = subprocess.run(["ls", "-R", "assets"], cwd=tmp, capture_output=True, text=True,
                           env=dict(os.environ, LC_ALL="C"), timeout=600)
        keep = ["assets:", "item_000.dat", "assets/pkg00:", "file_00.txt"]
        save({"id": "ls-sweep-recursive-plain", "class": "ls", "command": "ls -R assets",
              "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "must_keep": keep,
              "verbatim": False, "source": "benchmarks/capture_sweep_dev.py: ls -R of a generated tree"})


def ls_recursive_long() -> None:
    """ls -lR of a tree generated here with 100 directories, each with two subdirectories."""
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "modules")
        for i in range(40):
            write(root, f"top_{i:02d}.cfg", "x")
        for d in range(100):
            for f in range(5):
                write(root, f"mod{d:03d}/src_{f}.c", "x")
            for sub in ("include", "test"):
                for f in range(3):
                    write(root, f"mod{d:03d}/{sub}/h_{f}.h", "x")
        p = subprocess.run(["ls", "-lR", "modules"], cwd=tmp, capture_output=True, text=True,
                           env=dict(os.environ, LC_ALL="C"), timeout=600)
        keep = ["modules:", "modules/mod000:"]
        save({"id": "ls-sweep-recursive-long", "class": "ls", "command": "ls -lR modules",
              "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "must_keep": keep,
              "verbatim": False, "source": "benchmarks/capture_sweep_dev.py: ls -lR, 301 directories"})


def tsc_pretty() -> None:
    """tsc --pretty on 15 small files with four type errors each (typescript fetched by npm)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "typescript@5"], cwd=tmp,
                       capture_output=True, check=True, timeout=600)
        for i in range(1, 16):
            write(tmp, f"src/m{i}.ts", TS.format(i=i))
        write(tmp, "tsconfig.json", '{"compilerOptions":{"strict":true,"noEmit":true},"include":["src"]}')
        p = subprocess.run([os.path.join(tmp, "node_modules", ".bin", "tsc"), "--pretty"], cwd=tmp,
                           capture_output=True, text=True, timeout=600)
        plain = re.sub(r"\x1b\[[0-9;]*m", "", p.stdout)
        keep = [line for line in plain.splitlines() if " - error TS" in line or line.startswith("Found ")]
        save({"id": "tsc-sweep-pretty-many", "class": "tsc", "command": "tsc --pretty",
              "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "must_keep": keep,
              "verbatim": False, "source": "benchmarks/capture_sweep_dev.py: tsc --pretty, 60 errors"})


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, "go.mod", GOMOD)
        write(tmp, "calc.go", CALC)
        write(tmp, "calc_test.go", CALC_TEST)
        code, out, err = gorun(["test", "-v", "./..."], tmp)
        keep = facts(out + "\n" + err)
        keep += [line for line in out.splitlines() if line.startswith("=== RUN   TestClamp/v21")]
        save({"id": "go-sweep-test-v-messages", "class": "go", "command": "go test -v ./...",
              "exit_code": code, "stdout": out, "stderr": err, "must_keep": keep, "verbatim": False,
              "source": "benchmarks/capture_sweep_dev.py: go test -v, subtests printing t.Errorf"})
        code, out, err = gorun(["test", "-json", "./..."], tmp)
        save({"id": "go-sweep-test-json", "class": "go", "command": "go test -json ./...",
              "exit_code": code, "stdout": out, "stderr": err, "must_keep": [], "verbatim": True,
              "source": "benchmarks/capture_sweep_dev.py: go test -json (one JSON event a line)"})


if __name__ == "__main__":
    main()
    cargo_backtrace()
    cargo_labels()
    pytest_native()
    unittest_many()
    ls_recursive()
    ls_recursive_long()
    tsc_pretty()
