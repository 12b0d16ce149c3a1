"""distill-pip: pip and uv install output, with the resolver's chatter folded into counts.

Dropped (counted by kind in one summary line):
- ``Collecting``/``Processing``/``Requirement already satisfied`` lines of *dependencies* (they say
  ``(from parent)``); the packages the user asked for (no ``(from``, or ``(from -r file (line N))``)
  stay, so "which of my requirements was resolved to what" is still answered;
- ``Downloading``/``Using cached`` lines and progress bars, build steps that finished ``'done'``,
  wheel-cache notes (``Created wheel``, ``Stored in directory``), pip's upgrade ``[notice]``;
- uv's ``Downloading x (1.2MiB)``/``Downloaded x`` and ``Building``/``Built`` lines;
- warnings repeated with only a quoted name changing (``WARNING: Location '...' is ignored``): the
  first stays, the rest are counted.

Kept byte-exact: ``ERROR:`` lines, ``error:`` blocks with their ``×``/``│``/``╰─>`` frames and the
build output inside them, ``Successfully installed``/``built``/``uninstalled``, ``Installing
collected packages``, uv's ``Resolved``/``Prepared``/``Installed`` counts and its ``+ pkg==1.0`` rows.
``-v``/``--verbose`` mean the user wants it all: declined.
"""

from __future__ import annotations

import re

from thresher.stages.lib.dropsum import drop, has_flag

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_TOP = re.compile(r"\(from -[rc] ")
_REQ = re.compile(r"^(?:Collecting|Processing|Requirement already satisfied:) ")
_NOISE = (
    (re.compile(r"^\s+(?:Downloading|Using cached|Obtaining dependency information|File was already downloaded) "),
     "download line{s}"),
    (re.compile(r"^\s*(?:[━╸╺─]{3,}|\|[█▉▊▋▌▍▎▏ ]+\|) "), "progress bar{s}"),
    (re.compile(r"^\s.+: (?:started|finished with status 'done')$|^\s+\S.* \.\.\. done$"), "finished build step{s}"),
    (re.compile(r"^\s+(?:Created wheel for \S+: filename=|Stored in directory: )"), "wheel cache line{s}"),
    (re.compile(r"^\[notice\] (?:A new release of pip|To update, run:)"), "pip upgrade notice{s}"),
    (re.compile(r"^\s*Downloading \S+ \([\d.]+ ?[KMG]i?B\)$|^\s*Downloaded \S+$"), "download line{s}"),
    (re.compile(r"^\s*(?:Building|Built) \S+(?:==| @ )\S+$"), "build line{s}"),
)
_WARNING = re.compile(r"^WARNING: ")
# A URL from where its scheme run starts (the lookbehind): `\S+://` tried from every character of
# a long run without `://` made the substitution quadratic.
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|(?<![\w.+-])[\w.+-]+://\S+")


def _kind(line: str) -> str | None:
    """The noise kind of one line, or ``None`` to keep it."""
    if _REQ.match(line):
        if " (from " in line and not _TOP.search(line):
            return "dependency line{s} (Collecting/Processing/already satisfied)"
        return None
    for rx, kind in _NOISE:
        if rx.match(line):
            return kind
    return None


def _fold_warnings(lines, kinds: list, at_least: int) -> None:
    """Mark all but the first of ``at_least``+ warnings that differ only in quoted names."""
    shapes: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        if _WARNING.match(line):
            shapes.setdefault(_QUOTED.sub("'…'", line), []).append(i)
    for idx in shapes.values():
        if len(idx) >= at_least:
            for i in idx[1:]:
                kinds[i] = "similar warning{s}"


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The view with pip/uv chatter folded into one counted line, or ``None`` if none was found."""
    if has_flag(payload.argv, "-v", "-vv", "-vvv", "--verbose"):
        return None
    lines = payload.lines
    kinds = [_kind(line) for line in lines]
    _fold_warnings(lines, kinds, params["fold_warnings"])
    return drop(payload, kinds, "pip")
