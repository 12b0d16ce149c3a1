"""The composition root: what the engine (``thresher.dataflow``) is handed instead of importing it.

dataflow/ imports nothing else of ours (DESIGN §1b); the faces install :data:`WIRING` with
``thresher.dataflow.wire`` (``thresher/__init__.py`` does, through a function that imports this
module only when the engine asks: a plan compiles). Each service imports its module on call.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.shapes import Registry


class Wiring:
    """thresher's own services: the :class:`thresher.dataflow.shapes.Services` protocol."""

    def stages(self) -> Registry:
        """The stage registry: the built-in stages, then users' entry points (lazily)."""
        from thresher.stages.registry import stages
        return stages()

    def warm_filters(self, cwd: str | None) -> None:
        """Compile the declarative filters visible from ``cwd`` into their cache, quietly (the
        ``filter`` stage reports problems when it runs)."""
        from thresher.filters.runtime import load
        load(cwd, warn=False)

    def code_files(self) -> list[str]:
        """The registry, params-model and user-stage-loader sources the compiled plans depend on."""
        from thresher.stages.registry import code_files
        return code_files()


WIRING = Wiring()
"""The services the faces wire into the engine."""
