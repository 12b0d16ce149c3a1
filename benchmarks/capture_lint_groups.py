"""Capture linter runs with hundreds of findings of a few rules (the grouping case of distill-lint).

Sources never used by other fixtures: bottle.py (flake8), pyparsing (pylint, conventions and
warnings), tabulate (``ruff check --select ALL`` concise), docutils' parsers (ruff full format),
Debian's own shell scripts ``/usr/bin/pg_buildext``, ``open``, ``gettextize`` (shellcheck,
gcc and tty formats), and the semver package from npm (eslint 8, stylish format, style rules as
warnings). The Python packages are wheels fetched with ``pip download`` (a wheel holds
the sources). Facts: every finding's location, each distinct message, the totals.
Needs ruff, flake8, pylint on PATH or in ``$LINT_TOOLS`` (a venv), shellcheck (apt), node + npm.
Usage: ``python benchmarks/capture_lint_groups.py``.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from capture_fixtures import save
from capture_lint import sh, tool

SRC = "benchmarks/capture_lint_groups.py"
WHEELS = ["bottle==0.13.4", "pyparsing==3.1.2", "tabulate==0.9.0", "docutils==0.21.2"]
SCRIPTS = ["/usr/bin/pg_buildext", "/usr/bin/open", "/usr/bin/gettextize"]
ROW = re.compile(r"^(?P<loc>[^\s:][^:]*:\d+(?::\d+)?):\s*(?P<msg>\S.*)$")
ARROW = re.compile(r"^\s*--> (\S+:\d+:\d+)$")
TTY = re.compile(r"^(In \S.* line \d+:)$|^\s*\^-*\^? (SC\d{4} \(\w+\): .*)$")
TOTAL = re.compile(r"^(?:Found \d+ errors?\.|Your code has been rated at .*)$")


def facts(text: str) -> list[str]:
    """Locations of every finding, each distinct message once, and the tool's totals."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = ROW.match(line)
        if m:
            out += [m["loc"], m["msg"]]
        elif (a := ARROW.match(line)) and i:
            out += [a[1], lines[i - 1]]
        elif t := TTY.match(line):
            out.append(t[1] or t[2])
        elif TOTAL.match(line):
            out.append(line)
    return list(dict.fromkeys(out))


def record(cid: str, command: str, result: tuple[int, str, str], note: str) -> None:
    code, out, err = result
    save({"id": cid, "class": "lint", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts(out), "verbatim": False, "source": f"{SRC}: {note}"})


ESLINTRC = {"root": True, "env": {"node": True, "es2021": True}, "parserOptions": {"ecmaVersion": 2022},
            "rules": {"no-var": "warn", "prefer-const": "warn", "eqeqeq": "warn", "no-unused-vars": "warn",
                      "quotes": ["warn", "double"], "semi": ["warn", "never"], "curly": "warn",
                      "no-plusplus": "warn"}}
STYLISH = re.compile(r"^(\S+\.js)$|^\s+(\d+:\d+)\s+warning\s+(.*?)\s{2,}\S+$|^\u2716 \d+ problems? .*$")


def eslint_case(tmp: str) -> None:
    """eslint 8 (stylish) on the semver package installed from npm, style rules as warnings."""
    proj = os.path.join(tmp, "es")
    os.makedirs(proj)
    with open(os.path.join(proj, "package.json"), "w") as fh:
        json.dump({"name": "es", "version": "1.0.0", "private": True}, fh)
    subprocess.run(["npm", "install", "-q", "--no-audit", "--no-fund", "eslint@8.57.1", "semver@7.6.3"],
                   cwd=proj, check=True, capture_output=True)
    shutil.copytree(os.path.join(proj, "node_modules", "semver"), os.path.join(proj, "semver"))
    with open(os.path.join(proj, ".eslintrc.json"), "w") as fh:
        json.dump(ESLINTRC, fh)
    env = dict(os.environ, ESLINT_USE_FLAT_CONFIG="false")
    p = subprocess.run([os.path.join("node_modules", ".bin", "eslint"), "--no-eslintrc", "-c", ".eslintrc.json",
                        "semver"], cwd=proj, capture_output=True, text=True, env=env)
    keep = [x for line in p.stdout.splitlines() if (m := STYLISH.match(line)) for x in m.groups() if x]
    keep += [line for line in p.stdout.splitlines() if line.startswith("\u2716")]
    save({"id": "lint-eslint-stylish-semver", "class": "lint", "command": "eslint semver",
          "exit_code": p.returncode, "stdout": p.stdout, "stderr": p.stderr,
          "must_keep": list(dict.fromkeys(keep)), "verbatim": False,
          "source": f"{SRC}: eslint 8 stylish on semver 7.6.3 (npm): hundreds of warnings of a few rules"})


def wheels(tmp: str) -> None:
    """Fetch and unpack the wheels into ``tmp``."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp, *WHEELS],
                   check=True)
    for whl in glob.glob(os.path.join(tmp, "*.whl")):
        with zipfile.ZipFile(whl) as z:
            z.extractall(tmp)


def main() -> None:
    tmp = tempfile.mkdtemp(prefix="lint-groups-")
    try:
        wheels(tmp)
        record("lint-flake8-bottle", "flake8 bottle.py", sh([tool("flake8"), "bottle.py"], tmp),
               "flake8 defaults on bottle.py 0.13.4: hundreds of E501/E701 rows")
        record("lint-pylint-pyparsing", "pylint pyparsing --disable=all --enable=C,W",
               sh([tool("pylint"), "pyparsing", "--disable=all", "--enable=C,W"], tmp),
               "pylint conventions and warnings on pyparsing 3.1.2")
        record("lint-ruff-concise-tabulate", "ruff check --select ALL --output-format concise tabulate",
               sh([tool("ruff"), "check", "--no-cache", "--select", "ALL", "--output-format", "concise",
                   "tabulate"], tmp), "every ruff rule on tabulate 0.9.0, one row a finding")
        record("lint-ruff-full-docutils", "ruff check --select E,W,F,B,UP,SIM,C4,PL docutils/parsers",
               sh([tool("ruff"), "check", "--no-cache", "--select", "E,W,F,B,UP,SIM,C4,PL",
                   "docutils/parsers"], tmp), "ruff full format (code frames) on docutils 0.21.2's parsers")
        for s in SCRIPTS:
            shutil.copy(s, tmp)
        record("lint-shellcheck-gcc-debian", "shellcheck -f gcc pg_buildext open",
               sh(["shellcheck", "-f", "gcc", "pg_buildext", "open"], tmp),
               "shellcheck gcc format on two of Debian's shell scripts")
        record("lint-shellcheck-tty-debian", "shellcheck pg_buildext gettextize",
               sh(["shellcheck", "pg_buildext", "gettextize"], tmp),
               "shellcheck tty format on Debian's pg_buildext and gettextize: findings all through")
        eslint_case(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
