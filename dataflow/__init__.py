"""thresher's engine: payloads, the stage contract, graph compilation and the executor.

This package imports nothing else of thresher's (layering rule, ``tests/test_layering.py``): what
it needs from the rest — the stage registry, the declarative-filter loader, the code files the
compiled plans depend on — it is handed as :class:`~.shapes.Services` by the composition root
(``thresher.boundary.wiring``), which the faces install with :func:`wire` (``thresher/__init__.py``
does, lazily). Heavy control-plane modules (``spec``, ``compile``, ``build``) are imported only
when a graph must be (re)compiled, and only then are the services asked for.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "compress", "wire", "wired"]

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .api import Result
    from .shapes import Services

_provider: Callable[[], Services] | None = None


def wire(provider: Callable[[], Services]) -> None:
    """Install the composition root: ``provider()`` returns the :class:`~.shapes.Services` the
    engine uses from now on. It is called only when they are needed (a plan compiles), so a
    provider that imports them then keeps them off a warm start."""
    global _provider
    _provider = provider


def wired() -> Services:
    """The services the faces installed with :func:`wire`."""
    if _provider is None:
        raise RuntimeError("no services wired into thresher.dataflow: call "
                           "thresher.dataflow.wire(provider) first (thresher/__init__.py does)")
    return _provider()


def compress(data: str | bytes, **kwargs: Any) -> Result:
    """Compress one tool output; see :func:`thresher.dataflow.api.compress`."""
    from .api import compress as _compress
    return _compress(data, **kwargs)
