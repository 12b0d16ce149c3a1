"""Capture verbose test runs (pytest -v, xdist, unittest -v, go test -v) of real projects' suites.

Cases (tests/fixtures/<id>.json, corpus schema), all from test suites not used elsewhere:
- pytest -v on the cachetools 8.0.2 and toolz 1.2.0 sdists (PyPI): a passing run, one with a
  skip, one with a bug injected into a copy of toolz (failures), and ``-n 2`` (pytest-xdist's
  ``[gw0] [ 5%] PASSED`` rows) on cachetools with a bug injected;
- python -m unittest -v on idna 3.20 (6,426 tests; its hypothesis module fails to import: an
  ERROR row, and a skip), simplejson 4.3.0 (skips with reasons) and cachetools with a bug injected;
- go test -v on Debian's golang-github-dustin-go-humanize-dev, -google-uuid-dev (a skip) and
  all three packages with -pkg-errors-dev's Cause broken (one package fails).

Needs network for PyPI (pip download, a throw-away venv with pytest and pytest-xdist) and the
three Debian Go packages (``apt-get install golang-github-pkg-errors-dev
golang-github-google-uuid-dev golang-github-dustin-go-humanize-dev``). Re-run with
``.venv/bin/python benchmarks/capture_testruns.py``; outputs differ run to run in timings, and
xdist's rows in their interleaving.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

from capture_fixtures import save

SDISTS = ("cachetools==8.0.2", "toolz==1.2.0", "idna==3.20", "simplejson==4.3.0")
GO_SRC = "/usr/share/gocode/src/github.com"
GO_PKGS = ("github.com/dustin/go-humanize", "github.com/google/uuid", "github.com/pkg/errors")

PYTEST_ROW = re.compile(r"^(?:\[gw\d+\] (?:\[[\s\d%]+\] )?\w+ )?[^\s:]+::\S")
PYTEST_FACT = re.compile(r"^(?:FAILED|ERROR|SKIPPED|XFAIL|XPASS) \S|^E\s+\S|^\S+\.py:\d+: \w*(?:Error|Exception)")
UNIT_ROW = re.compile(r" \.\.\. (?:FAIL|ERROR|skipped .*|expected failure|unexpected success)$")
UNIT_FACT = re.compile(r"^(?:Ran \d+ tests?|OK|FAILED|FAIL:|ERROR:|\w*Error:)")
GO_FACT = re.compile(r"^\s*--- (?:FAIL|SKIP): |^(?:ok|FAIL)\s+\S|^FAIL$|^\s+\S+_test\.go:\d+: ")


def run(cmd: list[str], cwd: str, env: dict | None = None, merged: bool = False) -> tuple[int, str, str]:
    """Run ``cmd`` and return (exit code, stdout, stderr) as text; ``merged``: as ``2>&1`` does."""
    env = dict(os.environ, PYTEST_ADDOPTS="", COLUMNS="100", NO_COLOR="1", **(env or {}))
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, text=True, env=env, timeout=900,
                       stderr=subprocess.STDOUT if merged else subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr or ""


def inject(path: str, old: str, new: str) -> None:
    """Put a bug into a copy of a package's source (the corpus does the same)."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert old in text, (path, old)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new, 1))


def pytest_facts(out: str) -> list[str]:
    """The counts line, every row that is not a pass, the short summary, E lines, locations."""
    keep = []
    for line in out.splitlines():
        if PYTEST_ROW.match(line) and "PASSED" not in line and line.strip() and not line.endswith(" "):
            keep.append(line.rstrip())
        elif PYTEST_FACT.match(line):
            keep.append(line)
        elif re.match(r"^=+ .*\d+ \w+.* in [\d.]+s", line):
            keep.append(re.sub(r" in [\d.]+s.*", "", line.strip("= ")))
    return list(dict.fromkeys(keep))


def unit_facts(err: str) -> list[str]:
    """Ran/result lines, every row that is not ok (with its reason), failure headers, errors."""
    keep = [line for line in err.splitlines() if UNIT_ROW.search(line) or UNIT_FACT.match(line)]
    return [re.sub(r" in [\d.]+s$", "", k) for k in dict.fromkeys(keep)]


def go_facts(out: str) -> list[str]:
    """FAIL/SKIP rows, the package lines (without timings) and the tests' messages."""
    keep = [re.sub(r"\s+\(?[\d.]+s\)?$", "", line) for line in out.splitlines() if GO_FACT.match(line)]
    return list(dict.fromkeys(keep))


def case(cid: str, cls: str, command: str, result: tuple[int, str, str], facts: list[str], note: str) -> None:
    """Save one fixture."""
    code, out, err = result
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out, "stderr": err,
          "must_keep": facts, "verbatim": False, "source": f"benchmarks/capture_testruns.py: {note}"})


def python_cases(tmp: str) -> None:
    """pytest -v, xdist and unittest -v on the sdists."""
    subprocess.run([sys.executable, "-m", "venv", os.path.join(tmp, "venv")], check=True)
    py = os.path.join(tmp, "venv", "bin", "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "pytest==9.2.0", "pytest-xdist==3.8.0"], check=True)
    subprocess.run([py, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", "-d", tmp,
                    *SDISTS], check=True)
    for sdist in glob.glob(os.path.join(tmp, "*.tar.gz")):
        with tarfile.open(sdist) as tf:
            tf.extractall(tmp, filter="data")
    src = {name.split("==")[0]: os.path.join(tmp, name.replace("==", "-")) for name in SDISTS}
    ct, tz = src["cachetools"], src["toolz"]
    pyt = [py, "-m", "pytest", "-v", "-p", "no:cacheprovider"]
    res = run(pyt + ["tests"], ct, {"PYTHONPATH": "src"})
    case("pytest-sdist-cachetools-verbose", "pytest", "python -m pytest -v tests", res,
         pytest_facts(res[1]), "cachetools 8.0.2 sdist, all pass (subtests' announce lines)")
    res = run(pyt + ["toolz"], tz)
    case("pytest-sdist-toolz-verbose-skip", "pytest", "python -m pytest -v toolz", res,
         pytest_facts(res[1]), "toolz 1.2.0 sdist, all pass but one skip")
    bad = os.path.join(tmp, "toolz-bug")
    shutil.copytree(tz, bad)
    inject(os.path.join(bad, "toolz", "itertoolz.py"), "    seq = iter(seq)\n    next(seq)\n", "    seq = iter(seq)\n")
    res = run(pyt + ["toolz"], bad)
    case("pytest-sdist-toolz-verbose-fail", "pytest", "python -m pytest -v toolz", res,
         pytest_facts(res[1]), "toolz 1.2.0 with second() returning the first item: failures")
    bad = os.path.join(tmp, "cachetools-bug")
    shutil.copytree(ct, bad)
    inject(os.path.join(bad, "src", "cachetools", "__init__.py"), "self.__currsize += diffsize",
           "self.__currsize += diffsize + 1")
    res = run(pyt + ["-n", "2", "tests"], bad, {"PYTHONPATH": "src"})
    case("pytest-sdist-cachetools-xdist-fail", "pytest", "python -m pytest -v -n 2 tests", res,
         pytest_facts(res[1]), "cachetools 8.0.2 with currsize off by one, xdist -n 2")
    unit = [py, "-m", "unittest", "discover", "-v", "-s"]
    # a failing command's stderr passes `thresher run` whole: the failing runs are captured as an
    # agent reads them most, with 2>&1 (unittest writes everything to stderr)
    res = run(unit + ["tests", "-t", "."], src["idna"], merged=True)
    case("unittest-sdist-idna-verbose", "unittest", "python -m unittest discover -v -s tests -t . 2>&1", res,
         unit_facts(res[1]), "idna 3.20 sdist: 6,426 tests, hypothesis not installed (ERROR), a skip")
    res = run(unit + ["simplejson/tests", "-t", "."], src["simplejson"])
    case("unittest-sdist-simplejson-verbose", "unittest",
         "python -m unittest discover -v -s simplejson/tests -t .", res, unit_facts(res[2]),
         "simplejson 4.3.0 sdist, pure Python: skips with reasons")
    res = run(unit + ["tests", "-t", "."], bad, {"PYTHONPATH": "src"}, merged=True)
    case("unittest-sdist-cachetools-verbose-fail", "unittest",
         "python -m unittest discover -v -s tests -t . 2>&1", res, unit_facts(res[1]),
         "cachetools 8.0.2 with currsize off by one: FAIL rows")


def go_cases(tmp: str) -> None:
    """go test -v on the Debian Go library packages (GOPATH mode, no network)."""
    gopath = os.path.join(tmp, "gopath")
    shutil.copytree(GO_SRC, os.path.join(gopath, "src", "github.com"), symlinks=True)
    env = {"GOPATH": gopath, "GO111MODULE": "off", "GOCACHE": os.path.join(tmp, "gocache"), "GOPROXY": "off"}
    inject(os.path.join(gopath, "src", "github.com", "pkg", "errors", "errors.go"),
           "\t\terr = cause.Cause()", "\t\treturn cause.Cause()")
    for cid, pkgs, note in (("go-deb-humanize-verbose", GO_PKGS[:1], "go-humanize, all pass"),
                            ("go-deb-uuid-verbose", GO_PKGS[1:2], "google/uuid, a skipped test"),
                            ("go-deb-three-verbose-fail", GO_PKGS,
                             "three packages, pkg/errors' Cause stops one level early: it fails")):
        res = run(["go", "test", "-v", "-count=1", *pkgs], gopath, env)
        case(cid, "go", "go test -v " + " ".join(pkgs), res, go_facts(res[1]), f"Debian golang-*-dev: {note}")


def main() -> None:
    """Capture every verbose-run fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        python_cases(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        go_cases(tmp)


if __name__ == "__main__":
    main()
