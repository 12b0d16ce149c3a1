"""Capture log fixtures from real servers run on 127.0.0.1.

- JSON Lines: a small Node.js HTTP server (written here) logs every request with pino-http, one
  JSON object per line. A client sends a mix of requests: mostly 200s, some 404s, a few that throw
  (500, logged with the error's stack), some slow.
- Text: Python's ``http.server`` serving a folder, with a handler that raises on one path (the
  standard library logs the traceback), hit with the same kind of mix.
The logs are then read the way an agent reads them (``tail -n``, ``cat``). Run:
``python benchmarks/capture_logs.py`` (needs node, and npm with access to the npm registry); it
rewrites tests/fixtures/jsonl-*.json and tests/fixtures/log-own-*.json.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from capture_fixtures import run, save

SRC = "benchmarks/capture_logs.py"
SERVER = r"""
const http = require('http');
const pino = require('pino');
const logger = pino({ base: { service: 'orders' } }, pino.destination(process.argv[3]));
const pinoHttp = require('pino-http')({ logger });
const items = new Map();
for (let i = 1; i <= 40; i++) items.set(String(i), { id: i, name: 'item-' + i, price: i * 3 });
const server = http.createServer((req, res) => {
  pinoHttp(req, res);
  const url = new URL(req.url, 'http://x');
  const m = url.pathname.match(/^\/items\/(\w+)$/);
  if (url.pathname === '/boom') {
    try { JSON.parse('{"unterminated": '); } catch (err) {
      req.log.error({ err }, 'failed to parse cached order payload');
      res.statusCode = 500; res.end('internal error'); return;
    }
  }
  if (url.pathname === '/slow') {
    setTimeout(() => { req.log.warn({ waited_ms: 120 }, 'upstream inventory slow'); res.end('ok'); }, 120);
    return;
  }
  if (m && items.has(m[1])) { res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(items.get(m[1]))); return; }
  res.statusCode = 404; res.end('not found');
});
server.listen(Number(process.argv[2]), '127.0.0.1', () => logger.info({ port: Number(process.argv[2]) }, 'listening'));
"""


def _get(url: str) -> None:
    try:
        urllib.request.urlopen(url, timeout=5).read()
    except urllib.error.HTTPError:
        pass


PY_SERVER = r"""
import http.server, sys, functools

class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/report"):
            totals = {"eu": 10, "us": 0}
            region = self.path.rsplit("/", 1)[-1]
            share = 100 // totals[region]          # ZeroDivisionError for /report/us, KeyError else
            self.send_response(200); self.end_headers(); self.wfile.write(b"%d" % share)
            return
        super().do_GET()

handler = functools.partial(Handler, directory=sys.argv[2])
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), handler).serve_forever()
"""


def text_log(tmp: str) -> None:
    """Python http.server's stderr log: access lines, 404s and tracebacks of a failing handler."""
    site = os.path.join(tmp, "site")
    os.makedirs(os.path.join(site, "static"))
    for i in range(20):
        with open(os.path.join(site, "static", f"page{i}.html"), "w") as fh:
            fh.write(f"<p>page {i}</p>\n")
    with open(os.path.join(tmp, "server.py"), "w") as fh:
        fh.write(PY_SERVER)
    log = os.path.join(tmp, "access.log")
    port = 19000 + os.getpid() % 1000
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "server.py", str(port), site], cwd=tmp, stderr=out)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(50):
                try:
                    urllib.request.urlopen(base + "/static/page0.html", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.1)
            for i in range(400):
                if i % 131 == 60:
                    path = "/report/us"
                elif i % 157 == 100:
                    path = "/report/asia"
                elif i % 37 == 5:
                    path = f"/static/missing{i}.css"
                else:
                    path = f"/static/page{i % 20}.html"
                try:
                    urllib.request.urlopen(base + path, timeout=5).read()
                except (urllib.error.HTTPError, urllib.error.URLError, ConnectionError):
                    pass
            time.sleep(0.3)
        finally:
            proc.terminate()
            proc.wait()
    text = open(log, encoding="utf-8").read()
    lines = text.splitlines()
    facts = ["ZeroDivisionError: integer division or modulo by zero", "KeyError: 'asia'",
             next(ln for ln in lines if "code 404" in ln), lines[-1]]
    assert all(f in text for f in facts), facts
    save({"id": "log-own-http-server", "class": "log", "command": "cat access.log", "exit_code": 0,
          "stdout": text, "stderr": "", "must_keep": facts, "verbatim": False,
          "source": f"{SRC}: Python http.server on 127.0.0.1, 400 requests (200s, 404s, a handler "
                    "raising ZeroDivisionError and KeyError)"})


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        text_log(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        run(["npm", "init", "-y"], tmp)
        code, _, err = run(["npm", "install", "--silent", "pino@9", "pino-http@10"], tmp)
        assert code == 0, err
        with open(os.path.join(tmp, "server.js"), "w") as fh:
            fh.write(SERVER)
        log = os.path.join(tmp, "server.log")
        port = 18000 + os.getpid() % 1000
        proc = subprocess.Popen(["node", "server.js", str(port), log], cwd=tmp)
        try:
            for _ in range(50):
                if os.path.exists(log) and os.path.getsize(log):
                    break
                time.sleep(0.1)
            base = f"http://127.0.0.1:{port}"
            for i in range(300):
                if i % 97 == 50:
                    _get(base + "/boom")
                elif i % 41 == 7:
                    _get(base + f"/items/{1000 + i}")
                elif i % 60 == 33:
                    _get(base + "/slow")
                else:
                    _get(base + f"/items/{i % 40 + 1}")
            time.sleep(0.5)
        finally:
            proc.terminate()
            proc.wait()
        lines = open(log, encoding="utf-8").read().splitlines()
        errors = [ln for ln in lines if '"level":50' in ln]
        warns = [ln for ln in lines if '"level":40' in ln]
        assert errors and warns, "the server logged no errors/warnings"
        stack_msg = json.loads(errors[0])["err"]["message"]
        for cid, command, keep in (
                ("jsonl-pino-cat", "cat server.log",
                 ['"statusCode":500', '"statusCode":404', stack_msg, "failed to parse cached order payload",
                  "upstream inventory slow", '"msg":"listening"']),
                ("jsonl-pino-tail", "tail -n 120 server.log", None)):
            code, out, err = run(["bash", "-c", command], tmp)
            if keep is None:
                tail = out.splitlines()
                keep = sorted({f for ln in tail for f in ('"statusCode":500', '"statusCode":404',
                                                           "upstream inventory slow")
                               if f in ln})
            missing = [f for f in keep if f not in out]
            assert not missing, (cid, missing)
            save({"id": cid, "class": "log", "command": command, "exit_code": code, "stdout": out,
                  "stderr": err, "must_keep": keep, "verbatim": False,
                  "source": f"{SRC}: pino-http access/error log of a local Node server, "
                            "300 requests (200s, 404s, thrown errors, slow upstream)"})


if __name__ == "__main__":
    main()
