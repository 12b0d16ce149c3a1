"""distill-docker: docker build / pull output without the bookkeeping; listings stay whole.

BuildKit plain progress (``#8 [4/5] RUN make``): a vertex (all lines ``#8 ...``) that reports an
``ERROR`` is kept whole — its command output is the failure's context. Every other vertex keeps its
heading line (``#8 [4/5] RUN make``, ``#10 exporting to image``) and its result lines (``writing
image``, ``naming to``), and drops its digest (``#8 sha256:…``), transfer and ``DONE 0.2s`` status
lines and the command output it printed. ``[internal]`` vertices (load Dockerfile, .dockerignore,
metadata, context) go whole unless they failed.

Classic builder (``Step 4/6 : RUN make``): layer bookkeeping (`` ---> 3f2a…``, ``---> Running in``,
``Removing intermediate container``, ``---> Using cache``) goes; a step's command output goes
unless it is the last step (where a failing build stops: its output is the error's context).

``docker pull``: per-layer progress (``Pulling fs layer``, ``Waiting``, ``Download complete``,
``Pull complete``, ``Already exists`` …) goes; ``Digest:``/``Status:`` stay.

Everything else — ``docker ps``/``images`` rows, ``Successfully built``, error lines — is kept, and
with nothing recognised the stage declines. Dropped lines are counted by kind in one summary line.
"""

from __future__ import annotations

import re

from thresher.stages.lib.dropsum import drop

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_BK = re.compile(r"^#(?P<id>\d+) (?P<rest>.*)$")
_BK_HEAD = re.compile(r"^\[[^\]]*\d+/\d+\] |^\[internal\] |^exporting |^(?:resolve|load|transferring) ")
_BK_KEEP = re.compile(r"^(?:writing image|naming to|exporting to image|ERROR|CANCELED|WARN|error)")
_BK_STATUS = re.compile(r"^(?:sha256:[0-9a-f]{64}|DONE [\d.]+s|CACHED|transferring \S+: .*|exporting layers.*|"
                        r"preparing layers.*|unpacking to .*|resolve \S+ [\d.]+s done|extracting sha256:.*)$")
_CLASSIC_BOOK = re.compile(r"^ ---> (?:[0-9a-f]{12}|Running in [0-9a-f]{12}|Using cache)$|"
                           r"^Removing intermediate container [0-9a-f]{12}$")
_STEP = re.compile(r"^Step \d+/\d+ : ")
_PULL = re.compile(r"^[0-9a-f]{12}: (?:Pulling fs layer|Waiting|Downloading|Verifying Checksum|Download complete|"
                   r"Extracting|Pull complete|Already exists|Retrying in \d+ seconds?)\b")


def _buildkit(lines, kinds: list) -> None:
    """Mark BuildKit vertex bookkeeping, internal vertices and successful command output."""
    vertices: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        m = _BK.match(line)
        if m:
            vertices.setdefault(m["id"], []).append(i)
    for idx in vertices.values():
        rests = [m["rest"] for i in idx if (m := _BK.match(lines[i]))]   # (every one matches)
        if any(r.startswith(("ERROR", "CANCELED")) for r in rests):
            continue
        internal = rests[0].startswith("[internal] ")
        for i, rest in zip(idx, rests):
            if internal:
                kinds[i] = "internal step line{s}"
            elif _BK_STATUS.match(rest):
                kinds[i] = "digest/status line{s}"
            elif not (i == idx[0] or _BK_HEAD.match(rest) or _BK_KEEP.match(rest)):
                kinds[i] = "line{s} of command output from steps that passed"
    if vertices:
        for i, line in enumerate(lines):
            if not line.strip():
                kinds[i] = "blank line{s}"


def _classic(lines, kinds: list) -> None:
    """Mark classic-builder layer bookkeeping and the command output of every step but the last."""
    steps = [i for i, line in enumerate(lines) if _STEP.match(line)]
    if not steps:
        return
    for i, line in enumerate(lines):
        if _CLASSIC_BOOK.match(line):
            kinds[i] = "layer bookkeeping line{s}"
    for start, end in zip(steps, steps[1:]):
        for i in range(start + 1, end):
            if kinds[i] is None and lines[i].strip():
                kinds[i] = "line{s} of command output from steps that passed"


def run(payload: Payload, _params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The build/pull output without bookkeeping, or ``None`` when it is not a build or pull."""
    lines = payload.lines
    kinds: list = [None] * len(lines)
    _buildkit(lines, kinds)
    _classic(lines, kinds)
    for i, line in enumerate(lines):
        if _PULL.match(line):
            kinds[i] = "layer progress line{s}"
    return drop(payload, kinds, "docker")
