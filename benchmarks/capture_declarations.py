"""Capture fixtures of API files whose declarations have no bodies (issue 16, mechanism 6).

Real files this machine has, read with ``cat``: C headers from /usr/include (Debian -dev packages),
TypeScript ``.d.ts`` files from npm packages (``npm pack`` into a temporary folder), Java interfaces
and an abstract class from the JDK's ``src.zip``, a Python module of abstract base classes, and Go
standard-library files with interfaces (Debian's golang-go sources).
``must_keep`` comes from a parser independent of the outline under test: ``gcc -aux-info`` (the
line of every prototype the compiler reads from the header, macros expanded), the TypeScript
compiler's own AST (every function, method, call and construct signature without a body),
``javap`` on the compiled JDK class (every public method name, as ``name(``) and Python's ``ast``
(every method of the module's abstract classes), Go's own ``go/parser`` (the line of every method
and embedded type of every interface). Missing sources are skipped with a note.
Usage: ``python benchmarks/capture_declarations.py [c ts java python go]`` (default: all; needs
gcc, node/npm, a JDK, go).
"""

from __future__ import annotations

import ast
import glob
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_docs import run, save

HEADERS = ("readline/readline.h", "pthread.h", "openssl/ssl.h", "libtasn1.h")
DTS = (("@types/node@26.6.11", "node/readline.d.ts", "ts-node-readline"),
       ("@types/node@26.6.11", "node/events.d.ts", "ts-node-events"),
       ("@types/express-serve-static-core@5.1.3", "express-serve-static-core/index.d.ts",
        "ts-express-core"),
       ("axios@1.21.1", "package/index.d.ts", "ts-axios"))
JAVA = (("java.sql/java/sql/Connection.java", "java-sql-connection"),
        ("java.base/java/util/concurrent/BlockingQueue.java", "java-blockingqueue"),
        ("java.base/java/util/AbstractList.java", "java-abstractlist"))
TS_DECLS = r"""
const ts = require(process.argv[2]), fs = require("fs"), file = process.argv[3];
const src = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
const K = ts.SyntaxKind;
const kinds = new Set([K.FunctionDeclaration, K.MethodSignature, K.MethodDeclaration,
  K.CallSignature, K.ConstructSignature, K.Constructor]);
(function visit(n) {
  if (kinds.has(n.kind) && !n.body && n.parent.kind !== K.TypeLiteral)
    console.log(src.getLineAndCharacterOfPosition((n.name || n).getStart(src)).line + 1);
  ts.forEachChild(n, visit);
})(src);
"""


def gcc_prototypes(header: str) -> list[int] | None:
    """1-based lines of every function prototype gcc reads from ``header`` (``-aux-info``)."""
    with tempfile.TemporaryDirectory() as tmp:
        src, aux = os.path.join(tmp, "t.c"), os.path.join(tmp, "aux")
        with open(src, "w") as fh:
            fh.write(f'#include "{header}"\n')
        p = subprocess.run(["gcc", "-w", "-aux-info", aux, "-c", src, "-o", os.devnull],
                           capture_output=True)
        if p.returncode:
            return None
        real = os.path.realpath(header)
        with open(aux, encoding="utf-8", errors="replace") as fh:
            return sorted({int(m[2]) for m in (re.match(r"/\* (.+?):(\d+):[NO][CF] \*/", line)
                                                for line in fh)
                           if m and os.path.realpath(m[1]) == real})


def lines_at(text: str, numbers: list[int]) -> list[str]:
    """The (right-stripped) source lines at 1-based ``numbers``, as facts, in order, no repeats."""
    src = text.split("\n")
    return list(dict.fromkeys(src[n - 1].rstrip() for n in numbers))


def c_cases() -> None:
    for rel in HEADERS:
        path = os.path.join("/usr/include", rel)
        protos = gcc_prototypes(path) if os.path.exists(path) else None
        if not protos:
            print(f"{rel}: missing or not compilable, skipped", file=sys.stderr)
            continue
        out, err, code = run(f"cat {rel}", "/usr/include")
        name = re.sub(r"\W+", "-", rel[:-2])
        save(f"decl-own-c-{name}", "code", f"cat /usr/include/{rel}", out, err, code,
             lines_at(out, protos), "Debian -dev package header",
             "must_keep: the line of every prototype per gcc -aux-info")


def ts_cases() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if subprocess.run(["npm", "pack", "typescript@5.9.3"], cwd=tmp, capture_output=True).returncode:
            print("npm pack typescript failed, .d.ts cases skipped", file=sys.stderr)
            return
        for spec in dict.fromkeys(s for s, _, _ in DTS):
            subprocess.run(["npm", "pack", spec], cwd=tmp, capture_output=True, check=True)
        for tgz in glob.glob(os.path.join(tmp, "*.tgz")):
            dest = os.path.join(tmp, os.path.basename(tgz)[:-4])
            os.makedirs(dest)
            subprocess.run(["tar", "xzf", tgz, "-C", dest], check=True)
        tsjs = glob.glob(os.path.join(tmp, "typescript-*", "package", "lib", "typescript.js"))[0]
        script = os.path.join(tmp, "decls.js")
        with open(script, "w") as fh:
            fh.write(TS_DECLS)
        for spec, rel, case in DTS:
            stem = spec.lstrip("@").replace("/", "-").replace("@", "-")
            folder = os.path.join(tmp, stem)
            lines = subprocess.run(["node", script, tsjs, os.path.join(folder, rel)],
                                   capture_output=True, text=True, check=True).stdout.split()
            out, err, code = run(f"cat {rel}", folder)
            save(f"decl-own-{case}", "code", f"cat {rel}", out, err, code,
                 lines_at(out, [int(n) for n in lines]), f"npm {spec}",
                 "must_keep: every body-less signature per the TypeScript compiler's AST")


def java_cases() -> None:
    zips = [z for z in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip")) if os.path.isfile(z)]
    if not zips:
        print("no JDK src.zip, Java cases skipped", file=sys.stderr)
        return
    javap = os.path.join(os.path.dirname(os.path.dirname(zips[-1])), "bin", "javap")
    with tempfile.TemporaryDirectory() as tmp:
        for rel, case in JAVA:
            zipfile.ZipFile(zips[-1]).extract(rel, tmp)
            cls = rel.split("/", 1)[1][:-5].replace("/", ".")
            api = subprocess.run([javap, cls], capture_output=True, text=True).stdout
            simple = cls.rsplit(".", 1)[1]
            names = sorted({m[1] for m in re.finditer(r"(\w+)\(", api) if m[1] != simple})
            out, err, code = run(f"cat {rel}", tmp)
            save(f"decl-own-{case}", "code", f"cat {rel.split('/', 1)[1]}", out, err, code,
                 [n + "(" for n in names], os.path.basename(os.path.dirname(os.path.dirname(
                     zips[-1]))) + " src.zip", "must_keep: every public method name per javap")


def python_case() -> None:
    path = os.path.join(sysconfig.get_paths()["stdlib"], "importlib", "abc.py")
    if not os.path.exists(path):
        return
    out, err, code = run(f"cat {path}")
    facts = [f"def {m.name}(" for cls in ast.parse(out).body if isinstance(cls, ast.ClassDef)
             for m in cls.body if isinstance(m, ast.FunctionDef)]
    save("decl-own-py-importlib-abc", "code", "cat importlib/abc.py", out, err, code,
         list(dict.fromkeys(facts)), "CPython standard library",
         "must_keep: every method of its abstract classes per ast")


GO_FILES = ("reflect/type.go", "database/sql/driver/driver.go", "net/net.go", "go/ast/ast.go")
GO_LISTER = r"""package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
)

func main() {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, os.Args[1], nil, parser.ParseComments)
	if err != nil {
		panic(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if it, ok := n.(*ast.InterfaceType); ok {
			for _, m := range it.Methods.List {
				fmt.Println(fset.Position(m.Pos()).Line)
			}
		}
		return true
	})
}
"""


def go_cases() -> None:
    roots = sorted(glob.glob("/usr/lib/go/src")) or sorted(glob.glob("/usr/lib/go-*/src"))
    if not roots:
        print("go sources: missing (apt-get install golang-go), skipped", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        lister = os.path.join(tmp, "lister")
        with open(lister + ".go", "w") as fh:
            fh.write(GO_LISTER)
        subprocess.run(["go", "build", "-o", lister, lister + ".go"], check=True, cwd=tmp,
                       env=dict(os.environ, GOCACHE=os.path.join(tmp, "cache")))
        for rel in GO_FILES:
            path = os.path.join(roots[-1], rel)
            p = subprocess.run([lister, path], capture_output=True, text=True)
            if p.returncode or not os.path.exists(path):
                print(f"{rel}: {p.stderr.strip()[:200] or 'missing'}, skipped", file=sys.stderr)
                continue
            out, err, code = run(f"cat {os.path.basename(rel)}", os.path.dirname(path))
            name = re.sub(r"\W+", "-", rel[:-3])
            save(f"decl-own-go-{name}", "code", f"cat {rel}", out, err, code,
                 lines_at(out, [int(n) for n in p.stdout.split()]), "Go standard library "
                 "(Debian golang-go)", "must_keep: every interface member's line per go/parser")


FAMILIES = {"c": c_cases, "ts": ts_cases, "java": java_cases, "python": python_case, "go": go_cases}

if __name__ == "__main__":
    for family in sys.argv[1:] or FAMILIES:
        FAMILIES[family]()
