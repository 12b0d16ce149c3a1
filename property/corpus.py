"""Read benchmark cases in the shared corpus schema (one JSON file per case).

The schema (id, class, command, exit_code, stdout, stderr, must_keep, verbatim, ...) is that of
``../shared/corpus/README.md``; the project's own fixtures use it too, so any fixture is also a
benchmark case. Folders that do not exist are skipped (the shared corpus is absent on users'
machines).
"""

from __future__ import annotations

import json
import os
from typing import Iterator


def iter_cases(dirs: "list[str] | tuple[str, ...]") -> Iterator[dict]:
    """Every case under ``dirs``, folder by folder, files in name order; absent folders skipped."""
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith(".json"):
                    with open(os.path.join(root, name), encoding="utf-8") as fh:
                        yield json.load(fh)


def payload_text(case: dict) -> str:
    """What the agent sees of a case: stdout followed by stderr."""
    return case.get("stdout", "") + case.get("stderr", "")
