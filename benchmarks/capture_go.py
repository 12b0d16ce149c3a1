"""Capture go fixtures by running the real go tool on a stdlib-only module written here.

Cases: ``go test ./...`` with a failing package, a passing one and one without tests; a huge
``go test -v`` (300 subtests); ``go build`` with compile errors; ``go vet`` findings; and an
unusual run where a test panics. Re-run with ``.venv/bin/python benchmarks/capture_go.py``
(needs go; no network: GOPROXY=off, GOFLAGS=-mod=mod).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

from capture_fixtures import save

CART = '''package cart

// Total is the price of n items at cents each, with a bulk discount.
func Total(n, cents int) int {
	gross := n * cents
	if n >= 10 {
		return gross - gross/10
	}
	return gross
}
'''

CART_TEST = '''package cart

import (
	"fmt"
	"testing"
)

func TestTotalTable(t *testing.T) {
	for i := 0; i < %N%; i++ {
		i := i
		t.Run(fmt.Sprintf("items_%d", i), func(t *testing.T) {
			if got := Total(i%9, 2); got != (i%9)*2 {
				t.Fatalf("Total(%d, 2) = %d", i%9, got)
			}
		})
	}
}

func TestBulkDiscount(t *testing.T) {
	if got := Total(10, 100); got != 950 {
		t.Errorf("Total(10, 100) = %d, want 950 (5%% off)", got)
	}
}
'''

PANIC_TEST = '''package stock

import "testing"

func TestLookup(t *testing.T) {
	var shelves map[string][]int
	shelves["nuts"][2] = 1
}
'''

BROKEN = '''package ledger

func Balance(entries []int) int {
	total := 0
	for _, e := range entries {
		total += e
	}
	return totl + missing(entries)
}

func Unused() string {
	var count int
	return 5
}
'''

VET = '''package report

import "fmt"

func Line(name string, n int) string {
	return fmt.Sprintf("%s has %d items", n, name)
}

func Copy(a, b []int) {
	a = a
}
'''


def write(root: str, rel: str, text: str) -> None:
    """Write ``text`` to ``root/rel``."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


def gorun(args: list[str], cwd: str) -> tuple[int, str, str]:
    """Run go offline and return (exit code, stdout, stderr)."""
    env = dict(os.environ, GOPROXY="off", GOFLAGS="-mod=mod", GOTOOLCHAIN="local",
               GOCACHE=os.path.join(cwd, ".cache"))
    p = subprocess.run(["go", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def facts(text: str) -> list[str]:
    """Failing rows, file:line messages, panics and package result lines of a go run."""
    pat = re.compile(r"^\s*--- FAIL: |^(?:FAIL|ok)\s+\S|^panic: |^\s*\S+\.go:\d+(?::\d+)?: |^# \S")
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if pat.match(line)))


def record(cid: str, command: str, result: tuple[int, str, str], note: str) -> None:
    """Save one case."""
    code, out, err = result
    save({"id": cid, "class": "go", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts(out + "\n" + err), "verbatim": False,
          "source": f"benchmarks/capture_go.py: {note}"})


def main() -> None:
    """Capture every go fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, "go.mod", "module example.com/shop\n\ngo 1.19\n")
        write(tmp, "cart/cart.go", CART)
        write(tmp, "cart/cart_test.go", CART_TEST.replace("%N%", "300"))
        write(tmp, "util/util.go", "package util\n\n// Max of two ints.\nfunc Max(a, b int) int {\n"
              "\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n")
        write(tmp, "stock/stock.go", "package stock\n")
        write(tmp, "stock/stock_test.go", PANIC_TEST)
        record("go-own-test-fail", "go test ./...", gorun(["test", "./..."], tmp),
               "one failing package, one panicking, one without test files")
        record("go-own-test-verbose-huge", "go test -v ./cart/", gorun(["test", "-v", "./cart/"], tmp),
               "-v with 300 subtests and one failure")
        write(tmp, "ledger/ledger.go", BROKEN)
        record("go-own-build-error", "go build ./...", gorun(["build", "./..."], tmp),
               "undefined names and a wrong return type")
        os.remove(os.path.join(tmp, "ledger", "ledger.go"))
        write(tmp, "report/report.go", VET)
        record("go-own-vet", "go vet ./...", gorun(["vet", "./..."], tmp),
               "printf argument types and a self-assignment")


if __name__ == "__main__":
    main()
