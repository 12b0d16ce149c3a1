"""Capture npm / pnpm / yarn fixtures by running the real package managers in temp projects.

Each case is written to tests/fixtures/<id>.json in the corpus schema. Needs node + npm and the npm
registry (pnpm and yarn are fetched with ``npx --yes``). Outputs vary run to run in timings, temp
paths and the versions the registry serves. The machine's ~/.npmrc may turn ``audit``/``fund`` off;
the install cases turn ``fund`` back on through the environment so the output is npm's default.
Usage: ``python benchmarks/capture_npm.py``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

from capture_fixtures import run, save

SRC = "benchmarks/capture_npm.py"

OLD_PACKAGES = ["request@2.88.2", "gulp@3.9.1", "babel-core@6.26.3", "webpack@3.12.0", "karma@4.4.1",
                "core-js@2.6.12", "uuid@3.4.0", "tslint@5.20.1", "istanbul@0.4.5"]

NODE_TESTS = '''
const test = require("node:test");
const assert = require("node:assert");

function slug(s) { return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""); }

for (let i = 0; i < 240; i++) {
  test(`slug keeps word ${i}`, () => { assert.strictEqual(slug(`Word ${i}`), `word-${i}`); });
}
test("slug strips accents", () => { assert.strictEqual(slug("Crème brûlée"), "creme-brulee"); });
test("slug of empty string", () => { assert.strictEqual(slug(""), "empty"); });
'''

BUILD_SCRIPT = '''
const fs = require("fs");
for (let i = 0; i < 120; i++) console.log(`bundling src/module_${i}.js (${1000 + i * 7} bytes)`);
const cfg = JSON.parse(fs.readFileSync("build.config.json", "utf8"));
console.log("done", cfg);
'''


def _env(**extra: str) -> dict:
    env = dict(os.environ, npm_config_fund="true", npm_config_update_notifier="false", NO_COLOR="1")
    env.update(extra)
    return env


def _project(tmp: str, name: str, scripts: dict | None = None) -> str:
    path = os.path.join(tmp, name)
    os.makedirs(path)
    with open(os.path.join(path, "package.json"), "w") as fh:
        json.dump({"name": name, "version": "1.0.0", "private": True, "scripts": scripts or {}}, fh)
    return path


def _case(cid: str, command: str, code: int, out: str, err: str, keep: list[str], note: str) -> None:
    keep = [k for k in keep if k and k in out + err]
    save({"id": cid, "class": "npm", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"})


def _lines(text: str, pattern: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if re.search(pattern, line)]


def _direct(out: str) -> list[str]:
    """yarn's "info Direct dependencies" block (heading and rows)."""
    lines = out.splitlines()
    if "info Direct dependencies" not in lines:
        return []
    i = lines.index("info Direct dependencies")
    rows = [lines[i]]
    for line in lines[i + 1:]:
        if not line.startswith(("├─", "└─", "│")):
            break
        rows.append(line)
    return rows


def install_cases(tmp: str) -> None:
    """npm install of many old packages, then failing installs (missing package and version)."""
    proj = _project(tmp, "legacy-app")
    cmd = ["npm", "install", *OLD_PACKAGES]
    code, out, err = run(cmd, proj, _env())
    _case("npm-install-legacy", " ".join(cmd), code, out, err,
          _lines(out, r"^added \d+ packages") + _lines(err, r"^npm warn install-scripts\s+\S+@"),
          "npm install of nine old packages into a fresh project")
    for cid, spec in (("npm-install-missing-package", "thresher-no-such-package-4d1c"),
                      ("npm-install-missing-version", "lodash@99.99.99")):
        code, out, err = run(["npm", "install", spec], proj, _env())
        _case(cid, f"npm install {spec}", code, out, err, _lines(err, r"^npm (?:error|ERR!) (?:code|404|notarget)"),
              "failing npm install (nonexistent package or version)")


def run_cases(tmp: str) -> None:
    """npm test (node's test runner, 242 tests, 2 failing) and a failing npm run build."""
    proj = _project(tmp, "slugs", {"test": "node --test", "build": "node build.js"})
    with open(os.path.join(proj, "slug.test.js"), "w") as fh:
        fh.write(NODE_TESTS)
    with open(os.path.join(proj, "build.js"), "w") as fh:
        fh.write(BUILD_SCRIPT)
    code, out, err = run(["npm", "test"], proj, _env())
    _case("npm-test-node-fail", "npm test", code, out, err,
          _lines(out, r"^not ok |^# (?:tests|pass|fail) |AssertionError|Expected values|slug\.test\.js:\d+"),
          "npm test running node --test with two failing tests")
    code, out, err = run(["npm", "run", "build"], proj, _env())
    _case("npm-run-build-fail", "npm run build", code, out, err,
          _lines(err, r"Error|build\.js:\d+|^npm error") + _lines(out, r"^> "),
          "npm run build whose script prints 120 lines then throws")


def pnpm_yarn_cases(tmp: str) -> None:
    """pnpm add and yarn (v1) add of a web stack; yarn prints every installed package."""
    proj = _project(tmp, "pn-app")
    code, out, err = run(["npx", "--yes", "pnpm@9", "add", "express@4", "webpack@5", "eslint@8"], proj, _env())
    _case("npm-pnpm-add", "pnpm add express@4 webpack@5 eslint@8", code, out, err,
          _lines(out, r"^\+ |^Done in |^Packages: "), "pnpm 9 add in a fresh project")
    code, out, err = run(["npx", "--yes", "pnpm@9", "add", "thresher-no-such-package-4d1c"], proj, _env())
    _case("npm-pnpm-add-missing", "pnpm add thresher-no-such-package-4d1c", code, out, err,
          _lines(out + err, r"ERR_PNPM|404"), "failing pnpm add of a nonexistent package")
    proj = _project(tmp, "yarn-app")
    cmd = ["npx", "--yes", "yarn@1", "add", "express@4", "webpack@4", "request@2.88.2"]
    code, out, err = run(cmd, proj, _env())
    _case("npm-yarn-add", "yarn add express@4 webpack@4 request@2.88.2", code, out, err,
          _lines(out, r"^success |^Done in ") + _direct(out) + _lines(err, r"^warning [^:]*: ")[:5],
          "yarn 1 add: deprecation warnings and the full dependency tree")


def main() -> None:
    """Capture every npm-family fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        install_cases(tmp)
        run_cases(tmp)
        pnpm_yarn_cases(tmp)
    print("npm fixtures written")


if __name__ == "__main__":
    main()
