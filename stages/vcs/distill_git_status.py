"""git status: every file row is the answer; the ``(use "git ...")`` hints are not.

Long form: the branch lines, section titles (``Changes to be committed:``, ``Untracked files:``…)
and every tab-indented file row stay byte-exact; the hint lines the graph's noise patterns name go.
Short form (``-s``, ``-sb``): ``XY path`` rows and the ``## branch`` line stay.
Only when the rows alone exceed the budget are rows dropped: water-filled across sections (each
section keeps its first rows before any keeps many) and, inside a section, over the directory tree
(top-level files and the first entries of every directory before the 2,000 files of one build
folder), with one counted line per cut section.
Conflict rows (``Unmerged paths:``, ``UU``/``AA``/``DD``…) are never dropped. Output that is not a
status (a log, a push report) is declined.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import NOISE

from thresher.stages.lib import budget
from thresher.stages.lib.budget import Group, Unit, plural
from thresher.stages.lib.pathtree import build, fair_order

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload, Out

BRANCH_RE = re.compile(r"^(?:On branch \S|HEAD detached (?:at|from) |Not currently on any branch|"
                       r"nothing to commit|nothing added to commit|no changes added to commit|"
                       r"(?:interactive )?rebase in progress|You are currently |"
                       r"You have unmerged paths)")
SECTION_RE = re.compile(r"^[A-Z][\w ,'-]*:$")
SHORT_RE = re.compile(r"^(?:## .+|[ MADRCUT?!]{2} .+)$")
LABEL_RE = re.compile(r"^[a-z][a-z ]*:\s+")
CONFLICT_XY = {"DD", "AU", "UD", "UA", "DU", "AA", "UU"}


def _long_sections(lines: list[str]) -> list[tuple[str, list[int]]] | None:
    """``(title, row indices)`` per section of the long form, or ``None`` when not a status."""
    if not any(BRANCH_RE.match(s) for s in lines[:12]):
        return None
    sections: list[tuple[str, list[int]]] = []
    for i, line in enumerate(lines):
        if SECTION_RE.match(line):
            sections.append((line[:-1], []))
        elif line.startswith("\t") and sections:
            sections[-1][1].append(i)
    return sections


def _short_sections(lines: list[str]) -> list[tuple[str, list[int]]] | None:
    """Short-form rows grouped as conflicts, changes, untracked, ignored; ``None`` if not short."""
    if not all(SHORT_RE.match(s) for s in lines if s):
        return None
    named: dict[str, list[int]] = {"conflict": [], "changed": [], "untracked": [], "ignored": []}
    for i, line in enumerate(lines):
        if not line or line.startswith("## "):
            continue
        xy = line[:2]
        kind = ("untracked" if xy == "??" else "ignored" if xy == "!!" else
                "conflict" if xy in CONFLICT_XY else "changed")
        named[kind].append(i)
    return [(k, v) for k, v in named.items()]


def _more_rows(word: str, where: str) -> Callable[[list[Unit]], str]:
    """The summary of a section's dropped rows."""
    return lambda dropped: f"[thresher: {plural(len(dropped), word)}{where} not shown]"


def _units(lines: list[str], sections, short: bool) -> tuple[set[int], list[Unit]]:
    """Mandatory conflict rows, and the other rows as units round-robin across sections."""
    mandatory: set[int] = set()
    seqs = []
    for title, rows in sections:
        if not rows:
            continue
        if title in ("Unmerged paths", "conflict"):
            mandatory.update(rows)
            continue
        word = f"more {title} file" if short else "more file"
        where = "" if short else f' under "{title}:"'
        group = Group(rows[-1], _more_rows(word, where))
        order = fair_order(build([(i, _path(lines[i], short)) for i in rows]))
        seqs.append([Unit([i], group) for i in order])
    return mandatory, budget.round_robin(seqs)


def _path(row: str, short: bool) -> str:
    """The path of a status row (after ``XY `` or the ``modified:   `` label; a rename's target)."""
    if short:
        path = row[3:]
    else:
        path = row.lstrip("\t")
        label = LABEL_RE.match(path)
        path = path[label.end():] if label else path
    return path.split(" -> ")[-1].strip('"')


def _distill(payload, params, ctx):
    """Status without hints, rows water-filled over budget; ``None`` when not a status."""
    if any(o < 0 for o in payload.origin) or not payload.lines:
        return None
    lines = list(payload.lines)
    short = False
    sections = _long_sections(lines)
    if sections is None:
        sections, short = _short_sections(lines), True
        if sections is None:
            return None
    tiers, origin = payload.tiers, payload.origin
    hints = {i for i in range(len(lines))
             if params["drop_hints"] and tiers[origin[i]] == NOISE and not lines[i].startswith("\t")}
    view = payload.select([i for i in range(len(lines)) if i not in hints]) if hints else payload
    costs = budget.line_costs(view.lines)
    if budget.fits(view, ctx):
        return view if hints else None
    kept = [i for i in range(len(lines)) if i not in hints]
    remap = {old: new for new, old in enumerate(kept)}
    sections = [(t, [remap[i] for i in rows if i in remap]) for t, rows in sections]
    mandatory, units = _units(list(view.lines), sections, short)
    rows = {i for u in units for i in u.lines}
    mandatory |= set(range(len(view.lines))) - rows
    return budget.distill(view, ctx, mandatory, units, costs) or (view if hints else None)


def run(payload: Payload, params: dict[str, Any], ctx: Context) -> Out | None:
    """Status without hints, rows water-filled over budget; ``None`` when not a status."""
    return budget.done(_distill(payload, params, ctx))
