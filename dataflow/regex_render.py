"""An approximate source form of a parsed regex (``re._parser`` tree), for error messages that
quote the part of a user's pattern that is at fault."""

from __future__ import annotations

import re
from re import _constants as C  # type: ignore[attr-defined]  # noqa: N812 - the sre opcodes (no stubs)

_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)

_CAT_TEXT = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
             "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}
_AT_TEXT = {"AT_BEGINNING": "^", "AT_BEGINNING_STRING": r"\A", "AT_END": "$", "AT_END_STRING": r"\Z",
            "AT_BOUNDARY": r"\b", "AT_NON_BOUNDARY": r"\B"}


def _quant(lo: int, hi: int) -> str:
    if (lo, hi) == (0, C.MAXREPEAT):
        return "*"
    if (lo, hi) == (1, C.MAXREPEAT):
        return "+"
    if (lo, hi) == (0, 1):
        return "?"
    return f"{{{lo},{'' if hi == C.MAXREPEAT else hi}}}" if lo != hi else f"{{{lo}}}"


def _class_text(items: list) -> str:
    parts = []
    for op, av in items:
        if op is C.NEGATE:
            parts.append("^")
        elif op is C.LITERAL:
            parts.append(re.escape(chr(av)))
        elif op is C.RANGE:
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        else:
            parts.append(_CAT_TEXT.get(str(av), "?"))
    return parts[0] if len(parts) == 1 and parts[0].startswith("\\") else "[" + "".join(parts) + "]"


def render(seq: list) -> str:
    """An approximate source form of a parsed ``seq`` (what the error message quotes)."""
    out = []
    for op, av in seq:
        if op is C.LITERAL:
            out.append(re.escape(chr(av)))
        elif op is C.NOT_LITERAL:
            out.append(f"[^{re.escape(chr(av))}]")
        elif op is C.ANY:
            out.append(".")
        elif op is C.IN:
            out.append(_class_text(av))
        elif op in _REPEATS:
            body = render(list(av[2]))
            simple = len(av[2]) == 1 and av[2][0][0] in (C.LITERAL, C.IN, C.ANY, C.SUBPATTERN)
            out.append((body if simple else f"(?:{body})") + _quant(av[0], av[1])
                       + ("?" if op is C.MIN_REPEAT else "+" if op is C.POSSESSIVE_REPEAT else ""))
        elif op is C.SUBPATTERN:
            out.append(("(" if av[0] else "(?:") + render(list(av[3])) + ")")
        elif op is C.BRANCH:
            out.append("|".join(render(list(a)) for a in av[1]))
        elif op is C.AT:
            out.append(_AT_TEXT.get(str(av), ""))
        else:
            out.append("…")
    return "".join(out)
