"""Where the MCP server's ``thresher_read`` may read: regular files under the project roots, capped.

The roots are the ones the client declares (MCP ``roots/list``, ``file://`` URIs only); a client
that declares none gets the folders given with ``thresher mcp --root DIR``, else the server's
working directory. A path is resolved (``..`` and every symlink followed, relative paths against
the server's cwd when that lies in a root, else the first root) and must land inside a root: so
``../../etc/shadow`` and a symlink pointing out of the project are refused like ``/etc/shadow``.
``/`` is never a root, and neither is the home folder when it is only the fallback cwd (a host that
starts servers in ``~`` would otherwise expose ``~/.ssh``). ``/proc``, ``/sys`` and ``/dev`` are
refused whatever the roots (their files lie about their size or never end), anything but a regular
file is refused (``/dev/zero``, a FIFO, a folder), and so is a file over :data:`MAX_READ_BYTES`.

The same idea as lean-ctx's path jail, written for this server. The check runs just before
``thresher read`` opens the file; a project that swaps a checked file for a symlink in between is
not defended against (the project is the user's own).
"""

from __future__ import annotations

import os
import stat
from urllib.parse import unquote, urlparse

MAX_READ_BYTES = 8 * 1024 * 1024
"""Largest file ``thresher_read`` reads (an outline of anything larger is no use to an agent)."""
NEVER = ("/proc", "/sys", "/dev")


class Refused(Exception):
    """A read the jail does not allow; the message is one line for the agent."""


def roots_from_uris(uris: list[str]) -> list[str]:
    """The real paths of the ``file://`` URIs among ``uris`` (others are not folders we can jail to)."""
    out = []
    for uri in uris:
        parts = urlparse(str(uri))
        if parts.scheme == "file" and parts.netloc in ("", "localhost") and parts.path:
            out.append(os.path.realpath(unquote(parts.path)))
    return out


def effective_roots(declared: list[str] | None, configured: list[str], cwd: str) -> list[str]:
    """The usable roots: declared by the client, else ``--root`` folders, else the server's cwd."""
    if declared:
        roots, fallback = declared, False
    elif configured:
        roots, fallback = [os.path.realpath(r) for r in configured], False
    else:
        roots, fallback = [os.path.realpath(cwd)], True
    home = os.path.realpath(os.path.expanduser("~"))
    return [r for r in roots if r != "/" and not (fallback and r == home) and not _never(r)]


def _never(real: str) -> bool:
    return any(real == p or real.startswith(p + "/") for p in NEVER)


def _inside(real: str, root: str) -> bool:
    return os.path.commonpath([real, root]) == root


def resolve(path: str, roots: list[str], cwd: str) -> str:
    """The real path of ``path`` if the jail allows reading it; raises :class:`Refused`."""
    if not roots:
        raise Refused("no project root to read from: / is never one, the home folder only when "
                      "declared, and /proc /sys /dev never; declare the project as an MCP root, "
                      f"start `thresher mcp` in the project folder (not {cwd}) or pass --root DIR")
    if not path or "\0" in path:
        raise Refused(f"not a file path: {path!r}")
    here = os.path.realpath(cwd)
    base = here if any(_inside(here, r) for r in roots) else roots[0]
    real = os.path.realpath(os.path.join(base, os.path.expanduser(path)))
    if _never(real) or not any(_inside(real, r) for r in roots):
        raise Refused(f"{path}: outside the project roots ({', '.join(roots)}); thresher_read "
                      "reads only files under them")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        raise Refused(f"{path}: no such file") from None
    except OSError as exc:
        raise Refused(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise Refused(f"{path}: {kind}; thresher_read reads regular files only")
    if st.st_size > MAX_READ_BYTES:
        raise Refused(f"{path}: {st.st_size:,} bytes, over thresher_read's limit of "
                      f"{MAX_READ_BYTES:,}; read a part of it another way (e.g. sed -n 'A,Bp')")
    return real
