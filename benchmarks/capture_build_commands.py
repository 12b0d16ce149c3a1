"""Capture builds that echo one compile command per source file, by running the real tools.

Cases (issue 16: builds that echo the same command for every file; within budget they stay whole):
- ``python setup.py build_ext --inplace`` of the lz4 4.3.3 sdist (PyPI): setuptools echoes each gcc
  command, three extensions share bundled C sources;
- the same of the Brotli 1.1.0 sdist (PyPI): one extension of ~40 bundled C files;
- ``make VERBOSE=1`` of a CMake project written here (8 C files, one with warnings): CMake's own
  progress lines, the echoed ``/usr/bin/cc … -o CMakeFiles/…/x.c.o -c …/x.c`` commands, and gcc
  warnings (which must stay).
Re-run with ``.venv/bin/python benchmarks/capture_build_commands.py`` (downloads the two sdists with
pip, builds in a temporary folder and a throw-away venv with setuptools).
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import tarfile
import tempfile

from capture_fixtures import save

SDISTS = (("build-setuptools-lz4", "lz4==4.3.3"), ("build-setuptools-brotli", "brotli==1.1.0"))
WARN_RE = re.compile(r"^\S+:\d+:\d+: (?:warning|error): ")

UNIT = '''#include "parts.h"

int part_{i}(int n)
{{
    return n * {i} + 1;
}}
'''

SLOPPY = '''#include "parts.h"

int part_sloppy(unsigned n, int limit)
{
    int unused;
    if (n < limit)
        return 1;
}
'''


def sh(cmd: list[str], cwd: str) -> tuple[int, str, str]:
    """Run ``cmd`` and return (exit code, stdout, stderr)."""
    env = dict(os.environ, LC_ALL="C.UTF-8", GCC_COLORS="")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)
    return p.returncode, p.stdout, p.stderr


def facts(out: str) -> list[str]:
    """What an agent needs: every diagnostic, the first compile command, every link command."""
    lines = out.splitlines()
    keep = [ln for ln in lines if WARN_RE.match(ln)]
    compiles = [ln for ln in lines if re.search(r"\s-c\s", ln) and re.match(r"\S*(?:gcc|cc)\s", ln)]
    links = [ln for ln in lines if re.match(r"\S*(?:gcc|cc)\s", ln) and " -shared " in ln
             or re.match(r"\S*cc\s.*\s-o\s\S+\s*$", ln) and " -c " not in ln]
    return keep + compiles[:1] + links


def setuptools_case(cid: str, spec: str, tmp: str, python: str) -> None:
    sh([python, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps", "-d", tmp, spec], tmp)
    archive = next(p for p in glob.glob(os.path.join(tmp, "*.tar.gz"))
                   if os.path.basename(p).lower().startswith(spec.split("==")[0]))
    with tarfile.open(archive) as tf:
        tf.extractall(tmp, filter="data")
    root = archive[:-len(".tar.gz")]
    code, out, err = sh([python, "setup.py", "build_ext", "--inplace"], root)
    command = "python setup.py build_ext --inplace"
    save({"id": cid, "class": "build", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts(out + err), "verbatim": False,
          "source": f"benchmarks/capture_build_commands.py: {spec} sdist from PyPI, built here"})


def cmake_case(tmp: str) -> None:
    root = os.path.join(tmp, "parts")
    os.makedirs(os.path.join(root, "src"))
    names = [f"part{i}" for i in range(7)]
    for i, name in enumerate(names):
        with open(os.path.join(root, "src", name + ".c"), "w") as fh:
            fh.write(UNIT.format(i=i))
    with open(os.path.join(root, "src", "sloppy.c"), "w") as fh:
        fh.write(SLOPPY)
    with open(os.path.join(root, "src", "parts.h"), "w") as fh:
        fh.write("".join(f"int part_{i}(int n);\n" for i in range(7)))
    sources = " ".join(f"src/{n}.c" for n in names[:4] + ["sloppy"] + names[4:])
    with open(os.path.join(root, "CMakeLists.txt"), "w") as fh:
        fh.write("cmake_minimum_required(VERSION 3.10)\nproject(parts C)\n"
                 "set(CMAKE_C_FLAGS \"${CMAKE_C_FLAGS} -Wall -Wextra -O2\")\n"
                 f"add_library(parts STATIC {sources})\n")
    build = os.path.join(root, "build")
    sh(["cmake", "-S", root, "-B", build], root)
    code, out, err = sh(["make", "VERBOSE=1"], build)
    save({"id": "build-cmake-verbose", "class": "build", "command": "make VERBOSE=1",
          "exit_code": code, "stdout": out, "stderr": err, "must_keep": facts(out + err),
          "verbatim": False,
          "source": "benchmarks/capture_build_commands.py: a CMake project written here, built "
                    "with the real cmake/make/gcc"})


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        venv = os.path.join(tmp, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        subprocess.run([python, "-m", "pip", "install", "-q", "setuptools", "setuptools_scm",
                        "pkgconfig"], check=True)
        for cid, spec in SDISTS:
            setuptools_case(cid, spec, tmp, python)
        cmake_case(tmp)


if __name__ == "__main__":
    main()
