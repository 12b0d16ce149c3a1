"""Text patterns shared by stages: escape sequences, error and location lines, line skeletons."""

from __future__ import annotations

import re

ANSI_RE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
                     r"|\x1b[@-Z\\-_]|[\x80-\x9f]")
"""Escape sequences, 7-bit (``ESC [``, ``ESC ]``, ``ESC X``) and 8-bit (U+009B CSI, U+009D OSC, and
the other C1 controls U+0080-U+009F, the 8-bit forms of ``ESC @`` .. ``ESC _``)."""

# The error-line definition lives in the engine (the executor's fallback view needs it too).
from thresher.dataflow.errorscan import ERROR_RE, error_candidates, is_error_line  # noqa: E402,F401 - re-exported

LOCATION_RE = re.compile(r"(?:^|[\s(\"'])[\w./\\-]+\.\w{1,8}:\d+(?::\d+)?\b|\bline \d+\b")
"""``file.ext:line[:col]`` and ``line N`` locations."""

_SKELETON_RE = re.compile(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{7,}|\d+(?:[.:,]\d+)*")


def skeleton(line: str) -> str:
    """``line`` with numbers, hashes and hex masked, so that similar lines compare equal."""
    return _SKELETON_RE.sub("#", line.strip())
