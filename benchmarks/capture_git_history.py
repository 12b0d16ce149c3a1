"""Capture git history fixtures (log, blame, branch, push, diff -ru) with real git and diff.

Uses the repository helpers of capture_git.py; run through ``python benchmarks/capture_git.py``.
"""

from __future__ import annotations

import os
import shutil

from capture_fixtures import save
from capture_git import SRC, Repo, build_history, lines, run, sed


def log_cases(repo: Repo) -> None:
    """Logs of a 140-commit history: --stat, -p, --oneline and the default format."""
    newest = lambda o, e: lines(o, r"^commit ")[:5]  # noqa: E731
    repo.case("git-log-stat-huge", ["log", "--stat"],
              lambda o, e: newest(o, e) + lines(o, r"^    Bump build marker to 11[5-9]$"),
              "git log --stat over 140 commits with bodies and trailers")
    repo.case("git-log-default-huge", ["log"],
              lambda o, e: newest(o, e) + lines(o, r"^    Bump build marker to 11\d$"),
              "plain git log over 140 commits")
    repo.case("git-log-patch", ["log", "-p", "-n", "6", "--", "requests/sessions.py"],
              lambda o, e: lines(o, r"^(?:commit |diff --git )"),
              "git log -p of the four sessions.py refactors (and the file's import)")
    repo.case("git-log-oneline-huge", ["log", "--oneline"],
              lambda o, e: o.splitlines()[:20], "git log --oneline over 140 commits")


def blame_case(repo: Repo) -> None:
    """Blame of sessions.py after four refactors by three authors."""
    def defs(o: str, _stderr: str) -> list[str]:
        return [s for s in o.splitlines() if " def request(" in s or " class Session(" in s]
    repo.case("git-blame-sessions", ["blame", "requests/sessions.py"], defs,
              "git blame of a ~800-line module edited in four commits")


def branch_case(repo: Repo) -> None:
    """300 branches (feature, release and fix names) listed by git branch."""
    for i in range(300):
        kind = ("feature", "release", "fix")[i % 3]
        repo.git("branch", f"{kind}/item-{i:03d}")
    repo.case("git-branch-many", ["branch"], lambda o, e: ["* main"] + lines(o, r"release/item-00\d$"),
              "git branch with 300 local branches")


def push_case(repo: Repo, tmp: str) -> None:
    """git push --progress to a local bare remote: progress lines on stderr."""
    bare = os.path.join(tmp, "remote.git")
    run(["git", "init", "-q", "--bare", bare], tmp)
    repo.git("remote", "add", "origin", "../remote.git")
    repo.case("git-push-progress", ["push", "--progress", "origin", "main"],
              lambda o, e: lines(e, r"^(?:To |\s*\* \[new branch\])"),
              "git push --progress of 140 commits to a bare repository on this machine")


def diff_dirs_case(tmp: str) -> None:
    """diff -ru between the installed package and a refactored copy (exit 1: files differ)."""
    import requests
    old = os.path.join(tmp, "old")
    shutil.copytree(os.path.dirname(requests.__file__), old, ignore=shutil.ignore_patterns("__pycache__"))
    new = os.path.join(tmp, "new")
    shutil.copytree(old, new)
    for name in ("adapters.py", "auth.py", "cookies.py"):
        sed(os.path.join(new, name), r"\bself\b", "this")
    code, out, err = run(["diff", "-ru", "old", "new"], tmp)
    save({"id": "git-diff-ru-dirs", "class": "diff", "command": "diff -ru old new", "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": lines(out, r"^(?:diff -ru |--- |\+\+\+ )"),
          "verbatim": False, "source": f"{SRC}: diff -ru of requests and a copy with self renamed"})


def main(tmp: str) -> None:
    """Capture the history fixtures in a fresh repository under ``tmp``."""
    repo = Repo(os.path.join(tmp, "history"))
    build_history(repo)
    log_cases(repo)
    blame_case(repo)
    branch_case(repo)
    push_case(repo, tmp)
    diff_dirs_case(tmp)
