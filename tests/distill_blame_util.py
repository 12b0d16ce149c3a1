"""Read a compacted git blame view back into the input rows it shows (independent of the stage)."""

from __future__ import annotations

import re

_WHOLE = re.compile(r"^(\^?[0-9a-f]{7,}.*?[ (])\d+\) ")
_TAIL = re.compile(r"^(\d+)\)(?: |$)")


def expand_blame(out: list[str], src: list[str]) -> list[str]:
    """The input rows ``out`` shows, in order: a whole row as it is, an ``N) code`` row as the
    prefix of the nearest whole row above plus itself; each must be an input row (asserted).
    Marker lines (``[thresher: ...]``) are skipped."""
    rows, prefix, known = [], None, set(src)
    for line in out:
        if line.startswith("[thresher: "):
            continue
        m = _WHOLE.match(line)
        if m:
            prefix = m.group(1)
            row = line
        else:
            assert _TAIL.match(line) and prefix is not None, line
            row = prefix + line
            # the number field is right-aligned: the prefix's padding may hold one digit fewer
            if row not in known:
                row = next((prefix.rstrip() + " " * k + line for k in range(1, 8)
                            if prefix.rstrip() + " " * k + line in known), row)
        assert row in known, row
        rows.append(row)
    return rows
