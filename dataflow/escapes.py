"""SGR escape sequences (colour and style): removing them never changes the characters a terminal
shows, so an output without them is the same text, only cheaper to read."""

from __future__ import annotations

import re

SGR_RE = re.compile(r"\x1b\[[0-9;:]*m")


def strip_sgr(text: str) -> str | None:
    """``text`` without SGR colour/style sequences; ``None`` when another escape remains (removing
    it would change what a terminal shows) or there is nothing to strip."""
    if "\x1b" not in text:
        return None
    out = SGR_RE.sub("", text)
    return None if "\x1b" in out else out
