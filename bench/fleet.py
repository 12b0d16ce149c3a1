"""Map one pure, picklable function over items: in process, a local process pool, Dask, or Ray.

Results come back in the order of ``items`` whatever the engine, so reports are deterministic.
``local`` with one worker runs in this process (no pickling; what tests and small runs use).
Dask and Ray are optional (``pip install 'thresher[fleet]'`` for Dask); without a scheduler address
Dask runs locally on processes, and Ray starts (or joins, via ``RAY_ADDRESS``) a local cluster.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator

ENGINES = ("local", "dask", "ray")


def default_workers() -> int:
    """One worker per available CPU (at least one)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return max(os.cpu_count() or 1, 1)


def fmap(fn: Callable, items: Iterable, *, engine: str = "local", workers: int = 1,
         address: str | None = None) -> Iterator:
    """Yield ``fn(item)`` for every item, in order, computed by ``engine`` on ``workers`` workers."""
    items = list(items)
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(ENGINES)}")
    if not items:
        return iter(())
    workers = max(int(workers or 1), 1)
    if engine == "dask":
        return iter(_dask(fn, items, workers, address))
    if engine == "ray":
        return iter(_ray(fn, items, workers, address))
    if workers == 1 or len(items) == 1:
        return map(fn, items)
    return _pool(fn, items, workers)


def _pool(fn: Callable, items: list, workers: int) -> Iterator:
    import multiprocessing as mp
    ctx = mp.get_context("spawn" if os.name != "posix" else "forkserver")
    chunk = max(1, min(16, len(items) // (workers * 8) or 1))
    with ctx.Pool(min(workers, len(items))) as pool:
        yield from pool.imap(fn, items, chunksize=chunk)


def _dask(fn: Callable, items: list, workers: int, address: str | None) -> list:
    try:
        import dask.bag as db
    except ImportError:
        raise LookupError("the dask engine needs Dask: pip install 'thresher[fleet]'") from None
    bag = db.from_sequence(items, npartitions=min(len(items), workers * 4))
    if address:
        from dask.distributed import Client  # a fleet: the scheduler at ``address``
        with Client(address):
            return bag.map(fn).compute()
    return bag.map(fn).compute(scheduler="processes" if workers > 1 else "synchronous",
                               num_workers=workers)


def _ray(fn: Callable, items: list, workers: int, address: str | None) -> list:
    try:
        import ray
    except ImportError:
        raise LookupError("the ray engine needs Ray: pip install ray") from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, ignore_reinit_error=True)
        else:
            ray.init(num_cpus=workers, ignore_reinit_error=True, include_dashboard=False)
    try:
        task = ray.remote(fn)
        return ray.get([task.remote(item) for item in items])
    finally:
        if started:
            ray.shutdown()
