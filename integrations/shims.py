"""PATH shims for hosts without hooks: ``DIR/git`` runs ``thresher run -- /usr/bin/git "$@"``.

Each shim is a small POSIX ``sh`` script. At run time it finds the real program on ``PATH``
skipping its own folder and any other thresher shim (so two shim folders never call each other),
and sets ``THRESHER_SHIMMED=1`` for what it starts: a shimmed tool run *inside* a shimmed tool
(``make`` calling ``gcc``) execs the real program directly, so one output is shrunk once. If the
real program is missing the shim says so and exits 127 like the shell would; if the thresher it
was written for is gone it runs the real program untouched.

A shim cannot see whether the tool's output goes to the agent or into a pipe (``git log | head``
gets the shrunk log). Output for programs (``--porcelain``, ``--json``) still passes byte-exact, and
``THRESHER_RAW=1 git ...`` skips thresher for one command, ``THRESHER_OFF=shims`` every shim (it
then execs the real program itself); where the host has hooks, prefer them.
"""

from __future__ import annotations

import os
import shlex
import sys

MARKER = "# thresher-shim v1"
DEFAULT_TOOLS = ("git", "cargo", "pytest", "npm", "pnpm", "yarn", "go", "make", "tsc", "eslint",
                 "ruff", "mypy", "docker", "kubectl")

TEMPLATE = """#!/bin/sh
{marker}: {tool} -> thresher run -- <the real {tool}>. Remove with: thresher shims remove DIR
tool={tool_q}
here={dir_q}
real=
old_ifs=$IFS
IFS=:
for d in $PATH; do
  [ -n "$d" ] || d=.
  [ "$d" = "$here" ] && continue
  c="$d/$tool"
  if [ -f "$c" ] && [ -x "$c" ] && [ ! "$c" -ef "$0" ]; then
    l2=
    {{ read -r l1; read -r l2; }} < "$c" 2>/dev/null
    case "$l2" in
      '{marker}'*) continue ;;
    esac
    real=$c
    break
  fi
done
IFS=$old_ifs
if [ -z "$real" ]; then
  echo "$tool: command not found (thresher shim in $here found no real $tool on PATH)" >&2
  exit 127
fi
case ",$THRESHER_OFF," in
  *,shims,*) exec "$real" "$@" ;;
esac
if [ -n "$THRESHER_SHIMMED" ] || [ ! -x {thresher_q} ]; then
  exec "$real" "$@"
fi
THRESHER_SHIMMED=1
export THRESHER_SHIMMED
exec {thresher_q} run -- "$real" "$@"
"""


def thresher_exe() -> str:
    """The absolute path of this install's ``thresher`` command."""
    exe = os.path.join(os.path.dirname(sys.executable), "thresher")
    if os.access(exe, os.X_OK):
        return os.path.abspath(exe)
    import shutil
    found = shutil.which("thresher")
    if not found:
        raise FileNotFoundError("cannot find the `thresher` command; install thresher first")
    return os.path.abspath(found)


def is_shim(path: str) -> bool:
    """Whether ``path`` is a thresher shim."""
    try:
        with open(path, "rb") as fh:
            return MARKER.encode() in fh.read(256)
    except OSError:
        return False


def install(folder: str, tools: list[str] | None = None) -> list[str]:
    """Write one shim per tool into ``folder``; return the paths. Never overwrites a non-shim."""
    folder = os.path.abspath(folder)
    os.makedirs(folder, exist_ok=True)
    exe, written = thresher_exe(), []
    for tool in tools or DEFAULT_TOOLS:
        if not tool or "/" in tool or tool.startswith("."):
            raise ValueError(f"not a command name: {tool!r}")
        path = os.path.join(folder, tool)
        if os.path.exists(path) and not is_shim(path):
            raise FileExistsError(f"{path} exists and is not a thresher shim; remove it or pick "
                                  "another folder")
        text = TEMPLATE.format(marker=MARKER, tool=tool, tool_q=shlex.quote(tool),
                               dir_q=shlex.quote(folder), thresher_q=shlex.quote(exe))
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(path, 0o755)
        written.append(path)
    return written


def remove(folder: str) -> list[str]:
    """Delete every thresher shim in ``folder`` (nothing else); return the paths removed."""
    folder = os.path.abspath(folder)
    gone = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and is_shim(path):
            os.remove(path)
            gone.append(path)
    return gone


def resolve(folder: str, tool: str, path_var: str) -> str | None:
    """The real program a shim in ``folder`` would run (the shim's own search, in Python)."""
    here = os.path.abspath(folder)
    for d in path_var.split(":"):
        d = d or "."
        if os.path.abspath(d) == here:
            continue
        cand = os.path.join(d, tool)
        if os.path.isfile(cand) and os.access(cand, os.X_OK) and not is_shim(cand):
            return cand
    return None


def shim_folders(path_var: str) -> list[str]:
    """The folders on ``path_var`` that hold thresher shims."""
    found = []
    for d in path_var.split(":"):
        if d and os.path.isdir(d) and d not in found and any(
                is_shim(os.path.join(d, n)) for n in os.listdir(d)):
            found.append(d)
    return found
