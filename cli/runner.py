"""Run a command with its stdout and stderr captured separately, in bounded memory and time.

``os.posix_spawnp`` plus ``select.poll`` rather than ``subprocess``: this is on every agent command's
path and ``subprocess`` costs several milliseconds of imports. stdin is inherited (interactive input
and pipes reach the command unchanged). Output is buffered so it can be compressed after the
command exits — unless it grows past ``max_bytes`` or the command is still running after
``stream_after`` seconds: then everything buffered so far is written out raw and the rest streams
through as it comes (the agent sees the real output, never a stall).

Behaving like the shell would without thresher in between:

- signals: every catchable signal whose default action ends a process (INT, TERM, HUP, QUIT, USR1,
  USR2, ALRM, real-time ones, ...) is forwarded to the command instead of killing thresher, so the
  command decides and what it printed is still delivered. The handlers are installed before the
  command exists (:class:`Forwarder`); a signal that arrives earlier is held and sent to it as
  soon as it is spawned. Job-control signals, SIGCHLD and the synchronous faults are ours alone.
- a reader that goes away (``thresher run -- yes | head -1``): when our stdout (or stderr) is a pipe
  or socket whose reader closed, the command's pipe for that stream is closed too, at once, so the
  command meets exactly the EPIPE/SIGPIPE it would have met writing there itself (``yes`` dies of
  SIGPIPE: status 141, as in the shell). What was buffered for that stream is dropped: nobody is
  left to read it.
"""

from __future__ import annotations

import os
import select
import stat
import time

try:  # the C module: `signal` wraps it in enums, whose import costs ~5 ms on every command
    import _signal as signal  # type: ignore[import-not-found]  # (no stub: the same names)
except ImportError:  # pragma: no cover - an interpreter without it
    import signal

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import BinaryIO

CHUNK = 1 << 16
SPILL_FACTOR = 3
"""A spilled stdout may grow to this many times the captured part (with 64 MiB captured: 256 MiB
in all); past that it streams raw, as an endless output (`yes | head -1`) must."""

_OURS = ("SIGKILL", "SIGSTOP", "SIGCHLD", "SIGCLD", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGCONT",
         "SIGPIPE", "SIGXFSZ", "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGTRAP", "SIGABRT",
         "SIGIOT", "SIGSYS", "SIGEMT", "SIGWINCH", "SIGURG", "SIGINFO")
"""Not forwarded: uncatchable, job control (the terminal signals the whole process group),
SIGCHLD (about the command itself), our own write errors and faults, and signals whose default
action is to do nothing."""
_PY_IGNORED = tuple(getattr(signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, n))
"""Python ignores these at start-up; the command gets them back at their default."""


def forwarded_signals() -> list[int]:
    """The signals :class:`Forwarder` passes on to the command."""
    ours = {getattr(signal, n) for n in _OURS if hasattr(signal, n)}
    return sorted(s for s in signal.valid_signals() if s not in ours)


class Held(BaseException):
    """Raised by the handlers while :attr:`Forwarder.abort_early` is set and no command runs yet:
    thresher's own start-up is abandoned and the command run untouched (the signal is then sent
    to it). A BaseException so no ``except Exception`` on the way swallows it."""


class Forwarder:
    """Handlers that pass signals to the command (held until it is spawned); ``restore()`` undoes."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.pending: list[int] = []
        self.abort_early = False
        self.done = False  # the command was reaped: its pid may belong to someone else now
        self._old: dict[int, object] = {}

    def install(self) -> "Forwarder":
        """Install the handlers (a signal inherited as ignored stays ignored, for us and the child)."""
        for sig in forwarded_signals():
            try:
                if signal.getsignal(sig) == signal.SIG_IGN:
                    continue  # e.g. SIGHUP under nohup: the command inherits the ignore
                self._old[sig] = signal.signal(sig, self._handle)
            except (OSError, ValueError, RuntimeError):
                continue  # reserved by the C library, or not settable here
        return self

    def _handle(self, signum, frame) -> None:  # noqa: ARG002 - signal handler signature
        if self.done:
            return  # the command is over; what it printed is being delivered (bounded work)
        if self.pid is None:
            self.pending.append(signum)
            if self.abort_early:
                raise Held(signum)
            return
        try:
            os.kill(self.pid, signum)
        except ProcessLookupError:
            pass

    def started(self, pid: int) -> None:
        """The command runs as ``pid``: send it what arrived before."""
        self.pid = pid
        for sig in self.pending:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        self.pending.clear()

    def restore(self) -> None:
        """Put the previous handlers back."""
        for sig, old in self._old.items():
            try:
                signal.signal(sig, old)
            except (OSError, ValueError, TypeError):
                pass
        self._old.clear()


class Captured:
    """What a run produced: exit status (shell convention), the two streams, and whether they streamed."""

    __slots__ = ("status", "stdout", "stderr", "streamed", "spawn_error", "gone", "spill")

    def __init__(self) -> None:
        self.status = 0
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.streamed = False
        self.spill: BinaryIO | None = None  # stdout past the capture limit, in a temporary file (``spill=True``)
        self.spawn_error = ""
        self.gone: set[int] = set()  # our fds (1, 2) whose reader went away: nothing to emit there


def exit_status(wait_status: int) -> int:
    """Shell-style exit status: the exit code, or 128+n for a death by signal n."""
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.waitstatus_to_exitcode(wait_status)


def _spawn(argv: list[str], env: dict, actions: list) -> int:
    return os.posix_spawnp(argv[0], argv, env, file_actions=actions, setsigdef=_PY_IGNORED)


def _spawn_error(cap: Captured, argv: list[str], exc: OSError) -> Captured:
    cap.status = 127 if isinstance(exc, FileNotFoundError) else 126
    cap.spawn_error = f"{argv[0]}: {'command not found' if cap.status == 127 else exc.strerror}"
    return cap


def _wait(pid: int, fwd: Forwarder) -> int:
    while True:
        try:
            status = exit_status(os.waitpid(pid, 0)[1])
        except InterruptedError:
            continue
        fwd.done = True
        return status


def run_passthrough(argv: list[str], env: dict, fwd: Forwarder) -> Captured:
    """Run ``argv`` on our own stdout/stderr (nothing captured), forwarding signals; wait for it."""
    cap = Captured()
    try:
        pid = _spawn(argv, env, [])
    except OSError as exc:
        return _spawn_error(cap, argv, exc)
    fwd.started(pid)
    cap.status = _wait(pid, fwd)
    return cap


def run_captured(argv: list[str], env: dict, *, max_bytes: int, stream_after: float,
                 fwd: Forwarder | None = None, spill: bool = False) -> Captured:
    """Run ``argv``; capture both streams (or stream them raw past the limits); wait for the exit.

    ``spill``: stdout past ``max_bytes`` goes on into a temporary file (``cap.spill``, rewound at
    the end; the caller closes it) instead of streaming raw, while stderr stays small and the
    spill under :data:`SPILL_FACTOR` times the captured part; past those, or when the
    ``stream_after`` hang guard fires, everything streams raw (the spilled part first)."""
    cap = Captured()
    own = fwd is None
    fwd = fwd or Forwarder().install()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        try:
            pid = _spawn(argv, env, [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)])
        except OSError as exc:
            for fd in (out_r, err_r):
                os.close(fd)
            return _spawn_error(cap, argv, exc)
        finally:
            os.close(out_w)
            os.close(err_w)
        fwd.started(pid)
        _pump(cap, {out_r: (cap.stdout, 1), err_r: (cap.stderr, 2)}, max_bytes, stream_after,
              spill)
        cap.status = _wait(pid, fwd)
        if cap.spill is not None:
            cap.spill.flush()
            cap.spill.seek(0)
    finally:
        if own:
            fwd.restore()
    return cap


def _watchable(fd: int) -> bool:
    """True when ``fd`` is a pipe or socket: poll then reports POLLERR/POLLHUP when its reader goes."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _pump(cap: Captured, fds: dict, max_bytes: int, stream_after: float, spill: bool = False) -> None:
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    sources = {target: fd for fd, (_, target) in fds.items()}
    for target in sources:
        if target not in fds and _watchable(target):  # (fd 1 closed at start: a pipe got its number)
            poller.register(target, 0)  # revents: only POLLERR/POLLHUP, when the reader closed
    deadline = time.monotonic() + stream_after
    while fds:
        timeout = None if cap.streamed else max(0, deadline - time.monotonic()) * 1000
        events = poller.poll(timeout)
        over = len(cap.stdout) + len(cap.stderr) > max_bytes
        if over and spill and cap.spill is None and not cap.streamed and len(cap.stderr) <= max_bytes // 4:
            import tempfile
            cap.spill = tempfile.TemporaryFile(prefix="thresher-run-")
        if not cap.streamed and (time.monotonic() >= deadline or
                                 (over and (cap.spill is None or len(cap.stderr) > max_bytes // 4))):
            for target in _start_streaming(cap):
                _reader_gone(cap, poller, fds, sources, target)
        for fd, _ in events:
            if fd in sources and fd not in fds:
                _reader_gone(cap, poller, fds, sources, fd)
            elif fd in fds:
                _read_one(cap, poller, fds, sources, fd)


def _read_one(cap: Captured, poller, fds: dict, sources: dict, fd: int) -> None:
    try:
        block = os.read(fd, CHUNK)
    except InterruptedError:
        return
    if not block:
        _drop(poller, fds, fd)
        return
    buf, target = fds[fd]
    if not cap.streamed and target == 1 and cap.spill is not None:
        cap.spill.write(block)
        if cap.spill.tell() > SPILL_FACTOR * len(cap.stdout):  # endless output (`yes`): stream
            for gone in _start_streaming(cap):
                _reader_gone(cap, poller, fds, sources, gone)
    elif not cap.streamed:
        buf += block
    elif not _write_all(target, block):
        _reader_gone(cap, poller, fds, sources, target)


def _drop(poller, fds: dict, fd: int) -> None:
    if fd in fds:
        poller.unregister(fd)
        os.close(fd)
        del fds[fd]


def _reader_gone(cap: Captured, poller, fds: dict, sources: dict, target: int) -> None:
    """Nobody reads our ``target`` any more: close the command's pipe for it, drop its buffer."""
    fd = sources.pop(target, None)
    if fd is None:
        return
    try:
        poller.unregister(target)
    except KeyError:
        pass
    cap.gone.add(target)
    if fd in fds:
        fds[fd][0].clear()
        _drop(poller, fds, fd)


def _start_streaming(cap: Captured) -> list[int]:
    """Write what was buffered, raw, and switch to passthrough; return the fds that hit EPIPE."""
    cap.streamed = True
    gone = [fd for fd, buf in ((1, cap.stdout), (2, cap.stderr))
            if fd not in cap.gone and not _write_all(fd, bytes(buf))]
    if cap.spill is not None:  # stdout spilled past the limit: it follows the buffered part
        cap.spill.flush()
        cap.spill.seek(0)
        while 1 not in gone and 1 not in cap.gone:
            block = cap.spill.read(CHUNK)
            if not block:
                break
            if not _write_all(1, block):
                gone.append(1)
        cap.spill.close()
        cap.spill = None
    return gone


def _write_all(fd: int, data: bytes) -> bool:
    """Write all of ``data``; False when it cannot be written (EPIPE: the reader is gone)."""
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError:  # EPIPE, or EBADF/EIO/ENOSPC: the output cannot go anywhere any more
            return False
        view = view[n:]
    return True
