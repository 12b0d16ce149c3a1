"""``thresher run [OPTIONS] -- CMD [ARGS...]``: run a command and filter its output for the agent.

Contract:
- the exit status is the command's, bit-exact (death by signal n → 128+n; not found → 127; not
  executable → 126); thresher's own failure never changes it and means raw output;
- stdout and stderr stay separate; stdout goes through the graph of the command's class; stderr of
  a failing command passes byte-exact (on success it is filtered as its own payload) — except a
  failing ``curl -v``'s credential header lines (``> Authorization: [thresher: value masked, N
  chars]``), followed by a footer naming the original;
- binary output (an image, a PDF, an archive: ``thresher.boundary.media``) is one line with its type, size
  and handle (``thresher expand HANDLE --raw`` gives the bytes), never the bytes — except under a
  PATH shim into a pipe or file, where a program may be reading it (INV-9); there a data file
  shown (``cat x.csv``, ``python -m json.tool x.json``) passes byte-exact too (``reader="program"``),
  while the agent reading one gets the crushed view;
- stdin is inherited; watchers, followers, dev servers and interactive programs (classifier class
  ``stream``) and machine-format output (class ``verbatim``) run untouched via exec;
- stdout over the examination budget (64 MiB; THRESHER_EXAMINE_MB) goes on into a temporary
  file (bounded memory): the graph examines the first 64 MiB, every later line is scanned for error
  lines, and the one footer says which lines were only scanned (``thresher.dataflow.big``); stdout
  over 256 MiB in all, stderr over a quarter of the budget, or a command still running after
  ``--stream-after`` seconds (default 300), switches to raw streaming passthrough: nothing is held
  back or lost. The timer is a hang guard,
  not a budget: a test suite of 30 s or 3 minutes is compressed the same on a quiet or a busy
  machine (no decision depends on time below that bound);
- a bad thresher option (unknown, missing value) runs the command unfiltered with a one-line
  warning on stderr; a signal (any catchable one) goes to the command, also one that arrives while
  thresher is still starting (the command is then started untouched and handed the signal);
- a reader that goes away (``| head -1``) ends the command as the shell would (SIGPIPE: 141);
- cheap environment defaults (NO_COLOR=1, pagers off, colour off for cargo/pytest/npm) are set only
  where the user has not set them.
"""

from __future__ import annotations

import os
import sys

from thresher.boundary.run_args import STREAM_AFTER, parse

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from thresher.dataflow.shapes import ArchiveStore
    from thresher.runner import Forwarder

__all__ = ["HELP", "MAX_CAPTURE", "QUIET_ENV", "STREAM_AFTER", "main", "parse"]

HELP = __doc__.split("\n", 2)[2] + """
usage: thresher run [--raw] [--role ROLE] [--class CLASS] [--stream-after SECONDS] -- CMD [ARGS...]

  --raw                run CMD untouched (same as THRESHER_RAW=1)
  --role ROLE          consumer role (default: $THRESHER_ROLE or `default`)
  --class CLASS        force the payload class instead of classifying CMD
  --stream-after S     stream raw if CMD still runs after S seconds (default 300)
Environment: THRESHER_DISABLE=1 passthrough everywhere; THRESHER_MEASURE_ONLY=1 measure, emit raw.
"""

QUIET_ENV = {"NO_COLOR": "1", "CLICOLOR": "0", "PY_COLORS": "0", "CARGO_TERM_COLOR": "never",
             "npm_config_color": "false", "GIT_PAGER": "cat", "PAGER": "cat",
             "CARGO_TERM_PROGRESS_WHEN": "never", "PIP_PROGRESS_BAR": "off"}
MAX_CAPTURE = 64 * 1024 * 1024

def _exec(cmd: list[str]) -> int:
    """Replace this process with the command (exit status is then exactly the command's)."""
    try:
        os.execvp(cmd[0], cmd)
    except OSError as exc:
        status = 127 if isinstance(exc, FileNotFoundError) else 126
        reason = "command not found" if status == 127 else exc.strerror
        sys.stderr.write(f"thresher run: {cmd[0]}: {reason}\n")
        return status
    return 126  # not reached


_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def _command_line(cmd: list[str]) -> str:
    """``shlex.join(cmd)``, byte for byte, without importing ``shlex`` (it imports ``re``: a cost
    on every command; tests/test_cli_run.py compares the two)."""
    return " ".join(w if w and _SHELL_SAFE.issuperset(w) else "'" + w.replace("'", "'\"'\"'") + "'"
                    for w in cmd)


def main(argv: list[str]) -> int:
    """Run the command, filter its output, return its exit status."""
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(HELP)
        return 0
    try:
        opts, cmd = parse(argv)
    except ValueError as exc:
        sys.stderr.write(f"thresher run: {exc}\n{HELP}")
        return 2
    if opts["bad"]:
        sys.stderr.write(f"thresher run: {'; '.join(opts['bad'])} (running the command unfiltered;"
                         " see `thresher run --help`)\n")
    from thresher.boundary import switches
    if opts["raw"] or opts["bad"] or switches.disabled() or not _open_fds(1, 2):
        return _exec(cmd)  # (a closed stdout/stderr: the command meets it itself, as in the shell)
    from thresher.runner import Forwarder, Held
    fwd = Forwarder().install()  # from here on a signal is the command's, never our traceback
    try:
        return _run(cmd, opts, fwd)
    except Held:
        # a signal during thresher's own start-up (a cold plan cache compiles for seconds): give
        # up filtering, start the command untouched and hand it the signal, as the shell would
        fwd.abort_early = False
        return _passthrough(cmd, fwd)
    finally:
        fwd.restore()


def _open_fds(*fds: int) -> bool:
    try:
        for fd in fds:
            os.fstat(fd)
    except OSError:
        return False
    return True


def _passthrough(cmd: list[str], fwd: Forwarder) -> int:
    from thresher.runner import run_passthrough
    cap = run_passthrough(cmd, dict(os.environ), fwd)
    if cap.spawn_error:
        sys.stderr.write(f"thresher run: {cap.spawn_error}\n")
    return cap.status


def _run(cmd: list[str], opts: dict[str, Any], fwd: Forwarder) -> int:
    command = _command_line(cmd)
    fwd.abort_early = True
    try:
        from thresher.dataflow.plan import PASSTHROUGH_CLASSES, load_plans
        plans = load_plans()
        pclass = opts["pclass"] or plans.classify(command)
    except Exception:  # noqa: BLE001 - no plans: run untouched
        pclass, plans = "", None
    fwd.abort_early = False
    if plans is None or pclass in PASSTHROUGH_CLASSES:
        return _passthrough(cmd, fwd) if fwd.pending else _exec(cmd)
    env = dict(os.environ)
    for key, value in QUIET_ENV.items():
        env.setdefault(key, value)
    from thresher.dataflow.plan import examine_budget
    from thresher.runner import run_captured
    cap = run_captured(cmd, env, max_bytes=examine_budget(MAX_CAPTURE),
                       stream_after=opts["stream_after"], fwd=fwd, spill=True)
    if cap.spawn_error:
        sys.stderr.write(f"thresher run: {cap.spawn_error}\n")
        return cap.status
    if not cap.streamed:
        ctx = {"command": command, "exit_code": cap.status, "pclass": pclass, "role": opts["role"],
               "plans": plans}
        if cap.spill is not None:
            with cap.spill:
                if 1 not in cap.gone:
                    _emit_big(bytes(cap.stdout), cap.spill, ctx)
        elif 1 not in cap.gone:
            _emit(1, bytes(cap.stdout), "stdout", ctx)
        if 2 not in cap.gone:
            _emit(2, bytes(cap.stderr), "stderr", ctx, keep=cap.status != 0)
    return cap.status


class _Out:
    """fd 1 as a writer (a reader that went away only ends the writing)."""

    def write(self, data: bytes) -> None:
        from thresher.runner import _write_all
        _write_all(1, data)


def _emit_big(head: bytes, spill: BinaryIO, ctx: dict[str, Any]) -> None:
    """stdout over the examination budget (``head`` buffered, the rest in ``spill``): examined up
    to the budget, the rest scanned for error lines (``thresher.dataflow.big``); binary: one line;
    raw when measuring, disabled, or on thresher's own failure before anything was written."""
    from thresher.boundary import switches
    from thresher.runner import CHUNK, _write_all
    try:
        if not (switches.disabled() or switches.measure_only()):
            from thresher.boundary.media import describe, sniff
            found = None if _program_may_read(1) else sniff(head)
            if found is not None:
                size = len(head) + os.fstat(spill.fileno()).st_size
                _write_all(1, (describe(found, size, "") + "\n").encode())
                return
            from thresher.boundary.deliver import deliver_big
            from thresher.dataflow.plan import examine_budget
            if deliver_big(head, spill, _Out(), budget=examine_budget(MAX_CAPTURE),
                           command=ctx["command"], exit_code=ctx["exit_code"], role=ctx["role"],
                           pclass=ctx["pclass"], plans=ctx["plans"],
                           reader="program" if _program_may_read(1) else "agent"):
                return
    except Exception:  # noqa: BLE001 - nothing written yet: raw below
        spill.seek(0)
    _write_all(1, head)
    while True:
        block = spill.read(CHUNK)
        if not block or not _write_all(1, block):
            return


def _mask_kept(data: bytes, ctx: dict[str, Any], store: ArchiveStore | None = None
               ) -> tuple[bytes, bytes]:
    """A failing curl's kept stderr with its credential headers masked (``> Authorization: ...``;
    the error lines stay byte-exact), plus a footer naming the archived original (in ``store``,
    default the archive); ``data`` when there is nothing to mask. Hiding the credential outranks
    raw-on-archive-failure: the masked lines say what they stand for, so without an archive only
    the footer is left out. Returns that output and the one without the footer (for a ``store``
    whose transaction then fails)."""
    try:
        from thresher.stages.lib.secrets import mask_kept_headers
        found = mask_kept_headers(data)
        if found is None:
            return data, data
        masked, count = found
    except Exception:  # noqa: BLE001 - thresher's own failure: raw output
        return data, data
    try:
        from thresher.dataflow.api import handle_of
        from thresher.dataflow.markers import footer
        handle = handle_of(data)
        if store is None:
            from thresher.stores.archive import default_archive
            store = default_archive()
        store.put(handle, data, {"command": ctx["command"], "class": ctx["pclass"],
                                 "exit_code": ctx["exit_code"], "stream": "stderr"})
    except Exception:  # noqa: BLE001 - no archive: masked, without a handle to name
        return masked, masked
    total = data.count(b"\n") + (not data.endswith(b"\n"))
    end = b"" if masked.endswith(b"\n") else b"\n"
    return masked + end + footer(count, total, handle).encode() + b"\n", masked


def _program_may_read(fd: int) -> bool:
    """True when a program, not the agent, may be reading ``fd``.

    Under a PATH shim (``THRESHER_SHIMMED``) stdout may be a pipe into a program (``git archive
    | tar x``, ``git show HEAD:logo.png > logo.png``) that the shim cannot tell from the agent:
    unless it is a terminal, a program may be the reader. The hook wraps only commands whose
    output the agent reads (never a segment feeding a pipe or a file), so there it is the agent.
    """
    return bool(os.environ.get("THRESHER_SHIMMED")) and not os.isatty(fd)


def _kept(data: bytes, stream: str, ctx: dict[str, Any]) -> bytes:
    """A failing command's stderr: byte-exact (a failing ``curl -v``'s credentials masked),
    archived and recorded as passed through untouched, in one transaction."""
    try:
        from thresher.stores.batch import PayloadWrites
        writes = PayloadWrites()
    except Exception:  # noqa: BLE001 - no stores: the bytes (masked: without a footer)
        return _mask_kept(data, ctx)[0] if ctx["pclass"] == "http" else data
    out, fallback = _mask_kept(data, ctx, writes) if ctx["pclass"] == "http" else (data, data)
    writes.record(None, data, command=ctx["command"], stream=stream, role=ctx["role"],
                  exit_code=ctx["exit_code"])
    try:
        writes.commit()
    except Exception:  # noqa: BLE001 - not archived: no footer may name it
        return fallback
    return out


def _emit(fd: int, data: bytes, stream: str, ctx: dict[str, Any], keep: bool = False) -> None:
    """Write one stream: filtered (``thresher.boundary.deliver``), or raw when ``keep``, empty,
    measuring, or on any failure. The payload is archived and its savings event recorded before
    the output is written (the output may name the archived original); a kept stream is
    recorded as passed through untouched."""
    from thresher.runner import _write_all
    if not data:
        _write_all(fd, data)
        return
    if keep:
        _write_all(fd, _kept(data, stream, ctx))
        return
    from thresher.boundary.deliver import deliver
    may_read = _program_may_read(fd)
    _write_all(fd, deliver(data, command=ctx["command"], exit_code=ctx["exit_code"],
                           stream=stream, role=ctx["role"], pclass=ctx["pclass"],
                           plans=ctx["plans"], reader="program" if may_read else "agent",
                           binary=not may_read).output)
