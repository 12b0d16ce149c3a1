"""Run a command with its stdout and stderr captured separately, in bounded memory and time.

``os.posix_spawnp`` plus ``select.poll`` rather than ``subprocess``: this is on every agent command's
path and ``subprocess`` costs several milliseconds of imports. stdin is inherited (interactive input
and pipes reach the command unchanged). Output is buffered so it can be compressed after the
command exits — unless it grows past ``max_bytes`` or the command is still running after
``stream_after`` seconds: then everything buffered so far is written out raw and the rest streams
through as it comes (the agent sees the real output, never a stall).
"""

from __future__ import annotations

import os
import select
import signal
import time

CHUNK = 1 << 16


class Captured:
    """What a run produced: exit status (shell convention), the two streams, and whether they streamed."""

    __slots__ = ("status", "stdout", "stderr", "streamed", "spawn_error")

    def __init__(self) -> None:
        self.status = 0
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.streamed = False
        self.spawn_error = ""


def exit_status(wait_status: int) -> int:
    """Shell-style exit status: the exit code, or 128+n for a death by signal n."""
    if os.WIFSIGNALED(wait_status):
        return 128 + os.WTERMSIG(wait_status)
    return os.waitstatus_to_exitcode(wait_status)


def _spawn(argv: list[str], env: dict, out_w: int, err_w: int) -> int:
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
    return os.posix_spawnp(argv[0], argv, env, file_actions=actions,
                           setsigdef=(signal.SIGINT, signal.SIGTERM, signal.SIGPIPE))


def run_captured(argv: list[str], env: dict, *, max_bytes: int, stream_after: float) -> Captured:
    """Run ``argv``; capture both streams (or stream them raw past the limits); wait for the exit."""
    cap = Captured()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = _spawn(argv, env, out_w, err_w)
    except OSError as exc:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        cap.status = 127 if isinstance(exc, FileNotFoundError) else 126
        cap.spawn_error = f"{argv[0]}: {'command not found' if cap.status == 127 else exc.strerror}"
        return cap
    os.close(out_w)
    os.close(err_w)
    forward = _forward_signals(pid)
    try:
        _pump(cap, {out_r: (cap.stdout, 1), err_r: (cap.stderr, 2)}, max_bytes, stream_after)
        _, status = os.waitpid(pid, 0)
    finally:
        for sig, old in forward.items():
            signal.signal(sig, old)
    cap.status = exit_status(status)
    return cap


def _forward_signals(pid: int) -> dict:
    """Pass SIGINT/SIGTERM/SIGHUP on to the child instead of dying with its output in our buffers."""
    def handler(signum, frame):  # noqa: ARG001 - signal handler signature
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass
    return {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}


def _pump(cap: Captured, fds: dict, max_bytes: int, stream_after: float) -> None:
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    deadline = time.monotonic() + stream_after
    while fds:
        timeout = None if cap.streamed else max(0, deadline - time.monotonic()) * 1000
        events = poller.poll(timeout)
        if not cap.streamed and (time.monotonic() >= deadline or
                                 len(cap.stdout) + len(cap.stderr) > max_bytes):
            _start_streaming(cap)
        for fd, _ in events:
            try:
                block = os.read(fd, CHUNK)
            except InterruptedError:
                continue
            if not block:
                poller.unregister(fd)
                os.close(fd)
                del fds[fd]
                continue
            buf, target = fds[fd]
            if cap.streamed:
                _write_all(target, block)
            else:
                buf += block


def _start_streaming(cap: Captured) -> None:
    """Write what was buffered, raw, and switch to passthrough for the rest of the run."""
    cap.streamed = True
    _write_all(1, bytes(cap.stdout))
    _write_all(2, bytes(cap.stderr))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except BrokenPipeError:
            return
        except InterruptedError:
            continue
        view = view[n:]
