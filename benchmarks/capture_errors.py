"""Capture real error reports of several languages buried in long outputs (issue 16 #8).

Each program written here prints 300 distinct lines of work (no two fold together), then a *handled* error report (the program
goes on: the exit code does not flag it), 200 more lines, and for the failing variant an uncaught
one at the end. Java (a ``Caused by:`` chain through ``printStackTrace``), Go (a recovered panic
printed with its stack, then an unrecovered ``panic:``), Node (a caught ``TypeError`` stack, then
an uncaught one) and Python (a chained ``ValueError``/``KeyError`` traceback). The facts are the
error lines (exception line, causes, panic line). Needs java/javac, go, node, python3.
Usage: ``python benchmarks/capture_errors.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile

from capture_fixtures import run, save

SRC = "benchmarks/capture_errors.py"

JAVA = '''
public class Main {
    static void load(String name) throws Exception {
        try { Integer.parseInt(name); }
        catch (NumberFormatException e) { throw new IllegalStateException("bad config value " + name, e); }
    }
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 300; i++) System.out.println("step " + (char) ('a' + i % 26) + (char) ('a' + i / 26 % 26) + " ok");
        try { load("x1"); } catch (Exception e) { e.printStackTrace(System.out); }
        for (int i = 300; i < 500; i++) System.out.println("step " + (char) ('a' + i % 26) + (char) ('a' + i / 26 % 26) + " ok");
        if (args.length > 0) load("y2");
    }
}
'''

GO = '''package main

import (
	"fmt"
	"os"
	"runtime/debug"
)

func lookup(m map[string][]int, k string) int { return m[k][3] }

func safe() {
	defer func() {
		if r := recover(); r != nil {
			fmt.Printf("recovered: %v\\n%s", r, debug.Stack())
		}
	}()
	lookup(map[string][]int{"a": {1}}, "a")
}

func main() {
	for i := 0; i < 300; i++ { fmt.Printf("step %c%c ok\\n", 'a'+i%26, 'a'+i/26%26) }
	safe()
	for i := 300; i < 500; i++ { fmt.Printf("step %c%c ok\\n", 'a'+i%26, 'a'+i/26%26) }
	if len(os.Args) > 1 { var m map[string]int; m["x"] = 1 }
}
'''

NODE = '''
function parse(s) { return s.trim().split(","); }
for (let i = 0; i < 300; i++) console.log(`step ${String.fromCharCode(97 + i % 26, 97 + Math.floor(i / 26) % 26)} ok`);
try { parse(undefined); } catch (e) { console.log(e.stack); }
for (let i = 300; i < 500; i++) console.log(`step ${String.fromCharCode(97 + i % 26, 97 + Math.floor(i / 26) % 26)} ok`);
if (process.argv.length > 2) parse(null);
'''

PY = '''
import sys, traceback
def field(row, k):
    try:
        return row[k]
    except KeyError as e:
        raise ValueError(f"row has no column {k!r}") from e
for i in range(300):
    print(f"step {chr(97 + i % 26)}{chr(97 + i // 26 % 26)} ok")
try:
    field({}, "price")
except ValueError:
    traceback.print_exc(file=sys.stdout)
for i in range(300, 500):
    print(f"step {chr(97 + i % 26)}{chr(97 + i // 26 % 26)} ok")
if len(sys.argv) > 1:
    field({}, "qty")
'''

ERR = re.compile(r"^\s*(?:[\w$]+\.)*[\w$]*(?:Error|Exception)\b.*|^\s*Caused by: .*|^panic: .*"
                 r"|^recovered: .*|^Exception in thread .*|^\S+Error: .*")


def case(cid: str, cls: str, command: str, cmd: list[str], cwd: str, note: str) -> None:
    code, out, err = run(cmd, cwd)
    keep = [line for line in (out + err).splitlines() if ERR.match(line)]
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out, "stderr": err,
          "must_keep": list(dict.fromkeys(keep)), "verbatim": False, "source": f"{SRC}: {note}"})


def main() -> None:
    tmp = tempfile.mkdtemp(prefix="errors-")
    try:
        for name, text in (("Main.java", JAVA), ("main.go", GO), ("main.js", NODE), ("main.py", PY)):
            with open(os.path.join(tmp, name), "w") as fh:
                fh.write(text)
        run(["javac", "Main.java"], tmp)
        run(["go", "mod", "init", "demo"], tmp)
        run(["go", "build", "-o", "demo", "."], tmp)
        case("java-caused-by-handled", "java", "java Main", ["java", "-cp", ".", "Main"], tmp,
             "a Caused by chain printed by a program that goes on (exit 0)")
        case("java-caused-by-uncaught", "java", "java Main fail", ["java", "-cp", ".", "Main", "fail"], tmp,
             "the same, then an uncaught exception with its cause (exit 1)")
        case("go-panic-recovered", "go", "./demo fail", ["./demo", "fail"], tmp,
             "a recovered index panic with its stack, then an unrecovered nil-map panic")
        case("node-typeerror", "node", "node main.js fail", ["node", "main.js", "fail"], tmp,
             "a caught TypeError stack, then an uncaught one")
        case("python-chained-valueerror", "python", "python3 main.py",
             [sys.executable, "main.py"], tmp, "a chained KeyError -> ValueError traceback printed, exit 0")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
