"""``thresher_run``'s policy and execution: off unless enabled, an allow-list, bounded in time and size.

Policy (``thresher mcp --allow-run ...``):
- not given: the tool is not offered at all (a host's agent can already run commands itself; an
  MCP client that hands commands off must opt in);
- ``--allow-run all``: any shell line, as the user who started the server;
- ``--allow-run git,pytest,make``: only lines whose every command is one of these programs, named
  bare (no path, no ``$VAR``), with no ``NAME=value`` prefix, no ``$( )``/backticks/``<( )``, no
  compound command (``if``, ``( )``, ``{ }``...) and no redirection to a file (``2>&1`` and
  ``/dev/null`` are fine). An allowed program still gets any arguments: ``git`` allows
  ``git -c alias.x='!cmd' x``, so allow only programs you would let the agent run unasked.

Execution: ``/bin/bash -c LINE`` (else ``/bin/sh``) in the server's working directory and with the
environment the server was started with, stdin empty; the commands worth shrinking run through
``thresher run`` (this interpreter's, by absolute path, so it works without thresher on PATH, and
never importing from the project folder: :data:`THRESHER_ARGV`).
The shell's process group is ended (TERM, then KILL) when the timeout passes or the output
exceeds :data:`MAX_OUTPUT`. A background job (``server &``) is not waited for: once the shell
exits, what is already written is returned and the job keeps running on its own.
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import sys
import time

# ``python -m thresher`` would put the working directory first on sys.path, so a project file
# named ``argparse.py`` or ``json.py`` would run inside thresher. This boot line drops that entry
# (``sys`` is built in, nothing can shadow it) before importing anything else.
_BOOT = ("import sys; sys.path[0:1] = [p for p in sys.path[0:1] if p]; "
         "from thresher.main import main; sys.exit(main())")
THRESHER_ARGV = (sys.executable, "-c", _BOOT)
"""How to start this thresher without PATH and without importing from the working directory."""
DEFAULT_TIMEOUT_S = 120.0
MAX_OUTPUT = 4 * 1024 * 1024
_OK_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr")


class RunPolicy:
    """Who may run what: ``allow`` is ``None`` (off), ``"all"`` or a frozenset of program names."""

    def __init__(self, allow=None, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self.allow, self.timeout = allow, timeout

    @property
    def enabled(self) -> bool:
        """True when ``thresher_run`` is offered."""
        return self.allow is not None

    def describe(self) -> str:
        """The policy in a few words (for the tool description)."""
        if self.allow == "all":
            return "any command line"
        return "only lines made of these programs: " + ", ".join(sorted(self.allow or ()))


def parse_allow(values: list[str]):
    """``--allow-run`` values → ``None``, ``"all"`` or a frozenset; raises ValueError."""
    names: set[str] = set()
    for value in values:
        for name in filter(None, (v.strip() for v in value.split(","))):
            if name == "all":
                return "all"
            if "/" in name or not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
                raise ValueError(f"--allow-run: {name!r} is not a bare program name")
            names.add(name)
    if values and not names:
        raise ValueError("--allow-run needs 'all' or program names, e.g. --allow-run git,pytest")
    return frozenset(names) if names else None


def refusal(line: str, policy: RunPolicy) -> str:
    """Why ``policy`` does not allow ``line`` ("" when it does)."""
    if policy.allow == "all":
        return ""
    from thresher.shell.lexer import Unparsable, tokenize
    from thresher.shell.segments import split
    try:
        segs = split(tokenize(line))
    except Unparsable as exc:
        return f"the line cannot be checked against the allow-list ({exc})"
    if not segs:
        return "nothing to run"
    for seg in segs:
        why = _segment_refusal(seg, line, policy.allow)
        if why:
            return why
    return ""


def _segment_refusal(seg, line: str, allow) -> str:
    text = seg.text(line)
    if seg.compound or seg.subst:
        return f"{text!r}: compound commands and substitutions are not allowed"
    for op, target in seg.redirects:
        if not (target.value.isdigit() and op.text.endswith("&")) and target.value not in _OK_TARGETS:
            return f"{text!r}: redirection to a file is not allowed"
    if not seg.words or seg.words[0].assign:
        return f"{text!r}: NAME=value prefixes are not allowed"
    prog = seg.words[0]
    if prog.expands or prog.value not in allow:
        return (f"{text!r}: {prog.value!r} is not allowed (allowed: "
                f"{', '.join(sorted(allow))})")
    return ""


def wrapped(line: str) -> str:
    """``line`` with the segments worth shrinking run through this interpreter's ``thresher run``."""
    from thresher.shell.rewrite import analyze
    try:
        points = [d.insert_at for d in analyze(line) if d.wrap]
    except Exception:  # noqa: BLE001 - a rewrite bug must never block the command: run it as is
        return line
    prefix = shlex.join(THRESHER_ARGV) + " run -- "
    out, last = [], 0
    for at in points:
        out += [line[last:at], prefix]
        last = at
    return "".join(out) + line[last:]


def execute(line: str, timeout: float, max_output: int = MAX_OUTPUT) -> tuple[str, bool]:
    """Run ``line``; (its output, stdout and stderr interleaved, plus a status line; is_error)."""
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    proc = subprocess.Popen([shell, "-c", wrapped(line)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    data, stop = _collect(proc, time.monotonic() + timeout, max_output)
    if stop in ("timeout", "size"):
        _end_group(proc)
    status = proc.wait()
    text = data.decode("utf-8", "replace")
    if text and not text.endswith("\n"):
        text += "\n"
    if stop == "timeout":
        return text + f"[thresher_run: still running after {timeout:g} s; stopped]\n", True
    if stop == "size":
        return text + f"[thresher_run: output over {max_output:,} bytes; stopped]\n", True
    if stop == "background":
        text += "[thresher_run: background jobs are still running; later output is not shown]\n"
    return text + f"[exit status {_shell_status(status)}]\n", False


def _collect(proc: subprocess.Popen[bytes], deadline: float, cap: int) -> tuple[bytes, str]:
    """Read the shared output pipe until EOF, the shell's exit, the deadline or the cap."""
    pipe = proc.stdout
    assert pipe is not None  # (started with stdout=PIPE)
    fd = pipe.fileno()
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        try:
            while True:
                exited = proc.poll() is not None
                ready = sel.select(0 if exited else min(0.2, max(deadline - time.monotonic(), 0)))
                block = _read(fd) if ready else None
                if block == b"":
                    return b"".join(chunks), ""  # EOF: every writer is done
                if block:
                    chunks.append(block)
                    size += len(block)
                    if size > cap:
                        return b"".join(chunks)[:cap], "size"
                elif exited:
                    return b"".join(chunks), "background"  # the shell is gone, a job holds the pipe
                if not exited and time.monotonic() >= deadline:
                    return b"".join(chunks), "timeout"
        finally:
            pipe.close()


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return None


def _end_group(proc: subprocess.Popen) -> None:
    """TERM the shell's process group, KILL it if it is still there 2 s later."""
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _shell_status(code: int) -> int:
    """As the shell reports it: 128+n for a signal."""
    return 128 - code if code < 0 else code
