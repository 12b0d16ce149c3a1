"""Capture make/gcc/clang fixtures by building C code written here with the real tools.

Cases: ``make`` of a 12-file project where one file has errors (stops the build); a huge gcc
``-Wall -Wextra`` run with hundreds of warnings (over any budget); a clang build with errors and
fix-it notes (unusual format details); a link error; and ``make -C`` of a nested project (Entering/
Leaving directory lines). Re-run with ``.venv/bin/python benchmarks/capture_build.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

from capture_fixtures import save

MODULE = '''#include <stdio.h>
#include "shop.h"

int price_{i}(int n, unsigned cents)
{{
    int total = n * cents;
    return total;
}}
'''

BROKEN = '''#include <stdio.h>
#include "shop.h"

int discount(int total)
{
    int pct = total > 100 ? 10 : 0
    return total - total * pct / 100;
}

int tax(int total)
{
    return total * rate / 100;
}
'''

WARNY = "\n".join(
    f"int check_{i}(unsigned count, int limit, double ratio)\n{{\n    int unused_{i};\n"
    f"    if (count < limit) return 1;\n    if (ratio == 0.5) return 2;\n}}\n" for i in range(80))

CLANG = '''#include <string.h>

struct item { const char *name; int qty; };

int total(struct item *items, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += items[i].qty
    return sum;
}

int find(struct item *items, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(items[i].nam, name) == 0)
            return i;
    return undefined_fallback(name);
}
'''

JAVA_MODEL = '''package shop.model;

import shop.annotations.Audited;

public class Item{i} {{
    private final String name = "item-{i}";
    @Audited
    public int price(int qty) {{
        Ledger{i} ledger = new Ledger{i}();
        String total = qty * {i};
        return ledger.book(name, total);
    }}
}}
'''

MAKEFILE = "CFLAGS = -Wall -Wextra -O2\nOBJS = {objs}\n\nshop: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n"


def sh(cmd: list[str], cwd: str) -> tuple[int, str, str]:
    """Run ``cmd`` and return (exit code, stdout, stderr)."""
    env = dict(os.environ, LC_ALL="C.UTF-8", GCC_COLORS="")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def write(root: str, rel: str, text: str) -> None:
    """Write ``text`` to ``root/rel``."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


def facts(text: str) -> list[str]:
    """Diagnostic headers, function context, linker and make error lines of a build."""
    pat = re.compile(r"^[^\s:][^:]*:\d+(?::\d+)?: (?:fatal error|error|warning): |: In function "
                     r"|^\s+(?:symbol|location|required|found): |^\d+ errors?$"
                     r"|undefined reference to |^collect2: |^make(?:\[\d+\])?: \*\*\* |error generated"
                     r"|errors? generated|warnings? generated")
    return list(dict.fromkeys(line for line in text.splitlines() if pat.search(line)))


def record(cid: str, command: str, result: tuple[int, str, str], note: str) -> None:
    """Save one case."""
    code, out, err = result
    save({"id": cid, "class": "build", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts(out + "\n" + err), "verbatim": False,
          "source": f"benchmarks/capture_build.py: {note}"})


def project(root: str, n: int, broken: bool) -> None:
    """A make project of ``n`` modules (and a broken one when asked)."""
    write(root, "shop.h", "int discount(int total);\n")
    names = [f"mod{i:02d}" for i in range(n)] + (["pricing"] if broken else [])
    for i, name in enumerate(names[:n]):
        write(root, f"{name}.c", MODULE.format(i=i))
    if broken:
        write(root, "pricing.c", BROKEN)
    write(root, "main.c", "int main(void) { return 0; }\n")
    write(root, "Makefile", MAKEFILE.format(objs=" ".join(f"{m}.o" for m in names + ["main"])))


def main() -> None:
    """Capture every build fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        project(os.path.join(tmp, "a"), 12, broken=True)
        record("build-own-make-error", "make", sh(["make"], os.path.join(tmp, "a")),
               "12 modules build, pricing.c has a syntax error and an undeclared name")
        project(os.path.join(tmp, "b", "shop"), 6, broken=False)
        write(os.path.join(tmp, "b"), "Makefile", "all:\n\t$(MAKE) -C shop\n")
        record("build-own-make-nested", "make", sh(["make"], os.path.join(tmp, "b")),
               "nested make: Entering/Leaving directory lines around a clean build")
        write(tmp, "checks.c", WARNY)
        record("build-own-gcc-warnings-huge", "gcc -Wall -Wextra -c checks.c",
               sh(["gcc", "-Wall", "-Wextra", "-Wfloat-equal", "-c", "checks.c"], tmp),
               "80 functions x 4 warnings: over any budget")
        write(tmp, "items.c", CLANG)
        if shutil.which("clang"):
            record("build-own-clang-errors", "clang -Wall -c items.c",
                   sh(["clang", "-Wall", "-fno-color-diagnostics", "-c", "items.c"], tmp),
                   "clang errors with fix-it hints and a note")
        write(tmp, "app.c", "double area(double r);\nint main(void) { return (int) area(2.0); }\n")
        record("build-own-link-error", "gcc -o app app.c", sh(["gcc", "-o", "app", "app.c"], tmp),
               "undefined reference at link time")
        if shutil.which("javac"):
            for i in range(30):
                write(tmp, f"java/shop/model/Item{i}.java", JAVA_MODEL.format(i=i))
            files = sorted(os.path.relpath(os.path.join(d, f), tmp) for d, _, fs in
                           os.walk(os.path.join(tmp, "java")) for f in fs)
            record("build-own-javac-errors", "javac -Xmaxerrs 500 -d out $(find java -name '*.java' | sort)",
                   sh(["javac", "-Xmaxerrs", "500", "-d", "out", *files], tmp),
                   "30 classes: a missing annotation package, an unknown class, a type mismatch")


if __name__ == "__main__":
    main()
