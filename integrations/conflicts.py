"""The conflict probe: other tools that already rewrite the agent's output (compressed twice).

thresher shrinks each output once; a second shrinker in front of or behind it compresses what
thresher already compressed (markers and handles mangled, errors cut twice). What is recognised,
from each tool's own installer (read in their sources, matched on the command names they write):

- RTK: a Claude Code hook running ``rtk-rewrite.sh`` (``rtk init``; also installed by headroom)
  or ``rtk hook ...`` (the native form);
- lean-ctx: hooks ``lean-ctx hook rewrite|redirect|read-dedup`` (and the older
  ``lean-ctx-rewrite``/``lean-ctx-redirect`` scripts), and the ``_lc``/``_lc_compress`` PATH
  shims its shell hook writes (the shell aliases git, cargo... to them);
- OMNI: hooks ``omni --pre-hook``, ``--post-hook`` or ``--hook`` (``omni init``);
- headroom: hooks carrying its ``headroom-init-claude`` marker or running ``headroom``, and an
  ``ANTHROPIC_BASE_URL`` (in a settings file's ``env`` or this environment) pointing at a proxy on
  this machine on headroom's default port 8787 or lean-ctx proxy's 4444 — a proxy that compresses
  the tool results of every request again.

Hooks of every settings level are read (managed, user, user local, project, project local), as
Claude Code merges them all. The tools' binaries merely installed on PATH are not a conflict
(nothing of theirs runs until a hook or alias calls it); doctor lists them for information.
"""

from __future__ import annotations

import json
import os
import shlex
from urllib.parse import urlsplit

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping

TOOLS = ("rtk", "lean-ctx", "omni", "headroom")
FIXES = {"RTK": "rtk init -g --uninstall (or --uninstall in that project)",
         "lean-ctx": "lean-ctx uninstall", "OMNI": "omni init --uninstall",
         "headroom": "headroom unwrap claude"}
PROXY_PORTS = {8787: "headroom", 4444: "lean-ctx"}
LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0")
LEAN_ACTIONS = ("hook rewrite", "hook redirect", "hook read-dedup")
OMNI_FLAGS = ("--pre-hook", "--post-hook", "--hook")


class Conflict:
    """One finding: which tool, what exactly, where, and the command that removes it."""

    __slots__ = ("tool", "what", "where")

    def __init__(self, tool: str, what: str, where: str) -> None:
        self.tool, self.what, self.where = tool, what, where

    def render(self) -> str:
        """``TOOL: WHAT in WHERE (remove: FIX)``."""
        return f"{self.tool}: {self.what} in {self.where} (remove: {FIXES[self.tool]})"


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def tool_of_hook(command: str) -> str | None:
    """The output-rewriting tool a hook ``command`` belongs to, or ``None``."""
    words = _words(command)
    names = [os.path.basename(w) for w in words]
    text = " ".join(names)
    if "rtk-rewrite" in command or (names[:1] == ["rtk"] and "hook" in names[1:2]):
        return "RTK"
    if "lean-ctx-rewrite" in command or "lean-ctx-redirect" in command or (
            "lean-ctx" in names and any(text.endswith(a) for a in LEAN_ACTIONS)):
        return "lean-ctx"
    if "omni" in names and any(flag in words for flag in OMNI_FLAGS):
        return "OMNI"
    if "headroom-init-claude" in command or names[:1] == ["headroom"]:
        return "headroom"
    return None


def _proxy(url: object) -> str | None:
    """The tool whose local proxy ``url`` points at, or ``None``."""
    if not isinstance(url, str) or not url:
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    return PROXY_PORTS.get(port) if host in LOOPBACK and port is not None else None


def in_settings(path: str) -> list[Conflict]:
    """The other tools' rewriting hooks and proxy setting in one settings file."""
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8") or "{}")
    except (OSError, ValueError, UnicodeDecodeError):
        return []  # missing or unreadable: `thresher init`/doctor name a broken file themselves
    if not isinstance(data, dict):
        return []
    found = []
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h in handlers if isinstance(handlers, list) else []:
                command = h.get("command") if isinstance(h, dict) else None
                tool = tool_of_hook(command) if isinstance(command, str) else None
                if tool:
                    found.append(Conflict(tool, f"{event} hook `{command}`", path))
    env = data.get("env")
    if not isinstance(env, dict):
        env = {}
    owner = _proxy(env.get("ANTHROPIC_BASE_URL"))
    if owner:
        found.append(Conflict(owner, f"env ANTHROPIC_BASE_URL={env['ANTHROPIC_BASE_URL']} (its "
                              "proxy compresses every request's tool results)", path))
    return found


def on_path(path_var: str) -> list[Conflict]:
    """lean-ctx's shell-hook PATH shims (the shell routes git, cargo... through them)."""
    found = []
    for folder in dict.fromkeys(d for d in path_var.split(":") if d):
        shims = [n for n in ("_lc", "_lc_compress") if _is_lean_shim(os.path.join(folder, n))]
        if shims:
            found.append(Conflict("lean-ctx", "shell-hook PATH shims " + ", ".join(shims) +
                                  " (its shell aliases route commands through them)", folder))
    return found


def _is_lean_shim(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return b"lean-ctx" in fh.read(1024) and os.access(path, os.X_OK)
    except OSError:
        return False


def installed(path_var: str) -> list[str]:
    """The other tools' binaries on PATH (information only)."""
    import shutil
    found = {t: shutil.which(t, path=path_var) for t in TOOLS}
    return [f"{t} ({where})" for t, where in found.items() if where]


def probe(settings: list[str], environ: Mapping[str, str]) -> list[Conflict]:
    """Every conflict in ``settings`` files, on ``PATH`` and in the environment's proxy URL."""
    found = [c for path in dict.fromkeys(settings) for c in in_settings(path)]
    found += on_path(environ.get("PATH", ""))
    owner = _proxy(environ.get("ANTHROPIC_BASE_URL"))
    if owner:
        found.append(Conflict(owner, f"ANTHROPIC_BASE_URL={environ['ANTHROPIC_BASE_URL']} (its "
                              "proxy compresses every request's tool results)", "this environment"))
    return found


def settings_for(project: str, environ: Mapping[str, str]) -> list[str]:
    """Every settings file whose hooks join a session in ``project`` (all levels)."""
    from .permissions import settings_files
    return settings_files(os.path.abspath(project), environ)
