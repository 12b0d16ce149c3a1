"""Text patterns shared by stages: escape sequences, error and location lines, line skeletons."""

from __future__ import annotations

import re

ANSI_RE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
                     r"|\x1b[@-Z\\-_]|[\x80-\x9f]")
"""Escape sequences, 7-bit (``ESC [``, ``ESC ]``, ``ESC X``) and 8-bit (U+009B CSI, U+009D OSC, and
the other C1 controls U+0080-U+009F, the 8-bit forms of ``ESC @`` .. ``ESC _``)."""

ERROR_RE = re.compile(
    r"(?i)(?:\b(?:error|errors|fatal|panic(?:ked)?|exception|traceback|segmentation fault|"
    r"core dumped|abort(?:ed)?|denied|refused|cannot|could not|couldn't|unable to|not found|"
    r"no such file|undefined reference|fail(?:ed|ure|ures|ing|s)?|assert(?:ion)?\w*|"
    r"timed? ?out|killed|oomkilled|crashloopbackoff|invalid|unexpected)\b|"
    r"^E\s|^\s*\^+\s*$|^FAILED |^ERROR |^\s*File \".*\", line \d+)")
"""Lines that carry the answer of a failure (or of a warning): never dropped or altered."""

LOCATION_RE = re.compile(r"(?:^|[\s(\"'])[\w./\\-]+\.\w{1,8}:\d+(?::\d+)?\b|\bline \d+\b")
"""``file.ext:line[:col]`` and ``line N`` locations."""

_SKELETON_RE = re.compile(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{7,}|\d+(?:[.:,]\d+)*")


def skeleton(line: str) -> str:
    """``line`` with numbers, hashes and hex masked, so that similar lines compare equal."""
    return _SKELETON_RE.sub("#", line.strip())
