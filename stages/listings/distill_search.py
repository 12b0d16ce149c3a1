"""search: grep / rg / git grep results, shrunk only when over budget, lines byte-exact.

Understood shapes (anything else is declined and passes on):
- prefixed: ``path:N:content`` (``-n``), ``path:content``, context ``path-N-content``, ``--``;
- headings (``rg --heading``): a path line, then ``N:content`` / ``N-content`` lines;
- one file: ``N:content`` lines;
- path lists (``rg --files``, ``grep -l``): handed to the path-tree order of the listing family.

Matches are the answer, so the view drops context lines first, then matches water-filled across
files, led by the rows that may be looked for anywhere: the first, quarter, middle and last matches
and those naming trouble (``error``, ``fatal``, ``warning``...; see ``budget.spread``). The rest is
water-filled (every file keeps its first matches before any file keeps many; a match on a definition line
— ``def``, ``class``, ``fn``, ``func``… — ranks first in its file; a ``grep -c`` row of a file
without a match, ``path:0``, ranks after every other). Each file that lost matches gets one line
``[thresher: N more matches in PATH not shown]``; with more files than half the view's lines,
one line counts them all (per-file lines would fill the view).
"""

from __future__ import annotations

import re

from thresher.dataflow.markers import clip

from thresher.stages.lib import budget
from thresher.stages.lib.budget import Group, Unit, plural
from thresher.stages.lib.pathtree import TOOL_MESSAGE_RE, build, fair_order, looks_like_paths

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload, Out

NUMBERED_RE = re.compile(r"^(?P<path>[^:\n]+?):(?P<n>\d+):")
PLAIN_RE = re.compile(r"^(?P<path>[\w.~@+/-][^\s:]*):")
ITEM_RE = re.compile(r"^(?P<n>\d+)(?P<sep>[:-])")
BINARY_RE = re.compile(r"^(?:Binary file .+ matches|.+: binary file matches .*)$")
LIST_FLAG_RE = re.compile(r"(?:^|\s)(?:--files(?:-with(?:out)?-match(?:es)?)?|-[a-zA-Z]*[lL][a-zA-Z]*)(?:\s|$)")
"""Flags that make grep/rg print paths instead of matches (``rg --files``, ``grep -l``)."""
DEF_RE = re.compile(
    r"^\s*(?:(?:export|default|public|private|protected|internal|static|async|pub(?:\([^)]*\))?|"
    r"unsafe|extern|inline|virtual|abstract|final|override|const|open|data|sealed)\s+)*"
    r"(?:def|class|fn|func|function|struct|enum|trait|impl|interface|type|module|object|"
    r"macro_rules!|sub|fun|record|namespace)\b")
"""Content that defines something: the match an agent usually looks for first."""


class Line:
    """One parsed output line: its kind, the file it belongs to, and its content."""

    __slots__ = ("kind", "path", "content")

    def __init__(self, kind: str, path: str | None = None, content: str = "") -> None:
        self.kind = kind          # match | context | sep | head | blank | other
        self.path = path
        self.content = content


def _other(line: str) -> Line | None:
    if line == "--":
        return Line("sep")
    if BINARY_RE.match(line) or TOOL_MESSAGE_RE.match(line):
        return Line("other")
    return None


def _context_of(line: str, path: str | None, numbered: bool) -> Line | None:
    if path is None or not line.startswith(path + "-"):
        return None
    rest = line[len(path) + 1:]
    if numbered:
        m = re.match(r"\d+-", rest)
        return Line("context", path, rest[m.end():]) if m else None
    return Line("context", path, rest)


def _resolve_context(lines: list[str], out: list, numbered: bool) -> None:
    """Fill in context lines: each starts with the path of the match before or after it."""
    prev = None
    for i, rec in enumerate(out):
        if rec is not None:
            prev = rec.path if rec.kind in ("match", "context") else None
            continue
        nxt = next((r.path for r in out[i + 1:i + 64] if r is not None and r.kind == "match"), None)
        out[i] = _context_of(lines[i], prev, numbered) or _context_of(lines[i], nxt, numbered)
        if out[i] is not None:
            prev = out[i].path


def parse_prefixed(lines: list[str], numbered: bool) -> list[Line] | None:
    """``path:N:content`` / ``path:content`` output with optional context, or ``None``."""
    rx = NUMBERED_RE if numbered else PLAIN_RE
    out: list[Line | None] = []
    for line in lines:
        m = rx.match(line)
        out.append(Line("match", m["path"], line[m.end():]) if m else _other(line))
    _resolve_context(lines, out, numbered)
    recs = [r for r in out if r is not None]
    if len(recs) != len(out) or not any(r.kind == "match" for r in recs):
        return None
    if not numbered and not all("/" in (r.path or "") or "." in (r.path or "") for r in recs if r.kind == "match"):
        return None
    return recs


def parse_headings(lines: list[str]) -> list[Line] | None:
    """``rg --heading`` output (path line, then ``N:content`` lines), or ``None``."""
    out, path = [], None
    for i, line in enumerate(lines):
        m = ITEM_RE.match(line)
        if m and path is not None:
            kind = "match" if m["sep"] == ":" else "context"
            out.append(Line(kind, path, line[m.end():]))
        elif not line:
            out.append(Line("blank"))
        elif (other := _other(line)) is not None:
            out.append(other)
        elif i + 1 < len(lines) and ITEM_RE.match(lines[i + 1]):
            path = line
            out.append(Line("head", path))
        else:
            return None
    return out if any(r.kind == "match" for r in out) else None


def parse_single(lines: list[str]) -> list[Line] | None:
    """``N:content`` lines of one file (``grep -n PAT FILE``), or ``None``."""
    out = []
    for line in lines:
        m = ITEM_RE.match(line)
        if m:
            out.append(Line("match" if m["sep"] == ":" else "context", "", line[m.end():]))
        elif (other := _other(line)) is not None:
            out.append(other)
        else:
            return None
    return out if any(r.kind == "match" for r in out) else None


def parse(lines: list[str]) -> list[Line] | None:
    """The first shape that explains every line, or ``None``."""
    for attempt in (lambda: parse_prefixed(lines, True), lambda: parse_single(lines),
                    lambda: parse_headings(lines), lambda: parse_prefixed(lines, False)):
        recs = attempt()
        if recs is not None:
            return recs
    return None


def _file_summary(path: str | None) -> Callable[[list[Unit]], str]:
    where = f" in {path}" if path else ""
    return lambda dropped: f"[thresher: {plural(len(dropped), 'more match', 'more matches')}{where} not shown]"


SHARED_SUMMARY_FILES = 2
"""With more files than the view's line budget over this, dropped matches are counted by one line
for the whole result instead of one line per file: 470 files' "N more matches in PATH" lines
would fill the view that their first matches (which name the file as well) should have."""


def _shared_summary(dropped: list[Unit]) -> str:
    files = len({u.info for u in dropped})
    return (f"[thresher: {plural(len(dropped), 'more match', 'more matches')} in "
            f"{plural(files, 'file')} not shown; every file keeps its first matches first]")


def units_for(recs: list[Line], max_lines: int | None = None) -> tuple[set[int], list[Unit]]:
    """Mandatory lines and units (matches round-robin across files, then context blocks).

    With more files than ``max_lines / SHARED_SUMMARY_FILES``, one line counts every dropped
    match (and the files they are in) after the last line; otherwise one line per cut file."""
    mandatory = {i for i, r in enumerate(recs) if r.kind in ("head", "other", "blank")}
    files: dict[str | None, list[int]] = {}
    last: dict[str | None, int] = {}
    for i, r in enumerate(recs):
        if r.kind in ("match", "context"):
            last[r.path] = i
            if r.kind == "match":
                files.setdefault(r.path, []).append(i)
    seqs = []
    shared = None
    if max_lines is not None and len(files) * SHARED_SUMMARY_FILES > max_lines:
        shared = Group(len(recs) - 1, _shared_summary)
    zeros = []   # `grep -c` rows of files without a match (`path:0`): the least telling rows
    for path, idx in files.items():
        group = shared or Group(last[path], _file_summary(path))
        if len(idx) == 1 and recs[idx[0]].content == "0":
            zeros.append(Unit(idx, group, path))
            continue
        ranked = sorted(idx, key=lambda i: (not DEF_RE.match(recs[i].content), i))
        seqs.append([Unit([i], group, path) for i in ranked])
    units = budget.round_robin(seqs)
    rows = sorted(units, key=lambda u: u.lines[0])
    # the first, middle and last matches and those naming trouble lead, then the water-fill
    units = budget.spread(units, rows, lambda u: f"{recs[u.lines[0]].path}:{recs[u.lines[0]].content}",
                          (max_lines or 0) // 4) + zeros
    ctx_group = Group(-1, lambda d: f"[thresher: {plural(sum(len(u.lines) for u in d), 'context line')} not shown]")
    block: list[int] = []
    for i, r in enumerate(recs + [Line("end")]):
        if r.kind == "context":
            block.append(i)
        elif block:
            units.append(Unit(block, ctx_group))
            block = []
    units.extend(Unit([i], None) for i, r in enumerate(recs) if r.kind == "sep")
    return mandatory, units


def _paths(payload, ctx):
    lines = list(payload.lines)
    if not looks_like_paths(lines):
        return None
    entries = [(i, s) for i, s in enumerate(lines) if not TOOL_MESSAGE_RE.match(s)]
    order = fair_order(build(entries))
    total = len(entries)
    group = Group(-1, lambda d: f"[thresher: {len(d)} of {total} paths not shown; "
                                f"the shallowest entries of every directory are kept first]")
    mandatory = set(range(len(lines))) - set(order)
    return budget.distill(payload, ctx, mandatory, [Unit([i], group) for i in order])


def _distill(payload, params, ctx):
    """The budgeted search result, or ``None`` (fits already, or a shape this does not know)."""
    costs = budget.over_budget_costs(payload, ctx)
    if costs is None:
        return None
    recs = parse(list(payload.lines))
    if recs is None:
        return _paths(payload, ctx) if params["path_lists"] and LIST_FLAG_RE.search(payload.command) else None
    limit, clipped = params["clip_chars"], None
    if limit and any(len(s) > limit for s in payload.lines):  # clip the source line, not Read's clip
        src = payload.source
        payload = clipped = payload.with_view([clip(src[o], limit) if len(s) > limit else s
                                               for s, o in zip(payload.lines, payload.origin)],
                                              payload.origin)
        costs = budget.line_costs(payload.lines)
    mandatory, units = units_for(recs, budget.room(ctx)[0])
    return budget.distill(payload, ctx, mandatory, units, costs) or clipped


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
    """The budgeted search result, or ``None`` (fits already, or a shape this does not know)."""
    return budget.done(_distill(payload, params, ctx))
