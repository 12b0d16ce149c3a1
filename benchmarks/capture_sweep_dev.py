"""Capture developer-tool outputs found by the generalization sweep, each one a shape a fix covers.

Cases (tests/fixtures/<id>.json, corpus schema):
- ``go-sweep-test-v-messages``: ``go test -v`` where failing subtests print ``t.Errorf`` messages
  under their ``=== RUN`` banner (the banner is what names the subtest a message belongs to);
- ``go-sweep-test-json``: ``go test -json`` (Go's single-dash flag): one JSON event a line, parsed
  by programs, so byte-exact;
- ``tsc-sweep-pretty-many``: ``tsc --pretty`` (colour, code frames between blank lines) on 15 files
  with 4 errors each: over budget the frames go and must not leave runs of blank lines behind.
Re-run with ``.venv/bin/python benchmarks/capture_sweep_dev.py`` (needs go, and npm to fetch typescript); outputs
differ run to run only in timings, temp paths and goroutine addresses.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

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
    tsc_pretty()
