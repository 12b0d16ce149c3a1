"""Real-shaped big inputs for the data-plane benchmarks, and what each of them must keep.

Every shape starts from real output captured here or in tests/fixtures, and is grown to the wanted
size by repeating it with advancing ids or timestamps, so lines are not all identical:

- ``access``: Python's ``http.server`` run on 127.0.0.1 with a handler that answers some paths with
  403, 500 and 502, raises on one (the server logs the traceback), and gets POST/HEAD/GET requests
  (POST is answered 501 by the standard library); replayed with timestamps advancing one second a line.
- ``pytest``: tests/fixtures/pytest-fail-verbose.json (a real failing ``pytest -v``), one session per
  copy, the module renamed ``test_calc_00001`` ... so test ids differ.
- ``json``: tests/fixtures/data-json-octokit-project-cards.json (a recorded GitHub API session, a
  JSON array), its elements repeated inside one array with every ``"id"`` advanced.
- ``find``: ``find /usr`` run here; each copy after the first is listed under ``/srv/chrootN``.
- ``gitlog``: ``git log -p`` of this repository (at ``GIT_REV`` when it exists); copies after the
  first get new commit ids (sha1 of the old id and the copy number).
- ``source``: tests/fixtures/code-own-py-pydantic-main.json (pydantic's main.py), every ``def`` and
  ``class`` name of copy N suffixed ``_N``.

``expected(shape, data)`` computes, from the input alone, the error lines and failed-request kinds an
output must keep (see its docstring).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
GIT_REV = "0ce6148"
"""The commit whose ``git log -p`` is the git shape (so before/after runs read the same history)."""

# name -> (command the agent ran, its exit status)
SHAPES: dict[str, tuple[str, int]] = {
    "access": ("cat access.log", 0),
    "pytest": ("python -m pytest -v", 1),
    "json": ("cat cards.json", 0),
    "find": ("find /", 0),
    "gitlog": ("git log -p", 0),
    "source": ("cat big.py", 0),
}

STAMP = re.compile(r"\[(\d\d)/(\w\w\w)/(\d{4}) (\d\d):(\d\d):(\d\d)\]")
ACCESS = re.compile(r'\] "([A-Z]+) \S+ HTTP/[\d.]+" (\d{3}) ')
ERROR_LINE = re.compile(r"^FAILED |^E |Traceback \(most recent call last\)|\w*Error\b")

SERVER = r"""
import http.server, sys, functools

class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/admin"):
            self.send_error(403)
        elif self.path.startswith("/api/upstream"):
            self.send_error(502, "upstream inventory service unreachable")
        elif self.path.startswith("/api/orders"):
            self.send_error(500, "order store unavailable")
        elif self.path.startswith("/report"):
            totals = {"eu": 10, "us": 0}
            share = 100 // totals[self.path.rsplit("/", 1)[-1]]   # ZeroDivisionError for /report/us
            self.send_response(200); self.end_headers(); self.wfile.write(b"%d" % share)
        else:
            super().do_GET()

handler = functools.partial(Handler, directory=sys.argv[1])
http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler).serve_forever()
"""


def _fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, name + ".json"), encoding="utf-8") as fh:
        return json.load(fh)["stdout"]


def _request(base: str, method: str, path: str) -> None:
    req = urllib.request.Request(base + path, method=method, data=b"x=1" if method == "POST" else None)
    try:
        urllib.request.urlopen(req, timeout=5).read()
    except (urllib.error.HTTPError, urllib.error.URLError, ConnectionError):
        pass  # the failures are the point: the server logs them


def capture_access_log(requests: int = 1200) -> str:
    """Run the handler above under http.server, send a mix of requests, return its stderr log."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "static"))
        for i in range(20):
            with open(os.path.join(root, "static", f"page{i}.html"), "w") as fh:
                fh.write(f"<p>page {i}</p>\n")
        with open(os.path.join(root, "server.py"), "w") as fh:
            fh.write(SERVER.replace('("127.0.0.1", 0)', '("127.0.0.1", int(sys.argv[2]))'))
        port = 20000 + os.getpid() % 5000
        proc = subprocess.Popen([sys.executable, "-u", "server.py", root, str(port)], cwd=root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
        reader.start()
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(base + "/static/page0.html", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.05)
            for i in range(requests):
                _request(base, *_mix(i))
            time.sleep(0.3)
        finally:
            proc.terminate()
            proc.wait()
            reader.join(timeout=5)
    return "".join(lines)


def _mix(i: int) -> tuple[str, str]:
    """Request ``i`` of the mix: mostly pages, some missing files, forbidden, failing and POSTs."""
    for every, method, path in ((97, "GET", "/report/us"), (61, "GET", "/api/upstream/stock"),
                                (53, "GET", "/api/orders/17"), (41, "GET", "/admin/users"),
                                (29, "POST", "/api/orders"), (23, "HEAD", f"/static/gone{i}.css"),
                                (13, "GET", f"/static/missing{i}.js")):
        if i % every == every // 2:
            return method, path
    return "GET", f"/static/page{i % 20}.html"


def _repeat(unit, size: int, cut: bool = True) -> str:
    """Join ``unit(n)`` for n = 0, 1, ... until ``size`` bytes (UTF-8) are reached.

    With ``cut`` the last copy is cut after its last whole line within ``size`` (as ``head -c``
    would, but on a line boundary); without, whole copies only (a session, an array element).
    """
    parts, total, n = [], 0, 0
    while total < size:
        part = unit(n)
        need = len(part.encode("utf-8", "surrogateescape"))
        if cut and total + need > size:
            head = part.encode("utf-8", "surrogateescape")[:size - total]
            part = head[:head.rfind(b"\n") + 1].decode("utf-8", "surrogateescape")
            parts.append(part)
            break
        parts.append(part)
        total += need
        n += 1
    return "".join(parts)


def grow_access(log: str, size: int) -> str:
    """Replay ``log`` line by line, the stamp of each stamped line one second after the previous."""
    lines = log.splitlines(keepends=True)
    t0 = time.mktime((2026, 11, 30, 8, 0, 0, 0, 0, -1))
    count = [0]

    def unit(n: int) -> str:
        line = lines[n % len(lines)]
        if STAMP.search(line):
            count[0] += 1
            stamp = time.strftime("[%d/%b/%Y %H:%M:%S]", time.localtime(t0 + count[0]))
            line = STAMP.sub(stamp, line, count=1)
        return line
    return _repeat(unit, size)


def grow_pytest(size: int) -> str:
    """Sessions of the captured failing ``pytest -v`` run, module renamed per copy."""
    text = _fixture("pytest-fail-verbose")
    return _repeat(lambda n: text.replace("test_calc", f"test_calc_{n:05d}") if n else text, size,
                   cut=False)


def grow_json(size: int) -> str:
    """One JSON array: the captured elements repeated, every ``"id"`` advanced per copy."""
    text = _fixture("data-json-octokit-project-cards").strip()
    body = text[1:-1].strip("\n")  # the elements with their own formatting
    ids = re.compile(r'("id": )(\d+)')

    def unit(n: int) -> str:
        part = ids.sub(lambda m: m.group(1) + str(int(m.group(2)) + 1_000_000 * n), body) if n else body
        return ("[\n" if n == 0 else ",\n") + part
    return _repeat(unit, size - 3, cut=False) + "\n]\n"


@functools.lru_cache(maxsize=None)
def _run(*argv: str) -> str:
    """Stdout of a real command (run once per process: every size reuses it)."""
    return subprocess.run(list(argv), capture_output=True, text=True, errors="surrogateescape").stdout


def grow_find(size: int) -> str:
    """``find /usr`` output; copies after the first listed under ``/srv/chrootN``."""
    out = _run("find", "/usr")
    return _repeat(lambda n: out if n == 0 else re.sub(r"(?m)^/usr", f"/srv/chroot{n}/usr", out), size)


def grow_gitlog(size: int) -> str:
    """``git log -p`` of this repository; later copies get fresh commit ids."""
    rev = GIT_REV if subprocess.run(["git", "-C", ROOT, "cat-file", "-e", GIT_REV + "^{commit}"],
                                    capture_output=True).returncode == 0 else "HEAD"
    out = _run("git", "-C", ROOT, "log", "-p", "--no-color", rev)
    commit = re.compile(r"(?m)^commit ([0-9a-f]{40})")

    def unit(n: int) -> str:
        if n == 0:
            return out
        return commit.sub(lambda m: "commit " + hashlib.sha1(f"{m.group(1)}{n}".encode()).hexdigest(), out)
    return _repeat(unit, size)


def grow_source(size: int) -> str:
    """pydantic's main.py over and over, def/class names of copy N suffixed ``_N``."""
    text = _fixture("code-own-py-pydantic-main")
    names = re.compile(r"(?m)^(\s*(?:async\s+)?(?:def|class)\s+)(\w+)")
    return _repeat(lambda n: names.sub(lambda m: f"{m.group(1)}{m.group(2)}_{n}", text) if n else text,
                   size)


def build(shape: str, size: int, access_log: str = "") -> bytes:
    """The ``shape`` input of about ``size`` bytes (``access_log``: a capture to reuse)."""
    if shape == "access":
        text = grow_access(access_log or capture_access_log(), size)
    else:
        text = {"pytest": grow_pytest, "json": grow_json, "find": grow_find, "gitlog": grow_gitlog,
                "source": grow_source}[shape](size)
    return text.encode("utf-8", "surrogateescape")


def expected(shape: str, data: bytes) -> dict:
    """What an output of ``data`` must keep, computed from the input alone.

    ``errors``: the distinct lines matching FAILED / ``E `` / Traceback / ``...Error`` (each must
    appear as a whole line of the output); ``kinds``: for access logs, each distinct
    (method, status >= 400) with the set of input lines of that kind (one of them must be in the
    output verbatim). ``gated`` says whether the error-line check is a target for this shape: for a
    failing command and a log it is the answer; in a listing, a diff or a source file a name like
    ``KeyError`` is content, so there it is reported for information only.
    """
    errors: set[str] = set()
    kinds: dict[tuple[str, str], set[str]] = {}
    for line in data.decode("utf-8", "surrogateescape").splitlines():
        if ERROR_LINE.search(line):
            errors.add(line)
        if shape == "access":
            m = ACCESS.search(line)
            if m and int(m.group(2)) >= 400:
                kinds.setdefault((m.group(1), m.group(2)), set()).add(line)
    return {"errors": errors, "kinds": kinds, "gated": shape in ("access", "pytest")}


def kept(exp: dict, output: bytes) -> dict:
    """How much of ``exp`` (from :func:`expected`) the ``output`` kept, and what it lost."""
    lines = set(output.decode("utf-8", "surrogateescape").splitlines())
    lost_err = sorted(exp["errors"] - lines)
    lost_kinds = sorted(k for k, members in exp["kinds"].items() if not members & lines)
    return {"errors": (len(exp["errors"]) - len(lost_err), len(exp["errors"])),
            "kinds": (len(exp["kinds"]) - len(lost_kinds), len(exp["kinds"])),
            "lost_errors": lost_err[:3], "lost_kinds": lost_kinds}
