"""Capture fixtures for the code/markdown/HTML/man distillers by running the real commands.

Each case runs ``cat``/``head``/``man`` on a real file this machine has (installed Python packages,
Go's standard library, Debian's Rust crate sources and Ruby library, the JDK's src.zip, docs shipped
in Debian packages) and writes ``tests/fixtures/<id>.json`` in the corpus schema. ``must_keep``
facts are picked from the real output by means independent of the distiller under test: Python's
own ``ast`` for Python definitions, and plain line rules (a Go ``func`` at column 0, a heading) for
the others. Sources that are missing on a machine are skipped with a note.
Usage: ``python benchmarks/capture_docs.py``.
"""

from __future__ import annotations

import ast
import glob
import json
import os
import re
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures")
SITE = sysconfig.get_paths()["purelib"]


def first(pattern: str) -> str | None:
    """The first existing path matching the glob ``pattern``."""
    hits = sorted(glob.glob(pattern))
    return hits[0] if hits else None


def run(cmd: str, cwd: str | None = None) -> tuple[str, str, int]:
    """Run ``cmd`` in a shell; its stdout, stderr and exit code."""
    p = subprocess.run(cmd, shell=True, capture_output=True, cwd=cwd,
                       env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8"))
    return (p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode)


def python_defs(text: str) -> list[str]:
    """``def name(`` / ``class name`` for every top-level definition and method (ast)."""
    facts = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            facts.append(f"def {node.name}(")
        elif isinstance(node, ast.ClassDef):
            facts.append(f"class {node.name}")
            facts += [f"def {m.name}(" for m in node.body
                      if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return sorted(set(facts), key=facts.index)


def line_facts(text: str, rule: str, limit: int = 400) -> list[str]:
    """Every line matching ``rule`` (stripped of trailing spaces), as facts."""
    rx = re.compile(rule)
    return [line.rstrip() for line in text.split("\n") if rx.search(line)][:limit]


def save(case_id: str, cls: str, command: str, stdout: str, stderr: str, code: int,
         must_keep: list[str], source: str, notes: str = "") -> None:
    """Write one fixture."""
    case = {"id": case_id, "class": cls, "command": command, "exit_code": code, "stdout": stdout,
            "stderr": stderr, "must_keep": must_keep, "verbatim": False, "source": source,
            "notes": notes}
    with open(os.path.join(OUT, case_id + ".json"), "w", encoding="utf-8") as fh:
        json.dump(case, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    print(f"{case_id}: {len(stdout.splitlines())} lines, {len(must_keep)} facts, exit {code}")


def code_cases() -> None:
    """Source files of several languages, a numbered read, a cut read and a failing read."""
    py = os.path.join(SITE, "pydantic", "main.py")
    if os.path.exists(py):
        folder, name = os.path.split(py)
        out, err, code = run(f"cat {name}", folder)
        save("code-own-py-pydantic-main", "code", f"cat pydantic/{name}", out, err, code,
             python_defs(out), "pydantic (site-packages)")
        out, err, code = run(f"cat -n {name}", folder)
        facts = line_facts(out, r"^\s*\d+\t(?:class |def |    def )")
        save("code-own-py-numbered", "code", f"cat -n pydantic/{name}", out, err, code, facts,
             "pydantic (site-packages), cat -n")
    go = first("/usr/lib/go-*/src/net/http/server.go")
    if go:
        out, err, code = run(f"cat {go}")
        save("code-own-go-http-server", "code", "cat src/net/http/server.go", out, err, code,
             [f.split("{")[0].rstrip() for f in line_facts(out, r"^func ")],
             "Go standard library (Debian golang)")
        out, err, code = run(f"head -n 700 {go}")
        save("code-own-go-head-cut", "code", "head -n 700 src/net/http/server.go", out, err, code,
             [f.split("{")[0].rstrip() for f in line_facts(out, r"^func ")],
             "Go standard library, cut mid-file by head")
    rs = first("/usr/share/cargo/registry/memchr-*/src/memmem/mod.rs")
    if rs:
        out, err, code = run(f"cat {rs}")
        save("code-own-rs-memmem", "code", "cat src/memmem/mod.rs", out, err, code,
             [f.strip().split("(")[0] for f in line_facts(out, r"^\s*pub fn ")],
             "memchr crate (Debian librust-memchr-dev)")
    rb = first("/usr/lib/ruby/*/optparse.rb")
    if rb:
        out, err, code = run(f"cat {rb}")
        save("code-own-rb-optparse", "code", "cat lib/optparse.rb", out, err, code,
             [f.strip() for f in line_facts(out, r"^\s*(?:class|module) [A-Z]")],
             "Ruby standard library (Debian ruby)")
    zip_ = next((z for z in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip")) if os.path.isfile(z)), None)
    if zip_:
        import tempfile
        import zipfile
        tmp = tempfile.mkdtemp()
        zipfile.ZipFile(zip_).extract("java.base/java/util/ArrayList.java", tmp)
        out, err, code = run("cat java.base/java/util/ArrayList.java", tmp)
        save("code-own-java-arraylist", "code", "cat java/util/ArrayList.java", out, err, code,
             [f.strip().split("(")[0] + "(" for f in line_facts(out, r"^    public [\w<>\[\], ]+\(")],
             "OpenJDK 17 src.zip")
    sh = first("/usr/share/doc/git/contrib/subtree/git-subtree.sh")
    if sh:
        out, err, code = run(f"cat {sh}")
        save("code-own-sh-git-subtree", "code", "cat contrib/subtree/git-subtree.sh", out, err,
             code, [f.split("(")[0] + "(" for f in line_facts(out, r"^\w+ \(\) \{$|^\w+\(\) \{$")],
             "git contrib (Debian git)")
    out, err, code = run("cat no/such/module.py")
    save("code-own-missing-file", "code", "cat no/such/module.py", out, err, code,
         ["No such file or directory"], "a failing read")


def doc_cases() -> None:
    """Markdown from Node's docs, an HTML page, and manual pages."""
    md = "/usr/share/doc/nodejs/api/process.md"
    if os.path.exists(md):
        out, err, code = run(f"cat {md}")
        facts = [line for line in out.split("\n") if re.match(r"^#{1,3} ", line)]
        save("markdown-own-node-process", "markdown", "cat doc/api/process.md", out, err, code,
             facts, "Node.js docs (Debian nodejs)")
    html = "/usr/share/doc/python3/python-policy.html"
    if os.path.exists(html):
        out, err, code = run(f"cat {html}")
        body = out[out.find("<body"):]  # anchors of the page, not of scripts in <head>
        facts = [m.group(1) for m in re.finditer(r"<(?:div|section|h\d|span|p|dt|a) [^>]*(id=\"[^\"]+\")", body)][:40]
        save("html-own-python-policy", "html", "cat python-policy.html", out, err, code, facts,
             "Debian python3 docs")
    for page in ("grep", "find"):
        out, err, code = run(f"man -P cat {page}")
        if code != 0:
            print(f"man {page}: not installed, skipped", file=sys.stderr)
            continue
        facts = [line.rstrip() for line in out.split("\n") if re.match(r"^[A-Z][A-Z ]+$", line)]
        facts += [line.strip() for line in out.split("\n") if re.match(r"^       -[a-zA-Z], --", line)]
        save(f"man-own-{page}", "man", f"man -P cat {page}", out, err, code, facts,
             "Debian manual pages")


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    code_cases()
    doc_cases()
