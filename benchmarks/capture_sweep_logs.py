"""Capture log and data outputs of real programs, for the log/data generalization sweep.

Servers run on 127.0.0.1 in a temp folder: nginx (access and error log, with 404s and a dead
upstream), redis-server (its own log), a Java program that throws nested exceptions, a Go panic, a
Node.js uncaught error, structlog JSON lines, and sqlite3 CSV exports. Each output is saved as a case
in the corpus schema; must_keep holds the facts an agent reads the output for (error lines,
exception messages, failing requests, the last lines). Run:
``python benchmarks/capture_sweep_logs.py [--all | ids...]`` (needs nginx, redis-server, rsyslogd,
java, go, node, sqlite3 on PATH, and structlog, flask, gunicorn importable from $SWEEP_PYTHONPATH);
it rewrites tests/fixtures/<id>.json for the given ids, by default those in FIXTURES.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from capture_fixtures import run, save
from capture_nginx import Site, failed_kinds, get, scratch

SRC = "benchmarks/capture_sweep_logs.py"


def _case(cid: str, klass: str, command: str, code: int, out: str, err: str, keep: list[str],
          note: str, verbatim: bool = False) -> dict:
    return {"id": cid, "class": klass, "command": command, "exit_code": code, "stdout": out,
            "stderr": err, "must_keep": keep, "verbatim": verbatim, "source": SRC + ": " + note}


NGINX_CONF = """
worker_processes 1;
error_log {d}/error.log info;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log {d}/access.log combined;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {d}/www;
    location /api/ {{ proxy_pass http://127.0.0.1:{dead}; }}
    location /private/ {{ deny all; }}
  }}
}}
"""


def nginx_cases(tmp: str) -> list[dict]:
    d = scratch(tmp, "nginx", {"www/index.html": "<h1>home</h1>\n",
                               **{f"www/static/page{i}.html": f"<p>page {i}</p>\n" for i in range(30)}})
    port, dead = 18431, 18499
    with Site(d, NGINX_CONF.format(d=d, port=port, dead=dead), settle=0.5):
        base = f"http://127.0.0.1:{port}"
        for i in range(120):
            get(f"{base}/static/page{i % 30}.html")
            if i % 10 == 0:
                get(f"{base}/")
            if i % 17 == 0:
                get(f"{base}/static/missing-{i}.css")
            if i % 40 == 5:
                get(f"{base}/api/orders/{i}")
            if i == 77:
                get(f"{base}/private/keys.txt")
                get(f"{base}/index.html", method="DELETE")
    cases = []
    code, out, err = run(["cat", "access.log"], d)
    # each kind of failed request (method, path with its numbers masked, status) once: the rest of
    # a kind differ only in ids, as the "N more lines like the entry above" lines say
    kinds = failed_kinds(out)
    keep = [*kinds.values(), out.splitlines()[-1]]
    cases.append(_case("log-sweep-nginx-access", "log", "cat /var/log/nginx/access.log", code,
                       out, err, keep, "nginx access log, 404s, a dead upstream, a denied path"))
    code, out, err = run(["cat", "error.log"], d)
    keep = [ln for ln in out.splitlines() if "[error]" in ln or "[crit]" in ln]
    keep.append(out.splitlines()[-1])
    cases.append(_case("log-sweep-nginx-error", "log", "cat /var/log/nginx/error.log", code,
                       out, err, keep, "nginx error log at level info"))
    return cases


def redis_cases(tmp: str) -> list[dict]:
    d = os.path.join(tmp, "redis")
    os.makedirs(d)
    log = os.path.join(d, "redis.log")
    p = subprocess.Popen(["redis-server", "--port", "18432", "--bind", "127.0.0.1", "--dir", d,
                          "--logfile", log, "--loglevel", "verbose", "--save", "1 1",
                          "--maxmemory", "2mb", "--maxmemory-policy", "noeviction"])
    time.sleep(0.7)
    cli = ["redis-cli", "-p", "18432"]
    for i in range(40):
        subprocess.run(cli + ["SET", f"k{i}", "x" * 20000], capture_output=True)
        if i % 8 == 0:
            subprocess.run(cli + ["BGSAVE"], capture_output=True)
            time.sleep(0.3)
    subprocess.run(cli + ["DEBUG", "SLEEP", "0"], capture_output=True)
    subprocess.run(cli + ["SHUTDOWN"], capture_output=True)
    p.wait(10)
    code, out, err = run(["cat", "redis.log"], d)
    lines = out.splitlines()
    keep = [ln for ln in lines if "# " in ln and ("WARNING" in ln or "Error" in ln
                                                  or "error" in ln)][:6]
    keep.append(lines[-1])
    return [_case("log-sweep-redis-server", "log", "cat /var/log/redis/redis-server.log", code,
                  out, err, keep, "redis-server verbose log with saves and a shutdown")]


JAVA = """
import java.util.*;
public class Billing {
    static class LedgerException extends RuntimeException {
        LedgerException(String m, Throwable c) { super(m, c); }
    }
    static int parseAmount(String s) { return Integer.parseInt(s.trim()); }
    static int total(List<String> rows) {
        int t = 0;
        for (String r : rows) {
            try { t += parseAmount(r.split(",")[2]); }
            catch (NumberFormatException e) {
                throw new IllegalStateException("bad amount in row '" + r + "'", e);
            }
        }
        return t;
    }
    static void close(String account, List<String> rows) {
        try { System.out.println("total " + account + " = " + total(rows)); }
        catch (IllegalStateException e) {
            throw new LedgerException("cannot close account " + account, e);
        }
    }
    public static void main(String[] a) {
        for (int i = 0; i < 400; i++)
            System.out.println("INFO  Billing - loaded account acct-" + i + " (" + (i * 7) + " rows)");
        close("acct-1", Arrays.asList("1,a,10", "2,b,20"));
        System.err.println("WARN  Billing - account acct-2 has a row with no amount");
        close("acct-2", Arrays.asList("1,a,10", "2,b,twelve"));
    }
}
"""

GO = """
package main

import (
	"fmt"
	"log"
	"os"
)

type Config struct{ Workers map[string]int }

func load(path string) *Config {
	if _, err := os.Stat(path); err != nil {
		log.Printf("config %s not found, using defaults", path)
		return nil
	}
	return &Config{}
}

func workers(c *Config, pool string) int { return c.Workers[pool] }

func main() {
	for i := 0; i < 300; i++ {
		log.Printf("worker %d: started pool=default queue=jobs-%d", i, i%3)
	}
	c := load("/etc/app/missing.yaml")
	fmt.Println("workers:", workers(c, "default"))
}
"""

NODE = """
const items = [];
for (let i = 0; i < 300; i++) {
  items.push({ id: i, sku: 'SKU-' + (1000 + i), qty: i % 4 });
  console.log(`[inventory] loaded ${items[i].sku} qty=${items[i].qty}`);
}
function reserve(order) {
  const line = items.find(it => it.sku === order.sku);
  return line.qty - order.qty;
}
async function handle(orders) {
  for (const o of orders) console.log(`[orders] reserve ${o.sku} -> ${reserve(o)}`);
}
handle([{ sku: 'SKU-1003', qty: 1 }, { sku: 'SKU-9999', qty: 2 }]).catch(err => {
  console.error('[orders] reservation failed:', err);
  process.exitCode = 1;
});
"""


def stack_cases(tmp: str) -> list[dict]:
    cases = []
    d = os.path.join(tmp, "java")
    os.makedirs(d)
    with open(os.path.join(d, "Billing.java"), "w") as fh:
        fh.write(JAVA)
    run(["javac", "Billing.java"], d)
    code, out, err = run(["java", "Billing"], d)
    keep = [ln for ln in err.splitlines() if "Exception" in ln or ln.startswith("\tat Billing")]
    keep.append("total acct-1 = 30")
    cases.append(_case("log-sweep-java-caused-by", "log", "java Billing", code, out, err, keep,
                       "a Java program throwing nested exceptions (Caused by:)"))
    d = os.path.join(tmp, "gopanic")
    os.makedirs(d)
    with open(os.path.join(d, "main.go"), "w") as fh:
        fh.write(GO)
    run(["go", "mod", "init", "example.com/workers"], d)
    code, out, err = run(["go", "run", "."], d)
    lines = err.splitlines()
    keep = [ln for ln in lines if ln.startswith(("panic:", "[signal", "goroutine ", "main."))
            or "main.go:" in ln or "missing.yaml" in ln or "exit status" in ln]
    cases.append(_case("log-sweep-go-panic", "log", "go run .", code, out, err, keep,
                       "a Go program logging then panicking on a nil map read"))
    d = os.path.join(tmp, "node")
    os.makedirs(d)
    with open(os.path.join(d, "app.js"), "w") as fh:
        fh.write(NODE)
    code, out, err = run(["node", "app.js"], d)
    keep = [ln for ln in err.splitlines() if "TypeError" in ln or "app.js:" in ln]
    keep.append("[orders] reserve SKU-1003 -> 2")
    cases.append(_case("log-sweep-node-typeerror", "log", "node app.js", code, out, err, keep,
                       "a Node.js script whose async handler throws a TypeError"))
    return cases


STRUCTLOG = """
import structlog, logging, sys, random
structlog.configure(processors=[structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso"), structlog.processors.format_exc_info,
    structlog.processors.JSONRenderer()], logger_factory=structlog.PrintLoggerFactory(sys.stdout))
log = structlog.get_logger().bind(service="payments")
rnd = random.Random(7)
for i in range(80):
    user = f"u{rnd.randint(1, 30)}"
    amount = rnd.randint(1, 500)
    if i in (23, 61):
        try:
            raise ConnectionError(f"card gateway timed out after 30s (attempt {i % 3 + 1})")
        except ConnectionError:
            log.exception("charge failed", user=user, amount=amount, charge_id=f"ch_{i:04d}")
        continue
    if amount > 450:
        log.warning("charge needs review", user=user, amount=amount, charge_id=f"ch_{i:04d}")
    log.info("charge ok", user=user, amount=amount, charge_id=f"ch_{i:04d}", ms=rnd.randint(20, 300))
log.info("batch done", charges=80, failed=2)
"""

LOGFMT = """
import logging, sys, random
logging.basicConfig(stream=sys.stderr, level=logging.DEBUG,
    format='time=%(asctime)s level=%(levelname)s logger=%(name)s msg="%(message)s"')
rnd = random.Random(3)
log = logging.getLogger("sync")
for i in range(60):
    n = rnd.randint(0, 40)
    log.debug("fetched page=%d rows=%d", i, n)
    if i == 33:
        log.error("upstream returned 503 for page=%d, retry in 2s", i)
    if i == 47:
        log.warning("row id=%d has no email, skipped", 9000 + i)
log.info("sync finished pages=60 errors=1")
"""


def jsonl_cases(tmp: str) -> list[dict]:
    cases = []
    with open(os.path.join(tmp, "pay.py"), "w") as fh:
        fh.write(STRUCTLOG)
    env = dict(os.environ, PYTHONPATH=os.environ.get("SWEEP_PYTHONPATH", ""))
    _, out, _ = run([sys.executable, "pay.py"], tmp, env=env)
    with open(os.path.join(tmp, "payments.jsonl"), "w") as fh:
        fh.write(out)
    code, out, err = run(["cat", "payments.jsonl"], tmp)
    lines = out.splitlines()
    keep = [ln for ln in lines if '"error"' in ln or '"warning"' in ln] + [lines[-1]]
    cases.append(_case("jsonl-sweep-structlog", "jsonl", "cat payments.jsonl", code, out, err,
                       keep, "structlog JSON renderer (level last), two exceptions, warnings"))
    with open(os.path.join(tmp, "sync.py"), "w") as fh:
        fh.write(LOGFMT)
    code, out, err = run([sys.executable, "sync.py"], tmp)
    lines = err.splitlines()
    keep = [ln for ln in lines if "level=ERROR" in ln or "level=WARNING" in ln] + [lines[-1]]
    cases.append(_case("log-sweep-logfmt", "log", "python sync.py", code, out, err, keep,
                       "logfmt-style lines from the logging module, DEBUG-heavy"))
    return cases


def sqlite_cases(tmp: str) -> list[dict]:
    cases = []
    db = os.path.join(tmp, "s.db")
    files = []
    for root, _, names in os.walk(os.path.dirname(os.__file__)):
        for n in names:
            if n.endswith(".py"):
                p = os.path.join(root, n)
                files.append((os.path.relpath(p, os.path.dirname(os.__file__)),
                              os.path.getsize(p)))
    files.sort()
    with open(os.path.join(tmp, "files.csv"), "w") as fh:
        fh.write("path,bytes\n")
        for p, s in files:
            fh.write(f"{p},{s}\n")
    run(["sqlite3", db, ".mode csv", ".import files.csv files"], tmp)
    cmd = ("sqlite3 -csv -header s.db \"SELECT path, bytes, bytes/1024 AS kib FROM files "
           "WHERE path LIKE 'email/%' ORDER BY bytes DESC\"")
    code, out, err = run(["sqlite3", "-csv", "-header", db,
                          "SELECT path, bytes, bytes/1024 AS kib FROM files WHERE path LIKE "
                          "'email/%' ORDER BY bytes DESC"], tmp)
    cases.append(_case("csv-sweep-sqlite-stdlib", "csv", cmd, code, out, err,
                       out.splitlines()[:3] + out.splitlines()[-1:],
                       "sqlite3 -csv over the sizes of the stdlib's email package", verbatim=True))
    code, out, err = run(["sqlite3", "-csv", db, "SELECT path, bytes FROM filez"], tmp)
    cases.append(_case("csv-sweep-sqlite-error", "csv",
                       "sqlite3 -csv s.db \"SELECT path, bytes FROM filez\"", code, out, err,
                       [ln for ln in err.splitlines() if ln.strip()],
                       "sqlite3 query on a missing table"))
    return cases


FLASK_APP = """
from flask import Flask, jsonify, abort
app = Flask(__name__)
ORDERS = [{"id": i, "customer": {"id": 100 + i % 17, "name": f"cust-{i % 17}",
                                 "tier": "gold" if i % 5 == 0 else "basic"},
           "items": [{"sku": f"SKU-{1000 + (i * j) % 50}", "qty": j % 3 + 1,
                      "price": round(9.99 * j, 2)} for j in range(1, i % 4 + 2)],
           "status": "shipped" if i % 7 else "cancelled", "total": round(19.5 * (i % 9 + 1), 2),
           "notes": None if i % 11 else "gift wrap"} for i in range(1, 121)]

@app.get("/orders")
def orders():
    return jsonify({"count": len(ORDERS), "next": None, "results": ORDERS})

@app.get("/orders/<int:oid>/invoice")
def invoice(oid):
    order = ORDERS[oid - 1]
    rate = {"gold": 0.1}[order["customer"]["tier"]]
    return jsonify({"id": oid, "discount": order["total"] * rate})

@app.get("/orders/<int:oid>")
def one(oid):
    if oid > len(ORDERS):
        abort(404)
    return jsonify(ORDERS[oid - 1])
"""


def gunicorn_cases(tmp: str) -> list[dict]:
    """A Flask app under gunicorn: its minified JSON answer (saved by curl, then read with cat)."""
    d = os.path.join(tmp, "flask")
    os.makedirs(d)
    with open(os.path.join(d, "app.py"), "w") as fh:
        fh.write(FLASK_APP)
    env = dict(os.environ, PYTHONPATH=os.environ.get("SWEEP_PYTHONPATH", ""))
    p = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "2", "-b", "127.0.0.1:18435",
                          "--access-logfile", "access.log", "--error-logfile", "error.log",
                          "app:app"], cwd=d, env=env)
    time.sleep(2)
    try:
        run(["curl", "-s", "-o", "orders.json", "http://127.0.0.1:18435/orders"], d)
        for i in (3, 5, 12, 130):
            get(f"http://127.0.0.1:18435/orders/{i}/invoice")
    finally:
        p.terminate()
        p.wait(10)
    code, out, err = run(["cat", "orders.json"], d)
    keep = ['"count"', '"results"', '"cancelled"', '"gift wrap"', '"SKU-1001"']
    return [_case("json-sweep-flask-minified", "json", "cat orders.json", code, out, err, keep,
                  "a Flask API's minified JSON answer (jsonify under gunicorn), saved by curl")]


RSYSLOG_CONF = """
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="{d}/log.sock" CreatePath="on")
$ActionFileDefaultTemplate RSYSLOG_TraditionalFileFormat
*.* {d}/syslog
"""


def syslog_cases(tmp: str) -> list[dict]:
    """rsyslogd (its traditional file format) fed by logger: a job runner's lines, a few errors
    and warnings among them, read as an agent reads /var/log/syslog (a file with no .log)."""
    d = os.path.join(tmp, "rsyslog")
    os.makedirs(d)
    with open(os.path.join(d, "rs.conf"), "w") as fh:
        fh.write(RSYSLOG_CONF.format(d=d))
    p = subprocess.Popen(["rsyslogd", "-n", "-f", os.path.join(d, "rs.conf"), "-i",
                          os.path.join(d, "rs.pid")])
    time.sleep(1)
    sock = os.path.join(d, "log.sock")
    try:
        for batch in range(6):
            lines = []
            for i in range(60):
                job = batch * 60 + i
                lines.append(f"job {job} done queue=reports rows={(job * 37) % 900} ms={(job * 13) % 400}")
                if job in (77, 233):
                    lines.append(f"ERROR job {job} failed: disk quota exceeded on /srv/reports")
                if job % 90 == 45:
                    lines.append(f"WARNING queue=reports backlog={job * 3} above threshold 100")
            subprocess.run(["logger", "-u", sock, "-t", "report-worker", "--id=4242"],
                           input="\n".join(lines) + "\n", text=True, check=True)
            subprocess.run(["logger", "-u", sock, "-t", "CRON", f"--id={5000 + batch}"],
                           input=f"(root) CMD (/usr/local/bin/rotate-reports --batch {batch})\n",
                           text=True, check=True)
        subprocess.run(["logger", "-u", sock, "-t", "report-worker", "--id=4242", "-p", "user.crit",
                        "shutting down: 2 jobs failed, see above"], check=True)
        time.sleep(1)
    finally:
        p.terminate()
        p.wait(10)
    code, out, err = run(["tail", "-n", "400", "syslog"], d)
    lines = out.splitlines()
    keep = [ln for ln in lines if "ERROR" in ln or "WARNING" in ln]
    keep += [next(ln for ln in lines if "CRON" in ln), lines[-1]]
    return [_case("log-sweep-syslog", "log", "tail -n 400 /var/log/syslog", code, out, err, keep,
                  "rsyslogd traditional format, fed by logger")]


JAVA_SERVER = """
import java.util.*;
import java.util.logging.*;
public class Server {
    static final Logger LOG = Logger.getLogger("orders");
    static int price(Map<String,Integer> stock, String sku) { return stock.get(sku) * 3; }
    static void handle(int id, Map<String,Integer> stock) {
        try {
            LOG.info("request " + id + " sku=SKU-" + (id % 7) + " price=" + price(stock, "SKU-" + (id % 7)));
        } catch (NullPointerException e) {
            LOG.log(Level.SEVERE, "request " + id + " failed",
                    new IllegalStateException("no stock entry for SKU-" + (id % 7), e));
        }
    }
    public static void main(String[] a) {
        Map<String,Integer> stock = new HashMap<>();
        for (int i = 0; i < 6; i++) stock.put("SKU-" + i, i + 1);
        for (int id = 0; id < 120; id++) handle(id, stock);
    }
}
"""


def java_log_cases(tmp: str) -> list[dict]:
    """java.util.logging with a one-line format: the exception's class name at column 0 on the
    line after each SEVERE message, then its frames and `Caused by:`."""
    d = os.path.join(tmp, "javalog")
    os.makedirs(d)
    with open(os.path.join(d, "Server.java"), "w") as fh:
        fh.write(JAVA_SERVER)
    run(["javac", "Server.java"], d)
    fmt = "%1$tF %1$tT %4$s %3$s - %5$s%6$s%n"
    with open(os.path.join(d, "app.log"), "w") as fh:
        subprocess.run(["java", f"-Djava.util.logging.SimpleFormatter.format={fmt}", "Server"],
                       cwd=d, stdout=fh, stderr=subprocess.STDOUT)
    code, out, err = run(["tail", "-n", "400", "app.log"], d)
    lines = out.splitlines()
    keep = [next(ln for ln in lines if "SEVERE" in ln),
            next(ln for ln in lines if ln.startswith("java.lang.")),
            next(ln for ln in lines if ln.startswith("Caused by:")), lines[-1]]
    return [_case("log-sweep-java-util-logging", "log", "tail -n 400 app.log", code, out, err,
                  keep, "java.util.logging: SEVERE entries with the exception on the next line")]


# the outputs kept as fixtures (each backs a test in tests/test_sweep_logs.py); the others are
# written only when named, or with --all, to inspect how thresher treats them
FIXTURES = {"log-sweep-nginx-access", "json-sweep-flask-minified", "log-sweep-syslog",
            "jsonl-sweep-structlog", "log-sweep-java-util-logging"}


def main() -> None:
    args = sys.argv[1:]
    want = None if args == ["--all"] else set(args) or FIXTURES
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for fn in (nginx_cases, redis_cases, stack_cases, jsonl_cases, sqlite_cases,
                   gunicorn_cases, syslog_cases, java_log_cases):
            try:
                cases += fn(tmp)
            except (OSError, subprocess.CalledProcessError) as exc:
                print(f"{fn.__name__}: skipped ({exc})", file=sys.stderr)
        for case in cases:
            if want is None or case["id"] in want:
                save(case)
                print("wrote", case["id"])


if __name__ == "__main__":
    main()
