"""Capture fixtures of server logs and a long blame from sources no other fixture uses (issue 15 §3).

Sources: nginx from Debian (the ``combined`` log format, ``error_log`` at ``info``) in front of a
Python upstream of this script's whose answer depends on the request's number (200, 404, 500 or
503 for one path shape), a rate limit, a forbidden directory and an upstream killed half way;
and a git repository built here from four sdists of ``attrs`` (PyPI), each release committed in
release order, whose longest module is blamed.

The facts (``must_keep``) are picked by the rule of ``capture_listings_unseen.py`` (``rule``:
summary lines, every distinct error line once after digits are masked, the first, middle and last
row), fixed before the outputs were seen, plus for an access log one line of each failing kind
(the request with its digits masked, and the status). Re-run with
``python benchmarks/capture_logs_unseen.py`` (needs nginx and git; sdists in ``$ATTRS_SDISTS``).
"""

from __future__ import annotations

import json
import os
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from capture_listings_unseen import Repo, rule, run
from capture_nginx import Site, failed_kinds, get, scratch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
SRC = "benchmarks/capture_logs_unseen.py"
ATTRS = ["22.2.0", "23.2.0", "24.3.0", "25.3.0"]

NGINX = """
worker_processes 1;
error_log {d}/error.log info;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log {d}/access.log combined;
  limit_req_zone $binary_remote_addr zone=api:1m rate=10r/s;
  client_body_temp_path {d}/b; proxy_temp_path {d}/p; fastcgi_temp_path {d}/f;
  uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;
  upstream shop {{ server 127.0.0.1:{app}; }}
  server {{
    listen 127.0.0.1:{port};
    root {d}/www;
    location /api/ {{ limit_req zone=api burst=5 nodelay; proxy_pass http://shop/; proxy_read_timeout 1s; }}
    location /private/ {{ deny all; }}
  }}
}}
"""

APP = r'''
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        n = int(self.path.rstrip("/").rsplit("/", 1)[-1] or 0) if self.path[-1:].isdigit() else 0
        code = 500 if n % 17 == 3 else 503 if n % 29 == 5 else 404 if n % 11 == 7 else 200
        self.send_response(code); self.end_headers(); self.wfile.write(b"item\n")
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


def case(cid: str, cls: str, command: str, code: int, out: str, err: str, keep: list[str], note: str) -> None:
    with open(os.path.join(OUT, cid + ".json"), "w", encoding="utf-8") as fh:
        json.dump({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out,
                   "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"},
                  fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"{cid}: {len(out.splitlines())} lines, {len(keep)} facts, exit {code}")


def nginx_cases(tmp: str) -> None:
    d = scratch(tmp, "ngx", {"www/index.html": "<h1>shop</h1>\n"})
    os.makedirs(os.path.join(d, "www", "private"))
    port, app = 18711, 18712
    with Site(d, NGINX.format(d=d, port=port, app=app), APP, app) as site:
        b = f"http://127.0.0.1:{port}"
        for i in range(300):
            get(f"{b}/api/items/{i}")
            if i % 40 == 13:
                get(f"{b}/private/keys.txt")
            if i % 45 == 2:
                get(f"{b}/static/logo-{i}.png")
            if i == 150:
                for _ in range(25):
                    get(f"{b}/api/cart/1")
            if i == 240:
                site.kill_upstream()
            time.sleep(0.11)   # under the rate limit except in the burst above
    code, out, err = run(["cat", "access.log"], d)
    rows = out.splitlines()
    kinds = failed_kinds(out)
    case("unseen-nginx-combined-status", "log", "cat /var/log/nginx/access.log", code, out, err,
         rule(out, err, rows) + [k for k in kinds.values() if k.strip() not in rule(out, err, rows)],
         "nginx combined access log: one path shape answered 200/404/500/503, 403s, 429s, 502s")
    code, out, err = run(["cat", "error.log"], d)
    case("unseen-nginx-error-info", "log", "cat /var/log/nginx/error.log", code, out, err,
         rule(out, err, out.splitlines()),
         "nginx error log at info: forbidden, open() failed, limiting requests, upstream refused")


def blame_case(tmp: str, sdists: dict[str, str]) -> None:
    repo = Repo(os.path.join(tmp, "attrs"))
    for v, path in sdists.items():
        with tarfile.open(path) as tf:
            for m in tf.getmembers():
                parts = m.name.split("/", 1)
                if len(parts) < 2 or not m.isfile() or not parts[1].startswith("src/"):
                    continue
                dst = os.path.join(repo.path, parts[1])
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                src = tf.extractfile(m)
                assert src is not None
                with open(dst, "wb") as fh:
                    fh.write(src.read())
        repo.commit(f"attrs {v}")
    code, out, err = repo.git("blame", "src/attr/_make.py")
    case("unseen-git-blame-attrs", "git", "git blame src/attr/_make.py", code, out, err,
         rule(out, err, out.splitlines()), "git blame of attrs' longest module over four releases")


def main() -> None:
    sd = os.environ.get("ATTRS_SDISTS", "/tmp/logs-src")
    sdists = {v: os.path.join(sd, f"attrs-{v}.tar.gz") for v in ATTRS}
    with tempfile.TemporaryDirectory() as tmp:
        blame_case(tmp, sdists)
        nginx_cases(tmp)


if __name__ == "__main__":
    main()
