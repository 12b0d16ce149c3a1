"""SGR escape sequences (colour and style): removing them never changes the characters a terminal
shows, so an output without them is the same text, only cheaper to read. Both the 7-bit form
(``ESC [ ... m``) and the 8-bit one (U+009B CSI ``... m``) count."""

from __future__ import annotations

from .rxcache import re_lazy as re  # re.compile from the start-up regex cache (rxcache.py)

SGR_RE = re.compile(r"(?:\x1b\[|\x9b)[0-9;:]*m")
_ESCAPE = re.compile(r"[\x1b\x80-\x9f]")
"""An escape introducer: ESC, or a C1 control (the 8-bit forms of ``ESC @`` .. ``ESC _``)."""
ANSI_RE = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
                     r"|\x1b[@-Z\\-_]|[\x80-\x9f]")
"""Escape sequences, 7-bit (``ESC [``, ``ESC ]``, ``ESC X``) and 8-bit (U+009B CSI, U+009D OSC, and
the other C1 controls U+0080-U+009F, the 8-bit forms of ``ESC @`` .. ``ESC _``)."""


def strip_sgr(text: str) -> str | None:
    """``text`` without SGR colour/style sequences; ``None`` when another escape remains (removing
    it would change what a terminal shows) or there is nothing to strip."""
    if _ESCAPE.search(text) is None:
        return None
    out = SGR_RE.sub("", text)
    return None if _ESCAPE.search(out) else out
