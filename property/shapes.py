"""The shapes of tool output, one Hypothesis strategy each: lines and blocks real tools print.

Building blocks (words, paths, plain/error/location lines, escape sequences) and blocks of lines
(tracebacks, pytest runs, git status, logs, runs of near-identical lines, progress redraws, 100 KB
lines, the engine's own markers, JSON, diffs, grep hits, listings, tables, documents).
``thresher.property.strategies`` assembles them into whole outputs and cases, and re-exports them.

Every factory is cached (``functools.cache``): Hypothesis validates each new strategy object it
meets, and rebuilding them per draw made generation ~12x slower.
"""

from __future__ import annotations

import functools
import json
import random

from hypothesis import strategies as st

from thresher.dataflow.markers import footer

_WORDS = ("ok", "done", "Compiling", "building", "module", "request", "user", "cache", "hit", "miss",
          "Downloading", "wheel", "worker", "started", "GET", "POST", "/api/v1/items", "status",
          "took", "ms", "—", "naïve", "数据", "🚀", "checking", "target", "release", "tests", "of")
_DIRS = ("src", "tests", "lib", "pkg", "app", "internal", "node_modules", "build", "ünïcode")
_EXTS = ("py", "rs", "go", "ts", "js", "c", "h", "java", "yaml", "json", "txt")
_HEX = "0123456789abcdef"


# ---- building blocks --------------------------------------------------------------------------

@functools.cache
def words() -> st.SearchStrategy[str]:
    """A word of tool output (ASCII and non-ASCII)."""
    return st.sampled_from(_WORDS)


# Lines and paths are built from one drawn seed: a few draws per line instead of dozens keeps a
# 500-line output cheap to generate (Hypothesis spends ~50 µs per draw), and seed 0 shrinks well.
_SEED = st.integers(0, 2**32 - 1)


def _path(rnd: random.Random) -> str:
    dirs = [rnd.choice(_DIRS) for _ in range(rnd.randrange(4))]
    name = rnd.choice(("main", "util", "test_api", "mod", "index", "conftest"))
    return "/".join(dirs + [name]) + "." + rnd.choice(_EXTS)


def _plain(seed: int, n: int) -> str:
    rnd = random.Random(seed)
    toks = [(rnd.choice(_WORDS), str(rnd.randrange(10**6)), _path(rnd))[rnd.randrange(3)] for _ in range(n)]
    return ("", "", "  ", "    ", "\t")[seed % 5] + " ".join(toks)


@functools.cache
def paths() -> st.SearchStrategy[str]:
    """A relative source path such as ``src/lib/mod.rs``."""
    return _SEED.map(lambda seed: _path(random.Random(seed)))


@functools.cache
def plain_lines() -> st.SearchStrategy[str]:
    """An ordinary line: words, numbers and paths, sometimes indented, sometimes empty."""
    return st.builds(_plain, _SEED, st.integers(0, 10))


@functools.cache
def odd_unicode_lines() -> st.SearchStrategy[str]:
    """Lines with characters that trip naive splitting: form feed, VT, U+2028, BOM, combining marks."""
    odd = st.sampled_from(("\x0c", "\x0b", "\u2028", "\u2029", "\x1c", "\x85", "\ufeff", "e\u0301",
                           "\u202e", "\t", "\u00a0", "…", "...", "\x7f"))
    return st.builds("".join, st.lists(st.one_of(words(), odd), min_size=1, max_size=8))


@functools.cache
def ansi_sequences() -> st.SearchStrategy[str]:
    """An escape sequence a terminal program prints: SGR colour, cursor moves, OSC title/hyperlink."""
    sgr = st.lists(st.sampled_from(("0", "1", "2", "31", "32", "33", "1;31", "38;5;208", "48;2;1;2;3")),
                   min_size=1, max_size=3).map(lambda ps: "\x1b[" + ";".join(ps) + "m")
    fixed = st.sampled_from(("\x1b[0m", "\x1b[K", "\x1b[2K", "\x1b[1A", "\x1b[?25l", "\x1b[?25h",
                             "\x1b]0;build: step 3/9\x07", "\x1b]0;title\x1b\\", "\x1b(B", "\x1b7"))
    link = paths().map(lambda p: f"\x1b]8;;file:///work/{p}\x07")
    return st.one_of(sgr, fixed, link)


@functools.cache
def colourise(lines: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``lines`` with escape sequences spliced in at the start, the end and between words."""
    resets = st.sampled_from(("\x1b[0m", "\x1b[m", ""))
    wraps = st.lists(st.tuples(st.booleans(), ansi_sequences(), resets), max_size=12)

    def build(line: str, how: list) -> str:
        parts = line.split(" ")
        for i, (on, seq, reset) in enumerate(how[:len(parts)]):
            if on:
                parts[i] = seq + parts[i] + reset
        return " ".join(parts)
    return st.builds(build, lines, wraps)


@functools.cache
def error_lines() -> st.SearchStrategy[str]:
    """A line a failing tool prints about the failure (compiler, test runner, shell, runtime)."""
    msg = st.sampled_from(("mismatched types", "cannot find value `x` in this scope", "division by zero",
                           "No such file or directory", "connection refused", "undefined reference"))
    loc = st.builds(lambda p, n, c: f"{p}:{n}:{c}", paths(), st.integers(1, 9999), st.integers(1, 120))
    return st.one_of(
        st.builds(lambda p, m: f"{p}: error: {m}", loc, msg),
        st.builds(lambda p, m: f"error[E0308]: {m}\n  --> {p}", msg, loc),
        st.builds(lambda n: f"E       assert {n} == {n + 1}", st.integers(0, 999)),
        st.builds(lambda p, t: f"FAILED {p}::test_{t} - AssertionError", paths(), words()),
        st.builds(lambda m: f"npm ERR! {m}", msg),
        st.sampled_from(("Traceback (most recent call last):", "Segmentation fault (core dumped)",
                         "fatal: not a git repository (or any of the parent directories): .git",
                         "panic: runtime error: index out of range [3] with length 3", "Killed",
                         "    ^^^^^^^^^^^^", "ERROR: Could not find a version that satisfies x")),
    ).map(lambda s: s.split("\n")[0])


@functools.cache
def location_lines() -> st.SearchStrategy[str]:
    """A ``file:line[:col]`` line without an error word (a warning or grep hit)."""
    return st.builds(lambda p, n, w: f"{p}:{n}: {w}", paths(), st.integers(1, 5000), plain_lines())


# ---- blocks of lines --------------------------------------------------------------------------

@functools.cache
def traceback_blocks() -> st.SearchStrategy[list[str]]:
    """A Python traceback: header, File/line frames with code, and the exception line."""
    frame = st.builds(lambda p, n, f: [f'  File "{p}", line {n}, in {f}', f"    {f}(x)"],
                      paths(), st.integers(1, 900), st.sampled_from(("main", "run", "_call", "<module>")))
    return st.builds(lambda frames, exc: ["Traceback (most recent call last):"]
                     + [line for fr in frames for line in fr] + [exc],
                     st.lists(frame, min_size=1, max_size=6),
                     st.sampled_from(("ValueError: bad input", "KeyError: 'x'", "AssertionError")))


@functools.cache
def pytest_blocks() -> st.SearchStrategy[list[str]]:
    """A pytest run: banner, progress lines with percentages, a failure section and the summary."""
    progress = st.builds(lambda p, dots, pct: f"{p} {dots} [{pct:3d}%]", paths(),
                         st.text(".sFEx", min_size=1, max_size=40), st.integers(0, 100))
    passed = st.builds(lambda p, t, pct: f"{p}::test_{t} PASSED [{pct:3d}%]", paths(), words(),
                       st.integers(0, 100))
    summary = st.builds(lambda f, p, s: f"===== {f} failed, {p} passed in {s / 100:.2f}s =====",
                        st.integers(0, 50), st.integers(0, 900), st.integers(1, 9999))
    banner = ["============================= test session starts ==============================",
              "platform linux -- Python 3.12.3, pytest-8.2.0, pluggy-1.5.0",
              "rootdir: /work/app", "collected 212 items"]
    return st.builds(lambda pr, fail, tail: banner + pr + fail + [tail],
                     st.lists(st.one_of(progress, passed), max_size=40),
                     st.lists(error_lines(), max_size=6), summary)


@functools.cache
def git_status_blocks() -> st.SearchStrategy[list[str]]:
    """``git status`` long format: branch line, hint lines in parentheses and file rows."""
    row = st.builds(lambda kind, p: f"\t{kind}   {p}", st.sampled_from(("modified:", "new file:",
                                                                           "deleted:")), paths())
    return st.builds(lambda rows: ["On branch main", "Changes not staged for commit:",
                                   '  (use "git add <file>..." to update what will be committed)',
                                   '  (use "git restore <file>..." to discard changes)', ""] + rows,
                     st.lists(row, max_size=30))


@functools.cache
def log_lines() -> st.SearchStrategy[str]:
    """A server-log line: timestamp, level, component and message with ids and durations."""
    return st.builds(
        lambda s, lvl, who, msg, ms: f"2024-05-01T12:{s // 60 % 60:02d}:{s % 60:02d}.{ms:03d}Z {lvl} "
                                     f"[{who}] {msg} id={s * 7919 % 100000} took={ms}ms",
        st.integers(0, 86399), st.sampled_from(("INFO", "INFO", "DEBUG", "WARN", "ERROR")),
        st.sampled_from(("worker-1", "worker-2", "http", "db.pool")),
        st.sampled_from(("processed request", "cache miss", "retrying upstream", "connection reset")),
        st.integers(0, 999))


@functools.cache
def near_identical_runs() -> st.SearchStrategy[list[str]]:
    """A run of lines that differ only in numbers (what Collapse folds), from 2 to 300 long."""
    template = st.sampled_from(("Downloading chunk {n} of 300", "  Compiling crate-{n} v0.{n}.1",
                                "test_case_{n} ... ok", "{n} INFO heartbeat seq={n}",
                                "[thresher: {n} similar lines folded]", "warning: unused variable x{n}"))
    return st.builds(lambda t, start, k, step: [t.format(n=start + i * step) for i in range(k)],
                     template, st.integers(0, 10**5), st.integers(2, 300), st.integers(1, 13))


@functools.cache
def filler_blocks() -> st.SearchStrategy[list[str]]:
    """Many distinct, dissimilar lines (to push an output past the graphs' line budgets)."""
    def build(seed: int, k: int) -> list[str]:
        n = len(_WORDS)
        return [f"{_WORDS[(seed + i * 7) % n]} {_WORDS[(seed + i * 13) % n]} {_DIRS[i % len(_DIRS)]}"
                f"{'.' * (i % 5)} {i}" for i in range(k)]
    return st.builds(build, st.integers(0, 1000), st.integers(10, 600))


@functools.cache
def progress_redraws() -> st.SearchStrategy[str]:
    """One line holding a bare-CR progress bar (``\\r`` between states), maybe ending in a message."""
    return st.builds(lambda steps, end: "".join(f"\rDownloading [{'#' * (p // 10):<10}] {p}%"
                                                for p in steps) + end,
                     st.lists(st.integers(0, 100), min_size=1, max_size=20),
                     st.sampled_from(("", "\r", "\rdone", "\r\x1b[2K", "\rerror: download failed", "\r  ")))


@functools.cache
def long_lines() -> st.SearchStrategy[str]:
    """A very long line (minified code, a base64 blob, a data row): 5 KB to 100 KB."""
    return st.builds(lambda frag, size: (frag * (size // len(frag) + 1))[:size],
                     st.sampled_from(("a", "x=1;", "QUJDRA==", "error: boom ", "{\"k\": [1, 2]}, ")),
                     st.sampled_from((5000, 4001, 20_000, 100_000)))


@functools.cache
def marker_lines() -> st.SearchStrategy[str]:
    """The engine's own marker shapes appearing *in the input* (a re-piped or `cat`ed output)."""
    handle = st.text(_HEX, min_size=12, max_size=12)
    foot = st.builds(lambda o, t, h, c: footer(o, t, h, c), st.integers(0, 999), st.integers(0, 999),
                     handle, st.integers(0, 5))
    summary = st.integers(0, 500).map(lambda n: f"[thresher: {n} similar lines folded]")
    clipped = st.builds(lambda w, n: f"{w} [thresher: +{n} chars clipped]", words(), st.integers(1, 99))
    return st.one_of(foot, summary, clipped, st.sampled_from(("…", "...", "[…]", "[thresher: ]")))


@functools.cache
def json_documents() -> st.SearchStrategy[str]:
    """A JSON document, compact or pretty-printed (records lists are long and near-identical)."""
    scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=12),
                       st.floats(allow_nan=False, allow_infinity=False))
    tree = st.recursive(scalar, lambda c: st.lists(c, max_size=5)
                        | st.dictionaries(st.text(max_size=8), c, max_size=5), max_leaves=20)
    records = st.builds(lambda k, st_: [{"name": f"pod-{i}", "status": st_, "restarts": i % 3}
                                        for i in range(k)], st.integers(1, 120),
                        st.sampled_from(("Running", "CrashLoopBackOff")))
    return st.builds(lambda doc, indent: json.dumps(doc, indent=indent, ensure_ascii=False),
                     st.one_of(records, tree), st.sampled_from((2, None, 4)))


# ---- documents and listings some graphs distil ----------------------------------------------

@functools.cache
def diff_blocks() -> st.SearchStrategy[list[str]]:
    """A unified diff of one file: git headers and hunks of context, added and removed lines."""
    hunk = st.builds(lambda at, body: [f"@@ -{at},{len(body)} +{at},{len(body)} @@ def run():"]
                     + [mark + line for mark, line in body], st.integers(1, 900),
                     st.lists(st.tuples(st.sampled_from(" +- "), plain_lines()), min_size=1, max_size=20))
    return st.builds(lambda p, hunks: [f"diff --git a/{p} b/{p}", "index 3f2a1bc..9e8d7f6 100644",
                                       f"--- a/{p}", f"+++ b/{p}"] + [x for h in hunks for x in h],
                     paths(), st.lists(hunk, min_size=1, max_size=5))


@functools.cache
def grep_blocks() -> st.SearchStrategy[list[str]]:
    """``grep -rn`` / ``rg -n`` hits: ``path:line:content`` rows grouped by file."""
    per_file = st.builds(lambda p, hits: [f"{p}:{n}:{line}" for n, line in sorted(hits)], paths(),
                         st.lists(st.tuples(st.integers(1, 3000), plain_lines()), min_size=1, max_size=20))
    return st.lists(per_file, min_size=1, max_size=6).map(lambda fs: [x for f in fs for x in f])


@functools.cache
def listing_blocks() -> st.SearchStrategy[list[str]]:
    """``ls -la`` rows or ``find`` paths."""
    row = st.builds(lambda d, size, p: f"{'d' if d else '-'}rw-r--r--  1 dev staff {size:>8} "
                                       f"May  1 12:00 {p.rsplit('/', 1)[-1]}",
                    st.booleans(), st.integers(0, 10**7), paths())
    found = paths().map(lambda p: "./" + p)
    return st.one_of(st.lists(row, min_size=1, max_size=80).map(lambda r: ["total 96"] + r),
                     st.lists(found, min_size=1, max_size=120))


@functools.cache
def table_blocks() -> st.SearchStrategy[list[str]]:
    """A CSV or TSV table: a header and rows, one of them odd (a missing or extra field)."""
    def build(sep: str, k: int, odd: int) -> list[str]:
        rows = [sep.join(("id", "species", "mass_g", "note"))]
        rows += [sep.join((str(i), ("Adelie", "Gentoo")[i % 2], str(3000 + i * 37 % 2000), "ok"))
                 for i in range(k)]
        if k:
            rows[1 + odd % k] += sep + "EXTRA"
        return rows
    return st.builds(build, st.sampled_from((",", "\t")), st.integers(0, 400), st.integers(0, 10**6))


@functools.cache
def document_blocks() -> st.SearchStrategy[list[str]]:
    """A YAML document, a markdown page, a Python module or an environment listing."""
    yaml_doc = st.builds(lambda k: ["items:"] + [x for i in range(k) for x in
                                                 (f"  - name: svc-{i}", f"    replicas: {i % 4}")],
                         st.integers(1, 200))
    section = st.tuples(st.sampled_from(("#", "##", "###")), words(), st.lists(plain_lines(), max_size=8))
    md = st.lists(section, min_size=1, max_size=10).map(
        lambda secs: [y for h, w, body in secs for y in [f"{h} {w}", ""] + body + [""]])
    func = st.builds(lambda name, body: [f"def {name}(x):", f'    """Do {name}."""']
                     + [f"    {line}" for line in body] + [""],
                     st.sampled_from(("load", "parse", "run", "main", "helper")),
                     st.lists(plain_lines().map(lambda w: f"x = {w!r}"), min_size=1, max_size=12))
    code = st.lists(func, min_size=1, max_size=12).map(
        lambda fs: ["import os", ""] + [x for f in fs for x in f])
    env = st.lists(st.tuples(st.sampled_from(("PATH", "HOME", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN",
                                              "LS_COLORS", "LANG")), st.text(_HEX, max_size=60)),
                   min_size=1, max_size=40).map(lambda kv: [f"{k}={v}" for k, v in kv])
    return st.one_of(yaml_doc, md, code, env)
