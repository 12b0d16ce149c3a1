"""The compiled-regex cache (``thresher.dataflow.rxcache``): a warm start compiles no regex, and
what it serves is the pattern ``re`` itself compiles (issue 15, start-up)."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys

import pytest

from thresher.dataflow import rxcache

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "pytest-fail-verbose.txt")
PIPE = ["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"]

COUNTING = r"""
import sys
import re._compiler as compiler
real, count = compiler.compile, [0]
def counting(p, flags=0):
    count[0] += 1
    return real(p, flags)
compiler.compile = counting
from thresher.main import main
status = main(sys.argv[1:])
sys.stderr.write(f"@compiled {count[0]}\n")
sys.exit(status)
"""
"""Runs ``thresher ARGV`` and reports how many patterns ``re``'s compiler compiled (the cache's
own recording on a miss included)."""


def _env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("THRESHER_")}
    env.update(THRESHER_HOME=str(tmp_path / "home"), THRESHER_CACHE_HOME=str(tmp_path / "cache"),
               THRESHER_CONFIG_HOME=str(tmp_path / "config"))
    return env


def _pipe(tmp_path) -> tuple[bytes, int]:
    """stdout of ``thresher pipe`` on the README example, and the number of regex compiles (the
    first call in ``tmp_path`` builds the plans)."""
    with open(EXAMPLE, "rb") as fh:
        data = fh.read()
    res = subprocess.run([sys.executable, "-c", COUNTING, *PIPE], input=data, capture_output=True,
                         env=_env(tmp_path), check=True)
    counts = [line for line in res.stderr.decode().splitlines() if line.startswith("@compiled ")]
    return res.stdout, int(counts[-1].split()[1])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A cache folder holding built plans (and no regex table)."""
    base = tmp_path_factory.mktemp("rxcache-built")
    _pipe(base)
    return base / "cache"


@pytest.fixture
def planned(built, tmp_path):
    """``tmp_path`` with the built plans copied into its cache folder."""
    import shutil
    shutil.copytree(built, tmp_path / "cache")
    assert not any(n.startswith("regex-") for n in os.listdir(tmp_path / "cache"))
    return tmp_path


def _table(tmp_path) -> str:
    found = [n for n in os.listdir(tmp_path / "cache") if n.startswith("regex-")]
    assert len(found) == 1, found
    return str(tmp_path / "cache" / found[0])


def test_a_warm_pipe_compiles_no_regex_and_writes_the_same_bytes(planned):
    tmp_path = planned  # (a run that builds the plans keeps no table: ``built`` checks it)
    first, compiled_first = _pipe(tmp_path)
    warm, compiled_warm = _pipe(tmp_path)
    assert compiled_first > 10  # the stages' patterns, compiled by re (and once more to record them)
    assert compiled_warm == 0
    assert warm == first and b"assert" in warm
    assert os.stat(_table(tmp_path)).st_mode & 0o077 == 0  # private, like the plan cache


def test_every_entry_rebuilds_the_pattern_re_compiles(planned):
    import _sre
    tmp_path = planned
    _pipe(tmp_path)
    with open(_table(tmp_path), "rb") as fh:
        table = marshal.loads(fh.read())["re"]
    assert len(table) > 10
    for (pattern, flags), blob in table.items():
        cached = _sre.compile(*marshal.loads(blob))
        fresh = re._compiler.compile(pattern, flags)
        assert cached == fresh  # flags, pattern and every code word
        assert (cached.groups, cached.groupindex) == (fresh.groups, fresh.groupindex)


def test_a_damaged_table_or_entry_falls_back_to_compiling(planned):
    tmp_path = planned
    good, _ = _pipe(tmp_path)
    path = _table(tmp_path)
    with open(path, "rb") as fh:
        whole = marshal.loads(fh.read())
    table = whole["re"]
    keys = sorted(table, key=repr)
    # entries that rebuild another pattern, or are not marshal data, and then not a table at all
    swapped = {k: table[keys[(i + 1) % len(keys)]] for i, k in enumerate(keys)}
    for blob in (marshal.dumps({**whole, "re": swapped}),
                 marshal.dumps({**whole, "re": {k: b"\x00garbage" for k in keys}}),
                 marshal.dumps(table), b"not marshal data"):
        with open(path, "wb") as fh:
            fh.write(blob)
        out, compiled = _pipe(tmp_path)
        assert out == good
        assert compiled > 10  # the patterns compiled by re again (and recorded)
        assert _pipe(tmp_path) == (good, 0)  # and the table was repaired


def test_a_table_others_can_write_is_not_read(planned):
    tmp_path = planned
    _pipe(tmp_path)
    path = _table(tmp_path)
    os.chmod(path, 0o666)
    _, compiled = _pipe(tmp_path)
    assert compiled > 10
    assert os.stat(path).st_mode & 0o077 == 0  # and it was replaced by a private one


@pytest.fixture
def fresh_state(tmp_path, monkeypatch):
    """rxcache's process state pointed at an empty cache folder, restored afterwards."""
    monkeypatch.setenv("THRESHER_CACHE_HOME", str(tmp_path / "cache"))
    saved, built = dict(rxcache._STATE), dict(rxcache._BUILT)
    rxcache._STATE.clear()
    yield
    rxcache._STATE.clear()
    rxcache._STATE.update(saved)
    rxcache._BUILT.update(built)


def test_save_keeps_new_patterns_and_never_locale_ones(fresh_state, tmp_path):
    import thresher.main  # noqa: F401 - as in a thresher command (prime fronts re only there)
    rxcache.prime()
    plain, local = "thresher-rxcache-test (?P<n>\\d+)", rb"thresher-rxcache-test \w+"
    re.compile(plain)
    re.compile(local, re.LOCALE)  # its code depends on the locale it is compiled in
    rxcache.save()
    with open(_table(tmp_path), "rb") as fh:
        table = marshal.loads(fh.read())["re"]
    assert (plain, 0) in table
    assert not any(p == local for p, _ in table)
    rxcache._STATE.clear()
    rxcache._BUILT.clear()
    re.purge()
    rxcache.prime()
    found = re.compile(plain).search("x thresher-rxcache-test 42")
    assert found is not None and found["n"] == "42"
    assert (plain, 0) in rxcache._STATE["used"]  # served from the table, not compiled


WITHOUT_RE = r"""
import sys
for name in [m for m in sys.modules if m == "re" or m.startswith("re.")]:
    del sys.modules[name]  # an editable install imports re at start-up; a regular one does not
asked = []


class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "re":
            asked.append(name)
        return None


sys.meta_path.insert(0, Watch())
from thresher.main import main
status = main(sys.argv[1:])
sys.stderr.write(f"@re {len(asked)}\n")
sys.exit(status)
"""


def test_a_warm_pipe_does_not_import_re(planned):
    """The stages on this graph's path bind ``re`` to ``rxcache.re_lazy``: their patterns come
    from the table through ``_sre`` alone, and the facts Score parses patterns for (anchored,
    needed literals) are kept too, so the regex engine's Python half is never imported."""
    with open(EXAMPLE, "rb") as fh:
        data = fh.read()
    runs = [subprocess.run([sys.executable, "-c", WITHOUT_RE, *PIPE], input=data,
                           capture_output=True, env=_env(planned), check=True) for _ in range(2)]
    asked = [int(r.stderr.decode().split("@re ")[-1]) for r in runs]
    assert asked[0] >= 1 and asked[1] == 0  # the first run compiled (and recorded) them
    assert runs[0].stdout == runs[1].stdout == _pipe(planned)[0]


def test_remembered_facts_are_filed_under_the_code_that_computed_them(fresh_state, tmp_path,
                                                                     monkeypatch):
    import types
    from thresher.stages.lib import text
    source = tmp_path / "facts_module.py"
    source.write_text("# stands in for the module of a remembered function\n")
    module = types.ModuleType("thresher_rxcache_facts_module")
    module.__file__ = str(source)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    pattern, want = r"thresher-rxcache-fact \d+ (?:x|y)", frozenset({"thresher-rxcache-fact "})
    calls = []

    def probe(p):
        calls.append(p)
        return text.needed_literals.__wrapped__(p)
    probe.__module__ = module.__name__

    def new_process():
        rxcache._STATE.clear()
        return rxcache.remembered(probe)

    cached = new_process()
    assert cached(pattern) == want and cached(pattern) == want and calls == [pattern]
    rxcache.save()
    with open(_table(tmp_path), "rb") as fh:
        facts = marshal.loads(fh.read())["facts"]
    assert [k[0].split("@")[0] for k in facts if k[1] == pattern] == [
        "thresher_rxcache_facts_module.test_remembered_facts_are_filed_under_the_code_that_"
        "computed_them.<locals>.probe"]
    assert new_process()(pattern) == want and calls == [pattern]  # read back from the table
    stamp = os.stat(source)
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))
    assert new_process()(pattern) == want and calls == [pattern, pattern]  # its code changed


def test_a_program_using_the_api_keeps_its_re_untouched(tmp_path):
    code = ("import re, sys\n"
            "from thresher.dataflow import compress\n"
            "out = compress(sys.stdin.buffer.read(), command='python -m pytest -v', exit_code=1)\n"
            "sys.exit(0 if all(type(getattr(re, n, {})) is dict for n in ('_cache', '_cache2'))\n"
            "         and out.output else 1)\n")
    with open(EXAMPLE, "rb") as fh:
        data = fh.read()
    subprocess.run([sys.executable, "-c", code], input=data, env=_env(tmp_path), check=True)
