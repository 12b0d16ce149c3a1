"""What the archive search index would cost at archive time, and what it costs lazily.

Inputs: real text of 1 MB and 10 MB (``find /usr -type f -ls`` output, cut to size). For each:
CPU time of ``SqliteArchive.put`` alone and of ``put`` plus indexing the entry (what indexing on
the hot path would add to every payload), then the first ``--search`` (which indexes the entry:
the lazy design thresher uses) and a second one (index already built). CPU time
(``thread_time``), not wall time, so the numbers mean the same on a loaded machine.

Run with ``.venv/bin/python benchmarks/archive_search_cost.py`` (uses a temporary THRESHER_HOME).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time


def real_text(size: int) -> bytes:
    """``size`` bytes of a real listing, whole lines, repeated with a counter when too short."""
    out = subprocess.run(["find", "/usr", "-type", "f", "-ls"], capture_output=True).stdout
    text, n = b"", 0
    while len(text) < size:
        text += out if n == 0 else out.replace(b"\n", b" #%d\n" % n)
        n += 1
    cut = text.rfind(b"\n", 0, size)
    return text[:cut + 1]


def cpu(fn) -> float:
    t0 = time.thread_time()
    fn()
    return (time.thread_time() - t0) * 1000


def main() -> None:
    os.environ["THRESHER_HOME"] = tempfile.mkdtemp(prefix="thresher-bench-")
    from thresher.dataflow.api import handle_of
    from thresher.stores.archive import SqliteArchive
    from thresher.stores.savings import insert_event
    from thresher.stores.search import ArchiveSearch
    archive, search = SqliteArchive(), ArchiveSearch()
    search.db.write(lambda c: None)
    print(f"{'input':>8}  {'put ms':>8}  {'put+index ms':>12}  {'ratio':>5}  "
          f"{'1st search ms':>13}  {'2nd search ms':>13}")
    from thresher.stores import search as search_mod
    for size, cap in ((1 << 20, search_mod.INDEX_BYTES), (10 << 20, search_mod.INDEX_BYTES),
                      (10 << 20, 1 << 30)):
        search_mod.INDEX_BYTES = cap  # the last row: the whole 10 MB indexed, no prefix bound
        raw = real_text(size) + (b"" if cap == 1 << 20 else b"whole\n")
        plain = raw + b"plain\n"
        t_put = cpu(lambda plain=plain: archive.put(handle_of(plain), plain, {"command": "find"}))
        indexed = raw + b"indexed\n"
        h = handle_of(indexed)

        def put_and_index(h=h, indexed=indexed):  # bound now: cpu() calls it in this iteration
            archive.put(h, indexed, {"command": "find"})
            search.sync([h])
        t_both = cpu(put_and_index)
        lazy = raw + b"lazy\n"
        hl = handle_of(lazy)
        archive.put(hl, lazy, {"command": "find"})
        insert_event({"ts": 0, "command": "find", "tool": "find", "class": "", "graph": "",
                      "role": "default", "stream": "stdout", "decision": "compressed",
                      "transforms": "", "scope": "bench", "handle": hl, "bytes_in": len(lazy),
                      "bytes_out": 0, "tokens_in": 0, "tokens_out": 0, "ms": 0})
        first = cpu(lambda: search.search("python3", "bench", 10))
        second = cpu(lambda: search.search("python3", "bench", 10))
        print(f"{len(raw) / 1e6:>5.1f} MB{'' if cap == 1 << 20 else ' (whole)'}  {t_put:8.1f}  {t_both:12.1f}  {t_both / t_put:5.1f}  "
              f"{first:13.1f}  {second:13.1f}")


if __name__ == "__main__":
    main()
