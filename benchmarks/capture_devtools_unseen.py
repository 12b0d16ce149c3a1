"""Capture test-runner, build and lint outputs from sources no other fixture used (issue 16).

Every case runs the real tool: pytest (-q, --tb=short/line/long, -x, -v, xdist, collection
errors), unittest, cargo build/test/clippy, go build/test/vet, jest, vitest, npm test, tsc, eslint,
make + gcc, clang, mypy, ruff, flake8, pylint, shellcheck and pip's resolver, on small buggy
projects written below (failing assertions with diffs, compile and type errors, panics) and on
PyPI packages no fixture used before (tomlkit, isort, dill, execnet: linted as installed).

The facts (``must_keep``) are chosen by this rule, written before looking at thresher's output and
independent of its regexes (each fact is a whole line as the tool printed it, stripped of its
indentation, or a substring of one):

1. the closing summary/count line(s) (pytest's ``N failed, M passed ... in Ts`` without the ``=``
   padding, ``Ran N tests``/``FAILED (...)``, ``test result:``, ``Found N errors``, ``✖ N problems``,
   ``Tests: ...``, ``N problems``, make's ``*** [...] Error N``);
2. every failing test id line (``FAILED ...``, ``ERROR ...``, ``--- FAIL: ...``, ``FAIL\\t...``,
   ``test x ... FAILED``, jest's ``● Suite › test`` and ``✕ ...`` rows, unittest's ``FAIL: ...``);
3. every error line: the exception line of each failure (``E   XError: ...``, ``AssertionError: ...``),
   each ``panicked at`` line and the message line under it, each compiler/type-checker error line (``error[E0382]: ...``,
   ``file:line:col: error: ...``, ``error TS2322 ...``, pip's ``ERROR: ...``);
4. the location line of each failure (``file.py:NN: AssertionError``, `` --> src/x.rs:l:c``,
   ``x_test.go:NN: ...``, the failing test's first ``File "...", line N, in test_x`` frame);
5. for enumerations of findings (lint rows, warnings): the first row of each distinct rule code
   (at most 10 codes) and 3 ordinary rows spread through the list (first, middle, last).

Re-run with ``.venv/bin/python benchmarks/capture_devtools_unseen.py`` (needs cargo, go, gcc,
clang, node/npm (typescript, eslint, jest, vitest in ``$NODE_TOOLS``), shellcheck, and a venv in
``$PY_TOOLS`` with pytest, pytest-xdist, mypy, ruff, flake8, pylint). Set-up used for the saved
fixtures: ``apt-get install golang-go shellcheck clang``; ``python3 -m venv $PY_TOOLS &&
$PY_TOOLS/bin/pip install flake8 pylint pytest pytest-xdist mypy ruff``; ``cd $NODE_TOOLS && npm init -y
&& npm install typescript@5 eslint@9 jest@29 vitest@2``. The environment's ``RUST_BACKTRACE=1``
stays for the cargo cases that do not set it. Timings and temp paths differ from run to run; one
function can be re-run alone: ``capture_devtools_unseen.py cargo_cases``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

from capture_filters import write
from capture_fixtures import save

SRC = "benchmarks/capture_devtools_unseen.py"
PY_TOOLS = os.environ.get("PY_TOOLS", "/tmp/dt-tools/venv")
NODE_TOOLS = os.environ.get("NODE_TOOLS", "/tmp/dt-node")
PY = os.path.join(PY_TOOLS, "bin", "python")


def sh(cmd: str, cwd: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run a shell command line as an agent would type it; (exit code, stdout, stderr)."""
    e = dict(os.environ, PATH=f"{PY_TOOLS}/bin:{NODE_TOOLS}/node_modules/.bin:" + os.environ["PATH"],
             NO_COLOR="1", TERM="dumb", CARGO_TERM_COLOR="never", FORCE_COLOR="0", CI="1",
             PYTHONDONTWRITEBYTECODE="1", GOFLAGS="-mod=mod", GOPROXY="off")
    e.pop("PYTEST_ADDOPTS", None)
    e.update(env or {})
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True, env=e)
    return p.returncode, p.stdout, p.stderr




def lines(text: str) -> list[str]:
    """Non-empty lines, stripped of indentation."""
    return [ln.strip() for ln in text.splitlines() if ln.strip()]


def grab(text: str, pattern: str, limit: int = 40) -> list[str]:
    """Rule 2-4: every stripped line matching ``pattern`` (at most ``limit``, spread evenly)."""
    hits = list(dict.fromkeys(ln for ln in lines(text) if re.search(pattern, ln)))
    if len(hits) <= limit:
        return hits
    step = len(hits) / limit
    return [hits[int(i * step)] for i in range(limit)]


def rows(text: str, pattern: str, code: str) -> list[str]:
    """Rule 5: the first row of each distinct rule code (``code`` group 1), plus 3 spread rows."""
    found = [ln for ln in lines(text) if re.search(pattern, ln)]
    firsts: dict[str, str] = {}
    for ln in found:
        m = re.search(code, ln)
        if m and m.group(1) not in firsts and len(firsts) < 10:
            firsts[m.group(1)] = ln
    spread = [found[0], found[len(found) // 2], found[-1]] if found else []
    return list(dict.fromkeys([*firsts.values(), *spread]))


def case(cid: str, cls: str, command: str, code: int, out: str, err: str, keep: list[str],
         what: str) -> None:
    """Save one fixture, checking every fact is really in the output."""
    text = out + "\n" + err
    keep = list(dict.fromkeys(k for k in keep if k))
    missing = [k for k in keep if k not in text]
    assert not missing, (cid, missing)
    assert keep, cid
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {what}"})
    print(f"{cid}: exit {code}, {len(out.splitlines())}+{len(err.splitlines())} lines, "
          f"{len(keep)} facts")


# ---------------------------------------------------------------------------------- python tests
LEDGER = {
    "conftest.py": "",
    "ledger/__init__.py": "",
    "ledger/core.py": '''
        """A tiny double-entry ledger, with bugs put there for the fixtures."""

        def parse_entry(line):
            date, account, amount = [p.strip() for p in line.split(";")]
            return {"date": date, "account": account.lower(), "amount": int(float(amount) * 100)}

        def balance(entries):
            total = {}
            for e in entries:
                total[e["account"]] = total.get(e["account"], 0) + e["amount"]
            return total

        def ratio(entries, account):
            b = balance(entries)
            return b[account] / sum(v for k, v in b.items() if k != account)

        def render(entries):
            out = []
            for e in entries:
                out.append(f"{e['date']}  {e['account']:<12}{e['amount'] / 100:>10.2f}")
            return "\\n".join(out)
        ''',
    "tests/test_parse.py": '''
        import pytest
        from ledger.core import parse_entry

        @pytest.mark.parametrize("n", range(180))
        def test_amounts_round_trip(n):
            assert parse_entry(f"2024-01-01; cash; {n}.25")["amount"] == n * 100 + 25

        def test_account_keeps_case():
            assert parse_entry("2024-02-01; Bank:Checking; 10") == {
                "date": "2024-02-01", "account": "Bank:Checking", "amount": 1000}

        def test_negative_amounts():
            assert parse_entry("2024-02-02; rent; -0.29")["amount"] == -29
        ''',
    "tests/test_balance.py": '''
        import pytest
        from ledger.core import balance, parse_entry, ratio

        ENTRIES = [parse_entry(x) for x in ("d; cash; 10", "d; bank; 30", "d; cash; 5")]

        @pytest.mark.parametrize("acct", ["cash", "bank"])
        def test_balance_has(acct):
            assert acct in balance(ENTRIES)

        def test_balance_values():
            assert balance(ENTRIES) == {"cash": 1500, "bank": 3000, "card": 0}

        def test_ratio_of_only_account():
            assert ratio(ENTRIES[:1], "cash") == 1.0

        def test_ratio_approx():
            assert ratio(ENTRIES, "cash") == pytest.approx(0.51)
        ''',
    "tests/test_render.py": '''
        from ledger.core import parse_entry, render

        def test_render_lines():
            got = render([parse_entry("2024-03-01; food; 12.5"), parse_entry("2024-03-02; fuel; 40")])
            assert got.splitlines() == [
                "2024-03-01  food             12.50",
                "2024-03-02  fuel             40.00",
                "2024-03-03  rent            900.00",
            ]

        def test_render_empty():
            assert render([]) == ""
        ''',
}

BROKEN_COLLECT = {
    "tests/test_import.py": '''
        from ledger.reports import monthly

        def test_monthly():
            assert monthly([]) == {}
        ''',
    "tests/test_syntax.py": '''
        def test_broken(:
            pass
        ''',
}

UTESTS = {
    "utests/__init__.py": "",
    "utests/test_ledger.py": '''
        import unittest
        from ledger.core import balance, parse_entry, ratio

        class ParseTests(unittest.TestCase):
            def test_amount(self):
                for n in range(40):
                    with self.subTest(n=n):
                        self.assertEqual(parse_entry(f"d; a; {n}")["amount"], n * 100)

            def test_account_case(self):
                self.assertEqual(parse_entry("d; Cash; 1")["account"], "Cash")

        class BalanceTests(unittest.TestCase):
            def setUp(self):
                self.entries = [parse_entry("d; cash; 2"), parse_entry("d; bank; 2")]

            def test_keys(self):
                self.assertEqual(sorted(balance(self.entries)), ["bank", "cash"])

            def test_ratio_single(self):
                self.assertAlmostEqual(ratio(self.entries[:1], "cash"), 1.0)

            def test_totals(self):
                self.assertDictEqual(balance(self.entries), {"cash": 200, "bank": 250})

        def load_tests(loader, tests, pattern):
            return tests
        ''',
    "utests/test_many.py": '''
        import unittest

        class Many(unittest.TestCase):
            pass

        for i in range(120):
            setattr(Many, f"test_row_{i:03d}", lambda self, i=i: self.assertTrue(i >= 0))
        ''',
}


def py_facts(out: str) -> list[str]:
    """Rules 1-4 for pytest output."""
    keep = grab(out, r"^(FAILED|ERROR) \S")
    keep += grab(out, r"^E\s+\w*(Error|Exception)\b|^E\s+assert ", 30)
    keep += grab(out, r"^\S+\.py:\d+: (\w+(Error|Exception)\b|assert )")
    keep += [re.sub(r"^=+ | =+$", "", ln) for ln in lines(out)
             if re.search(r"\d+ (failed|passed|error)", ln) and " in " in ln]
    keep += grab(out, r"^!+ .* !+$")
    return keep


def pytest_cases(tmp: str) -> None:
    """pytest in its output modes, xdist, collection errors; unittest."""
    proj = os.path.join(tmp, "ledger")
    write(proj, LEDGER)
    runs = [("pytest-q", "python -m pytest -q -p no:cacheprovider", "-q, 5 failures among 190"),
            ("pytest-tb-short", "python -m pytest --tb=short -p no:cacheprovider",
             "--tb=short, 5 failures"),
            ("pytest-tb-line", "python -m pytest --tb=line -q -p no:cacheprovider",
             "--tb=line: one line a failure"),
            ("pytest-x-tb-long", "python -m pytest -x --tb=long -p no:cacheprovider tests/test_render.py tests/test_balance.py",
             "-x --tb=long, stops at the first failure"),
            ("pytest-xdist", "python -m pytest -n 2 -p no:cacheprovider", "xdist -n 2, 5 failures"),
            ("pytest-v-many", "pytest -v -p no:cacheprovider", "-v: 190 rows, 5 failures"),
            ("pytest-rA", "pytest -rA -q -p no:cacheprovider tests/test_balance.py",
             "-rA: the short summary lists PASSED rows too")]
    for cid, cmd, what in runs:
        code, out, err = sh(cmd, proj)
        keep = py_facts(out)
        cls = "pytest"
        case(f"unseen-{cid}", cls, cmd.replace(" -p no:cacheprovider", ""), code, out, err, keep,
             f"ledger package written here: {what}")
    write(proj, BROKEN_COLLECT)
    cmd = "python -m pytest -q -p no:cacheprovider"
    code, out, err = sh(cmd, proj)
    keep = py_facts(out) + grab(out, r"^_+ ERROR collecting .* _+$|^E\s+(ModuleNotFoundError|SyntaxError|File )")
    case("unseen-pytest-collect-errors", "pytest", "python -m pytest -q", code, out, err, keep,
         "ledger package: an ImportError and a SyntaxError at collection")
    for rel in BROKEN_COLLECT:
        os.remove(os.path.join(proj, rel))
    write(proj, UTESTS)
    for cid, cmd in (("unittest-v", "python -m unittest discover -s utests -t . -v 2>&1"),
                     ("unittest-q", "python -m unittest utests.test_ledger utests.test_many 2>&1")):
        code, out, err = sh(cmd, proj)
        keep = grab(out, r"^(FAIL|ERROR): ") + grab(out, r"^\w*(Error|Exception): ")
        keep += grab(out, r"^Ran \d+ tests|^FAILED \(")
        keep += grab(out, r'^File ".*utests/test_ledger\.py", line \d+, in test_')
        case(f"unseen-{cid}", "unittest", cmd, code, out, err, keep,
             "ledger package: unittest with a failing subtest, assertDictEqual diff, an error")


# ---------------------------------------------------------------------------------------- cargo
CRATE_TOML = '[package]\nname = "NAME"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'

RING_OK = '''
//! A fixed-size ring buffer, with bugs put there for the fixtures.

pub struct Ring { buf: Vec<i64>, head: usize, len: usize }

impl Ring {
    pub fn new(cap: usize) -> Ring { Ring { buf: vec![0; cap], head: 0, len: 0 } }
    pub fn push(&mut self, v: i64) {
        let cap = self.buf.len();
        self.buf[(self.head + self.len) % cap] = v;
        if self.len < cap { self.len += 1 } else { self.head = (self.head + 1) % cap }
    }
    pub fn get(&self, i: usize) -> Option<i64> {
        if i > self.len { return None }
        Some(self.buf[(self.head + i) % self.buf.len()])
    }
    pub fn mean(&self) -> f64 {
        (0..self.len).map(|i| self.get(i).unwrap()).sum::<i64>() as f64 / self.len as f64
    }
    pub fn parse(s: &str) -> Ring {
        let vals: Vec<i64> = s.split(',').map(|x| x.trim().parse().unwrap()).collect();
        let mut r = Ring::new(vals.len());
        for v in vals { r.push(v) }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
%TESTS%
    #[test]
    fn get_past_end_is_none() { let r = Ring::new(3); assert_eq!(r.get(3), None); }

    #[test]
    fn mean_of_three() { let r = Ring::parse("1, 2, 4"); assert_eq!(r.mean(), 2.0, "mean of {:?}", [1, 2, 4]); }

    #[test]
    fn parse_rejects_words() { let r = Ring::parse("1, two"); assert_eq!(r.get(0), Some(1)); }

    #[test]
    #[should_panic(expected = "capacity")]
    fn zero_capacity_panics() { let mut r = Ring::new(0); r.push(1); }
}
'''

RING_BROKEN = '''
pub struct Ring { buf: Vec<i64>, len: usize }

impl Ring {
    pub fn first_mut(&mut self) -> &mut i64 { &mut self.buf[0] }
    pub fn drain_all(self) -> Vec<i64> { self.buf }
}

pub fn demo() -> usize {
    let mut r = Ring { buf: vec![1, 2, 3], len: 3 };
    let first = r.first_mut();
    r.buf.push(4);
    *first += 1;
    let v = r.drain_all();
    let n: usize = r.len;
    let unused_total = 0;
    let label = String::from("ring");
    let moved = label;
    v.len() + n + label.len() + moved.len()
}
'''

RING_TYPES = '''
pub fn total(xs: &[i64]) -> i32 { xs.iter().sum() }
pub fn scale(x: u32, f: f64) -> u32 { x * f }
pub fn name(n: Option<&str>) -> String { n.unwrap_or("none") }
pub fn call() -> usize { undefined_helper(3) + total(&[1]) as usize }
'''

RING_CLIPPY = '''
pub fn describe(xs: &Vec<String>, flag: bool) -> String {
    let mut out = String::new();
    for i in 0..xs.len() {
        if flag == true { out = out + &xs[i]; }
    }
    if xs.len() == 0 { return "empty".to_string(); }
    let copy = out.clone();
    match copy.len() { 0 => return String::from(""), _ => {} }
    return copy;
}

pub fn sums(a: &Vec<i32>) -> i32 {
    let mut s = 0;
    for x in a.iter() { s = s + *x; }
    let _ = a.iter().map(|x| x * 2).collect::<Vec<_>>().len();
    s
}
%MORE%
'''


def crate(tmp: str, name: str, lib: str) -> str:
    """A dependency-free crate ``name`` with ``lib`` as src/lib.rs."""
    path = os.path.join(tmp, name)
    os.makedirs(os.path.join(path, "src"), exist_ok=True)
    with open(os.path.join(path, "Cargo.toml"), "w") as fh:
        fh.write(CRATE_TOML.replace("NAME", name))
    with open(os.path.join(path, "src", "lib.rs"), "w") as fh:
        fh.write(lib)
    return path


def rust_facts(text: str) -> list[str]:
    """Rules 1-4 for cargo output."""
    keep = grab(text, r"^(error(\[E\d+\])?|warning): (?!unused import)")
    keep += grab(text, r"^--> src/\S+:\d+:\d+", 12) + grab(text, r"^tests::\w+$")
    keep += grab(text, r"panicked at |^test \S+ \.\.\. FAILED$|^test result: |^error: test failed")
    keep += grab(text, r"^assertion .*failed|^left: |^right: ")
    src = text.splitlines()   # rule 3: the panic's message is the line under `panicked at f:l:c:`
    keep += [src[i + 1].strip() for i, ln in enumerate(src[:-1])
             if re.search(r"panicked at \S+:\d+:\d+:$", ln) and src[i + 1].strip()]
    return keep


def cargo_cases(tmp: str) -> None:
    """cargo test (many rows, 4 failing), build with borrow errors, clippy lints."""
    tests = "".join(f"    #[test]\n    fn push_{i:03d}() {{ let mut r = Ring::new(4); r.push({i}); "
                    f"assert_eq!(r.get(0), Some({i})); }}\n" for i in range(140))
    path = crate(tmp, "ring", RING_OK.replace("%TESTS%", tests))
    sh("cargo build --offline -q", path)
    for cid, cmd in (("cargo-test", "cargo test --offline"), ("cargo-test-q", "cargo test --offline -q 2>&1")):
        code, out, err = sh(cmd, path)
        case(f"unseen-{cid}", "cargo", cmd.replace(" --offline", ""), code, out, err,
             rust_facts(out + "\n" + err), "ring crate written here: 140 passing tests, 4 failing")
    for cid, name, lib, cmd, what in (
            ("cargo-build-borrow", "ringb", RING_BROKEN, "cargo build --offline 2>&1",
             "a borrow conflict and uses after moves"),
            ("cargo-check-types", "ringt", RING_TYPES, "cargo check --offline",
             "mismatched types, a missing trait impl, an unresolved name")):
        path = crate(tmp, name, lib)
        code, out, err = sh(cmd, path)
        case(f"unseen-{cid}", "cargo", cmd.replace(" --offline", ""), code, out, err,
             rust_facts(out + "\n" + err), f"ring crate: {what}")
    more = "".join(f"pub fn len_{i}(v: &Vec<u8>) -> bool {{ if v.len() == 0 {{ return true; }} "
                   f"return false; }}\n" for i in range(30))
    path = crate(tmp, "ringc", RING_CLIPPY.replace("%MORE%", more))
    code, out, err = sh("cargo clippy --offline 2>&1", path)
    text = out + err
    keep = rows(text, r"^warning: ", r"^warning: (.+)$")
    keep += grab(text, r"^warning: `ringc` \(lib\) generated")
    case("unseen-cargo-clippy", "cargo", "cargo clippy 2>&1", code, out, err, keep,
         "ring crate: 40 clippy lints of ten kinds")


# ------------------------------------------------------------------------------------------- go
GO_FILES = {
    "go.mod": "module example.com/shelf\n\ngo 1.21\n",
    "inventory/inventory.go": '''
        package inventory

        import "strings"

        // Item is one shelf entry.
        type Item struct {
            SKU   string
            Count int
        }

        // Parse reads "sku:count" pairs separated by commas.
        func Parse(s string) []Item {
            var out []Item
            for _, p := range strings.Split(s, ",") {
                kv := strings.SplitN(strings.TrimSpace(p), ":", 2)
                n := 0
                for _, c := range kv[1] {
                    n = n*10 + int(c-'0')
                }
                out = append(out, Item{SKU: strings.ToUpper(kv[0]), Count: n})
            }
            return out
        }

        // Total counts every item.
        func Total(items []Item) int {
            t := 0
            for i := 1; i < len(items); i++ {
                t += items[i].Count
            }
            return t
        }
        ''',
    "inventory/inventory_test.go": '''
        package inventory

        import (
            "fmt"
            "testing"
        )

        func TestParseRows(t *testing.T) {
            for i := 0; i < 150; i++ {
                t.Run(fmt.Sprintf("row_%03d", i), func(t *testing.T) {
                    got := Parse(fmt.Sprintf("a:%d", i))
                    if got[0].Count != i {
                        t.Fatalf("Parse count = %d, want %d", got[0].Count, i)
                    }
                })
            }
        }

        func TestParseKeepsCase(t *testing.T) {
            got := Parse("abc:1")
            if got[0].SKU != "abc" {
                t.Errorf("SKU = %q, want %q", got[0].SKU, "abc")
            }
        }

        func TestTotal(t *testing.T) {
            if got := Total(Parse("a:1, b:2, c:3")); got != 6 {
                t.Errorf("Total = %d, want 6", got)
            }
        }

        func TestParseMissingCount(t *testing.T) {
            _ = Parse("lonely")
        }
        ''',
    "pricing/pricing.go": '''
        package pricing

        // Discount in percent for a count.
        func Discount(n int) int {
            if n > 100 {
                return 15
            }
            return n / 10
        }
        ''',
    "pricing/pricing_test.go": '''
        package pricing

        import "testing"

        func TestDiscount(t *testing.T) {
            cases := map[int]int{0: 0, 50: 5, 99: 9, 100: 10, 500: 15}
            for n, want := range cases {
                if got := Discount(n); got != want {
                    t.Errorf("Discount(%d) = %d, want %d", n, got, want)
                }
            }
        }
        ''',
    "report/report.go": '''
        package report

        // Title is a report heading.
        func Title(s string) string { return "# " + s }
        ''',
}

GO_BROKEN = {
    "broken/broken.go": '''
        package broken

        import (
            "fmt"
            "os"
        )

        func Sum(xs []int) int {
            total := 0
            for _, x := range xs {
                total += x
            }
            return total, nil
        }

        func Name() string {
            return undefinedName + fmt.Sprint(1)
        }

        func Count() int {
            var s string = 5
            return len(s)
        }
        ''',
}

GO_VET = {
    "vetme/vetme.go": '''
        package vetme

        import (
            "fmt"
            "sync"
        )

        type Counter struct {
            mu sync.Mutex
            n  int
        }

        func Show(c Counter, name string) string {
            fmt.Printf("%d items for %s\\n", name, c.n)
            x := 3
            x = x
            return fmt.Sprintf("%s", c.n)
        }

        func Copy(c *Counter) Counter { return *c }
        ''',
}


def go_facts(text: str) -> list[str]:
    """Rules 1-4 for go output."""
    keep = grab(text, r"^--- FAIL: |^FAIL\t|^ok\s+\S+|^panic: |^\S+\.go:\d+(:\d+)?: ")
    keep += grab(text, r"^# \S+$|^FAIL$")
    return keep


def go_cases(tmp: str) -> None:
    """go test ./... (-v and not), a panic, go build errors, go vet."""
    if not shutil.which("go"):
        print("go missing: skipped")
        return
    proj = os.path.join(tmp, "shelf")
    write(proj, GO_FILES)
    env = {"GOCACHE": os.path.join(tmp, "gocache"), "GOPATH": os.path.join(tmp, "gopath")}
    for cid, cmd in (("go-test", "go test ./..."), ("go-test-v", "go test ./... -v"),
                     ("go-test-count", "go test -count=1 ./inventory/ 2>&1")):
        code, out, err = sh(cmd, proj, env)
        case(f"unseen-{cid}", "go", cmd, code, out, err, go_facts(out + "\n" + err),
             "shelf module written here: an index panic, failing Errorf rows, 150 subtests")
    write(proj, GO_BROKEN)
    code, out, err = sh("go build ./... 2>&1", proj, env)
    case("unseen-go-build", "go", "go build ./... 2>&1", code, out, err, go_facts(out + err),
         "shelf module: too many return values, undefined name, type mismatch")
    shutil.rmtree(os.path.join(proj, "broken"))
    write(proj, GO_VET)
    code, out, err = sh("go vet ./...", proj, env)
    case("unseen-go-vet", "go", "go vet ./...", code, out, err, go_facts(out + err),
         "shelf module: printf verbs, self-assignment, copied lock")


# ------------------------------------------------------------------------------------------ c
def c_files(n: int) -> dict[str, str]:
    """``n`` small C modules; two with errors, several with warnings; a Makefile that echoes."""
    files = {"Makefile": "CC=gcc\nCFLAGS=-Wall -Wextra -O1\nSRCS=$(wildcard src/*.c)\n"
                         "OBJS=$(SRCS:.c=.o)\n\nall: app\n\napp: $(OBJS)\n\t$(CC) -o $@ $^\n\n"
                         "%.o: %.c\n\t$(CC) $(CFLAGS) -Iinclude -c $< -o $@\n\nclean:\n\trm -f src/*.o app\n",
             "include/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint util_add(int a, int b);\n#endif\n"}
    for i in range(n):
        body = f"#include \"util.h\"\nint mod{i}(int x) {{ return util_add(x, {i}); }}\n"
        if i % 7 == 3:
            body += f"int warn{i}(int y) {{ int unused{i}; if (y = 2) return y; }}\n"
        files[f"src/mod{i:02d}.c"] = body
    files["src/util.c"] = "#include \"util.h\"\nint util_add(int a, int b) { return a + b; }\n"
    files["src/main.c"] = "#include <stdio.h>\nint mod0(int);\nint main(void) { printf(\"%d\\n\", mod0(1)); return 0; }\n"
    return files


def c_facts(text: str) -> list[str]:
    """Rules 1-4 for gcc/clang/make output."""
    keep = grab(text, r"^\S+:\d+:\d+: (fatal )?error: |^make: \*\*\* |^\S+: In function |errors? generated\.$")
    keep += rows(text, r"^\S+:\d+:\d+: warning: ", r"\[(-W[\w-]+)\]")
    return keep


def c_cases(tmp: str) -> None:
    """make with many echoed compile commands, warnings and two failing files; clang errors."""
    proj = os.path.join(tmp, "cproj")
    files = c_files(40)
    files["src/mod17.c"] = ("#include \"util.h\"\nstruct point { int x; int y; };\n"
                            "int mod17(int x) { struct point p = {1, 2}; return p.z + x }\n")
    files["src/mod31.c"] = "#include \"util.h\"\n#include \"missing_config.h\"\nint mod31(void) { return 0; }\n"
    write(proj, files)
    code, out, err = sh("make -k 2>&1", proj)
    case("unseen-make-k", "build", "make -k 2>&1", code, out, err, c_facts(out + err),
         "40 C modules written here: warnings, a missing member, a missing header")
    sh("make clean", proj)
    code, out, err = sh("make", proj)
    case("unseen-make", "build", "make", code, out, err, c_facts(out + err),
         "the same 40 C modules: make stops at the first error")
    files = {f"src/w{i:02d}.c": f"#include <string.h>\nint w{i}(const char *s, unsigned n) {{\n"
                                f"  int k = strlen(s);\n  for (int j = 0; j < n; j++) k += s[j];\n"
                                f"  char buf[4]; strcpy(buf, s);\n  return k;\n}}\n" for i in range(25)}
    write(proj, files)
    code, out, err = sh("gcc -Wall -Wextra -Wconversion -c src/w*.c 2>&1", proj)
    case("unseen-gcc-wconversion", "build", "gcc -Wall -Wextra -Wconversion -c src/w*.c 2>&1",
         code, out, err, c_facts(out + err), "25 C files written here: sign and conversion warnings")
    if shutil.which("clang"):
        write(proj, {"src/cl.c": "#include <stdlib.h>\nstruct node { int v; struct node *next; };\n"
                     "int len(struct node *n) { int k = 0; while (n) { k++; n = n->nxt; } return k }\n"
                     "int first(struct node *n) { return n.v; }\nvoid f(void) { undeclared(3); }\n"})
        code, out, err = sh("clang -Wall -c src/cl.c", proj)
        case("unseen-clang-errors", "build", "clang -Wall -c src/cl.c", code, out, err,
             c_facts(out + err), "clang errors with fix-its on a C file written here")


# ----------------------------------------------------------------------------------- javascript
JS_FILES = {
    "src/cart.js": '''
        function total(items) {
          return items.reduce((s, it) => s + it.price * it.qty, 0);
        }
        function label(item) {
          return `${item.name.toUpperCase()} x${item.qty}`;
        }
        function byName(items) {
          return [...items].sort((a, b) => a.name.localeCompare(b.name)).map((i) => i.name);
        }
        module.exports = { total, label, byName };
        ''',
    "test/cart.test.js": '''
        const { total, label, byName } = require("../src/cart");
        describe("total", () => {
          for (let i = 0; i < 60; i++) {
            test(`sums row ${i}`, () => { expect(total([{ price: i, qty: 1 }])).toBe(i); });
          }
          test("applies quantity discount", () => {
            expect(total([{ price: 10, qty: 12 }])).toBe(108);
          });
        });
        describe("label", () => {
          test("keeps the name's case", () => {
            expect(label({ name: "Tea", qty: 2 })).toEqual("Tea x2");
          });
          test("handles a missing name", () => {
            expect(label({ qty: 1 })).toBe(" x1");
          });
        });
        describe("byName", () => {
          test("sorts and dedupes", () => {
            expect(byName([{ name: "b" }, { name: "a" }, { name: "b" }])).toEqual(["a", "b"]);
          });
          test("objects", () => {
            expect({ a: 1, b: [1, 2], c: "x" }).toStrictEqual({ a: 1, b: [1, 3], c: "x" });
          });
        });
        ''',
    "test/other.test.js": '''
        describe("other", () => {
          for (let i = 0; i < 40; i++) test(`row ${i}`, () => expect(i).toBeGreaterThanOrEqual(0));
        });
        ''',
}

TS_FILES = {
    "tsconfig.json": '{"compilerOptions": {"strict": true, "noEmit": true, "target": "es2020",'
                     ' "module": "commonjs"}, "include": ["ts"]}\n',
    "ts/orders.ts": '''
        export interface Order { id: number; lines: Line[]; note?: string }
        export interface Line { sku: string; qty: number; price: number }
        export function total(o: Order): number {
          return o.lines.reduce((s, l) => s + l.qty * l.price, "0");
        }
        export function first(o: Order): Line { return o.lines.find((l) => l.qty > 0); }
        export function shout(o: Order): string { return o.note.toUpperCase(); }
        export const o: Order = { id: "7", lines: [] };
        export function bad(x) { return x.y; }
        ''',
}


def js_facts(out: str) -> list[str]:
    """Rules 1-4 for jest/vitest output."""
    keep = grab(out, r"^● .* › |^(✕|×|FAIL) ")
    keep += grab(out, r"^(Tests|Test Suites|Test Files):\s")
    keep += grab(out, r"^at Object\.<anonymous> \(|^❯ \S+:\d+:\d+", 10)
    keep += grab(out, r"^(Expected|Received)(: | length)", 12)
    return keep


def ts_cases(proj: str) -> None:
    """tsc over many files (plain format)."""
    files = dict(TS_FILES)
    for i in range(30):
        files[f"ts/m{i:02d}.ts"] = (f"import {{ Order }} from './orders';\n"
                                    f"export const v{i}: string = {i};\n"
                                    f"export function f{i}(o: Order) {{ return o.lines[0].sku * {i}; }}\n")
    write(proj, files)
    code, out, err = sh("npx tsc --noEmit -p .", proj)
    keep = rows(out, r"error TS\d+", r"error (TS\d+)") + grab(out, r"^Found \d+ errors?")
    keep += grab(out, r"^ts/orders\.ts\(\d+,\d+\): error")
    case("unseen-tsc-many", "tsc", "npx tsc --noEmit -p .", code, out, err, keep,
         "31 TypeScript files written here: 70 errors of a few kinds")


def js_cases(tmp: str) -> None:
    """jest, vitest, npm test, eslint, tsc on code written here."""
    if not os.path.isdir(os.path.join(NODE_TOOLS, "node_modules")):
        print("node tools missing: skipped")
        return
    proj = os.path.join(tmp, "cart")
    write(proj, JS_FILES)
    write(proj, {"package.json": '{"name": "cart", "version": "1.0.0", "scripts": {"test": "jest"}}\n'})
    os.symlink(os.path.join(NODE_TOOLS, "node_modules"), os.path.join(proj, "node_modules"))
    for cid, cmd, cls in (("jest", "npx jest", "jest"), ("npm-test-jest", "npm test", "npm"),
                          ("jest-verbose", "npx jest --verbose 2>&1", "jest"),
                          ("jest-watchall-false", "npx jest --watchAll=false 2>&1", "jest"),
                          ("npm-test-watchall-false", "npm test -- --watchAll=false 2>&1", "npm")):
        code, out, err = sh(cmd, proj)
        case(f"unseen-{cid}", cls, cmd, code, out, err, js_facts(out + "\n" + err),
             "cart module written here: 100 passing tests, 5 failing with diffs")
    vdir = os.path.join(tmp, "vcart")
    write(vdir, {k.replace(".test.js", ".test.mjs"): v.replace('const { total, label, byName } = require("../src/cart");',
                 'import { describe, test, expect } from "vitest";\nimport cart from "../src/cart.js";\nconst { total, label, byName } = cart;')
                 .replace('describe("other", () => {', 'import { describe, test, expect } from "vitest";\ndescribe("other", () => {')
                 for k, v in JS_FILES.items()})
    write(vdir, {"package.json": '{"name": "vcart", "version": "1.0.0"}\n'})
    os.symlink(os.path.join(NODE_TOOLS, "node_modules"), os.path.join(vdir, "node_modules"))
    code, out, err = sh("npx vitest run", vdir)
    case("unseen-vitest-run", "vitest", "npx vitest run", code, out, err, js_facts(out + "\n" + err),
         "the cart tests under vitest")
    code, out, err = sh("npx vitest --watch=false 2>&1", vdir)
    case("unseen-vitest-watch-false", "vitest", "npx vitest --watch=false 2>&1", code, out, err,
         js_facts(out + "\n" + err), "the cart tests under vitest, watch mode turned off")
    write(proj, {"eslint.config.js": 'module.exports = [{ files: ["lib/**/*.js"], rules: {'
                 ' "no-unused-vars": "error", "no-undef": "error", "eqeqeq": "error", "no-var": "warn",'
                 ' "prefer-const": "warn", "semi": ["warn", "always"] },'
                 ' languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } } }];\n'})
    lib = {f"lib/f{i:02d}.js": (f"var a{i} = 1\nlet b{i} = 2;\nfunction g{i}(x) {{ if (x == null) return y{i}; return b{i} }}\n"
                                f"module.exports = {{ g{i} }};\n") for i in range(25)}
    write(proj, lib)
    code, out, err = sh("npx eslint lib", proj)
    keep = rows(out, r"^\d+:\d+\s+(error|warning)\s", r"\s([\w/-]+)$") + grab(out, r"^✖ \d+ problems?")
    keep += grab(out, r"^/.*/lib/f0[0-2]\.js$")
    case("unseen-eslint-stylish", "eslint", "npx eslint lib", code, out, err, keep,
         "25 JavaScript files written here: six rules, 150 findings (eslint 9 flat config)")
    ts_cases(proj)


# ------------------------------------------------------------------------------- python linters
MYPY_SRC = {
    "typed/__init__.py": "",
    "typed/shop.py": '''
        from dataclasses import dataclass
        from typing import Optional

        @dataclass
        class Item:
            name: str
            price: int

        def find(items: list[Item], name: str) -> Optional[Item]:
            for it in items:
                if it.name == name:
                    return it
            return None

        def price_of(items: list[Item], name: str) -> int:
            return find(items, name).price

        def total(items: list[Item]) -> str:
            return sum(i.price for i in items)

        def add(items: list[Item], name: str, price: str) -> None:
            items.append(Item(name, price))
            items.append(Item(name=name))

        def untyped(x, y):
            return x + y
        ''',
}


def lint_cases(tmp: str) -> None:
    """ruff, flake8, pylint, mypy on PyPI packages installed in the tools venv and code written here."""
    site = subprocess.run([PY, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True).stdout.strip()
    work = os.path.join(tmp, "lint")
    os.makedirs(work)
    for pkg in ("tomlkit", "isort", "dill", "execnet"):
        shutil.copytree(os.path.join(site, pkg), os.path.join(work, pkg),
                        ignore=shutil.ignore_patterns("__pycache__"))
    code, out, err = sh("ruff check --select ALL --output-format concise --no-cache tomlkit", work)
    keep = rows(out, r"^\S+\.py:\d+:\d+: [A-Z]+\d+ ", r": ([A-Z]+\d+) ") + grab(out, r"^Found \d+ errors?")
    case("unseen-ruff-all-tomlkit", "lint", "ruff check --select ALL --output-format concise tomlkit",
         code, out, err, keep, "ruff, every rule, on tomlkit as installed from PyPI")
    code, out, err = sh("ruff check --select E,F,B,UP,SIM --no-cache isort", work)
    keep = rows(out, r"^\S+\.py:\d+:\d+: [A-Z]+\d+ |^[A-Z]+\d+ .*$", r"([A-Z]+\d+) ")
    keep += grab(out, r"^--> \S+\.py:\d+:\d+", 3) + grab(out, r"^Found \d+ errors?")
    case("unseen-ruff-full-isort", "lint", "ruff check --select E,F,B,UP,SIM isort", code, out, err,
         keep, "ruff full format (code frames) on isort as installed from PyPI")
    code, out, err = sh("flake8 --max-line-length 100 dill", work)
    keep = rows(out, r"^\S+\.py:\d+:\d+: [A-Z]\d+ ", r": ([A-Z]\d+) ")
    case("unseen-flake8-dill", "lint", "flake8 --max-line-length 100 dill", code, out, err, keep,
         "flake8 on dill as installed from PyPI")
    code, out, err = sh("pylint --disable=C0114,C0115,C0116 execnet", work)
    keep = rows(out, r"^\S+\.py:\d+:\d+: [CRWEF]\d+: ", r": ([CRWEF]\d+): ")
    keep += grab(out, r"^\*+ Module \S+$", 3) + grab(out, r"Your code has been rated at")
    case("unseen-pylint-execnet", "lint", "pylint --disable=C0114,C0115,C0116 execnet", code, out,
         err, keep, "pylint on execnet as installed from PyPI")
    write(work, MYPY_SRC)
    code, out, err = sh("mypy --strict typed execnet", work)
    keep = grab(out, r"^typed/\S+\.py:\d+: error: ") + grab(out, r"^Found \d+ errors?")
    keep += rows(out, r"^execnet/\S+\.py:\d+: error: ", r"\[([\w-]+)\]$")
    case("unseen-mypy-strict", "lint", "mypy --strict typed execnet", code, out, err, keep,
         "mypy --strict on code written here and on execnet from PyPI")


def shellcheck_cases(tmp: str) -> None:
    """shellcheck on Debian's own shell scripts no fixture used."""
    if not shutil.which("shellcheck"):
        print("shellcheck missing: skipped")
        return
    scripts = [p for p in ("/usr/bin/ldd", "/usr/sbin/update-ca-certificates", "/usr/bin/zdiff",
                           "/usr/bin/gunzip", "/usr/bin/zgrep", "/usr/sbin/add-shell")
               if os.path.exists(p)]
    cmd = "shellcheck " + " ".join(scripts)
    code, out, err = sh(cmd, tmp)
    keep = rows(out, r"^\^-+ SC\d+ ", r"(SC\d+) ") + grab(out, r"^In /\S+ line \d+:$", 4)
    case("unseen-shellcheck-debian", "shellcheck", cmd, code, out, err, keep,
         "shellcheck tty format on Debian's own scripts (ldd, zdiff, zgrep...)")
    cmd = "shellcheck -f gcc " + " ".join(scripts)
    code, out, err = sh(cmd, tmp)
    keep = rows(out, r"^\S+:\d+:\d+: (error|warning|note|style): ", r"\[(SC\d+)\]$")
    case("unseen-shellcheck-gcc", "shellcheck", cmd, code, out, err, keep,
         "shellcheck gcc format on the same scripts")


def pip_cases(tmp: str) -> None:
    """pip's resolver: conflicting pins in a fresh venv."""
    venv = os.path.join(tmp, "pipvenv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    cmd = f"{venv}/bin/pip install 'pytest==8.0.0' 'pluggy<1.0' 'iniconfig>=2'"
    code, out, err = sh(cmd, tmp)
    keep = grab(out + err, r"^ERROR: |^The conflict is caused by:|requested |depends on ")
    case("unseen-pip-conflict", "pip", "pip install 'pytest==8.0.0' 'pluggy<1.0' 'iniconfig>=2'",
         code, out.replace(venv, "/venv"), err.replace(venv, "/venv"), keep,
         "pip install with pins no version satisfies together (ResolutionImpossible)")


# ------------------------------------------------------------------------- long, failing runs
DEEP = {
    "conftest.py": "",
    "deep/__init__.py": "",
    "deep/calc.py": """
        def level3(x):
            if x % 7 == 0:
                raise ValueError(f"bad input {x}: multiple of seven")
            return {"x": x, "sq": x * x}

        def level2(x):
            return level3(x + 0)

        def level1(x):
            return level2(x)
        """,
    "tests/test_deep.py": """
        import pytest
        from deep.calc import level1

        @pytest.mark.parametrize("n", range(1, 240))
        def test_level(n):
            got = level1(n)
            assert got == {"x": n, "sq": n * n, "cube": n ** 3} if n % 11 == 0 else True
        """,
}

UMANY = """
import unittest

class Sums(unittest.TestCase):
    pass

def make(i):
    def test(self):
        data = list(range(i))
        self.assertEqual(sum(data), i * (i - 1) // 2 + (1 if i % 9 == 4 else 0), f"sum of range({i})")
    return test

for i in range(300):
    setattr(Sums, f"test_sum_{i:03d}", make(i))
"""

GO_ROW = """
func TestRow%03d(t *testing.T) {
	for j := 0; j < 6; j++ {
		t.Run(fmt.Sprintf("case_%%d", j), func(t *testing.T) {
			if (%d * j) %% 37 == 5 {
				t.Errorf("row %d case %%d: got %%d, want %%d", j, %d*j, %d*j+1)
			}
		})
	}
}
"""


def stress_cases(tmp: str) -> None:
    """Long failing runs over any budget: pytest --tb=long/short/auto, unittest, go, cargo, jest."""
    proj = os.path.join(tmp, "deep")
    write(proj, DEEP)
    for cid, cmd in (("pytest-deep-auto", "python -m pytest -q -p no:cacheprovider"),
                     ("pytest-deep-tb-short", "python -m pytest --tb=short -p no:cacheprovider"),
                     ("pytest-deep-tb-long", "python -m pytest --tb=long -q -p no:cacheprovider"),
                     ("pytest-deep-xdist-v", "python -m pytest -n 2 -v -p no:cacheprovider")):
        code, out, err = sh(cmd, proj)
        keep = py_facts(out) + grab(out, r"^deep/calc\.py:\d+: ValueError$|^tests/test_deep\.py:\d+: in test_level$", 6)
        case(f"unseen-{cid}", "pytest", cmd.replace(" -p no:cacheprovider", ""), code, out, err,
             keep, "deep package written here: 34 ValueErrors 3 frames down, 21 failing dict asserts")
    write(proj, {"utests/__init__.py": "", "utests/test_sums.py": UMANY})
    cmd = "python -m unittest utests.test_sums 2>&1"
    code, out, err = sh(cmd, proj)
    keep = grab(out, r"^(FAIL|ERROR): ") + grab(out, r"^AssertionError: ", 12)
    keep += grab(out, r"^Ran \d+ tests|^FAILED \(") + grab(out, r'^File ".*test_sums\.py", line \d+, in test', 3)
    case("unseen-unittest-many-fail", "unittest", cmd, code, out, err, keep,
         "300 generated unittest cases, 33 failing with messages")
    if shutil.which("go"):
        gp = os.path.join(tmp, "gomany")
        body = "".join(GO_ROW % (i, i, i, i, i) for i in range(80))
        write(gp, {"go.mod": "module example.com/gomany\n\ngo 1.21\n",
                   "rows/rows_test.go": "package rows\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n" + body})
        env = {"GOCACHE": os.path.join(tmp, "gocache"), "GOPATH": os.path.join(tmp, "gopath")}
        code, out, err = sh("go test -v ./...", gp, env)
        case("unseen-go-test-v-many", "go", "go test -v ./...", code, out, err, go_facts(out + err),
             "80 tests x 6 subtests written here, a dozen failing Errorf rows")
    tests = "".join(f"    #[test]\n    fn check_{i:03d}() {{ let r = Ring::parse(\"{i}, {i + 1}\"); "
                    f"assert_eq!(r.get(1), Some({i + 1 + (1 if i % 17 == 3 else 0)}), \"row {i}\"); }}\n"
                    for i in range(260))
    path = crate(tmp, "ringmany", RING_OK.replace("%TESTS%", tests))
    code, out, err = sh("cargo test --offline 2>&1", path)
    case("unseen-cargo-test-many", "cargo", "cargo test 2>&1", code, out, err, rust_facts(out + err),
         "ring crate: 260 generated tests, 18 failing assert_eq! with a message")
    if os.path.isdir(os.path.join(NODE_TOOLS, "node_modules")):
        jp = os.path.join(tmp, "jmany")
        body = "".join(f'  test("item {i}", () => {{ expect({{ id: {i}, tags: ["a", "b"] }})'
                       f'.toEqual({{ id: {i}, tags: ["a", "{"c" if i % 13 == 5 else "b"}"] }}); }});\n'
                       for i in range(200))
        write(jp, {"package.json": '{"name": "jmany", "version": "1.0.0", "scripts": {"test": "jest"}}\n',
                   "many.test.js": 'describe("items", () => {\n' + body + "});\n"})
        os.symlink(os.path.join(NODE_TOOLS, "node_modules"), os.path.join(jp, "node_modules"))
        code, out, err = sh("npx jest 2>&1", jp)
        case("unseen-jest-many", "jest", "npx jest 2>&1", code, out, err, js_facts(out + err),
             "200 generated jest tests, 15 failing toEqual diffs")
        for cid, cmd, cls in (("jest-many-watchall-false", "npx jest --watchAll=false 2>&1", "jest"),
                              ("npm-test-many-watchall-false", "npm test -- --watchAll=false 2>&1", "npm"),
                              ("npm-test-many", "npm test 2>&1", "npm"),
                              ("npm-run-test-many-ci", "npm run test -- --ci 2>&1", "npm")):
            code, out, err = sh(cmd, jp)
            case(f"unseen-{cid}", cls, cmd, code, out, err, js_facts(out + err),
                 "the 200 generated jest tests through jest directly or the npm test script")
        vp = os.path.join(tmp, "vmany")
        write(vp, {"package.json": '{"name": "vmany", "version": "1.0.0", "scripts": {"test": "vitest run"}}\n',
                   "many.test.mjs": 'import { describe, test, expect } from "vitest";\n'
                                    + 'describe("items", () => {\n' + body + "});\n"})
        os.symlink(os.path.join(NODE_TOOLS, "node_modules"), os.path.join(vp, "node_modules"))
        code, out, err = sh("npm test 2>&1", vp)
        case("unseen-npm-test-vitest-many", "npm", "npm test 2>&1", code, out, err, js_facts(out + err),
             "the 200 generated tests under vitest, through the npm test script")


def cargo_panic_cases(tmp: str) -> None:
    """Panics whose message has no shape of its own (unwrap, expect, index), over any budget."""
    tests = "".join(
        f"    #[test]\n    fn load_{i:03d}() {{ let v: Vec<i64> = \"{i},{i + 1}\".split(',')"
        f".map(|x| x.parse().unwrap()).collect(); "
        + ("let r = Ring::parse(\"7, x\"); assert!(r.get(0).is_some()); }\n" if i % 23 == 4 else
           f"let m: std::collections::HashMap<&str, i64> = Default::default(); let _ = m.get(\"k\").expect(\"key k for row {i}\"); }}\n"
           if i % 23 == 9 else f"let _ = v[{2 if i % 23 == 15 else 1}]; }}\n")
        for i in range(220))
    path = crate(tmp, "ringpanic", RING_OK.replace("%TESTS%", tests))
    code, out, err = sh("cargo test --offline 2>&1", path, {"RUST_BACKTRACE": "0"})
    case("unseen-cargo-test-unwrap-many", "cargo", "cargo test 2>&1", code, out, err,
         rust_facts(out + err), "ring crate: 220 generated tests, 30 panicking in unwrap/expect/index")
    integ = crate(tmp, "ringinteg", RING_OK.replace("%TESTS%", ""))
    os.makedirs(os.path.join(integ, "tests"), exist_ok=True)
    for name in ("it_parse", "it_window"):
        body = "".join(
            f"#[test]\nfn {name}_{i:02d}() {{ let r = ringinteg::Ring::parse(\"{i}, {i * 2}\"); "
            + ("let s: Vec<u8> = Vec::new(); let _ = s.first().copied().unwrap(); let _ = r; }\n" if i % 11 == 6
               else "assert!(r.get(1).unwrap() >= 0); }\n") for i in range(60))
        with open(os.path.join(integ, "tests", f"{name}.rs"), "w") as fh:
            fh.write(body)
    code, out, err = sh("cargo test --offline --no-fail-fast 2>&1", integ, {"RUST_BACKTRACE": "1"})
    case("unseen-cargo-test-no-fail-fast", "cargo", "cargo test --no-fail-fast 2>&1", code, out, err,
         rust_facts(out + err) + grab(out + err, r"^error: \d+ targets failed:$|^`--test \w+`$"),
         "ring crate with two integration-test files: unwrap on None panics in each, --no-fail-fast")
    app = os.path.join(tmp, "ringapp")
    os.makedirs(os.path.join(app, "src"), exist_ok=True)
    with open(os.path.join(app, "Cargo.toml"), "w") as fh:
        fh.write(CRATE_TOML.replace("NAME", "ringapp"))
    with open(os.path.join(app, "src", "main.rs"), "w") as fh:
        fh.write('fn main() {\n    for i in 0..400 { println!("step {i}: checksum {}", i * 7919 % 1000); }\n'
                 '    let cfg = std::fs::read_to_string("ring.toml").expect("ring.toml must exist next to the binary");\n'
                 '    println!("{cfg}");\n}\n')
    code, out, err = sh("cargo run --offline 2>&1", app, {"RUST_BACKTRACE": "0"})
    case("unseen-cargo-run-panic", "cargo", "cargo run 2>&1", code, out, err, rust_facts(out + err),
         "a binary written here prints 400 lines, then expect() panics on a missing file")


GO_PANIC_PKG = """package %s

import (
	"fmt"
	"testing"
)

func TestRows(t *testing.T) {
	for i := 0; i < 120; i++ {
		t.Run(fmt.Sprintf("r%%03d", i), func(t *testing.T) {
			if %s {
				var m map[string]int
				m["boom"] = i
			}
		})
	}
}
"""


def more_stress_cases(tmp: str) -> None:
    """go -v with a panicking package among passing ones, go build's too many errors, a long
    make with errors mid-build, mypy with hundreds of errors and notes, unittest import errors."""
    env = {"GOCACHE": os.path.join(tmp, "gocache"), "GOPATH": os.path.join(tmp, "gopath")}
    if shutil.which("go"):
        gp = os.path.join(tmp, "gopanic")
        files = {"go.mod": "module example.com/gopanic\n\ngo 1.21\n"}
        for name, cond in (("alpha", "false"), ("beta", "i == 77"), ("gamma", "false")):
            files[f"{name}/{name}_test.go"] = GO_PANIC_PKG % (name, cond)
        write(gp, files)
        code, out, err = sh("go test -v ./... 2>&1", gp, env)
        case("unseen-go-test-v-panic", "go", "go test -v ./... 2>&1", code, out, err,
             go_facts(out + err) + grab(out, r"^goroutine \d+ \[running\]:$", 2)
             + grab(out, r"^\S+/beta/beta_test\.go:\d+ \+0x", 2),
             "three packages of 120 subtests written here; one subtest writes to a nil map")
        bad = "".join(f"func F{i}() int {{ return undefined{i} }}\n" for i in range(14))
        write(gp, {"broken/broken.go": "package broken\n\n" + bad})
        code, out, err = sh("go build ./... 2>&1", gp, env)
        case("unseen-go-build-too-many", "go", "go build ./... 2>&1", code, out, err,
             go_facts(out + err) + grab(out, r"too many errors"), "14 undefined names: go stops at ten")
    proj = os.path.join(tmp, "cbig")
    files = c_files(150)
    files["src/mod77.c"] = "#include \"util.h\"\nint mod77(int x) { return util_add(x, y77); }\n"
    files["src/mod120.c"] = "#include \"util.h\"\nint mod120(int x) { return util_sub(x, 1); }\n"
    write(proj, files)
    code, out, err = sh("make -k 2>&1", proj)
    case("unseen-make-k-long", "build", "make -k 2>&1", code, out, err, c_facts(out + err),
         "150 C modules written here: warnings all through, two errors mid-build, make -k")
    work = os.path.join(tmp, "mypyproj")
    mods = {"pkg/__init__.py": ""}
    for i in range(40):
        mods[f"pkg/m{i:02d}.py"] = (
            f"from typing import Optional\n\n\ndef get{i}(x: Optional[str]) -> str:\n    return x.upper()\n\n\n"
            f"def add{i}(a: int, b: int) -> int:\n    return a + str(b)\n\n\n"
            f"def use{i}() -> None:\n    get{i}(3)\n    add{i}(1)\n    reveal_type(get{i})\n")
    write(work, mods)
    code, out, err = sh("mypy pkg", work)
    keep = rows(out, r"^pkg/\S+\.py:\d+: (error|note): ", r"\[([\w-]+)\]$") + grab(out, r"^Found \d+ errors?")
    keep += grab(out, r"^pkg/m20\.py:\d+: note: ")
    case("unseen-mypy-many-notes", "lint", "mypy pkg", code, out, err, keep,
         "40 modules written here: 200 errors, reveal_type notes")
    up = os.path.join(tmp, "uimport")
    ufiles = {"conftest.py": "", "utests/__init__.py": ""}
    for i in range(30):
        ufiles[f"utests/test_u{i:02d}.py"] = (
            "import unittest\n" + ("import missing_helper_lib\n" if i in (7, 19) else "")
            + "\n\nclass T(unittest.TestCase):\n" + "".join(
                f"    def test_{j}(self):\n        self.assertEqual({j} % 5, {j} % 5 if {j} != 3 or {i} % 6 else 9)\n"
                for j in range(8)))
    write(up, ufiles)
    cmd = "python -m unittest discover -s utests -t . 2>&1"
    code, out, err = sh(cmd, up)
    keep = grab(out, r"^(FAIL|ERROR): ") + grab(out, r"^(AssertionError|ModuleNotFoundError|ImportError): ")
    keep += grab(out, r"^Ran \d+ tests|^FAILED \(")
    case("unseen-unittest-import-errors", "unittest", cmd, code, out, err, keep,
         "30 unittest modules written here: two fail to import, five assertion failures")


def main() -> None:
    """Capture every case in a fresh temporary folder."""
    only = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="thr-unseen-") as tmp:
        for fn in (pytest_cases, cargo_cases, go_cases, c_cases, js_cases, lint_cases,
                   shellcheck_cases, pip_cases, stress_cases,
                   cargo_panic_cases, more_stress_cases):
            if not only or fn.__name__ in only:
                fn(tmp)


if __name__ == "__main__":
    main()
