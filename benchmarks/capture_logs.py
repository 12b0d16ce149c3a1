"""Capture JSON Lines fixtures: the log of a real Node.js server that logs with pino.

A small HTTP server (written here) logs every request with pino-http, one JSON object per line.
A client run sends a mix of requests: mostly 200s, some 404s, a few that throw (500, logged with
the error's stack). Some requests are slow. The server's log is then read the way an agent reads
it (``tail -n``, ``cat``, ``grep``). Run: ``python benchmarks/capture_jsonl.py`` (needs node and
npm with network access to the npm registry); it rewrites tests/fixtures/jsonl-*.json.
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
from capture_fixtures import run, save  # noqa: E402

SRC = "benchmarks/capture_jsonl.py"
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


def main() -> None:
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
