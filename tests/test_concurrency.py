"""Many agent shells at once: 8 processes x 500 payloads lose no archive entry and no event."""

from __future__ import annotations

import os
import subprocess
import sys

from thresher.dataflow.api import handle_of
from thresher.stores.archive import default_archive
from thresher.stores.savings import load_events

PROCS, PAYLOADS = 8, 500

# Each worker does what `thresher pipe` does per payload: compress (Persist archives lossy ones),
# then record (archives the rest, appends the event). One payload in five is long enough to be
# compressed, the rest are tiny (verbatim): both archive paths are exercised under contention.
WORKER = r"""
import sys
from thresher.dataflow.api import compress
from thresher.dataflow.plan import load_plans
from thresher.stores.savings import record_payload
p, plans = int(sys.argv[1]), load_plans()  # once per process, as `thresher pipe` does
for i in range({n}):
    rows = 300 if i % 5 == 0 else 3
    raw = "".join(f"proc {{p}} payload {{i}} row {{r}} " + "x" * (r % 17) + "\n"
                  for r in range(rows)).encode()
    res = compress(raw, command="mytool --worker", plans=plans)
    record_payload(res, raw, command="mytool --worker")
""".format(n=PAYLOADS)


def _raw(p: int, i: int) -> bytes:
    rows = 300 if i % 5 == 0 else 3
    return "".join(f"proc {p} payload {i} row {r} " + "x" * (r % 17) + "\n"
                   for r in range(rows)).encode()


def test_concurrent_writers_lose_nothing():
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(p)], env=dict(os.environ),
                              stderr=subprocess.PIPE) for p in range(PROCS)]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err.decode()[-2000:]
    events = load_events()
    assert len(events) == PROCS * PAYLOADS
    expected = {handle_of(_raw(p, i)): (p, i) for p in range(PROCS) for i in range(PAYLOADS)}
    assert {e["handle"] for e in events} == set(expected)
    assert sum(e["decision"] == "compressed" for e in events) == PROCS * PAYLOADS // 5
    archive = default_archive()
    for handle, (p, i) in expected.items():
        assert archive.get(handle, touch=False) == _raw(p, i)
