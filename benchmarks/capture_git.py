"""Capture git fixtures by running real git in repositories built here from a pip-installed package.

The repository is the ``requests`` package's source (as installed in this venv), committed file
by file with dated commits, then edited by mechanical regex refactors (what ``sed`` does), so
diffs, logs and blames are of real code. Each fixture is a case in the corpus schema written to tests/fixtures/. The facts
(``must_keep``) are picked from the real output by simple rules stated next to each case.
Re-run with ``python benchmarks/capture_git.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save

import requests

SRC = "benchmarks/capture_git.py"
AUTHORS = [("Ada Lovelace", "ada@example.org"), ("Alan Turing", "alan@example.org"),
           ("Grace Hopper", "grace@example.org")]


def run(cmd: list[str], cwd: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run ``cmd``; (exit code, stdout, stderr) decoded as UTF-8 with carriage returns kept."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


class Repo:
    """A git repository in ``path`` whose commits get increasing, fixed dates."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.tick = 0
        os.makedirs(path, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def env(self, author: int = 0) -> dict:
        name, mail = AUTHORS[author % len(AUTHORS)]
        date = f"2026-03-{1 + self.tick // 24:02d}T{self.tick % 24:02d}:00:00+00:00"
        return dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail, GIT_COMMITTER_NAME=name,
                    GIT_COMMITTER_EMAIL=mail, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date,
                    GIT_CONFIG_NOSYSTEM="1", HOME=self.path)

    def git(self, *args: str, author: int = 0) -> tuple[int, str, str]:
        return run(["git", *args], self.path, self.env(author))

    def commit(self, message: str, author: int = 0, *paths: str) -> None:
        self.git("add", *(paths or ["-A"]))
        self.tick += 1
        self.git("commit", "-q", "-m", message, author=author)

    def case(self, cid: str, args: list[str], keep, note: str, cmd: str | None = None) -> dict:
        """Run ``git args`` and save it as fixture ``cid``; ``keep(out, err)`` picks the facts."""
        code, out, err = self.git(*args)
        case = {"id": cid, "class": "git", "command": cmd or "git " + " ".join(args),
                "exit_code": code, "stdout": out, "stderr": err, "must_keep": keep(out, err),
                "verbatim": False, "source": f"{SRC}: {note}"}
        save(case)
        return case


def sed(path: str, pattern: str, repl: str) -> None:
    """Edit a file in place with a regex (what a mechanical refactor does)."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(re.sub(pattern, repl, text))


def lines(text: str, rx: str) -> list[str]:
    """Every line of ``text`` matching ``rx``."""
    return [s for s in text.splitlines() if re.search(rx, s)]


def build_history(repo: Repo) -> None:
    """The package committed module by module, then a series of edits with message bodies."""
    pkg = os.path.dirname(requests.__file__)
    dst = os.path.join(repo.path, "requests")
    os.makedirs(dst)
    for i, name in enumerate(sorted(n for n in os.listdir(pkg) if n.endswith(".py"))):
        shutil.copy(os.path.join(pkg, name), dst)
        repo.commit(f"Add {name}\n\nImported from the installed requests package.", i, f"requests/{name}")
    sessions = os.path.join(dst, "sessions.py")
    for k, (pat, rep) in enumerate([(r"\bresp\b", "response"), (r"\bhist\b", "history"),
                                    (r"\bprep\b", "prepared"), (r"\bkwargs\b", "options")]):
        sed(sessions, pat, rep)
        repo.commit(f"sessions: rename {pat[2:-2]} to {rep}\n\n" + "\n".join(
            f"Line {j} of a longer explanation of why {rep} reads better." for j in range(12)), k + 1)
    for i in range(120):  # a long, busy history: small edits with bodies and trailers
        path = os.path.join(dst, "__version__.py")
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"# build {i}\n")
        repo.commit(f"Bump build marker to {i}\n\nAutomated bump.\n\nSigned-off-by: Bot <bot@example.org>", i)


def status_cases(tmp: str) -> None:
    """git status: thousands of untracked files; a merge conflict; the short form."""
    repo = Repo(os.path.join(tmp, "status"))
    build_history(repo)
    for name in ("models.py", "api.py", "hooks.py"):
        sed(os.path.join(repo.path, "requests", name), r"\bNone\b", "None  # noqa")
    repo.git("add", "requests/models.py")
    os.makedirs(os.path.join(repo.path, "build", "cache"))
    for i in range(2500):
        with open(os.path.join(repo.path, "build", "cache", f"obj_{i:04d}.o"), "w") as fh:
            fh.write("x")
        if i < 40:
            with open(os.path.join(repo.path, f"notes_{i:02d}.txt"), "w") as fh:
                fh.write("x")
    repo.git("config", "status.showUntrackedFiles", "all")
    repo.case("git-status-huge-untracked", ["status"],
              lambda o, e: lines(o, r"^(?:On branch|Changes to be committed:|Changes not staged|Untracked files:)")
              + lines(o, r"^\tmodified:") + lines(o, r"^\tnotes_0[0-4]\.txt$"),
              "2,540 untracked files, staged and unstaged edits in a repository made from requests")
    repo.case("git-status-short-huge", ["status", "-sb"],
              lambda o, e: lines(o, r"^(?:## |M  | M )") + lines(o, r"^\?\? build/cache/obj_000[0-4]\.o$"),
              "short status of the same repository")
    repo.git("checkout", "-q", "--", ".")
    repo.git("reset", "-q")
    conflict_case(repo)


def conflict_case(repo: Repo) -> None:
    """A merge that conflicts in three files, then its long-form status (unusual sections)."""
    shutil.rmtree(os.path.join(repo.path, "build"))
    for i in range(40):
        os.remove(os.path.join(repo.path, f"notes_{i:02d}.txt"))
    repo.git("checkout", "-q", "-b", "feature")
    for name in ("api.py", "hooks.py", "certs.py"):
        sed(os.path.join(repo.path, "requests", name), r'"""', '"""  # feature')
    repo.commit("feature: annotate docstrings", 1)
    repo.git("checkout", "-q", "main")
    for name in ("api.py", "hooks.py", "certs.py", "help.py"):
        sed(os.path.join(repo.path, "requests", name), r'"""', '"""  # main')
    repo.commit("main: annotate docstrings", 2)
    code, out, err = repo.git("merge", "feature")
    repo.case("git-status-merge-conflict", ["status"],
              lambda o, e: lines(o, r"^\tboth modified:") + lines(o, r"^(?:You have unmerged paths|Unmerged paths:)"),
              f"status during a conflicted merge (merge exited {code})")
    repo.git("merge", "--abort")


def diff_cases(tmp: str) -> None:
    """git diff of a sed refactor across the package; a failing diff; git show of a merge."""
    repo = Repo(os.path.join(tmp, "diff"))
    build_history(repo)
    src = os.path.join(repo.path, "requests")
    for name in sorted(os.listdir(src)):
        if name.endswith(".py"):
            sed(os.path.join(src, name), r"\bself\.", "this.")
            sed(os.path.join(src, name), r"\(self\b", "(this")
    headers = lambda o, e: lines(o, r"^diff --git ")  # noqa: E731
    repo.case("git-diff-refactor-huge", ["diff"], headers,
              "self -> this across every module of requests (thousands of changed lines)")
    repo.case("git-diff-refactor-stat", ["diff", "--stat"], lambda o, e: lines(o, r"files? changed"),
              "the same change as a diffstat")
    repo.git("checkout", "-q", "--", ".")
    sed(os.path.join(src, "exceptions.py"), r"class (\w+)Error\(", r"class \1Failure(")
    sed(os.path.join(src, "exceptions.py"), r'"""(\w)', r'"""Raised: \1')
    sed(os.path.join(src, "sessions.py"), r"\bprepared\b", "prepared_request")
    repo.case("git-diff-exit-code-fail", ["diff", "--exit-code"],
              lambda o, e: lines(o, r"^(?:diff --git|@@ )"),
              "git diff --exit-code with differences (exit 1): renamed exception classes and a variable")
    repo.case("git-diff-bad-revision", ["diff", "no-such-branch"], lambda o, e: lines(e, r"^fatal: "),
              "git diff naming a revision that does not exist (exit 128)")
    repo.git("checkout", "-q", "--", ".")
    merge_commit(repo)
    repo.case("git-show-merge-combined", ["show", "HEAD"],
              lambda o, e: lines(o, r"^(?:commit |Merge: |diff --cc |@@@ )"),
              "git show of a merge commit whose conflict was resolved by hand: a combined diff")


def merge_commit(repo: Repo) -> None:
    """Two branches edit the same lines of models.py; the merge is resolved with a third version."""
    path = os.path.join(repo.path, "requests", "models.py")
    repo.git("checkout", "-q", "-b", "topic")
    sed(path, r"\bNone\b", "None  # topic")
    repo.commit("topic: mark defaults", 1)
    repo.git("checkout", "-q", "main")
    sed(path, r"\bNone\b", "None  # main")
    repo.commit("main: mark defaults", 2)
    repo.git("merge", "topic")
    sed(path, r"^(<<<<<<<|=======|>>>>>>>).*\n", "")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    # keep both sides' lines resolved into one: every "# topic" line wins
    text = re.sub(r"(.*)None  # main(.*)\n\1None  # topic\2\n", r"\1None  # merged\2\n", text)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    repo.commit("Merge branch 'topic'\n\nResolved by keeping one marker per default.", 0)


def main() -> None:
    """Capture every git fixture."""
    import capture_git_history
    with tempfile.TemporaryDirectory() as tmp:
        status_cases(tmp)
        diff_cases(tmp)
        capture_git_history.main(tmp)
    print("git fixtures written")


if __name__ == "__main__":
    main()
