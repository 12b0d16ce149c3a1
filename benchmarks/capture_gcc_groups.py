"""Capture gcc runs with hundreds of warnings that repeat one message (distill-build's grouping).

Sources no other fixture uses, each an sdist from PyPI compiled with strict warning flags: the
zstd single-file library bundled in ``zstandard`` (``-Wconversion``: one message at dozens of
places), ``regex``'s ``_regex.c`` (unused parameters, missing initializers) and ``bitarray``'s
``_bitarray.c`` (function-type casts, macro expansion chains through Python.h). Facts, fixed
before thresher saw the output: the location of every warning row and of the note that ends
each warning's note chain (where a macro was used), each distinct warning message once, and
every ``In function`` line.
Needs gcc and the running Python's headers. Usage: ``python benchmarks/capture_gcc_groups.py``.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import tempfile

from capture_fixtures import save

SRC = "benchmarks/capture_gcc_groups.py"
FLAGS = ["-std=c99", "-O0", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wcast-qual",
         "-Wswitch-enum", "-Wshadow"]
SDISTS = {"zstandard": "0.25.0", "regex": "2026.11.19", "bitarray": "3.12.3"}
CASES = [  # id, sdist, directory inside it, source file, note
    ("gcc-groups-zstd-conversion", "zstandard", "zstd", "zstd.c",
     "zstd's single-file library (bundled in the zstandard sdist) under -Wconversion"),
    ("gcc-groups-regex-unused", "regex", "src", "_regex.c",
     "the regex module's C engine: unused parameters, missing field initializers"),
    ("gcc-groups-bitarray-casts", "bitarray", "bitarray", "_bitarray.c",
     "bitarray's C extension: function-type casts, sign conversions through Python.h macros"),
]
ROW = re.compile(r"^(?P<loc>[^\s:][^:]*:\d+(?::\d+)?): (?P<kind>warning|note|error): (?P<msg>.*)$")


def facts(text: str) -> list[str]:
    """Every warning's location, the location ending its note chain, each distinct warning
    message once, every ``In function`` line."""
    out: list[str] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = ROW.match(line)
        if m and m["kind"] in ("warning", "error"):
            out += [m["loc"], f"{m['kind']}: {m['msg']}"]
            j = i
            while j + 1 < len(lines) and (n := ROW.match(lines[j + 1])) and n["kind"] == "note":
                j += 1
            if j > i:
                out.append(ROW.match(lines[j])["loc"])
        elif ": In function " in line:
            out.append(line)
    return list(dict.fromkeys(out))


def main() -> None:
    include = sysconfig.get_paths()["include"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, version in SDISTS.items():
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                            ":all:", f"{name}=={version}", "-d", tmp], check=True)
            (sdist,) = glob.glob(os.path.join(tmp, f"{name}-{version}.tar.gz"))
            with tarfile.open(sdist) as tf:
                tf.extractall(tmp, filter="data")
        for cid, name, sub, src, note in CASES:
            cwd = os.path.join(tmp, f"{name}-{SDISTS[name]}", sub)
            argv = ["gcc", *FLAGS, f"-I{include}", "-c", src, "-o", os.path.join(tmp, "out.o")]
            p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
            command = " ".join(argv[:-2] + ["-o", src.replace(".c", ".o")])
            save({"id": cid, "class": "build", "command": command, "exit_code": p.returncode,
                  "stdout": p.stdout, "stderr": p.stderr, "must_keep": facts(p.stderr),
                  "verbatim": False, "source": f"{SRC}: {note} ({name} {SDISTS[name]} from PyPI)"})
            print(f"{cid}: {len(p.stderr.splitlines())} lines, exit {p.returncode}")


if __name__ == "__main__":
    main()
