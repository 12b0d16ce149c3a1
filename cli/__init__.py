"""thresher: shrink tool outputs before an LLM agent reads them, and keep the originals."""

from __future__ import annotations

from thresher import dataflow as _dataflow
from thresher.dataflow import __version__

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Services

__all__ = ["__version__"]


def _services() -> Services:
    """The engine's services (the stage registry, the filter loader), from the composition root
    ``thresher.boundary.wiring``: imported when a plan compiles, never on a warm start."""
    from thresher.boundary.wiring import WIRING
    return WIRING


_dataflow.wire(_services)
