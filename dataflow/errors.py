"""Every error thresher raises on purpose, in one place.

Control-plane errors (a graph that does not load or validate) carry the file, the node and a hint,
so the CLI can print them as ``FILE: node 'x': problem (hint: ...)`` and exit 2.
"""

from __future__ import annotations


class ThresherError(Exception):
    """Base class of thresher's own errors."""


class GraphError(ThresherError):
    """A graph file that cannot be loaded or does not validate."""

    def __init__(self, file: str, problem: str, *, node: str | None = None,
                 line: int | None = None, hint: str | None = None) -> None:
        self.file = file
        self.problem = problem
        self.node = node
        self.line = line
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        """One line a user can act on: where, what, and how to fix it."""
        where = self.file + (f":{self.line}" if self.line else "")
        what = f"node {self.node!r}: {self.problem}" if self.node else self.problem
        return f"{where}: {what}" + (f" (hint: {self.hint})" if self.hint else "")


class GraphErrors(ThresherError):
    """Several graph errors found at once (validation reports all it can, not just the first)."""

    def __init__(self, errors: list[GraphError]) -> None:
        self.errors = errors
        super().__init__("\n".join(e.render() for e in errors))


class StageLoadError(ThresherError):
    """A user stage (entry point group ``thresher.stages``) that cannot be used; the graph node
    naming it gets this error with its hint."""

    def __init__(self, problem: str, *, hint: str | None = None) -> None:
        self.problem = problem
        self.hint = hint
        super().__init__(problem)


class StageRejected(ThresherError):
    """Raised by the executor when a stage output breaks an invariant (recorded, never shown)."""

    def __init__(self, invariant: str, detail: str) -> None:
        self.invariant = invariant
        self.detail = detail
        super().__init__(f"{invariant}: {detail}")


class StageTimeout(ThresherError):
    """A stage ran past its hang guard (the executor emits the raw input)."""


class ArchiveError(ThresherError):
    """The archive could not store or find a payload."""


class FilterError(GraphError):
    """A declarative filter file that cannot be loaded or does not validate."""

    def render(self) -> str:
        """``FILE:LINE: filter 'x': problem (hint: ...)``."""
        where = self.file + (f":{self.line}" if self.line else "")
        what = f"filter {self.node!r}: {self.problem}" if self.node else self.problem
        return f"{where}: {what}" + (f" (hint: {self.hint})" if self.hint else "")
