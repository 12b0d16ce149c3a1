"""thresher: shrink tool outputs before an LLM agent reads them, and keep the originals."""

from thresher.dataflow import __version__

__all__ = ["__version__"]
