"""thresher's engine: payloads, the stage contract, graph compilation and the executor.

This package imports nothing else of thresher's (layering rule); heavy control-plane modules
(``spec``, ``compile``, ``build``) are imported only when a graph must be (re)compiled.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__", "compress"]


def compress(data: "str | bytes", **kwargs: object) -> "object":
    """Compress one tool output; see :func:`thresher.dataflow.api.compress`."""
    from .api import compress as _compress
    return _compress(data, **kwargs)
