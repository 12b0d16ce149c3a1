"""Capture outputs that reach the generic graph (no distiller of their own): crashes of programs
in several languages, a plain recursive ``diff``, a database shell's errors, a certificate dump.

Sources not used by other fixtures: programs written here for the purpose (a Python recursion
overflow, an ExceptionGroup from concurrent tasks, a deep library stack; a Node unhandled
rejection and a module-load SyntaxError; a Go panic with several goroutines; a Perl ``confess``;
a Java exception wrapped three deep with ``... N more``), ``diff -ru`` between two released
sdists of ``idna`` from PyPI, ``sqlite3`` running a script with bad statements, and ``openssl x509
-text`` of a certificate made here.

Facts, by one rule: every line that names an error (an exception type followed by ``:``,
``panic:``, ``Error:``, ``error``/``Error`` before a colon in sqlite's form, ``Caused by:``),
every ``file:line`` location the trace prints for the program's own files, the counted-repeat
lines a runtime prints (``[Previous line repeated N more times]``, ``... N more``), and for the
non-error outputs (diff, certificate) the header lines (``diff -ru`` file lines, ``@@`` hunk
heads for a sample of files, the certificate's Subject/Issuer/validity lines).
Usage: ``python benchmarks/capture_generic_unseen.py`` (needs python3, node, go, perl, javac,
sqlite3, openssl, pip download access).
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(__file__))
from capture_fixtures import save

SRC = "benchmarks/capture_generic_unseen.py"
ERROR = re.compile(r"^[\s|+]*(?:[\w.]*(?:Error|Exception|Group)\b.*:|panic: |Error: |Parse error|"
                   r"Runtime error|Caused by: |Exception in thread |\S.* at \S+ line \d+\.?$|"
                   r"\[Previous line repeated \d+ more times\]|\.\.\. \d+ more$)")


def run(cmd: list[str] | str, cwd: str, shell: bool = False) -> tuple[int, str, str]:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, shell=shell)
    return p.returncode, p.stdout, p.stderr


def write(d: str, name: str, text: str) -> str:
    path = os.path.join(d, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(textwrap.dedent(text).lstrip())
    return path


def own_locations(text: str, names: tuple[str, ...]) -> list[str]:
    """Lines of the trace that locate a frame in one of the program's own files."""
    return [ln.strip() for ln in text.splitlines() if any(n in ln for n in names)
            and re.search(r"\d", ln)][:6]


def error_lines(text: str) -> list[str]:
    return list(dict.fromkeys(ln.strip() for ln in text.splitlines() if ERROR.match(ln)))


def record(cid: str, command: str, result: tuple[int, str, str], facts: list[str], note: str) -> None:
    code, out, err = result
    seen = out + err
    facts = [f for f in dict.fromkeys(facts) if f and f in seen]
    save({"id": cid, "class": cid.split("-")[1], "command": command, "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": facts, "verbatim": False,
          "source": f"{SRC}: {note}"})


def python_cases(d: str) -> None:
    write(d, "walk.py", """
        def walk(node, depth=0):
            return walk({"child": node}, depth + 1)

        if __name__ == "__main__":
            walk({})
        """)
    r = run([sys.executable, "walk.py"], d)
    record("gen-python-recursion", "python walk.py", r, error_lines(r[2]) + own_locations(r[2], ("walk.py",))[:2],
           "unbounded recursion in a program written here")
    write(d, "fetch.py", """
        import asyncio

        async def fetch(i):
            await asyncio.sleep(0)
            if i % 3 == 0:
                raise ConnectionError(f"host-{i}: connection refused")
            if i % 3 == 1:
                raise TimeoutError(f"host-{i}: no answer in 5 s")
            return i

        async def main():
            async with asyncio.TaskGroup() as tg:
                for i in range(7):
                    tg.create_task(fetch(i))

        asyncio.run(main())
        """)
    r = run([sys.executable, "fetch.py"], d)
    record("gen-python-exceptiongroup", "python fetch.py", r, error_lines(r[2]) + own_locations(r[2], ("fetch.py",)),
           "asyncio.TaskGroup raising an ExceptionGroup of 5 sub-exceptions")
    write(d, "report.py", """
        import csv, io, json, statistics

        ROWS = "name,score\\n" + "".join(f"p{i},{i * 7 % 100}\\n" for i in range(400)) + "p400,n/a\\n"

        def load():
            return list(csv.DictReader(io.StringIO(ROWS)))

        def mean(rows):
            return statistics.mean(float(r["score"]) for r in rows)

        def render(rows):
            for r in rows:
                print(json.dumps(r))
            print("mean", mean(rows))

        render(load())
        """)
    r = run([sys.executable, "report.py"], d)
    record("gen-python-late-valueerror", "python report.py", r,
           error_lines(r[2]) + own_locations(r[2], ("report.py",)) + [r[1].splitlines()[0]],
           "401 printed rows, then a ValueError from statistics under the program's frames")


def node_cases(d: str) -> None:
    write(d, "queue.js", """
        const jobs = Array.from({length: 30}, (_, i) => i);
        async function work(i) {
          console.log(`job ${i} started`);
          if (i === 17) throw new RangeError(`job ${i}: retry budget exhausted (3 of 3)`);
          return i * 2;
        }
        (async () => {
          for (const j of jobs) await work(j);
        })();
        """)
    r = run(["node", "queue.js"], d)
    record("gen-node-unhandled-rejection", "node queue.js", r,
           error_lines(r[2]) + own_locations(r[2], ("queue.js",))[:2] + ["job 17 started"],
           "an async job throwing a RangeError, unhandled")
    write(d, "cfg.mjs", """
        export const limits = {
          cpu: 2,
          memory: "4Gi",,
        };
        """)
    write(d, "main.mjs", """
        import { limits } from "./cfg.mjs";
        console.log(limits);
        """)
    r = run(["node", "main.mjs"], d)
    record("gen-node-syntaxerror", "node main.mjs", r,
           error_lines(r[2]) + own_locations(r[2], ("cfg.mjs",))[:2],
           "an ES module that does not parse, loaded by another")


def go_cases(d: str) -> None:
    g = os.path.join(d, "gopanic")
    write(g, "go.mod", "module example.com/gopanic\n\ngo 1.19\n")
    write(g, "main.go", """
        package main

        import (
            "fmt"
            "sync"
            "time"
        )

        func worker(id int, wg *sync.WaitGroup, out chan<- int) {
            defer wg.Done()
            for {
                out <- id
                time.Sleep(time.Millisecond)
            }
        }

        func pick(xs []int, i int) int { return xs[i] }

        func main() {
            var wg sync.WaitGroup
            out := make(chan int, 100)
            for i := 0; i < 4; i++ {
                wg.Add(1)
                go worker(i, &wg, out)
            }
            xs := []int{1, 2, 3}
            for i := 0; i < 5; i++ {
                fmt.Println("value", pick(xs, i))
            }
        }
        """)
    env_cmd = "GOTRACEBACK=all GOFLAGS=-mod=mod GOCACHE=%s/cache go run ." % d
    r = run(env_cmd, g, shell=True)
    record("gen-go-panic-goroutines", "GOTRACEBACK=all go run .", r,
           error_lines(r[2]) + own_locations(r[2], ("main.go",))[:3] + ["value 3"],
           "index out of range in main with four running goroutines (GOTRACEBACK=all)")


def perl_java_cases(d: str) -> None:
    write(d, "ledger.pl", """
        use strict; use warnings; use Carp qw(confess);
        sub parse_amount { my ($s) = @_; confess "bad amount '$s'" unless $s =~ /^-?\\d+(\\.\\d+)?$/; return $s }
        sub total { my $t = 0; $t += parse_amount($_) for @_; return $t }
        for my $n (1..40) { print "line $n ok\\n" }
        print total(qw(10 20.5 x3 7)), "\\n";
        """)
    r = run(["perl", "ledger.pl"], d)
    record("gen-perl-confess", "perl ledger.pl", r,
           error_lines(r[2]) + own_locations(r[2], ("ledger.pl",))[:3],
           "Carp::confess with a call stack after 40 printed lines")
    j = os.path.join(d, "java")
    write(j, "App.java", """
        import java.util.*;

        public class App {
            static class StoreException extends RuntimeException {
                StoreException(String m, Throwable c) { super(m, c); }
            }
            static int parsePort(String s) { return Integer.parseInt(s); }
            static Map<String, Integer> load(List<String> lines) {
                Map<String, Integer> m = new HashMap<>();
                for (String l : lines) {
                    String[] kv = l.split("=");
                    try { m.put(kv[0], parsePort(kv[1])); }
                    catch (NumberFormatException e) { throw new IllegalStateException("bad line: " + l, e); }
                }
                return m;
            }
            static void open() {
                try { load(List.of("http=8080", "admin=80a")); }
                catch (IllegalStateException e) { throw new StoreException("config store failed to open", e); }
            }
            public static void main(String[] a) {
                for (int i = 0; i < 20; i++) System.out.println("warm-up " + i);
                open();
            }
        }
        """)
    run(["javac", "App.java"], j)
    r = run(["java", "App"], j)
    record("gen-java-caused-by-chain", "java App", r,
           error_lines(r[2]) + own_locations(r[2], ("App.java",))[:3],
           "an exception wrapped twice (Caused by: ... N more)")


def sqlite_case(d: str) -> None:
    stmts = ["CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"]
    stmts += [f"INSERT INTO t(name) VALUES ('n{i}');" for i in range(30)]
    stmts += ["INSERT INTO t(name) VALUES ('n7');", "SELEC * FROM t;", "INSERT INTO t(name) VALUES (NULL);",
              "SELECT count(*) FROM t;", "SELECT * FROM missing;"]
    write(d, "load.sql", "\n".join(stmts) + "\n")
    r = run("sqlite3 db2.sqlite < load.sql", d, shell=True)
    record("gen-sqlite-script-errors", "sqlite3 db2.sqlite < load.sql", r,
           [ln for ln in r[2].splitlines() if "error" in ln.lower()] + r[1].splitlines()[-1:],
           "a SQL script with a UNIQUE violation, a typo, a NOT NULL violation and a missing table")


DIFFS = [("idna", "3.4", "3.7", "idna"), ("attrs", "22.2.0", "23.1.0", "src/attr"),
         ("urllib3", "1.26.18", "2.0.7", "src/urllib3")]
"""(package, old, new, folder inside the sdist) for ``diff -ru`` between two released sdists."""


def diff_case(d: str) -> None:
    for pkg, old, new, sub in DIFFS:
        for v in (old, new):
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                            f"{pkg}=={v}", "-d", d, "-q"], check=True, capture_output=True)
            with tarfile.open(glob.glob(os.path.join(d, f"{pkg}-{v}.tar.gz"))[0]) as t:
                t.extractall(d, filter="data")
        cmd = f"diff -ru {pkg}-{old}/{sub} {pkg}-{new}/{sub}"
        r = run(cmd, d, shell=True)
        heads = [ln for ln in r[1].splitlines() if ln.startswith(("diff -ru", "Only in"))]
        hunks = [ln for ln in r[1].splitlines() if ln.startswith("@@")]
        record(f"gen-diff-ru-{pkg}", cmd, r, heads[:12] + hunks[:: max(1, len(hunks) // 8)],
               f"diff -ru between the {pkg} {old} and {new} sdists from PyPI")


def openssl_case(d: str) -> None:
    run("openssl req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 30 "
        "-subj '/C=NL/O=Example Test Org/CN=api.example.test' "
        "-addext 'subjectAltName=DNS:api.example.test,DNS:www.example.test'", d, shell=True)
    r = run(["openssl", "x509", "-in", "c.pem", "-noout", "-text"], d)
    keep = [ln.strip() for ln in r[1].splitlines()
            if ln.strip().startswith(("Subject:", "Issuer:", "Not Before", "Not After", "DNS:"))]
    record("gen-openssl-x509-text", "openssl x509 -in c.pem -noout -text", r, keep,
           "a self-signed certificate made here")


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        for step in (python_cases, node_cases, go_cases, perl_java_cases, sqlite_case, diff_case,
                     openssl_case):
            sub = os.path.join(d, step.__name__)
            os.makedirs(sub)
            step(sub)


if __name__ == "__main__":
    main()
