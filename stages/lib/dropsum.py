"""Drop-and-count: the shared tail of the package-manager, http, docker and kubectl distillers.

Those distillers classify each view line as kept or dropped under a *kind* ("passing test lines",
"download progress lines", ...). This module turns that decision into a payload: kept lines stay
byte-exact and in order, and one declared summary line, written where the first dropped line was,
states the exact count of every kind, e.g. ``[thresher: npm: 240 passing test lines not shown]``.
The summary never looks like the footer (the engine's emission rule writes that one, counting every omitted line). On a
failing command, critical lines are never dropped here even if a caller asks (INV-6 holds by
construction); on a successful one a noise kind wins (``✔ handles errors`` is a passing test).
"""

from __future__ import annotations

from thresher.dataflow.payload import CRITICAL, SYNTHETIC

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.payload import Payload


def protected(payload: Payload, i: int) -> bool:
    """True when view line ``i`` must stay: a summary already there, or an error line of a failure."""
    o = payload.origin[i]
    return o < 0 or (payload.failed and payload.tiers[o] == CRITICAL)


def summary_text(tool: str, counts: dict[str, int]) -> str:
    """``[thresher: tool: 3 kind-as, 1 kind-b not shown]`` with the kinds in first-seen order.

    A kind names its plural ending as ``{s}`` ("progress line{s}"), so counts of one read right.
    """
    parts = ", ".join(f"{n} {kind.format(s='' if n == 1 else 's')}" for kind, n in counts.items() if n)
    return f"[thresher: {tool}: {parts} not shown]"


def drop(payload: Payload, kinds: list[str | None], tool: str, *, summary: bool = True) -> Payload | None:
    """The view without the lines whose ``kinds[i]`` is set, plus one counted summary line.

    ``kinds[i]`` is None to keep view line i, else the kind it is counted under. Protected lines
    are kept whatever their kind. Returns ``None`` when nothing would be dropped, or when the view
    would be larger than the input.
    """
    counts: dict[str, int] = {}
    lines: list[str] = []
    origin: list[int] = []
    first: int | None = None
    for i, kind in enumerate(kinds):
        if kind is not None and not protected(payload, i):
            counts[kind] = counts.get(kind, 0) + 1
            if first is None:
                first = len(lines)
            continue
        lines.append(payload.lines[i])
        origin.append(payload.origin[i])
    if first is None:
        return None
    if summary:
        lines.insert(first, summary_text(tool, counts))
        origin.insert(first, SYNTHETIC)
    view = payload.with_view(lines, origin)
    # A summary longer than the few lines it replaces would grow the view (the executor rejects a
    # larger distiller output unless it masks a secret): decline instead.
    return view if view.redacted or view.tokens() <= payload.tokens() else None


def has_flag(argv: "tuple[str, ...] | list[str]", *flags: str) -> bool:
    """True when one of ``flags`` is an argument, or a prefix of one (``--loglevel=verbose``)."""
    return any(a == f or a.startswith(f + "=") for a in argv for f in flags)
