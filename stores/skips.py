"""The count of store operations skipped because another process held the database lock.

One line (``unix-time op``) per skip in ``store-skips`` next to ``thresher.db``, appended with
``O_APPEND`` so concurrent processes never need a lock to count (the database is what is locked).
``thresher doctor`` shows the count; the file stops growing at :data:`SKIPS_MAX_BYTES` (the count
is then a lower bound, and says so).
"""

from __future__ import annotations

import os
import time

SKIPS_FILE = "store-skips"
SKIPS_MAX_BYTES = 256 * 1024


def note_skip(folder: str, op: str) -> None:
    """Append one skipped operation to ``store-skips`` (0600; never raises, bounded size)."""
    path = os.path.join(folder, SKIPS_FILE)
    try:
        if os.path.getsize(path) > SKIPS_MAX_BYTES:
            return  # the count saturates: doctor says "at least"
    except OSError:
        pass
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{time.time():.0f} {op}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        pass


def skips(folder: str) -> tuple[int, float, bool]:
    """``(count, time of the last, saturated)`` of the operations skipped on a locked database."""
    path = os.path.join(folder, SKIPS_FILE)
    try:
        with open(path, "rb") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return 0, 0.0, False
    try:
        last = float(lines[-1].split()[0]) if lines else 0.0
    except (ValueError, IndexError):
        last = 0.0
    return len(lines), last, os.path.getsize(path) > SKIPS_MAX_BYTES
