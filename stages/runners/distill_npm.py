"""distill-npm: npm / pnpm / yarn install and run output, without the progress and passing noise.

Dropped (counted by kind in one summary line):
- install noise: ``npm warn deprecated`` lines (except for packages named on the command line),
  funding notices, pnpm ``Progress:`` lines (the last one, with the final counts, stays) and its
  ``+++`` bar, yarn's ``[1/4] Resolving packages...`` steps, the ``info All dependencies`` tree rows
  (the direct dependencies stay), yarn's warnings about transitive dependencies (``a > b``), and
  yarn berry's ``YN0013`` fetch lines;
- passing tests of the scripts ``npm test`` / ``npm run`` start: TAP ``ok N`` results with their
  ``# Subtest:`` header and YAML details (node --test, tap), ``✔``/``✓`` rows (mocha, jest, vitest,
  node's spec reporter), jest ``PASS`` lines, and mocha suite headings left with nothing under them.

Kept byte-exact: every ``npm error``/``npm ERR!``/``ERR_PNPM_*`` block, ``not ok`` blocks, numbered
failures, the ``> pkg@1.0.0 script`` headers, ``added N packages``, audit and test-count summaries,
and anything not recognised. Critical lines are never dropped (a passing test whose name says
"error" stays on a failing run). ``--verbose``/``--loglevel``/``-d`` mean the user wants it all:
declined.
"""

from __future__ import annotations

import re

from thresher.stages.lib.dropsum import drop, has_flag, protected

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_VERBOSE = ("--verbose", "-d", "-dd", "-ddd", "--loglevel", "--reporter")

_INSTALL_NOISE = (
    (re.compile(r"^\d+ packages? (?:is|are) looking for funding$|^\s+run `(?:npm|pnpm|yarn) fund` for details$"),
     "funding line{s}"),
    (re.compile(r"^\+{8,}-*$|^-{8,}\+*$"), "progress bar{s}"),
    (re.compile(r"^\[\d+/\d+\] \S.*\.\.\.$"), "progress step{s}"),
    (re.compile(r"^warning \S+ > \S"), "warning{s} about transitive dependencies"),
    (re.compile(r"^➤ YN0013: "), "fetch line{s}"),
)
_DEPRECATED = re.compile(r"^npm (?:warn|WARN) deprecated (?P<pkg>@?[^@\s]+)@")
_PNPM_PROGRESS = re.compile(r"^Progress: resolved \d+, reused \d+, downloaded \d+, added \d+(?P<done>, done)?$")
_TREE_ROW = re.compile(r"^[├└│ ]*[├└]─ ")
_TAP_HEAD = re.compile(r"^(?P<ind>\s*)# Subtest: (?P<name>.*)$")
_TAP_OK = re.compile(r"^(?P<ind>\s*)ok \d+ - (?P<name>.*?)(?P<directive> # (?:SKIP|TODO)\b.*)?$")
_PASS_ROW = re.compile(r"^\s*(?:[✔✓√]|PASS) \S")
_FAIL_ROW = re.compile(r"^\s*(?:\d+\)|[✖✗×]|FAIL) ")
_MOCHA_END = re.compile(r"^\s+\d+ passing \(")


def _install_kinds(lines, argv, kinds: list) -> None:
    """Mark install/progress noise in ``kinds`` (in place)."""
    named = {a.rsplit("@", 1)[0] if a.rfind("@") > 0 else a for a in argv}
    progress = [i for i, line in enumerate(lines) if _PNPM_PROGRESS.match(line)]
    for i in progress[:-1]:
        kinds[i] = "progress line{s}"
    in_all_tree = False
    for i, line in enumerate(lines):
        if in_all_tree and _TREE_ROW.match(line):
            kinds[i] = "row{s} of the full dependency tree"
            continue
        in_all_tree = line == "info All dependencies"
        m = _DEPRECATED.match(line)
        if m and m["pkg"] not in named:
            kinds[i] = "deprecation warning{s}"
            continue
        for rx, kind in _INSTALL_NOISE:
            if rx.match(line):
                kinds[i] = kind
                break


def _tap_kinds(lines, kinds: list) -> None:
    """Mark passing TAP results, their ``# Subtest:`` headers and their YAML detail blocks."""
    heads: dict[tuple[str, str], int] = {}
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        m = _TAP_HEAD.match(line)
        if m:
            heads[(m["ind"], m["name"])] = i
        m = _TAP_OK.match(line)
        if m and not m["directive"]:
            kinds[i] = "passing test line{s}"
            h = heads.pop((m["ind"], m["name"]), None)
            if h is not None:
                kinds[h] = "passing test line{s}"
            i = _skip_yaml(lines, i + 1, len(m["ind"]), kinds)
            continue
        i += 1


def _skip_yaml(lines, i: int, indent: int, kinds: list) -> int:
    """Mark the ``---`` ... ``...`` detail block of a passing TAP result; return the next index."""
    if i >= len(lines) or lines[i].strip() != "---" or _indent(lines[i]) <= indent:
        return i
    j = i
    while j < len(lines):
        kinds[j] = "passing test line{s}"
        if j > i and lines[j].strip() == "..." and _indent(lines[j]) == _indent(lines[i]):
            return j + 1
        j += 1
    return j


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _spec_kinds(lines, kinds: list, stays: list) -> None:
    """Mark ✔/✓/PASS rows, then headings of spec-reporter blocks that have nothing left under them.

    ``stays[i]`` is true for lines kept whatever their kind (errors of a failing run).
    """
    rows = [i for i, line in enumerate(lines) if _PASS_ROW.match(line)]
    for i in rows:
        kinds[i] = "passing test line{s}"
    if not rows:
        return
    end = next((i for i in range(rows[0], len(lines)) if _MOCHA_END.match(lines[i])), None)
    if end is None:
        return
    start = rows[0]
    while start > 0 and lines[start - 1].strip() and not lines[start - 1].startswith(">"):
        start -= 1
    _prune_headings(lines, kinds, stays, start, end)


def _prune_headings(lines, kinds: list, stays: list, start: int, end: int) -> None:
    """Between ``start`` and ``end``: drop blank lines, and headings whose subtree kept nothing.

    Bottom-up, so a heading is decided after every heading nested under it.
    """
    for i in range(end - 1, start - 1, -1):
        line = lines[i]
        if kinds[i] is not None:
            continue
        if not line.strip():
            kinds[i] = "blank line{s}"
        elif not (_FAIL_ROW.match(line) or line.lstrip().startswith("- ")) and \
                not _subtree_keeps(lines, kinds, stays, i, end):
            kinds[i] = "suite heading{s} with only passing tests"


def _subtree_keeps(lines, kinds: list, stays: list, i: int, end: int) -> bool:
    """True when a line indented under heading ``i`` (before ``end``) is kept."""
    ind = _indent(lines[i])
    for j in range(i + 1, end):
        if not lines[j].strip():
            continue
        if _indent(lines[j]) <= ind:
            return False
        if kinds[j] is None or stays[j]:
            return True
    return False


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The view without npm/pnpm/yarn noise and passing tests, or ``None`` when none was found."""
    if has_flag(payload.argv, *_VERBOSE):
        return None
    lines = payload.lines
    kinds: list = [None] * len(lines)
    _install_kinds(lines, payload.argv, kinds)
    if params["drop_passing"]:
        _tap_kinds(lines, kinds)
        _spec_kinds(lines, kinds, [protected(payload, i) for i in range(len(lines))])
    return drop(payload, kinds, "npm")
