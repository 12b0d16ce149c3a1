"""Hypothesis strategies shaped like real tool output, shared by the property tests and `thresher check`.

Random text alone rarely reaches the code paths that break: a stage only folds, trims or clips when the
input has runs of near-identical lines, hundreds of lines, error lines, huge lines or its own marker
lines. So every strategy here draws from templates of what tools really print (pytest, git status,
compilers, logs, progress bars, JSON) and then damages it the way terminals and pipes do: ANSI colour
and OSC sequences, CRLF endings, bare-CR progress redraws, invalid UTF-8, NUL bytes, 100 KB lines.

The top-level strategy is :func:`cases`, which draws a :class:`Case` (raw bytes + command + exit code);
:func:`failing_cases` and :func:`structured_cases` bias it towards INV-6 and INV-9. The line and
block shapes live in ``shapes.py`` and are re-exported here, so this is the one module to import.

Every factory is cached (``functools.cache``): Hypothesis validates each new strategy object it
meets, and rebuilding them per draw made generation ~12x slower (50 ms → 4 ms per output).
"""

from __future__ import annotations

import dataclasses
import functools

from hypothesis import strategies as st

from .shapes import (  # re-exported (see __all__): the shapes are part of this module's interface
    ansi_sequences, colourise, diff_blocks, document_blocks, error_lines, filler_blocks,
    git_status_blocks, grep_blocks, json_documents, listing_blocks, location_lines, log_lines,
    long_lines, marker_lines, near_identical_runs, odd_unicode_lines, paths, plain_lines,
    progress_redraws, pytest_blocks, table_blocks, traceback_blocks, words)

__all__ = [
    "CLASS_COMMANDS", "EXIT_CODES", "STRUCTURED_FLAGS", "Case", "ansi_sequences", "blocks", "cases",
    "class_blocks", "colourise", "commands", "diff_blocks", "document_blocks", "error_lines",
    "exit_codes", "failing_cases", "filler_blocks", "git_status_blocks", "grep_blocks",
    "json_documents", "listing_blocks", "location_lines", "log_lines", "long_lines", "marker_lines",
    "near_identical_runs", "odd_unicode_lines", "paths", "plain_lines", "progress_redraws",
    "pytest_blocks", "shorten", "structured_cases", "table_blocks", "tool_outputs",
    "traceback_blocks", "words"]

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
    if lines:  # (apart: in `lines and draw(...)` mypy would read draw's type from `lines`)
        if draw(st.booleans()):
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
