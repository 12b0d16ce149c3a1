"""Capture fixtures of everyday outputs from sources no other fixture uses (issue 16's "unseen" check).

Sources: a git repository built here from eleven sdists of ``packaging`` (PyPI), each release
committed file by file in release order, with tags, branches, a local clone as ``origin``, stashes
and uncommitted edits (the next release unpacked over the tree); the system's own Python library
(``/usr/lib/python3.11``), ``/usr/share/zoneinfo`` and ``/etc``; this machine's processes and
Debian package list; nginx (a custom ``log_format``, a rate limit, an upstream that fails) and two
redis-servers (a replica losing its master) run on 127.0.0.1; a Python program of this script's
that parses version strings with ``packaging`` and logs what it rejects (text and JSON lines).

The facts (``must_keep``) are picked by one rule for every case, fixed before the outputs were
seen and never tuned to what thresher keeps:

1. **Summary and count lines**: ``total N``, ``N files changed, ...``, ``N directories, N files``,
   the header row of a table (``Filesystem``, ``PID``/``USER``), the last line of ``du``.
2. **Error lines**: every line with ``error``/``fatal``/``[crit]``/``[emerg]``/``Traceback`` or a
   Python exception line (``Name: message`` with ``Error``/``Exception`` in the name), once per
   distinct text after digits are masked (repeats of one message are one fact).
3. **Rows at fixed positions** of the enumeration the command prints (its rows, commits, matches,
   entries): the first, the one at the middle and the last. Mid-list rows are the test: an agent
   asks for a listing to find a row, which may be anywhere.
4. **Named rows**: the rows naming an object chosen when the command was written (the ``NAMED``
   argument of each case: a module an agent would look for, a tag, a file of the diff), as whole
   lines.
For git the enumeration's row is a commit's hash line and its subject; for a diff, its ``diff
--git`` headers. Re-run with ``python benchmarks/capture_listings_unseen.py`` (root: installs
nothing, but needs git, rg, ag, tree, nginx and redis-server from Debian).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save
from capture_nginx import Site, failed_kinds, get, scratch

SRC = "benchmarks/capture_listings_unseen.py"
VERSIONS = ["20.9", "21.0", "21.3", "22.0", "23.0", "23.1", "23.2", "24.0", "24.1", "24.2", "25.0"]
NEXT = "26.0"
AUTHORS = [("Mira Okafor", "mira@example.net"), ("Tomas Lind", "tomas@example.net"),
           ("Ines Duarte", "ines@example.net"), ("Kenji Aoki", "kenji@example.net")]
ERR = re.compile(r"(?i)\berror\b|\bfatal\b|\[crit\]|\[emerg\]|^Traceback|^\w[\w.]*(?:Error|Exception): ")


def run(cmd, cwd: str, env: dict | None = None, shell: bool = False) -> tuple[int, str, str]:
    """Run ``cmd``; (exit code, stdout, stderr) as text."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, env=env, shell=shell)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def rule(out: str, err: str, rows: list[str], named: tuple[str, ...] = (),
         summary: str = r"^\s*total \d|files? changed|^\d+ director|^Filesystem|^\s*PID\b|^USER\b") -> list[str]:
    """The docstring's rule: summaries, distinct error lines, first/middle/last row, named rows."""
    keep: list[str] = []
    text = out.splitlines() + err.splitlines()
    keep += [s.strip() for s in text if re.search(summary, s)]
    seen = set()
    for s in text:
        if ERR.search(s):
            k = re.sub(r"\d+", "#", s)
            if k not in seen:
                seen.add(k)
                keep.append(s.strip())
    if rows:
        keep += [rows[0].strip(), rows[len(rows) // 2].strip(), rows[-1].strip()]
    for name in named:
        keep += [s.strip() for s in text if re.search(name, s)][:2]
    out_keep: list[str] = []
    for k in keep:
        if k and k not in out_keep:
            out_keep.append(k)
    return out_keep


def case(cid: str, cls: str, command: str, code: int, out: str, err: str, keep: list[str], note: str,
         verbatim: bool = False) -> None:
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out, "stderr": err,
          "must_keep": keep, "verbatim": verbatim, "source": f"{SRC}: {note}"})


# -- git ------------------------------------------------------------------------------------------

class Repo:
    """A repository whose commits get increasing fixed dates and rotating authors."""

    def __init__(self, path: str) -> None:
        self.path, self.tick = path, 0
        os.makedirs(path, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def env(self) -> dict:
        name, mail = AUTHORS[self.tick % len(AUTHORS)]
        date = f"2025-{1 + self.tick // 28 % 12:02d}-{1 + self.tick % 28:02d}T{9 + self.tick % 9:02d}:15:00+01:00"
        return dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail, GIT_COMMITTER_NAME=name,
                    GIT_COMMITTER_EMAIL=mail, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date,
                    GIT_CONFIG_NOSYSTEM="1", HOME=self.path, TZ="UTC")

    def git(self, *args: str) -> tuple[int, str, str]:
        return run(["git", *args], self.path, self.env())

    def commit(self, message: str, *paths: str) -> None:
        self.git("add", "-A", *paths)
        self.tick += 1
        self.git("commit", "-q", "-m", message)


def unpack(sdist: str, dst: str) -> None:
    """Replace ``dst``'s tracked sources with the sdist's ``src``/``packaging``, docs and tests."""
    with tempfile.TemporaryDirectory() as t:
        with tarfile.open(sdist) as tf:
            tf.extractall(t, filter="data")
        top = glob.glob(os.path.join(t, "packaging-*"))[0]
        for sub in ("packaging", "src", "tests", "docs"):
            shutil.rmtree(os.path.join(dst, sub), ignore_errors=True)
        copy_release(top, dst, skip=("PKG-INFO", "setup.cfg"))


def copy_release(top: str, dst: str, skip: tuple[str, ...] = ("PKG-INFO",)) -> None:
    """Copy an unpacked sdist's tree ``top`` into ``dst``: what a checkout of that release holds
    (no ``skip`` files, egg-info or ``__pycache__``)."""
    for name in os.listdir(top):
        if name in skip or name.endswith(".egg-info"):
            continue
        s, d = os.path.join(top, name), os.path.join(dst, name)
        if os.path.isdir(s):
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
        else:
            shutil.copy(s, d)


def build(repo: Repo, sdists: dict[str, str]) -> None:
    """Each release committed one changed file at a time, then tagged."""
    for v in VERSIONS:
        unpack(sdists[v], repo.path)
        _, st, _ = repo.git("status", "--porcelain", "-uall")
        paths = sorted({ln[3:].split(" -> ")[-1] for ln in st.splitlines()})
        groups: dict[str, list[str]] = {}
        for p in paths:
            groups.setdefault(p.split("/")[0] if p.startswith(("tests/", "docs/")) else p, []).append(p)
        for key, ps in groups.items():
            what = "tests" if key == "tests" else "docs" if key == "docs" else key
            repo.git("add", "-A", "--", *ps)
            repo.tick += 1
            repo.git("commit", "-q", "-m", f"{v}: update {what}\n\nFrom the packaging {v} sdist.")
        repo.git("tag", "-a", v, "-m", f"packaging {v}")
        if v == "23.0":
            repo.git("checkout", "-q", "-b", "feature/markers-cache")
            with open(os.path.join(repo.path, "NOTES.md"), "a") as fh:
                fh.write("cache parsed markers\n")
            repo.commit("Cache parsed markers (draft)")
            repo.git("checkout", "-q", "main")
        if v == "24.0":
            repo.tick += 1
            repo.git("merge", "-q", "--no-ff", "-m", "Merge branch 'feature/markers-cache'",
                     "feature/markers-cache")


def subjects(log: str) -> list[str]:
    """Each commit's subject: its first message line (indented four spaces) after the header."""
    out, want = [], False
    for s in log.splitlines():
        if s.startswith("commit "):
            want = True
        elif want and s.startswith("    ") and s.strip():
            out.append(s)
            want = False
    return out


def git_cases(tmp: str, sdists: dict[str, str]) -> None:
    repo = Repo(os.path.join(tmp, "packaging"))
    build(repo, sdists)
    for i in range(14):
        repo.git("branch", f"release/{VERSIONS[i % len(VERSIONS)]}-fix{i}", f"{VERSIONS[i % len(VERSIONS)]}")
    origin = os.path.join(tmp, "origin.git")
    run(["git", "clone", "-q", "--bare", repo.path, origin], tmp)
    repo.git("remote", "add", "origin", origin)
    repo.git("fetch", "-q", "origin")

    def g(cid: str, args: list[str], rows_rx: str, named: tuple[str, ...], note: str, cls: str = "git",
          verbatim: bool = False) -> None:
        code, out, err = repo.git(*args)
        rows = [s for s in out.splitlines() if re.search(rows_rx, s)]
        case(cid, cls, "git " + " ".join(args), code, out, err, rule(out, err, rows, named), note, verbatim)

    g("unseen-git-log-oneline", ["log", "--oneline"], r"^[0-9a-f]{7,} ", (r"Merge branch",),
      "git log --oneline over ~130 commits of packaging releases")
    code, out, err = repo.git("log")
    subj = [s for s in out.splitlines() if s.startswith("    ") and ": update " in s]
    hashes = [s for s in out.splitlines() if s.startswith("commit ")]
    case("unseen-git-log-default", "git", "git log", code, out, err,
         rule(out, err, hashes) + [subj[0].strip(), subj[len(subj) // 2].strip(), subj[-1].strip()],
         "plain git log over ~130 commits with bodies")
    for cid, args, note in (("unseen-git-log-fuller", ["log", "--pretty=fuller", "--no-merges"],
                             "git log --pretty=fuller --no-merges (AuthorDate/CommitDate fields)"),
                            ("unseen-git-log-all-decorate", ["log", "--all", "--decorate"],
                             "git log --all --decorate: every branch and tag named on its commit")):
        code, out, err = repo.git(*args)
        subj = subjects(out)
        hashes = [s for s in out.splitlines() if s.startswith("commit ")]
        case(cid, "git", "git " + " ".join(args), code, out, err,
             rule(out, err, hashes) + [subj[0].strip(), subj[len(subj) // 2].strip(), subj[-1].strip()], note)
    g("unseen-git-log-stat", ["log", "--stat", "-n", "20"], r"^commit ", (r"src/packaging/version\.py",),
      "git log --stat -n 20")
    g("unseen-git-log-patch", ["log", "-p", "-n", "4", "--", "src/packaging/specifiers.py"],
      r"^commit |^diff --git", (), "git log -p of specifiers.py's last four changes")
    g("unseen-git-log-graph", ["log", "--graph", "--oneline", "--all", "-n", "60"], r"[0-9a-f]{7} ",
      (r"Merge branch", r"Cache parsed markers"), "git log --graph --oneline --all with a merged branch")
    g("unseen-git-diff-tags-stat", ["diff", "--stat", "22.0", "24.0"], r"\|", (r"markers\.py",),
      "git diff --stat between two release tags")
    g("unseen-git-show-merge", ["show", "--stat", "HEAD~0"], r"^commit |\|", (), "git show --stat of HEAD")
    g("unseen-git-blame-version", ["blame", "src/packaging/version.py"], r"\) ",
      (r"\) class Version\(", r"\) def parse\("), "git blame of version.py over eleven releases")
    g("unseen-git-branch-all", ["branch", "-a"], r"\S", (r"^\* main", r"feature/markers-cache"),
      "git branch -a with 15 local branches and the origin's")
    g("unseen-git-reflog", ["reflog", "-n", "40"], r"HEAD@", (r"merge feature",), "git reflog -n 40")
    # the next release unpacked over the tree: uncommitted edits, a few staged, some untracked files
    unpack(sdists[NEXT], repo.path)
    for n in ("scratch.py", "notes/todo.txt", "build/out.log"):
        os.makedirs(os.path.dirname(os.path.join(repo.path, n)) or repo.path, exist_ok=True)
        with open(os.path.join(repo.path, n), "w") as fh:
            fh.write("x\n")
    repo.git("add", "src/packaging/markers.py", "src/packaging/tags.py")
    g("unseen-git-status-dirty", ["status"], r"^\t", (r"Changes to be committed:", r"Untracked files:"),
      "git status with the next release unpacked over the tree")
    g("unseen-git-status-short", ["status", "-s"], r"^.. ", (), "git status -s of the same tree")
    g("unseen-git-diff-stat", ["diff", "--stat"], r"\|", (r"version\.py",), "git diff --stat, unstaged")
    g("unseen-git-diff-cached", ["diff", "--cached"], r"^diff --git",
      (r"^@@ .* def ", ), "git diff --cached of two staged modules")
    g("unseen-git-diff-worktree", ["diff"], r"^diff --git", (), "git diff of a whole release's changes")
    g("unseen-git-diff-word", ["diff", "--word-diff", "--", "src/packaging/utils.py"], r"\[-|\{\+",
      (r"^diff --git",), "git diff --word-diff of utils.py")
    for k in range(3):
        with open(os.path.join(repo.path, "README.rst"), "a") as fh:
            fh.write(f"draft {k}\n")
        repo.git("stash", "push", "-q", "-m", f"readme draft {k}", "--", "README.rst")
    g("unseen-git-stash-list", ["stash", "list"], r"^stash@", (), "git stash list with three stashes")


# -- listings, search, processes --------------------------------------------------------------------

def listing_cases(tmp: str) -> None:
    lib, zone = "/usr/lib/python3.11", "/usr/share/zoneinfo"
    pk = os.path.join(tmp, "packaging")

    def c(cid: str, cls: str, cmd: str, cwd: str, rows_rx: str, named: tuple[str, ...], note: str,
          verbatim: bool = False) -> None:
        code, out, err = run(cmd, cwd, shell=True)
        rows = [s for s in out.splitlines() if re.search(rows_rx, s)]
        case(cid, cls, cmd, code, out, err, rule(out, err, rows, named), note, verbatim)

    long_row = r"^[-dlcbps][rwx-]{9}"
    c("unseen-ls-la-pylib", "ls", f"ls -la {lib}", "/", long_row,
      (r" subprocess\.py$", r" json$", r" os\.py$"), "ls -la of the system Python library (~200 rows)")
    c("unseen-ls-lh-zoneinfo", "ls", f"ls -lh {zone}", "/", long_row, (r" Europe$", r" UTC"),
      "ls -lh of the zoneinfo database")
    c("unseen-ls-la-etc", "ls", "ls -la /etc", "/", long_row, (r" passwd$", r" hosts$", r" nginx$"),
      "ls -la /etc")
    c("unseen-ls-laR-src", "ls", "ls -laR src", pk, long_row, (r" version\.py$", r"^src/packaging:"),
      "ls -laR of packaging's source tree")
    c("unseen-find-zoneinfo", "find", f"find {zone} -type f -name '[A-M]*'", "/", r"^/",
      (r"/Europe/Lisbon$", r"/America/Chicago$"), "find over zoneinfo (~400 files)")
    c("unseen-find-exec-ls", "find", r"find src tests -name '*.py' -exec ls -l {} +", pk, long_row,
      (r"src/packaging/markers\.py$",), "find -exec ls -l over packaging")
    c("unseen-find-pylib-dirs", "find", f"find {lib} -maxdepth 2 -type d -name '*test*'", "/", r"^/",
      (r"/unittest$",), "find -type d over the Python library")
    c("unseen-tree-pylib-email", "tree", f"tree {lib}/email", "/", r"[├└]── ",
      (r"── message\.py$", r"── mime$"), "tree of the email package")
    c("unseen-tree-packaging", "tree", "tree -a -I .git", pk, r"[├└]── ", (r"── src$", r"── tests$"),
      "tree -a of the packaging checkout")
    c("unseen-du-sh-pylib", "du", f"du -sh {lib}/*", "/", r"^\S+\s+/", (r"/email$", r"/json$"),
      "du -sh of every entry of the Python library")
    c("unseen-df-h", "df", "df -h", "/", r"^\S+\s+\S+\s+\S+", (r" /$",), "df -h")
    c("unseen-grep-rn-def", "search", "grep -rn 'def ' src/packaging", pk, r"^\S+:\d+:",
      (r"def parse\(", r"def canonicalize_name\("), "grep -rn over packaging's sources")
    c("unseen-rg-context", "search", "rg -n -C 2 'raise InvalidVersion' src", pk, r"^\S+:\d+:",
      (), "rg -n -C 2 around every raise InvalidVersion")
    c("unseen-rg-l", "search", f"rg -l 'import re$' {lib}/email {lib}/json {lib}/urllib", "/", r"^/",
      (r"email/utils\.py$",), "rg -l over three stdlib packages")
    c("unseen-rg-c", "search", f"rg -c 'def ' {lib}/email", "/", r":\d+$", (r"/message\.py:",),
      "rg -c: matches per file")
    c("unseen-git-grep", "search", "git grep -n 'TODO\\|XXX\\|FIXME'", pk, r"^\S+:\d+:", (),
      "git grep -n over the packaging checkout")
    c("unseen-ag-class", "search", f"ag 'class \\w+Error' {lib}/email {lib}/http", "/", r":\d+:",
      (r"class MessageError\(",), "ag over two stdlib packages")
    c("unseen-rg-json", "search", "rg --json -n 'def parse' src", pk, r"^\{", (),
      "rg --json (a program's input: byte-exact)", verbatim=True)
    # long outputs: over the class budgets
    c("unseen-ls-la-locales", "ls", "ls -la /usr/share/i18n/locales", "/", long_row,
      (r" en_US$", r" de_DE$", r" POSIX$"), "ls -la of the glibc locale sources (~360 rows)")
    c("unseen-ls-la-include", "ls", "ls -la /usr/include", "/", long_row, (r" stdio\.h$", r" python3\.11$"),
      "ls -la /usr/include (~240 rows)")
    c("unseen-find-pylib-py", "find", f"find {lib} -name '*.py' -not -path '*/test/*'", "/", r"^/",
      (r"/json/decoder\.py$", r"/email/message\.py$"), "find of every stdlib module (~640 paths)")
    c("unseen-tree-pylib-L2", "tree", f"tree -L 2 {lib}", "/", r"[├└]── ",
      (r"── asyncio$", r"── json$"), "tree -L 2 of the Python library (~830 lines)")
    c("unseen-rg-def-pylib", "search", f"rg -n '^def ' {lib} --glob '!test/**'", "/", r"^/\S+:\d+:",
      (r"json/__init__\.py:\d+:def dumps\(", r"urllib/request\.py:\d+:def urlopen\("),
      "every top-level def of the stdlib (~3,200 matches)")
    c("unseen-rg-c-import", "search", f"rg -c import {lib}", "/", r":\d+$", (r"/subprocess\.py:",),
      "rg -c over the stdlib (~640 rows)")
    c("unseen-grep-rc-class", "search", f"grep -rc 'class ' {lib} --include=*.py", "/", r":\d+$",
      (r"/subprocess\.py:", r"/argparse\.py:"), "grep -rc: a count for every module (~2,000 rows)")
    c("unseen-rg-import-pylib", "search", f"rg -n '^import ' {lib} -g '!test/**'", "/", r"^/\S+:\d+:",
      (r"/subprocess\.py:\d+:import ", r"/json/decoder\.py:\d+:import "), "rg -n: every plain import of the stdlib")
    c("unseen-grep-rn-email-http", "search", f"grep -rn 'def ' {lib}/email {lib}/http", "/", r"^/\S+:\d+:",
      (r"def message_from_string\(", r"def urlsplit\(|class HTTPConnection"), "grep -rn over email and http")
    sleepers = [subprocess.Popen(["sleep", str(300 + i)]) for i in range(25)]
    try:
        c("unseen-ps-aux", "ps", "ps aux", "/", r"^\S+\s+\d+\s", (r"sleep 312$",), "ps aux with 25 sleepers")
        c("unseen-ps-sort", "ps", "ps -eo pid,ppid,user,%mem,rss,args --sort=-rss", "/", r"^\s*\d+\s",
          (r" sleep 300$",), "ps -eo ... --sort=-rss")
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    c("unseen-dpkg-l", "apt", "dpkg -l", "/", r"^ii ", (r"^ii  nginx ", r"^ii  redis-server ", r"^ii  git "),
      "dpkg -l of this machine")
    c("unseen-apt-list-python", "apt", "apt list --installed 'python3*'", "/", r"/", (r"^python3-minimal/",),
      "apt list --installed of python3 packages")


# -- logs -------------------------------------------------------------------------------------------

NGINX = """
worker_processes 1;
error_log {d}/error.log notice;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  log_format timed '$remote_addr - [$time_local] "$request" $status $body_bytes_sent '
                   'rt=$request_time urt="$upstream_response_time" ua="$http_user_agent"';
  access_log {d}/access.log timed;
  limit_req_zone $binary_remote_addr zone=burst:1m rate=20r/s;
  client_body_temp_path {d}/b; proxy_temp_path {d}/p; fastcgi_temp_path {d}/f;
  uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;
  upstream app {{ server 127.0.0.1:{app}; }}
  server {{
    listen 127.0.0.1:{port};
    root {d}/www;
    location /app/ {{ proxy_pass http://app/; proxy_read_timeout 1s; }}
    location /search {{ limit_req zone=burst nodelay; try_files $uri /index.html; }}
    location ~ \\.php$ {{ return 410; }}
  }}
}}
"""

APP = r'''
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/slow"):
            time.sleep(1.5)
        code = 500 if "boom" in self.path else 200
        self.send_response(code); self.end_headers(); self.wfile.write(b"ok\n")
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


def nginx_cases(tmp: str) -> None:
    d = scratch(tmp, "ngx", {"www/index.html": "<h1>idx</h1>\n",
                             **{f"www/assets/app.{i}.js": "x" * (100 * i + 1) for i in range(12)}})
    port, app = 18611, 18612
    with Site(d, NGINX.format(d=d, port=port, app=app), APP, app) as site:
        b = f"http://127.0.0.1:{port}"
        agents = ["curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64)", "python-requests/2.32.3"]
        for i in range(260):
            a = agents[i % 3]
            get(f"{b}/assets/app.{i % 12}.js", a)
            if i % 9 == 0:
                get(f"{b}/app/orders/{i}", a)
            if i % 31 == 0:
                get(f"{b}/app/boom/{i}", a)
            if i % 50 == 7:
                get(f"{b}/wp-login.php", a)
            if i % 23 == 0:
                get(f"{b}/assets/missing-{i}.css", a)
            if i == 120:
                for _ in range(40):
                    get(f"{b}/search?q=x", a)
            if i == 200:
                get(f"{b}/app/slow", a)
                site.kill_upstream()
            if i > 200 and i % 6 == 0:
                get(f"{b}/app/orders/{i}", a)
    code, out, err = run(["cat", "access.log"], d)
    rows = out.splitlines()
    kinds = failed_kinds(out)
    case("unseen-nginx-access-timed", "log", "cat /var/log/nginx/access.log", code, out, err,
         rule(out, err, rows) + list(kinds.values()),
         "nginx access log in a custom format: 404s, 410s, 429/503 from a rate limit, 502/504 upstream")
    code, out, err = run(["cat", "error.log"], d)
    case("unseen-nginx-error-upstream", "log", "cat /var/log/nginx/error.log", code, out, err,
         rule(out, err, out.splitlines()), "nginx error log: limiting requests, upstream timed out, refused")


def redis_cases(tmp: str) -> None:
    d = os.path.join(tmp, "redis")
    os.makedirs(d)
    m = subprocess.Popen(["redis-server", "--port", "18621", "--bind", "127.0.0.1", "--dir", d,
                          "--logfile", os.path.join(d, "master.log"), "--save", "", "--dbfilename", "m.rdb"])
    time.sleep(0.5)
    r = subprocess.Popen(["redis-server", "--port", "18622", "--bind", "127.0.0.1", "--dir", d,
                          "--logfile", os.path.join(d, "replica.log"), "--save", "", "--dbfilename", "r.rdb",
                          "--replicaof", "127.0.0.1", "18621", "--repl-timeout", "60"])
    time.sleep(1.5)
    for i in range(200):
        subprocess.run(["redis-cli", "-p", "18621", "SET", f"order:{i}", "x" * 500], capture_output=True)
    time.sleep(0.5)
    m.kill()
    m.wait()
    time.sleep(6)
    subprocess.run(["redis-cli", "-p", "18622", "REPLICAOF", "NO", "ONE"], capture_output=True)
    subprocess.run(["redis-cli", "-p", "18622", "SHUTDOWN", "NOSAVE"], capture_output=True)
    r.wait(10)
    code, out, err = run(["cat", "replica.log"], d)
    case("unseen-redis-replica-log", "log", "cat /var/log/redis/redis-replica.log", code, out, err,
         rule(out, err, out.splitlines(), (r"MASTER <-> REPLICA sync: Finished with success",
                                           r"MASTER MODE enabled")),
         "redis replica's log: full sync, its master killed, reconnect errors, promotion")


def app_log_cases(tmp: str) -> None:
    """A program of this script: parses version strings with packaging, logs what fails."""
    sys.path.insert(0, os.path.join(tmp, "packaging", "src"))
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
    words = ["1.0", "2.0.post1", "1.0-beta", "v3", "latest", "1!2.0", "0.9.dev3", "2024.10.1",
             "1.0.0+local.7", "=1.2", "one", "3.11.*"]

    def work(log: logging.Logger) -> None:
        for i in range(240):
            w = words[i % len(words)]
            try:
                v = Version(w)
                log.info("parsed %s as %s (epoch %d, release %s)", w, v, v.epoch, v.release)
                if i % 37 == 0:
                    SpecifierSet(f">={w},<{w}")
                    log.warning("empty range for %s", w)
            except Exception:
                if i % 5 == 0:
                    log.exception("request %d: cannot parse version %r", i, w)
                else:
                    log.error("request %d: rejected version %r", i, w)
            if i == 150:
                try:
                    SpecifierSet("~=1")
                except Exception:
                    log.critical("specifier table corrupt", exc_info=True)
    for cid, fmt, cmd, note in (
            ("unseen-app-log-traceback", "%(asctime)s %(levelname)-8s %(name)s: %(message)s", "cat app.log",
             "a Python program's logging output with tracebacks from packaging"),
            ("unseen-app-jsonl", None, "tail -n 300 app.jsonl",
             "the same program logging JSON lines (exception text in a field)")):
        path = os.path.join(tmp, cid + ".log")
        h = logging.FileHandler(path)
        if fmt:
            f = logging.Formatter(fmt)
            f.converter = time.gmtime
            h.setFormatter(f)
        else:
            h.setFormatter(JsonFormatter())
        log = logging.getLogger("versions." + cid)
        log.setLevel(logging.INFO)
        log.addHandler(h)
        work(log)
        h.close()
        code, out, err = run(["cat", path], tmp)
        entries = [s for s in out.splitlines() if re.match(r"^(\d{4}-|\{)", s)]
        case(cid, "log", cmd, code, out, err, rule(out, err, entries), note)


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and the exception's text."""

    def format(self, record: logging.LogRecord) -> str:
        doc = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)), "level": record.levelname,
               "logger": record.name, "msg": record.getMessage()}
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc)


def main() -> None:
    sd = os.environ.get("PACKAGING_SDISTS", "/tmp/listings-src/pk")
    sdists = {v: os.path.join(sd, f"packaging-{v}.tar.gz") for v in [*VERSIONS, NEXT]}
    missing = [v for v, p in sdists.items() if not os.path.exists(p)]
    if missing:  # pip download --no-deps --no-binary :all: packaging==V -d DIR
        for v in missing:
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                            f"packaging=={v}", "-d", sd], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        git_cases(tmp, sdists)
        listing_cases(tmp)
        nginx_cases(tmp)
        redis_cases(tmp)
        app_log_cases(tmp)
    print("unseen fixtures written")


if __name__ == "__main__":
    main()
