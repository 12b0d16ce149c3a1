"""Capture the project's own test fixtures by running real tools on code written here.

Each fixture is one JSON case in the shared corpus schema (id, class, command, exit_code, stdout,
stderr, must_keep, verbatim, source), so every fixture is also a benchmark case. Re-run with
``python benchmarks/capture_fixtures.py`` (needs git and the test extra installed); the outputs
differ run to run only in timings and temp paths.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")

FAILING_TESTS = '''
import pytest

def add(a, b):
    return a + b

@pytest.mark.parametrize("n", range(60))
def test_many_passing(n):
    assert add(n, 1) == n + 1

def test_wrong_sum():
    assert add(2, 2) == 5, "two plus two"

def test_key_error():
    data = {"alpha": 1}
    assert data["beta"] == 1

class TestParser:
    def test_split(self):
        assert "a,b".split(",") == ["a", "b", "c"]
'''


def run(cmd: list[str], cwd: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run ``cmd`` and return (exit code, stdout, stderr) as text."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def save(case: dict) -> None:
    """Write one case file."""
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, case["id"] + ".json"), "w", encoding="utf-8") as fh:
        json.dump(case, fh, indent=1, ensure_ascii=False)
        fh.write("\n")


def pytest_cases(tmp: str) -> None:
    """A failing pytest run (quiet and verbose) on a small test module written here."""
    with open(os.path.join(tmp, "test_calc.py"), "w") as fh:
        fh.write(textwrap.dedent(FAILING_TESTS))
    for cid, flags in (("pytest-fail-quiet", ["-q"]), ("pytest-fail-verbose", ["-v"])):
        cmd = [sys.executable, "-m", "pytest", *flags, "-p", "no:cacheprovider", "test_calc.py"]
        code, out, err = run(cmd, tmp)
        keep = [line for line in out.splitlines() if line.startswith(("FAILED ", "E  "))]
        keep += [line for line in out.splitlines() if " failed" in line and "passed" in line]
        if cid == "pytest-fail-verbose":
            with open(os.path.join(EXAMPLES, "pytest-fail-verbose.txt"), "w") as fh:
                fh.write(out)
        save({"id": cid, "class": "pytest", "command": "python -m pytest " + " ".join(flags) +
              " test_calc.py", "exit_code": code, "stdout": out, "stderr": err,
              "must_keep": keep, "verbatim": False,
              "source": "benchmarks/capture_fixtures.py: pytest on a module written for the fixture"})


def git_cases(tmp: str) -> None:
    """git status (long and porcelain) in a repository with many untracked and modified files."""
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@e")
    run(["git", "init", "-q", "-b", "main"], repo, env)
    for i in range(30):
        with open(os.path.join(repo, f"mod_{i:02d}.py"), "w") as fh:
            fh.write(f"VALUE = {i}\n")
    run(["git", "add", "."], repo, env)
    run(["git", "commit", "-qm", "init"], repo, env)
    for i in range(0, 30, 3):
        with open(os.path.join(repo, f"mod_{i:02d}.py"), "a") as fh:
            fh.write("EXTRA = True\n")
    for i in range(12):
        with open(os.path.join(repo, f"new_{i:02d}.txt"), "w") as fh:
            fh.write("x\n")
    run(["git", "add", "new_00.txt", "new_01.txt"], repo, env)
    code, out, err = run(["git", "status"], repo, env)
    rows = [line.strip() for line in out.splitlines() if line.startswith("\t")]
    save({"id": "git-status-long", "class": "git", "command": "git status", "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": rows, "verbatim": False,
          "source": "benchmarks/capture_fixtures.py: git status in a repository made for it"})
    code, out, err = run(["git", "status", "--porcelain"], repo, env)
    save({"id": "git-status-porcelain-own", "class": "git", "command": "git status --porcelain",
          "exit_code": code, "stdout": out, "stderr": err, "must_keep": [], "verbatim": True,
          "source": "benchmarks/capture_fixtures.py"})


def python_error_case(tmp: str) -> None:
    """A Python traceback from a failing script (stderr carries the answer)."""
    with open(os.path.join(tmp, "boom.py"), "w") as fh:
        fh.write("import json\n\ndef load(s):\n    return json.loads(s)\n\n"
                 "for i in range(40):\n    print(f'processing record {i} of 40')\nload('{bad')\n")
    code, out, err = run([sys.executable, "boom.py"], tmp)
    save({"id": "python-traceback", "class": "python", "command": "python boom.py", "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": [err.strip().splitlines()[-1]],
          "verbatim": False, "source": "benchmarks/capture_fixtures.py"})


def main() -> None:
    """Capture every fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        pytest_cases(tmp)
        git_cases(tmp)
        python_error_case(tmp)
    print(f"fixtures written to {os.path.abspath(OUT)}")


if __name__ == "__main__":
    main()
