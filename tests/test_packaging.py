"""Packaging: every subpackage folder ships, bare folder imports fail, the hot path stays light."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib

ROOT = os.path.join(os.path.dirname(__file__), "..")


def _pyproject() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)


def test_every_package_folder_is_listed_for_the_wheel():
    tool = _pyproject()["tool"]["setuptools"]
    mapping = tool["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for root, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                rel = os.path.relpath(root, os.path.join(ROOT, folder))
                found.add(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    assert found == set(tool["packages"])


def test_bare_folder_names_are_not_importable():
    code = "import importlib,sys\nfor m in ('dataflow','stages','stores','viz','cli'):\n" \
           "    try:\n        importlib.import_module(m)\n    except ImportError:\n        continue\n" \
           "    sys.exit(f'bare import of {m} worked')\n"
    res = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def test_shipped_graphs_are_package_data():
    from importlib.resources import files
    names = {p.name for p in files("thresher.graphs").iterdir()}
    assert "generic.default.yaml" in names and "classify.yaml" in names
    import thresher.graphs
    from thresher.dataflow.plan import builtin_dir  # found without importing the package
    assert os.path.samefile(builtin_dir(), os.path.dirname(thresher.graphs.__file__))


HEAVY = ("networkx", "pydantic", "yaml", "numpy", "rank_bm25")


def test_pipe_on_a_warm_cache_imports_no_control_plane_module():
    payload = ("collecting ...\n" + "tests/test_x.py::test_%d PASSED\n" * 1 + "x\n" * 300).encode()
    cmd = [sys.executable, "-X", "importtime", "-m", "thresher", "pipe", "--cmd", "pytest -v",
           "--exit-code", "1"]
    subprocess.run(cmd, input=payload, capture_output=True, check=True)  # warm the plan cache
    res = subprocess.run(cmd, input=payload, capture_output=True, check=True)
    imported = {line.split("|")[-1].strip().split(".")[0] for line in
                res.stderr.decode().splitlines() if line.startswith("import time:")}
    assert "thresher" in imported
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert res.stdout  # it did emit something


# --- start-up: what the per-command paths import (issue 15, "Start-up"; not timed) ----------------

RECORD_IMPORTS = r"""
import builtins, sys
out, argv = sys.argv[1], sys.argv[2:]
seen, real = set(), builtins.__import__
def record(name, globals=None, locals=None, fromlist=(), level=0):
    module = real(name, globals, locals, fromlist, level)
    seen.update([name] if level == 0 else [module.__name__])
    seen.update(f"{module.__name__}.{f}" for f in fromlist or ()
                if f"{module.__name__}.{f}" in sys.modules)
    return module
builtins.__import__ = record
from thresher.main import main
try:
    status = main(argv)
finally:
    builtins.__import__ = real
    with open(out, "w") as fh:
        fh.write("\n".join(sorted(seen)))
sys.exit(status)
"""
"""Runs ``thresher ARGV`` and writes every module an ``import`` statement named on the way, also
one already loaded: an editable install preloads ``re``, ``enum`` and ``pathlib`` at interpreter
start, which a plain ``sys.modules`` diff (or ``-X importtime``) would not see thresher ask for."""


def _imports_of(tmp_path, argv: list[str], stdin: bytes = b"",
                env: dict | None = None) -> tuple[set[str], bytes]:
    """Modules (and their top-level packages) that ``thresher ARGV`` imports on a warm plan cache
    and regex cache, and its stdout."""
    out = tmp_path / "imports.txt"
    cmd = [sys.executable, "-c", RECORD_IMPORTS, str(out), *argv]
    for _ in range(3):  # the first run builds the plans, the second records the regex cache
        res = subprocess.run(cmd, input=stdin, capture_output=True, check=True, cwd=tmp_path,
                             env=env)
    names = set(out.read_text().split())
    return names | {n.split(".")[0] for n in names}, res.stdout


NEVER_PER_COMMAND = HEAVY + ("tree_sitter", "hypothesis", "orjson", "ssl", "_hashlib", "hashlib",
                             "subprocess", "importlib", "argparse", "typing", "pathlib",
                             "threading", "signal")
"""Not on the per-command paths at all: the control plane, OpenSSL for one digest, the modules
that the runner's posix_spawn and the dispatcher's ``__import__`` replace."""


def test_run_of_a_command_no_rule_names_imports_neither_re_nor_a_hash_module(tmp_path):
    """``thresher run -- true`` (an agent's cheapest command) pays for no regex engine (no classify
    rule's literal is in ``true``), no enum-wrapped ``signal``, no ``shlex``, no hash module, no
    JSON and no database (empty output is neither compressed nor archived)."""
    imported, out = _imports_of(tmp_path, ["run", "--", "true"])
    assert "thresher.cmd_run" in imported and "thresher.dataflow.plan" in imported
    unwanted = NEVER_PER_COMMAND + ("re", "enum", "shlex", "blake3", "json", "sqlite3",
                                    "thresher.dataflow.api", "thresher.dataflow.executor", "thresher.graphs")
    assert not imported & set(unwanted), sorted(imported & set(unwanted))
    assert out == b""


def test_pipe_of_a_tiny_input_imports_no_control_plane_module(tmp_path):
    imported, out = _imports_of(tmp_path, ["pipe", "--cmd", "pytest -v", "--exit-code", "1"],
                                b"collecting ...\ntests/test_x.py::test_1 FAILED\nE   assert 1 == 2\n")
    assert "thresher.dataflow.executor" in imported
    unwanted = NEVER_PER_COMMAND + ("json", "shlex",  # no rollout state file: nothing to parse
                                    "sqlite3", "datetime",  # the archive opens _sqlite3 (stores.db)
                                    "re", "enum",  # patterns from the regex cache (rxcache.py)
                                    "thresher.boundary.rollout")  # no measure-first root
    assert not imported & set(unwanted), sorted(imported & set(unwanted))
    assert b"assert 1 == 2" in out


def test_pipe_of_the_readme_example_loads_only_the_stages_its_plan_names(tmp_path):
    """A payload pays for the stages of its graph, no other: of ``thresher.stages``, a pipe of the
    README example imports the modules its plan's nodes name and the helpers they import, never a
    stage a fallback of one of them would need (distill-unittest, for pytest output without its
    counts line), and with no reader scope no session store."""
    from thresher.dataflow.plan import load_plans
    with open(os.path.join(ROOT, "examples", "pytest-fail-verbose.txt"), "rb") as fh:
        example = fh.read()
    env = {k: v for k, v in os.environ.items() if not k.startswith("THRESHER_")}
    env.update(THRESHER_HOME=str(tmp_path / "home"), THRESHER_CACHE_HOME=str(tmp_path / "cache"))
    imported, out = _imports_of(tmp_path, ["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"],
                                example, env)
    plans = load_plans()
    plan = plans.resolve(plans.classify("python -m pytest -v"))
    assert plan is not None
    named = {node["impl"].partition(":")[0] for node in plan["nodes"].values()}
    stages = {m for m in imported if m.startswith("thresher.stages.")
              and not m.startswith("thresher.stages.lib") and m.count(".") == 3}
    assert "thresher.stages.runners.distill_pytest" in stages
    assert stages <= named, sorted(stages - named)
    unwanted = NEVER_PER_COMMAND + ("re", "enum", "json", "sqlite3", "datetime",
                                    "thresher.stages.runners.distill_unittest",
                                    "thresher.stores.sessions",  # no reader scope, no ledger rows
                                    "thresher.stores.skips",  # no lock met, no skip to count
                                    "bisect",  # its C core, _bisect (functools: test below)
                                    "thresher.stages.registry", "thresher.dataflow.compile")
    assert not imported & set(unwanted), sorted(imported & set(unwanted))
    assert b"[thresher:" in out  # it did compress


def test_hook_pretooluse_imports_no_engine_and_no_database(tmp_path):
    """The PreToolUse answer is a rewrite of the command line: no plans, stages or stores, and
    no regex engine while no permission rule needs one (the event is read and the answer written
    by ``thresher.boundary.fastjson``, not ``json``, whose decoder imports ``re`` and so ``enum``)."""
    with open(os.path.join(os.path.dirname(__file__), "hook_payloads", "pre_bash.json"), "rb") as fh:
        payload = json.loads(fh.read())
    payload["cwd"] = str(tmp_path)
    env = dict(os.environ, HOME=str(tmp_path), CLAUDE_CONFIG_DIR=str(tmp_path / ".claude"))
    imported, out = _imports_of(tmp_path, ["hook", "claude"], json.dumps(payload).encode(), env)
    assert "thresher.integrations.claude_hook" in imported
    unwanted = NEVER_PER_COMMAND + ("sqlite3", "blake3", "thresher.dataflow.plan",
                                    "thresher.dataflow.executor", "thresher.stores.db",
                                    "thresher.cmd_run", "re", "enum", "json", "shlex")
    assert not imported & set(unwanted), sorted(imported & set(unwanted))
    assert b"thresher" in out and b"run" in out  # it did answer with the rewrite


def test_installed_command_script_imports_only_the_entry_point():
    """bin/thresher (pyproject ``script-files``) stands in for a generated console script, whose
    ``import re`` costs half a bare interpreter start; it must stay that small."""
    import ast
    assert "bin/thresher" in _pyproject()["tool"]["setuptools"]["script-files"]
    assert "scripts" not in _pyproject()["project"]  # one `thresher` on PATH, not two
    with open(os.path.join(ROOT, "bin", "thresher"), encoding="utf-8") as fh:
        source = fh.read()
    assert source.startswith("#!python\n")  # rewritten to the venv's interpreter on install
    imports = {(n.module if isinstance(n, ast.ImportFrom) else a.name)
               for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))
               for a in n.names}
    assert imports == {"sys", "thresher.main"}


STAND_IN = r"""
import sys
for name in ("functools", "_sqlite3"):  # as on a regular install's start (an editable one preloads them)
    sys.modules.pop(name, None)
from thresher.stores.db import sqlite
core = sqlite()
assert "functools" not in sys.modules, "the stand-in stayed, or the real functools was loaded"
conn = core.connect(":memory:", isolation_level=None)
conn.execute("CREATE TABLE t (x)")
for i in range(300):  # more distinct statements than the cache holds, and repeats
    conn.execute(f"INSERT INTO t VALUES ({i % 150})")
    conn.execute("INSERT INTO t VALUES (?)", (i,))
assert conn.execute("SELECT count(*), sum(x) FROM t").fetchone() == (600, 22350 + 44850)
import functools
assert functools.lru_cache(2)(abs)(-3) == 3 and hasattr(functools, "reduce")  # the real one
print("ok")
"""


def test_the_database_opens_without_importing_functools():
    """``_sqlite3`` looks up ``functools.lru_cache`` once, for its statement caches; the archive
    write imports it with a stand-in (stores/db.py) so a payload does not pay for ``functools``
    and ``collections``: statements still work, cached or not, and a later ``import functools``
    is the real module."""
    res = subprocess.run([sys.executable, "-c", STAND_IN], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout == "ok\n", res.stderr


def test_installed_command_runs_a_process_pool(tmp_path):
    """A pool's workers re-run the command's file as their main module (forkserver/spawn): without
    its ``__main__`` guard each worker ran `thresher` again and `bench --workers 2` died."""
    script = os.path.join(ROOT, "bin", "thresher")
    fixtures = os.path.join(ROOT, "tests", "fixtures")
    out = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, script, "bench", fixtures, "--case", "pytest-fail-quiet",
         "--case", "git-status-porcelain-own", "--arm", "raw", "--workers", "2",
         "--tokenizer", "estimate", "--no-progress", "--json", str(out)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert json.loads(out.read_text())["case_count"] == 2
