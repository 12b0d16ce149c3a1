"""The INV-3 check for stages that re-lay out a JSON document instead of selecting its lines.

The lossless tier's JSON forms and crush-json write lines that are no input line (a compact member,
a table row). Such a line is no fabrication when every value it shows is an input lexeme: each
JSON string (or the verbatim prefix of one cut with ``…" (+N chars)``) and each number occurs in
the input text, and everything else on the line is JSON punctuation, ``true``/``false``/``null``,
or the stage's own counted elisions (``{…12 keys}``, ``[…3 items]``). The oracle asks this only of
graphs that contain such a stage.
"""

from __future__ import annotations

import re

RELAYOUT_IMPLS = frozenset({"thresher.stages.crush_json:run", "thresher.stages.lossless:run"})
"""Stages whose synthetic lines may re-lay out JSON values."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_CUT = re.compile(r'…" \(\+\d+ chars\)')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_COUNTS = re.compile(r"…\d+ (?:keys|items)|\(\+\d+ chars\)")
_REST = re.compile(r"^(?:[\s{}\[\],:]|true|false|null)*$")


def relays_out(plan: dict) -> bool:
    """True when ``plan`` has a stage that may re-lay out JSON."""
    return any(n["impl"] in RELAYOUT_IMPLS for n in plan["nodes"].values())


def values_from_input(line: str, text: str) -> bool:
    """True when every string and number ``line`` shows occurs verbatim in ``text``."""
    rest, pos = [], 0
    for m in _STRING.finditer(line):
        lexeme = m.group()
        if lexeme.endswith('…"') and _CUT.match(line, m.end() - 2):
            lexeme = lexeme[:-2]  # a cut string: its shown prefix must be in the input
        if lexeme not in text:
            return False
        rest.append(line[pos:m.start()])
        pos = m.end()
    rest.append(line[pos:])
    body = _COUNTS.sub(" ", " ".join(rest))  # the stage's own counts, computed from the input
    if any(m.group() not in text for m in _NUMBER.finditer(body)):
        return False
    return _REST.match(_NUMBER.sub(" ", body)) is not None
