"""Hypothesis strategies shaped like real tool output, shared by the property tests and `thresher check`.

Random text alone rarely reaches the code paths that break: a stage only folds, trims or clips when the
input has runs of near-identical lines, hundreds of lines, error lines, huge lines or its own marker
lines. So every strategy here draws from templates of what tools really print (pytest, git status,
compilers, logs, progress bars, JSON) and then damages it the way terminals and pipes do: ANSI colour
and OSC sequences, CRLF endings, bare-CR progress redraws, invalid UTF-8, NUL bytes, 100 KB lines.

The top-level strategy is :func:`cases`, which draws a :class:`Case` (raw bytes + command + exit code);
:func:`failing_cases` and :func:`structured_cases` bias it towards INV-6 and INV-9.

Every factory is cached (``functools.cache``): Hypothesis validates each new strategy object it
meets, and rebuilding them per draw made generation ~12x slower (50 ms → 4 ms per output).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random

from hypothesis import strategies as st

from thresher.dataflow.markers import footer

# Command lines per payload class of graphs/classify.yaml; tests check that the classes with a
# shipped graph classify as claimed. "generic" holds commands no rule claims.
CLASS_COMMANDS: dict[str, tuple[str, ...]] = {
    "pytest": ("pytest", "pytest -q", "pytest -x tests/", "python -m pytest -k slow",
               "python3.12 -m pytest tests/test_api.py", "py.test --lf", "python -m unittest discover"),
    "pytest-verbose": ("pytest -v", "python -m pytest -vv tests/", "pytest --verbose -x"),
    "git-status": ("git status", "git -C repo status", "git --no-pager status", "git status -uall"),
    "log": ("journalctl -u nginx --no-pager", "docker logs web", "docker compose logs", "cat build.log",
            "dmesg"),
    "build": ("make", "gcc -Wall main.c", "cmake --build build"),
    "cargo": ("cargo build", "cargo test --release"),
    "npm": ("npm test", "npm install"),
    "lint": ("mypy src", "ruff check ."),
    "git-diff": ("git diff", "git show HEAD~1", "diff -u a.txt b.txt"),
    "search": ("grep -rn TODO src", "rg -n unwrap"),
    "listing": ("ls -la", "find . -name '*.py'"),
    "code": ("cat src/app.py", "head -n 400 lib/util.py"),
    "csv": ("cat data/penguins.csv",),
    "yaml": ("cat deploy/values.yaml",),
    "markdown": ("cat README.md",),
    "env": ("env", "printenv"),
    "generic": ("./run.sh", "python manage.py migrate", "terraform plan", ""),
}

STRUCTURED_FLAGS = (" --json", " --porcelain", " -o json", " --format=json", " --output=json")
"""Suffixes that make a command's output something a program will parse (INV-9)."""

EXIT_CODES = (0, 1, 2, 137, None)
"""Success, failure, usage error, SIGKILL (128+9), and unknown (a pipe without ``--exit-code``)."""

_WORDS = ("ok", "done", "Compiling", "building", "module", "request", "user", "cache", "hit", "miss",
          "Downloading", "wheel", "worker", "started", "GET", "POST", "/api/v1/items", "status",
          "took", "ms", "—", "naïve", "数据", "🚀", "checking", "target", "release", "tests", "of")
_DIRS = ("src", "tests", "lib", "pkg", "app", "internal", "node_modules", "build", "ünïcode")
_EXTS = ("py", "rs", "go", "ts", "js", "c", "h", "java", "yaml", "json", "txt")
_HEX = "0123456789abcdef"


@dataclasses.dataclass(frozen=True)
class Case:
    """One generated tool output: the raw bytes, the command that printed them, and its exit code."""

    raw: bytes
    command: str = ""
    exit_code: int | None = None

    def __repr__(self) -> str:
        return f"Case(command={self.command!r}, exit_code={self.exit_code}, raw={shorten(self.raw)})"


def shorten(raw: bytes, limit: int = 600) -> str:
    """``repr`` of ``raw`` cut to about ``limit`` characters (head and tail), with its size."""
    lines = raw.count(b"\n") + (not raw.endswith(b"\n") and bool(raw))
    if len(raw) <= limit:
        return f"{raw!r} ({len(raw)} bytes, {lines} lines)"
    half = limit // 2
    return f"{raw[:half]!r} … {raw[-half:]!r} ({len(raw)} bytes, {lines} lines)"


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


@functools.cache
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


@functools.cache
def blocks() -> st.SearchStrategy[list[str]]:
    """One block of output lines of any of the shapes above (plain first, so it shrinks to plain)."""
    single = st.one_of(plain_lines(), error_lines(), location_lines(), log_lines(), marker_lines(),
                       progress_redraws(), odd_unicode_lines(), colourise(plain_lines()),
                       colourise(error_lines()), long_lines())
    return st.one_of(st.lists(single, min_size=1, max_size=12), near_identical_runs(),
                     filler_blocks(), traceback_blocks(), pytest_blocks(), git_status_blocks(),
                     st.lists(log_lines(), max_size=80), json_documents().map(lambda d: d.split("\n")),
                     diff_blocks(), grep_blocks(), listing_blocks(), table_blocks(), document_blocks())


# ---- whole outputs and cases ------------------------------------------------------------------

_BAD_BYTES = (b"\xff", b"\xfe\xfe", b"\xc3\x28", b"\xed\xa0\x80", b"\x80abc", b"\xe2\x82", b"\xf0\x9f",
              b"\xc0\xaf", b"\xff", b"\x00")
"""Invalid UTF-8 (lone continuation, encoded surrogate, truncated, overlong) and, rarely, a NUL byte."""


@functools.cache
def class_blocks(pclass: str | None) -> st.SearchStrategy[list[str]]:
    """Blocks typical of payload class ``pclass`` (any block for other classes)."""
    special = {"pytest": pytest_blocks(), "pytest-verbose": pytest_blocks(),
               "git-status": git_status_blocks(), "git-diff": diff_blocks(), "search": grep_blocks(),
               "listing": listing_blocks(), "csv": table_blocks(), "code": document_blocks(),
               "yaml": document_blocks(), "markdown": document_blocks(), "env": document_blocks(),
               "log": st.lists(log_lines(), min_size=1, max_size=200)}
    return special.get(pclass or "", blocks())


_DAMAGE = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(_BAD_BYTES)), max_size=2)
_ENDINGS = st.sampled_from(("lf", "lf", "lf", "crlf", "mixed"))
_CRLF_AT = st.lists(st.integers(0, 10**6), max_size=5)


@functools.cache
def _block_lists(pclass: str | None) -> st.SearchStrategy[list[list[str]]]:
    return st.lists(st.one_of(blocks(), class_blocks(pclass)), max_size=6)


@st.composite
def tool_outputs(draw: st.DrawFn, pclass: str | None = None,
                 required: st.SearchStrategy[list[str]] | None = None) -> bytes:
    """A whole raw output: blocks of lines (plus a ``required`` block), damaged like real pipes.

    Damage: CRLF or mixed line endings, invalid UTF-8 / NUL bytes spliced into a few lines, and a
    missing final newline.
    """
    parts = draw(_block_lists(pclass))
    if required is not None:
        parts.insert(draw(st.integers(0, 10)) % (len(parts) + 1), draw(required))
    lines = [line.encode("utf-8", "surrogatepass") for block in parts for line in block]
    if lines:
        for pos, bad in draw(_DAMAGE):
            i = pos % len(lines)
            cut = pos % (len(lines[i]) + 1)
            lines[i] = lines[i][:cut] + bad + lines[i][cut:]
    ending = draw(_ENDINGS)
    crlf = {i % max(len(lines), 1) for i in draw(_CRLF_AT)}
    ends = [b"\r\n" if ending == "crlf" or (ending == "mixed" and i in crlf) else b"\n"
            for i in range(len(lines))]
    raw = b"".join(line + end for line, end in zip(lines, ends))
    if lines and draw(st.booleans()):
        raw = raw[:-len(ends[-1])]   # no final newline
    return raw


@functools.cache
def exit_codes(failing: bool | None = None) -> st.SearchStrategy[int | None]:
    """An exit code: 0, 1, 2, 137 (SIGKILL) or None; only failures when ``failing`` is true."""
    if failing:
        return st.sampled_from((1, 2, 137))
    return st.sampled_from(EXIT_CODES)


@functools.cache
def commands(pclass: str | None = None, structured: bool = False) -> st.SearchStrategy[str]:
    """A command line of class ``pclass`` (any class when None), with a structured-output flag if asked."""
    pool = CLASS_COMMANDS.get(pclass or "") or tuple(c for cs in CLASS_COMMANDS.values() for c in cs)
    base = st.sampled_from(pool)
    if not structured:
        return base
    return st.builds(lambda c, f: (c + f).strip(), base, st.sampled_from(STRUCTURED_FLAGS))


@functools.cache
def cases(pclass: str | None = None) -> st.SearchStrategy[Case]:
    """Any output a command of class ``pclass`` might print, with any exit code."""
    return st.builds(Case, tool_outputs(pclass), commands(pclass), exit_codes())


@functools.cache
def failing_cases(pclass: str | None = None) -> st.SearchStrategy[Case]:
    """A failing command whose output holds error lines among enough other lines to be compressed."""
    errors = st.lists(st.one_of(error_lines(), colourise(error_lines())), min_size=1, max_size=8)
    required = st.builds(lambda filler, errs: filler + errs, filler_blocks(), errors)
    return st.builds(Case, tool_outputs(pclass, required), commands(pclass), exit_codes(failing=True))


@functools.cache
def structured_cases(pclass: str | None = None) -> st.SearchStrategy[Case]:
    """Output a program will parse: a JSON document, or any output of a command with ``--json`` etc."""
    doc = st.builds(lambda d, nl: (d + nl).encode("utf-8"), json_documents(), st.sampled_from(("\n", "")))
    return st.one_of(st.builds(Case, doc, commands(pclass), exit_codes()),
                     st.builds(Case, tool_outputs(pclass), commands(pclass, structured=True),
                               exit_codes()))
