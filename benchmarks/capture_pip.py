"""Capture pip / uv fixtures by installing real PyPI packages into temp virtual environments.

Each case is written to tests/fixtures/<id>.json in the corpus schema. Needs PyPI. The venv's pip
is upgraded first so the output is what a current pip prints. Outputs vary run to run in timings,
temp paths and the versions PyPI serves. Usage: ``python benchmarks/capture_pip.py``.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

from capture_fixtures import run, save

SRC = "benchmarks/capture_pip.py"

BROKEN_SETUP = '''
from setuptools import setup
raise RuntimeError("native extension build needs libfoo-dev (missing on this machine)")
setup(name="brokenpkg", version="0.1")
'''

PYPROJECT = '''
[project]
name = "uvdemo"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = ["httpx", "rich", "pydantic>=2", "typer"]
'''


def _case(cid: str, command: str, code: int, out: str, err: str, keep: list[str], note: str) -> None:
    keep = list(dict.fromkeys(k for k in keep if k and k in out + err))
    save({"id": cid, "class": "pip", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"})


def _lines(text: str, pattern: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if re.search(pattern, line)]


def _venv(tmp: str, name: str) -> str:
    path = os.path.join(tmp, name)
    run([sys.executable, "-m", "venv", path], tmp)
    run([os.path.join(path, "bin", "python"), "-m", "pip", "install", "-q", "-U", "pip"], tmp)
    return path


def pip_cases(tmp: str) -> None:
    """A large fresh install, the same install again, and three failing installs."""
    venv = _venv(tmp, "venv")
    env = dict(os.environ, PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
    pkgs = ["sphinx", "flask", "requests", "black", "rich"]
    code, out, err = run(["pip", "install", *pkgs], tmp, env)
    keep = _lines(out, r"^Successfully installed ") + _lines(out, r"^(?:Collecting|Processing) [^()]+$")
    _case("pip-install-fresh", "pip install " + " ".join(pkgs), code, out, err, keep,
          "pip install of five packages and their dependencies into a new venv")
    code, out, err = run(["pip", "install", *pkgs], tmp, env)
    _case("pip-install-satisfied", "pip install " + " ".join(pkgs), code, out, err,
          _lines(out, r"^Requirement already satisfied: (?:sphinx|flask|requests|black|rich) "),
          "the same pip install again: everything already satisfied")
    for cid, spec in (("pip-install-nonexistent", "thresher-no-such-package-4d1c"),
                      ("pip-install-bad-version", "flask==99.0")):
        code, out, err = run(["pip", "install", spec], tmp, env)
        _case(cid, f"pip install {spec}", code, out, err, _lines(err, r"^ERROR: "),
              "failing pip install (nonexistent package or version)")
    broken = os.path.join(tmp, "brokenpkg")
    os.makedirs(broken)
    with open(os.path.join(broken, "setup.py"), "w") as fh:
        fh.write(BROKEN_SETUP)
    code, out, err = run(["pip", "install", "requests", "./brokenpkg"], tmp, env)
    _case("pip-install-build-error", "pip install requests ./brokenpkg", code, out, err,
          _lines(out + err, r"RuntimeError|^error: |subprocess-exited-with-error|^ERROR: |setup\.py"),
          "pip install of a local package whose setup.py raises")


def uv_cases(tmp: str) -> None:
    """uv pip install into a new venv, uv sync of a small project, and a failing resolution."""
    tools = _venv(tmp, "tools")
    run([os.path.join(tools, "bin", "pip"), "install", "-q", "uv"], tmp)
    uv = os.path.join(tools, "bin", "uv")
    env = dict(os.environ, NO_COLOR="1", UV_CACHE_DIR=os.path.join(tmp, "uv-cache"))
    target = os.path.join(tmp, "uvenv")
    run([uv, "venv", target], tmp, env)
    env_t = dict(env, VIRTUAL_ENV=target)
    code, out, err = run([uv, "pip", "install", "jupyterlab"], tmp, env_t)
    _case("pip-uv-pip-install", "uv pip install jupyterlab", code, out, err,
          _lines(out + err, r"^Resolved |^Installed | \+ jupyterlab=="), "uv pip install of jupyterlab into a new venv")
    code, out, err = run([uv, "pip", "install", "flask==99.0", "requests"], tmp, env_t)
    _case("pip-uv-pip-install-unsat", "uv pip install flask==99.0 requests", code, out, err,
          _lines(out + err, r"error|unsatisfiable|flask"), "uv pip install with no solution")
    proj = os.path.join(tmp, "uvdemo")
    os.makedirs(proj)
    with open(os.path.join(proj, "pyproject.toml"), "w") as fh:
        fh.write(PYPROJECT)
    code, out, err = run([uv, "sync", "--no-install-project"], proj, env)
    _case("pip-uv-sync", "uv sync --no-install-project", code, out, err,
          _lines(out + err, r"^Resolved |^Installed | \+ (?:httpx|rich|pydantic|typer)=="),
          "uv sync of a four-dependency project")


def main() -> None:
    """Capture every pip-family fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        pip_cases(tmp)
        uv_cases(tmp)
    print("pip fixtures written")


if __name__ == "__main__":
    main()
