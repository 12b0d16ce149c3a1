"""Capture JavaScript test-runner fixtures by running real jest, vitest and mocha on code written here.

A small calculator/strings module with six passing jest suites and two failing ones (a wrong slug,
a TypeError, NaN for an empty mean, a rounding mismatch); mocha runs a suite of its own with node's
assert. Cases: ``npx jest`` and ``npx jest --verbose`` (jest writes to stderr), ``npx vitest run
--globals --reporter=verbose`` and ``npx mocha``. Re-run with ``.venv/bin/python
benchmarks/capture_jest.py`` (needs node and npm; installs jest 29, vitest and mocha from the npm
registry into a temporary folder). Timings differ run to run.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

from capture_fixtures import save

CALC = """function add(a, b) { return a + b; }
function sub(a, b) { return a - b; }
function mul(a, b) { return a * b; }
function div(a, b) { if (b === 0) throw new Error("division by zero"); return a / b; }
function mean(xs) { return xs.reduce(add, 0) / xs.length; }
function clamp(x, lo, hi) { return Math.max(lo, Math.min(hi, x)); }
module.exports = { add, sub, mul, div, mean, clamp };
"""
STRINGS = """function slug(s) { return s.toLowerCase().trim().replace(/[^a-z0-9]+/g, "-"); }
function title(s) { return s.split(" ").map(w => w[0].toUpperCase() + w.slice(1)).join(" "); }
function pad(s, n) { return s.length >= n ? s : s + " ".repeat(n - s.length); }
module.exports = { slug, title, pad };
"""
CALC_TEST = """const { add, sub, mul, div, mean, clamp } = require("./calc");
describe("calc batch %N%", () => {
  for (let n = 0; n < 12; n++) {
    test(`add ${n} + %N%`, () => { expect(add(n, %N%)).toBe(n + %N%); });
    test(`mul ${n} * %N%`, () => { expect(mul(n, %N%)).toBe(n * %N%); });
  }
  test("clamp keeps the range", () => { expect(clamp(5 * %N%, 0, 20)).toBeLessThanOrEqual(20); });
});
"""
STRINGS_TEST = """const { slug, title, pad } = require("./strings");
describe("strings", () => {
  test("slug of a title", () => { expect(slug("Hello World!")).toBe("hello-world"); });
  test("title case", () => { expect(title("the quick fox")).toBe("The Quick Fox"); });
  test("title of an empty string", () => { expect(title("")).toBe(""); });
  test("pad to width", () => { expect(pad("ab", 4)).toEqual("ab  "); });
  for (let n = 0; n < 15; n++) test(`pad ${n}`, () => { expect(pad("x", n).length).toBe(Math.max(1, n)); });
});
"""
DIV_TEST = """const { div, mean } = require("./calc");
describe("division", () => {
  test("divides", () => { expect(div(6, 3)).toBe(2); });
  test("throws on zero", () => { expect(() => div(1, 0)).toThrow("division by zero"); });
  test("mean of numbers", () => { expect(mean([1, 2, 3, 4])).toBe(2.5); });
  test("mean of nothing is zero", () => { expect(mean([])).toBe(0); });
  test("rounds thirds", () => { expect(div(1, 3)).toEqual(0.33); });
});
"""
MOCHA_SPEC = """const assert = require("node:assert");
const { add, mul, div, mean } = require("../src/calc");
describe("calc", function () {
  for (let n = 0; n < 20; n++) {
    it(`adds ${n}`, function () { assert.strictEqual(add(n, 2), n + 2); });
    it(`multiplies ${n}`, function () { assert.strictEqual(mul(n, 3), n * 3); });
  }
  describe("division", function () {
    it("divides", function () { assert.strictEqual(div(9, 3), 3); });
    it("mean of nothing is zero", function () { assert.strictEqual(mean([]), 0); });
    it("throws on zero", function () { assert.throws(() => div(1, 0), /zero/); });
  });
});
"""
ANSI = re.compile(r"\x1b\[[0-9;]*m")
FACT = re.compile(r"^\s*(?:● |✕ |× |FAIL |Expected|Received|> +\d+ \||at \S+ \((?:src|mtest)/|"
                  r"at (?:src|mtest)/|Tests:|Test Suites:|Test Files|Tests  |\d+ passing|\d+ failing|"
                  r"\d+\) |AssertionError|TypeError|→ |❯ (?:src|mtest)/)")

CASES = (
    ("jest-own-fail", "npx jest", ["npx", "jest"]),
    ("jest-own-fail-verbose", "npx jest --verbose", ["npx", "jest", "--verbose"]),
    ("vitest-own-fail-verbose", "npx vitest run --globals --reporter=verbose",
     ["npx", "vitest", "run", "--globals", "--reporter=verbose"]),
    ("mocha-own-fail", "npx mocha mtest", ["npx", "mocha", "mtest"]),
)


def write(root: str) -> None:
    files = {"src/calc.js": CALC, "src/strings.js": STRINGS, "src/strings.test.js": STRINGS_TEST,
             "src/div.test.js": DIV_TEST, "mtest/calc.spec.js": MOCHA_SPEC,
             "package.json": '{"name": "calc", "version": "1.0.0", "private": true}\n'}
    files.update({f"src/calc{n}.test.js": CALC_TEST.replace("%N%", str(n)) for n in range(1, 7)})
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as fh:
            fh.write(text)


def main() -> None:
    root = tempfile.mkdtemp(prefix="jsproj")
    write(root)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "jest@29", "vitest", "mocha"], cwd=root,
                   check=True, capture_output=True)
    for cid, command, argv in CASES:
        proc = subprocess.run(argv, cwd=root, capture_output=True, text=True)
        out, err = proc.stdout.replace(root, "/tmp/jsproj"), proc.stderr.replace(root, "/tmp/jsproj")
        # facts are what the agent sees verbatim: stdout as Read cleans it (escapes stripped); a
        # failing run's stderr passes byte-exact, so only its lines without escapes count
        facts = [ANSI.sub("", line).strip() for line in out.splitlines()]
        facts += [line.strip() for line in err.splitlines() if "\x1b" not in line]
        keep = sorted({f for f in facts if f and FACT.match(f) and "node:internal" not in f})
        save({"id": cid, "class": "jest", "command": command, "exit_code": proc.returncode,
              "stdout": out, "stderr": err, "must_keep": keep, "verbatim": False,
              "source": "benchmarks/capture_jest.py: jest/vitest/mocha on a module written for the fixture"})
        print(cid, proc.returncode, len(out.splitlines()), len(err.splitlines()), len(keep))


if __name__ == "__main__":
    main()
