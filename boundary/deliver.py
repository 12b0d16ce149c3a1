"""``deliver()``: one payload from a face (``thresher run``, ``thresher pipe``, the Claude Code hook;
the MCP server's ``thresher_run`` runs its lines through ``thresher run``) to what that face
writes, and into the stores.

The faces differ in where the bytes come from and where the answer goes; what happens in between
is the same and lives here once:

1. the switches: ``THRESHER_DISABLE`` (the bytes, nothing recorded), measure-only (compress and
   record, emit the bytes), the reader scope and its session ledger;
2. the engine: a binary payload becomes its one line (:mod:`thresher.boundary.media`), anything
   else goes through :func:`thresher.dataflow.api.compress`; thresher's own failure there means
   the bytes, nothing recorded;
3. the stores, in **one transaction** per payload (:class:`thresher.stores.batch.PayloadWrites`):
   the archived original (Persist stages it), what the reader was delivered (the session ledger)
   and the savings event. It commits before the output is handed back, since the output may name
   the archived original (INV-7): when the commit fails, the face gets the output that needs no
   archive — the bytes, or a binary payload's line without a handle.

Inputs over the examination budget take :func:`deliver_big` (``thresher.dataflow.big``), also in
one transaction.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from thresher.dataflow.api import Result
    from thresher.dataflow.big import Sink, Source
    from thresher.dataflow.payload import Original
    from thresher.dataflow.plan import Plans
    from thresher.stores.batch import PayloadWrites, StagedLedger


class Delivery:
    """What :func:`deliver` hands back: the ``output`` the face writes, the engine's ``result``
    (``None``: nothing ran, or it failed), and whether measure-only mode held the output back."""

    __slots__ = ("output", "result", "measuring", "scope")

    def __init__(self, output: bytes, result: Result | None = None, measuring: bool = False,
                 scope: str = "") -> None:
        self.output = output
        self.result = result
        self.measuring = measuring
        self.scope = scope


def deliver(data: bytes | Original, *, command: str = "", exit_code: int | None = None,
            stream: str = "stdout", role: str = "default", pclass: str | None = None,
            plans: Plans | None = None, reader: str = "agent", cwd: str | None = None,
            scope: str | None = None, measuring: bool | None = None, binary: bool = True,
            smaller_only: bool = False) -> Delivery:
    """The output for ``data`` (a payload of ``command``, which exited ``exit_code``, on
    ``stream``), with the payload archived, its delivery and savings event recorded.

    ``scope`` and ``measuring`` default to the environment's (:mod:`.switches`; ``cwd`` is the
    folder measure-first posture is judged for, default the working one). ``binary``: describe
    a binary payload by one line (off where a program may read the bytes, INV-9). ``reader``,
    ``plans``, ``pclass`` and ``role`` go to the engine. ``smaller_only`` (the hook): the view
    is shown only when it has fewer bytes than ``data``, and only then is a savings event
    recorded. Never raises: thresher's own failure means ``data``.

    ``data`` may be a releasable :class:`~thresher.dataflow.payload.Original` its owner handed
    over (``thresher pipe``): the engine then lets go of the bytes while it holds their lines,
    and they are rebuilt, byte for byte, only where they are needed here.
    """
    from . import switches
    if not isinstance(data, (bytes, bytearray, memoryview)):
        return _deliver_original(data, command=command, exit_code=exit_code, stream=stream,
                                 role=role, pclass=pclass, plans=plans, reader=reader, cwd=cwd,
                                 scope=scope, measuring=measuring, binary=binary,
                                 smaller_only=smaller_only)
    if not data or switches.disabled():
        return Delivery(data)
    try:
        res, writes, staged, measuring, scope = _engine(
            data, lambda: data, command=command, exit_code=exit_code, stream=stream, role=role,
            pclass=pclass, plans=plans, reader=reader, cwd=cwd, scope=scope, measuring=measuring,
            binary=binary)
    except BaseException:  # noqa: BLE001 - thresher's own failure: the bytes, nothing recorded
        return Delivery(data)
    out = data if measuring else res.output
    shown = not smaller_only or measuring or (res.output != data and len(res.output) < len(data))
    try:
        if not shown:
            out = data
        if staged is not None and staged.recorded and out is not res.output:
            writes.deliver(scope, _lines(out))  # what the reader gets is what it was delivered
        if shown:
            writes.record(res, data, command=command, stream=stream, role=role,
                          exit_code=exit_code, scope=scope, measure_only=measuring)
    except BaseException:  # noqa: BLE001 - thresher's own failure: the bytes, nothing recorded
        return Delivery(data)
    try:
        writes.commit()
    except Exception:  # noqa: BLE001 - not stored: nothing may name the handle (INV-7)
        return Delivery(_unarchived(res, out, data, command, stream, exit_code), None,
                        measuring, scope)
    if measuring:
        _note_measured(res, data, command, cwd)
    return Delivery(out, res if shown else None, measuring, scope)


def _deliver_original(orig: Original, *, command: str, exit_code: int | None, stream: str,
                      role: str, pclass: str | None, plans: Plans | None, reader: str,
                      cwd: str | None, scope: str | None, measuring: bool | None, binary: bool,
                      smaller_only: bool) -> Delivery:
    """:func:`deliver` of an ``Original`` (the same steps; the bytes rebuilt only when needed:
    a binary payload, a raw emission, measure-only, a failure)."""
    from . import switches
    if not orig.size or switches.disabled() or not orig.held:
        return deliver(orig.tobytes(), command=command, exit_code=exit_code, stream=stream,
                       role=role, pclass=pclass, plans=plans, reader=reader, cwd=cwd,
                       scope=scope, measuring=measuring, binary=binary,
                       smaller_only=smaller_only)
    try:
        res, writes, staged, measuring, scope = _engine(
            orig, orig.tobytes, command=command, exit_code=exit_code, stream=stream, role=role,
            pclass=pclass, plans=plans, reader=reader, cwd=cwd, scope=scope, measuring=measuring,
            binary=binary)
    except BaseException:  # noqa: BLE001 - thresher's own failure: the bytes, nothing recorded
        return Delivery(orig.tobytes())
    size = orig.size
    # the bytes themselves, when the output may be them (a raw emission is: reuse it)
    same_size = len(res.output) == size
    data = (res.output if res.emission.decision in _RAW_DECISIONS and same_size
            else orig.tobytes() if same_size or measuring or not res.archived else None)
    out = res.output
    if measuring:
        out = data = data if data is not None else orig.tobytes()
    shown = not smaller_only or measuring or len(res.output) < size  # (shorter: not the bytes)
    try:
        if not shown:
            out = data = data if data is not None else orig.tobytes()
        if staged is not None and staged.recorded and out is not res.output:
            writes.deliver(scope, _lines(out))  # what the reader gets is what it was delivered
        if shown:
            # the savings event reads the bytes' start, their size and whether the output is
            # them: a different size says it is not, and the start is all it needs then
            from thresher.stores.savings import COUNTERFACTUAL_CHARS
            if data is None:
                data = orig.head(COUNTERFACTUAL_CHARS * 4)
                if len(data) == len(res.output) or not res.handle:  # (then the bytes decide)
                    data = orig.tobytes()
            writes.record(res, data,
                          command=command, stream=stream, role=role, exit_code=exit_code,
                          scope=scope, measure_only=measuring, size=size)
    except BaseException:  # noqa: BLE001 - thresher's own failure: the bytes, nothing recorded
        return Delivery(orig.tobytes())
    try:
        writes.commit()
    except Exception:  # noqa: BLE001 - not stored: nothing may name the handle (INV-7)
        return Delivery(_unarchived(res, out, orig.tobytes(), command, stream, exit_code), None,
                        measuring, scope)
    if measuring:
        _note_measured(res, data if data is not None else orig.tobytes(), command, cwd)
    return Delivery(out, res if shown else None, measuring, scope)


def _engine(data: bytes | Original, raw: Callable[[], bytes], *, command: str,
            exit_code: int | None, stream: str, role: str, pclass: str | None,
            plans: Plans | None, reader: str, cwd: str | None, scope: str | None,
            measuring: bool | None, binary: bool
            ) -> tuple[Result, PayloadWrites, StagedLedger | None, bool, str]:
    """The engine's result for ``data`` and the payload's staged writes: ``(result, writes,
    staged ledger or None, measuring, scope)``; ``raw()`` gives the bytes (a binary payload is
    described from them). Raises on thresher's own failure (the caller delivers the bytes)."""
    from . import switches
    measuring = switches.measure_only(cwd) if measuring is None else measuring
    scope = switches.scope() if scope is None else scope
    from thresher.stores.batch import PayloadWrites, StagedLedger
    writes = PayloadWrites()
    staged = res = None
    if binary:
        from .media import binary_result
        res = binary_result(raw(), command=command, stream=stream, exit_code=exit_code,
                            store=writes)
    if res is None:
        from thresher.dataflow.api import compress
        ledger = switches.session_ledger(scope, measuring)
        staged = StagedLedger(ledger, writes) if ledger is not None else None
        res = compress(data, command=command, exit_code=exit_code, stream=stream, role=role,
                       pclass=pclass, plans=plans, scope=scope, cwd=cwd, ledger=staged,
                       archive=writes, reader=reader)
    return res, writes, staged, measuring, scope


_RAW_DECISIONS = ("raw", "verbatim", "unchanged")
"""Emissions whose output is the input's bytes themselves (``finalize``'s raw passthrough)."""


def _lines(out: bytes) -> list[str]:
    return out.decode("utf-8", "replace").splitlines()


def _unarchived(res: Result, out: bytes, data: bytes, command: str, stream: str,
                exit_code: int | None) -> bytes:
    """The output when the payload's transaction failed: ``out`` if it names no staged
    original, else the bytes — or, for a binary payload, its line archived on its own (which
    says "not archived" when that fails too: never the bytes)."""
    if out is data or not res.archived:
        return out
    if res.pclass == "media" and res.trace is None:
        from .media import binary_result
        again = binary_result(data, command=command, stream=stream, exit_code=exit_code)
        if again is not None:
            return again.output
    return data


def _note_measured(res: Result, data: bytes, command: str, cwd: str | None) -> None:
    """A measure-only payload joins the baseline window of its folder (measure-first rollout)."""
    try:
        from thresher.stores.env import ledger_disabled
        if ledger_disabled():
            return
        import os

        from thresher.dataflow.api import handle_of
        from thresher.boundary.rollout import note
        from thresher.stores.savings import tool_of
        note(cwd or os.getcwd(), tool_of(command), res.handle or handle_of(data))
    except Exception:  # noqa: BLE001 - recording must never disturb the command
        pass


def record_untouched(data: bytes, *, command: str = "", stream: str = "stdout",
                     role: str = "default", exit_code: int | None = None) -> None:
    """Output passed through untouched (a failing command's stderr): archived with its savings
    event, in one transaction; never raises."""
    if not data:
        return
    try:
        from thresher.stores.batch import PayloadWrites
        writes = PayloadWrites()
        writes.record(None, data, command=command, stream=stream, role=role, exit_code=exit_code)
        writes.commit()
    except Exception:  # noqa: BLE001 - recording must never disturb the command
        pass


def deliver_big(head: bytes, rest: Source, out: Sink, *, budget: int, command: str = "",
                exit_code: int | None = None, role: str = "default", **opts: Any) -> bool:
    """Text over the examination budget (``head`` read, the rest still in ``rest``), written to
    ``out``: examined up to ``budget``, the rest scanned for error lines (``dataflow.big``).
    ``False`` (nothing written) when the stores cannot be opened: the caller streams it raw.

    One transaction, as for any payload: the spooled original (staged by ``put_file``) and the
    savings event commit just before the output is written; if that fails, the input streams
    out unchanged.
    """
    from . import switches
    from thresher.dataflow.api import compress
    from thresher.dataflow.big import compress_stream
    try:
        from thresher.stores.batch import PayloadWrites
        writes = PayloadWrites()
    except Exception:  # noqa: BLE001 - no stores: no handle may be shown, so the input streams raw
        return False
    scope = switches.scope()

    def stored(result: Result, size: int) -> bool:
        writes.record(result, head, command=command, role=role, scope=scope,
                      exit_code=exit_code, size=size)
        try:
            writes.commit()
        except Exception:  # noqa: BLE001 - not stored: nothing may name the handle (INV-7)
            return False
        return True
    try:
        compress_stream(head, rest, out, budget=budget, compress=compress, archive=writes,
                        command=command, exit_code=exit_code, role=role, scope=scope,
                        before_write=stored, **opts)
    finally:
        writes.close()
    if hasattr(out, "flush"):
        out.flush()
    return True
