"""Capture Claude Code session transcripts (JSONL) from real commands, for `thresher replay` tests.

Each session is a list of tool calls that really run here — Bash commands (git, pytest, find, pip,
a failing import), Read (a file's lines) and Grep (ripgrep in content and files mode) — written in
the transcript format Claude Code keeps under ``~/.claude/projects/<project>/<session>.jsonl``:
one JSON entry per line, ``type`` assistant/user, ``message.content`` blocks, ``tool_use``
``{id, name, input}`` paired with a later ``tool_result`` ``{tool_use_id, content, is_error}``,
and the structured result in the entry's ``toolUseResult`` (Bash ``{stdout, stderr,
interrupted, isImage}``; Read ``{type: text, file: {filePath, content, numLines, startLine,
totalLines}}``; Grep ``{mode, numFiles, filenames, content, numLines}``). A failing Bash call is a
``tool_result`` with ``is_error: true`` whose content starts ``Exit code N``.

Writes ``tests/fixtures/transcripts/*.jsonl``. Re-run with ``python benchmarks/capture_transcripts.py``
(needs git and rg); outputs differ run to run only in timings, ids and temp paths.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "tests", "fixtures", "transcripts")
READ_LIMIT = 2000


class Session:
    """Builds one transcript: each tool call runs for real and is appended as a use/result pair."""

    def __init__(self, name: str, cwd: str) -> None:
        self.name, self.cwd, self.sid = name, cwd, str(uuid.uuid4())
        self.entries: list[dict] = []
        self.parent: str | None = None
        self.clock = dt.datetime(2026, 11, 30, 9, 0, 0, tzinfo=dt.timezone.utc)
        self._n = 0

    def _entry(self, kind: str, message: dict, **extra) -> dict:
        self.clock += dt.timedelta(seconds=7)
        entry = {"parentUuid": self.parent, "isSidechain": False, "userType": "external",
                 "cwd": self.cwd, "sessionId": self.sid, "version": "2.0.0", "type": kind,
                 "message": message, "uuid": str(uuid.uuid4()),
                 "timestamp": self.clock.isoformat().replace("+00:00", "Z"), **extra}
        self.parent = entry["uuid"]
        self.entries.append(entry)
        return entry

    def say(self, text: str) -> None:
        """A user prompt, then the assistant's short reply text."""
        self._entry("user", {"role": "user", "content": text})

    def _call(self, name: str, tool_input: dict, content: str, result, is_error: bool = False) -> None:
        self._n += 1
        tid = f"toolu_{self.sid[:8]}{self._n:04d}"
        self._entry("assistant", {"role": "assistant", "type": "message", "model": "claude-sonnet-4-5",
                                  "content": [{"type": "tool_use", "id": tid, "name": name,
                                               "input": tool_input}]})
        self._entry("user", {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result",
                                                          "content": content, "is_error": is_error}]},
                    toolUseResult=result)

    def bash(self, command: str, description: str = "") -> None:
        """Run ``command`` under bash in the session's folder, as the Bash tool does."""
        p = subprocess.run(["bash", "-c", command], cwd=self.cwd, capture_output=True, text=True,
                           env={**os.environ, "NO_COLOR": "1", "GIT_PAGER": "cat", "PAGER": "cat"})
        out, err = p.stdout.rstrip("\n"), p.stderr.rstrip("\n")
        text = "\n".join(s for s in (out, err) if s)
        tool_input = {"command": command, "description": description or command[:40]}
        if p.returncode:
            text = f"Exit code {p.returncode}\n{text}"
            self._call("Bash", tool_input, text, f"Error: {text}", is_error=True)
        else:
            self._call("Bash", tool_input, text,
                       {"stdout": out, "stderr": err, "interrupted": False, "isImage": False})

    def read(self, path: str, offset: int = 1, limit: int = READ_LIMIT) -> None:
        """The Read tool: numbered lines ``N→text`` of the file, from ``offset``."""
        full = os.path.join(self.cwd, path)
        with open(full, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        shown = lines[offset - 1:offset - 1 + limit]
        content = "\n".join(f"{offset + i:>6}→{line}" for i, line in enumerate(shown))
        self._call("Read", {"file_path": full}, content,
                   {"type": "text", "file": {"filePath": full, "content": "\n".join(shown),
                                             "numLines": len(shown), "startLine": offset,
                                             "totalLines": len(lines)}})

    def grep(self, pattern: str, path: str = ".", mode: str = "files_with_matches",
             glob: str | None = None) -> None:
        """The Grep tool (ripgrep): content lines ``path:N:text``, or the matching files."""
        argv = ["rg", "--no-heading", "--color", "never"]
        argv += {"content": ["-n"], "count": ["-c"]}.get(mode, ["-l"])
        argv += ["--glob", glob] if glob else []
        p = subprocess.run(argv + ["-e", pattern, path], cwd=self.cwd, capture_output=True, text=True)
        lines = p.stdout.splitlines()
        tool_input = {"pattern": pattern, "path": os.path.join(self.cwd, path), "output_mode": mode}
        if glob:
            tool_input["glob"] = glob
        if mode == "files_with_matches":
            content = f"Found {len(lines)} files\n" + "\n".join(lines) if lines else "No files found"
            result = {"mode": mode, "filenames": lines, "numFiles": len(lines)}
        else:
            content = "\n".join(lines) if lines else "No matches found"
            result = {"mode": mode, "numFiles": len({ln.split(":", 1)[0] for ln in lines}),
                      "filenames": [], "content": content, "numLines": len(lines)}
        self._call("Grep", tool_input, content, result)

    def save(self) -> str:
        """Write ``tests/fixtures/transcripts/<name>.jsonl``."""
        os.makedirs(OUT, exist_ok=True)
        path = os.path.join(OUT, self.name + ".jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            for e in self.entries:
                fh.write(json.dumps(e, ensure_ascii=False) + "\n")
        return path


CALC = '''"""A tiny calculator used to capture a failing-then-fixed session."""


def add(a, b):
    return a + b


def mean(values):
    return sum(values) / len(values)


def parse_pair(text):
    left, right = text.split(",")
    return int(left), int(right)
'''

TESTS = '''import pytest

from calc import add, mean, parse_pair


@pytest.mark.parametrize("n", range(40))
def test_add_many(n):
    assert add(n, 1) == n + 1


def test_mean_of_empty_list_is_zero():
    assert mean([]) == 0


def test_parse_pair_with_spaces():
    assert parse_pair(" 3, 4") == (3, 4)


def test_parse_pair_rejects_three():
    with pytest.raises(ValueError):
        parse_pair("1,2,3")
'''


def fix_session(tmp: str) -> str:
    """A session that finds and fixes a failing test in a small project written here."""
    repo = os.path.join(tmp, "calc")
    os.makedirs(repo)
    for name, text in (("calc.py", CALC), ("test_calc.py", TESTS)):
        with open(os.path.join(repo, name), "w") as fh:
            fh.write(text)
    git = "git -c user.name=dev -c user.email=dev@example.com"
    subprocess.run(f"git init -q && {git} add . && {git} commit -qm 'calculator and tests'",
                   shell=True, cwd=repo, check=True)
    s = Session("fix-failing-test", repo)
    s.say("The test suite fails on mean([]). Please fix it.")
    s.bash("git status", "Show working tree status")
    s.bash(f"{sys.executable} -m pytest -v", "Run the tests verbosely")
    s.read("calc.py")
    s.grep("def mean", mode="content")
    s.grep("mean", mode="files_with_matches")
    with open(os.path.join(repo, "calc.py"), "a") as fh:
        fh.write("\n\ndef mean_or_zero(values):\n    return mean(values) if values else 0\n")
    subprocess.run(["sed", "-i", "s/return sum(values) \\/ len(values)/return sum(values) \\/ len(values) if values else 0/",
                    "calc.py"], cwd=repo, check=True)
    s.bash("git diff", "Show the change")
    s.bash(f"{sys.executable} -m pytest -q", "Run the tests again")
    s.bash(f"{sys.executable} -c 'import calc_missing'", "Check a module that does not exist")
    s.bash("ls -la", "List the project folder")
    return s.save()


def explore_session() -> str:
    """A read-only session exploring this repository (its own files, so nothing from elsewhere)."""
    s = Session("explore-thresher", ROOT)
    s.say("How does the executor enforce the invariants?")
    s.bash("git log --stat -n 15", "Recent history")
    s.bash("find . -name '*.py' -not -path './.venv/*' -not -path './tests/*' | sort", "Python files")
    s.read("dataflow/executor.py")
    s.grep("def run_plan", path="dataflow", mode="content")
    s.grep("INV-", path=".", mode="files_with_matches", glob="*.py")
    s.grep("raise", path="dataflow", mode="count")
    s.bash(f"{sys.executable} -m pip list", "Installed packages")
    s.bash("wc -l stages/*.py | sort -n | tail -20", "Largest stage modules")
    s.read("README.md", offset=1, limit=80)
    s.bash("git status --porcelain", "Porcelain status")
    return s.save()


def main() -> None:
    """Capture both sessions."""
    with tempfile.TemporaryDirectory() as tmp:
        for path in (fix_session(tmp), explore_session()):
            print(path)


if __name__ == "__main__":
    main()
