"""Capture ``npm ls`` fixtures whose answer is a problem row deep inside a long dependency tree.

Real projects are installed from the npm registry in a temp folder, then put into the states
``npm ls`` reports: a dependency whose installed version no longer satisfies package.json
(``invalid``), one removed from package.json but still installed (``extraneous``), one declared
but never installed (``UNMET DEPENDENCY``), and an installed package's own requirement broken
(``invalid`` deep in the tree, ``UNMET DEPENDENCY`` after deleting a nested package). The facts
are the problem rows and npm's ``npm error`` summary lines. Needs node + npm.
Usage: ``python benchmarks/capture_npm_ls.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

from capture_fixtures import run, save

SRC = "benchmarks/capture_npm_ls.py"
PROBLEM = ("UNMET DEPENDENCY", " invalid", " extraneous", "UNMET OPTIONAL DEPENDENCY")


def _env() -> dict:
    return dict(os.environ, npm_config_update_notifier="false", npm_config_fund="false",
                npm_config_audit="false", NO_COLOR="1")


def _project(tmp: str, name: str, deps: dict) -> str:
    path = os.path.join(tmp, name)
    os.makedirs(path)
    _write(os.path.join(path, "package.json"), {"name": name, "version": "1.0.0", "private": True,
                                                "dependencies": deps})
    code, out, err = run(["npm", "install"], path, _env())
    if code:
        raise SystemExit(f"npm install failed in {path}:\n{out}{err}")
    return path


def _write(path: str, data: dict) -> None:
    with open(path, "w") as fh:
        json.dump(data, fh, indent=2)


def _edit(path: str, edit) -> None:
    with open(path) as fh:
        data = json.load(fh)
    edit(data)
    _write(path, data)


def _case(cid: str, cwd: str, args: list[str], note: str) -> None:
    # the hidden lockfile would hide edits made inside node_modules
    lock = os.path.join(cwd, "node_modules", ".package-lock.json")
    if os.path.exists(lock):
        os.remove(lock)
    code, out, err = run(["npm", "ls", *args], cwd, _env())
    rows = [line.strip() for line in out.splitlines() if any(p in line for p in PROBLEM)]
    errs = [line for line in err.splitlines() if line.startswith("npm error ") and "log of this run" not in line]
    save({"id": cid, "class": "npm", "command": " ".join(["npm", "ls", *args]), "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": rows + errs, "verbatim": False,
          "source": f"{SRC}: {note}"})


def main() -> None:
    tmp = tempfile.mkdtemp(prefix="npm-ls-")
    try:
        app = _project(tmp, "lsdemo", {"commander": "^11.1.0", "yargs": "^17.7.2", "chalk": "^4.1.2",
                                       "semver": "^7.6.0", "glob": "^10.3.10", "minimist": "^1.2.8",
                                       "eslint": "^8.57.0", "jest": "^29.7.0"})

        def root(d):
            d["dependencies"]["semver"] = "^6.0.0"    # installed 7.x: invalid
            del d["dependencies"]["minimist"]          # still installed: extraneous
            d["dependencies"]["left-pad"] = "^1.3.0"   # never installed: UNMET DEPENDENCY
        _edit(os.path.join(app, "package.json"), root)
        _edit(os.path.join(app, "node_modules", "glob", "package.json"),
              lambda d: d["dependencies"].__setitem__("minimatch", "^3.0.0"))
        _case("npm-ls-all-problems", app, ["--all"],
              "eslint+jest+yargs+glob project: invalid, extraneous and UNMET rows, one deep in the tree")
        _case("npm-ls-top-problems", app, [], "the same project, top level only")
        web = _project(tmp, "webdemo", {"express": "^4.21.0", "morgan": "^1.10.0", "body-parser": "^1.20.3",
                                          "webpack": "^5.90.0"})
        shutil.rmtree(os.path.join(web, "node_modules", "depd"))
        _case("npm-ls-all-nested-missing", web, ["--all"],
              "express 4 project with a nested package deleted: UNMET DEPENDENCY rows deep in the tree")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
