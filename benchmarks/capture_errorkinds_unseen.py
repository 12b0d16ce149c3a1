"""Capture logs with more error lines than a log's budget holds, from sources no other fixture uses.

Issue 16's class: a log whose errors are many, of a few kinds that differ only in numbers and ids,
among a few one-off messages. Sources, all run here on 127.0.0.1:

- a job worker of this script's (``logging``, one line per job) whose jobs hit real failures of
  the standard library: ``sqlite3`` constraint and missing-table errors, ``json`` decode errors,
  files that do not exist, a refused connection, with ``log.exception`` tracebacks for some;
- nginx from Debian (``error_log`` at ``warn``) in front of a Python upstream that stalls on one
  path and is killed half way, with a body-size limit, a directory without an index and missing
  files;
- PostgreSQL (``initdb`` + ``pg_ctl``, run as ``nobody``) fed statements by ``psql`` that fail in
  several ways (unique and foreign-key violations, division by zero, a missing table, bad input),
  each ``ERROR:`` with its ``DETAIL``/``STATEMENT`` lines.

The facts (``must_keep``) are picked by ``capture_listings_unseen.rule`` before thresher sees the
outputs: every distinct error line once after digits are masked, the first, middle and last entry
(lines opening with a timestamp). Re-run with ``python benchmarks/capture_errorkinds_unseen.py``
(root: needs nginx, postgres/initdb/pg_ctl and psql).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from capture_listings_unseen import rule, run
from capture_nginx import Site, get, scratch

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures")
SRC = "benchmarks/capture_errorkinds_unseen.py"
ENTRY = re.compile(r"^(?:\d{4}[-/]\d\d[-/]\d\d)")


def save(cid: str, command: str, code: int, out: str, err: str, note: str) -> None:
    entries = [s for s in out.splitlines() if ENTRY.match(s)]
    doc = {"id": cid, "class": "log", "command": command, "exit_code": code, "stdout": out,
           "stderr": err, "must_keep": rule(out, err, entries), "verbatim": False,
           "source": f"{SRC}: {note}"}
    with open(os.path.join(OUT, cid + ".json"), "w") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    print(cid, len(out.splitlines()), "lines,", len(doc["must_keep"]), "facts")


# -- a job worker ------------------------------------------------------------------------------

def worker_case(tmp: str) -> None:
    path = os.path.join(tmp, "worker.log")
    h = logging.FileHandler(path)
    f = logging.Formatter("%(asctime)s %(levelname)s [%(name)s] %(message)s")
    f.converter = time.gmtime
    h.setFormatter(f)
    log = logging.getLogger("jobs.worker")
    log.setLevel(logging.INFO)
    log.addHandler(h)
    db = sqlite3.connect(os.path.join(tmp, "jobs.db"))
    db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL)")
    payloads = ['{"user": 1}', '{"user": 2,}', "{'user': 3}", '{"user": 4}', "", '[1, 2']
    for job in range(1, 301):
        kind = job % 10
        try:
            if kind in (0, 1, 2):
                db.execute("INSERT INTO users (email) VALUES (?)", (f"u{job % 40}@example.net",))
                log.info("job %d: created user u%d@example.net", job, job % 40)
            elif kind == 3:
                doc = json.loads(payloads[job % len(payloads)])
                log.info("job %d: payload ok (%d keys)", job, len(doc))
            elif kind == 4:
                with open(os.path.join(tmp, "inbox", f"batch-{job}.csv")) as fh:
                    fh.read()
            elif kind == 5 and job % 50 == 5:
                db.execute("SELECT * FROM invoices WHERE id = ?", (job,))
            elif kind == 6 and job % 60 == 6:
                urllib.request.urlopen("http://127.0.0.1:9/notify", timeout=2)
            else:
                log.info("job %d: done in %d ms", job, 3 + job % 17)
        except (sqlite3.IntegrityError, json.JSONDecodeError) as e:
            log.error("job %d failed: %s: %s", job, type(e).__name__, e)
        except OSError:
            log.exception("job %d: cannot read its input", job)
        except sqlite3.OperationalError:
            log.exception("job %d: query failed", job)
        if job % 100 == 0:
            log.warning("queue depth %d above soft limit", 100 + job // 10)
    log.info("worker stopped after 300 jobs")
    h.close()
    code, out, err = run(["cat", path], tmp)
    save("unseen-worker-log-errors", "cat worker.log", code, out, err,
         "a Python job worker's log: sqlite3, json, missing-file and connection errors, repeated by job")


# -- nginx -------------------------------------------------------------------------------------

NGINX = """
worker_processes 1;
error_log {d}/error.log warn;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log {d}/access.log combined;
  client_body_temp_path {d}/b; proxy_temp_path {d}/p; fastcgi_temp_path {d}/f;
  uwsgi_temp_path {d}/u; scgi_temp_path {d}/s;
  client_max_body_size 1k;
  upstream api {{ server 127.0.0.1:{app}; }}
  server {{
    listen 127.0.0.1:{port};
    root {d}/www;
    location /api/ {{ proxy_pass http://api/; proxy_read_timeout 1s; }}
    location /upload {{ proxy_pass http://api/; }}
  }}
}}
"""

APP = r'''
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if "/slow" in self.path:
            time.sleep(1.5)
        self.send_response(200); self.end_headers(); self.wfile.write(b"ok\n")
    do_POST = do_GET
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
'''


def post(url: str, size: int) -> None:
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=b"x" * size, method="POST"), timeout=5).read()
    except Exception:  # noqa: BLE001 - error statuses are the point
        pass


def nginx_case(tmp: str) -> None:
    port, app = 18841, 18842
    d = scratch(tmp, "ngx", {"www/index.html": "hi\n", "www/docs/readme.txt": "docs\n"})
    os.makedirs(os.path.join(d, "www", "files"))
    with Site(d, NGINX.format(d=d, port=port, app=app), APP, app) as site:
        b = f"http://127.0.0.1:{port}"
        for i in range(1, 161):
            get(f"{b}/api/orders/{i}")
            if i % 7 == 0:
                get(f"{b}/img/product-{i}.jpg")
            if i % 19 == 0:
                get(f"{b}/api/slow/{i}")
            if i % 23 == 0:
                post(f"{b}/upload", 4096 + i)
            if i == 40:
                get(f"{b}/files/")
            if i == 100:
                site.kill_upstream()
            if i > 100 and i % 3 == 0:
                get(f"{b}/api/cart/{i}")
    code, out, err = run(["cat", "error.log"], d)
    save("unseen-nginx-error-warn", "cat /var/log/nginx/error.log", code, out, err,
         "nginx error log at warn: missing files, upstream timeouts, a body too large, refused upstream")


# -- PostgreSQL --------------------------------------------------------------------------------

def postgres_case(tmp: str) -> None:
    d = os.path.join(tmp, "pg")
    os.makedirs(d)
    shutil.chown(d, "nobody", "nogroup")
    os.chmod(tmp, 0o755)
    data, sock, port = os.path.join(d, "data"), d, "18851"
    log = os.path.join(d, "postgres.log")

    def as_nobody(*cmd: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(["runuser", "-u", "nobody", "--", *cmd], input=stdin, text=True,
                              capture_output=True, cwd=d)

    as_nobody("initdb", "-D", data, "-U", "postgres", "--auth=trust")
    as_nobody("pg_ctl", "-D", data, "-l", log, "-w", "-o",
              f"-p {port} -k {sock} -c listen_addresses='' -c log_line_prefix='%m [%p] %q%u@%d '"
              " -c log_connections=on -c log_disconnections=on", "start")
    sql = ["CREATE TABLE customers (id int PRIMARY KEY, email text UNIQUE NOT NULL);",
           "CREATE TABLE orders (id serial PRIMARY KEY, customer int REFERENCES customers(id),"
           " qty int CHECK (qty > 0));"]
    for i in range(1, 121):
        sql.append(f"INSERT INTO customers VALUES ({i % 45}, 'c{i % 45}@example.net');")
        if i % 4 == 0:
            sql.append(f"INSERT INTO orders (customer, qty) VALUES ({i}, {i % 5});")
        if i % 9 == 0:
            sql.append(f"SELECT {i} / (id - id) FROM customers LIMIT 1;")
        if i % 31 == 0:
            sql.append(f"SELECT * FROM invoices WHERE id = {i};")
        if i % 37 == 0:
            sql.append(f"SELECT '{i}x'::int;")
    for part in range(0, len(sql), 60):   # a few sessions: connection lines between them
        as_nobody("psql", "-h", sock, "-p", port, "-U", "postgres", "-d", "postgres", "-q",
                  stdin="\n".join(sql[part:part + 60]) + "\n")
    as_nobody("pg_ctl", "-D", data, "-w", "-m", "fast", "stop")
    code, out, err = run(["cat", log], d)
    save("unseen-postgres-log-errors", "cat /var/log/postgresql/postgresql-15-main.log", code, out, err,
         "PostgreSQL server log: unique/foreign-key/check violations, division by zero, missing table")


def main() -> None:
    tmp = tempfile.mkdtemp()
    worker_case(tmp)
    nginx_case(tmp)
    postgres_case(tmp)


if __name__ == "__main__":
    main()
