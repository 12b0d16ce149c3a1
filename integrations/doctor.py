"""``thresher doctor``: verify the install end to end; every problem comes with its fix.

Checks: the Claude Code hooks are present and well-formed (user and project settings); the hook
command resolves and answers a recorded PreToolUse input exactly as documented (run as a real
subprocess, with an empty Claude config so your own permission rules cannot change the answer);
the PATH shims on ``PATH`` find their real programs; the archive is writable; the graph plans are
compiled and cached; the MCP server starts over stdio and lists its tools, and what that tool list
costs in tokens.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile

OK, WARN, FAIL = "ok", "warn", "FAIL"
SAMPLE_COMMAND = "pytest -q"


class Check:
    """One result: status, name, what was found, and the fix when it is not ok."""

    __slots__ = ("status", "name", "detail", "fix")

    def __init__(self, status: str, name: str, detail: str, fix: str = "") -> None:
        self.status, self.name, self.detail, self.fix = status, name, detail, fix

    def render(self) -> str:
        """``status name: detail`` plus an indented ``fix:`` line."""
        out = f"{self.status:<4} {self.name}: {self.detail}"
        return out + (f"\n     fix: {self.fix}" if self.fix else "")


def sample_input(cwd: str) -> dict:
    """A PreToolUse input in the documented schema (hooks reference, "PreToolUse input")."""
    return {"session_id": "thresher-doctor", "transcript_path": os.path.join(cwd, "t.jsonl"),
            "cwd": cwd, "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": SAMPLE_COMMAND, "description": "doctor"},
            "tool_use_id": "toolu_doctor"}


def expected_answer(data: dict) -> dict:
    """The exact answer the hook must give to :func:`sample_input`."""
    from .claude_hook import session_token
    cmd = f"THRESHER_SESSION={session_token(data['session_id'])} thresher run -- {SAMPLE_COMMAND}"
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                   "updatedInput": {**data["tool_input"], "command": cmd}}}


def check_hooks(settings: list[str]) -> list[Check]:
    """Hooks present and well-formed, and their command answers the sample correctly."""
    from . import claude_settings as cs
    found = [p for p in settings if cs.commands_in(p)]
    if not found:
        return [Check(FAIL, "claude hooks", "no thresher hooks in " + " or ".join(settings),
                      "thresher init claude   (or: thresher init claude --project)")]
    out = []
    for path in found:
        problems = cs.check(path)
        out.append(Check(FAIL if problems else OK, "claude hooks",
                         "; ".join(problems) if problems else f"all 6 events wired in {path}",
                         "thresher init claude" + ("" if path == cs.user_settings() else
                                                   " --project") if problems else ""))
        for command in cs.commands_in(path):
            out.append(check_hook_command(command))
    return out


def check_hook_command(command: str) -> Check:
    """Run ``command`` like Claude Code would (``sh -c``) on the sample input; compare exactly."""
    words = shlex.split(command)
    if not words or not (os.path.isabs(words[0]) and os.access(words[0], os.X_OK)):
        return Check(FAIL, "hook command", f"{words[0] if words else command!r} is not an "
                     "executable path", "thresher init claude   (rewrites the command)")
    with tempfile.TemporaryDirectory() as tmp:
        data = sample_input(tmp)
        env = dict(os.environ, HOME=tmp, CLAUDE_CONFIG_DIR=os.path.join(tmp, ".claude"))
        env.pop("CLAUDE_PROJECT_DIR", None)
        env.pop("THRESHER_DISABLE", None)
        try:
            proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(data).encode(),
                                  capture_output=True, cwd=tmp, env=env, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Check(FAIL, "hook command", f"{command}: {exc}", "thresher init claude")
    try:
        answer = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        answer = None
    if proc.returncode == 0 and answer == expected_answer(data):
        return Check(OK, "hook command", f"{command} answers a PreToolUse Bash input as documented")
    return Check(FAIL, "hook command", f"{command} exited {proc.returncode} with "
                 f"{proc.stdout[:200]!r} (stderr {proc.stderr[:200]!r})",
                 "reinstall thresher, then thresher init claude")


def check_shims(path_var: str) -> list[Check]:
    """Every shim folder on PATH: each shim finds its real program and its thresher."""
    from . import shims
    out = []
    for folder in shims.shim_folders(path_var):
        names = sorted(n for n in os.listdir(folder) if shims.is_shim(os.path.join(folder, n)))
        missing = [n for n in names if shims.resolve(folder, n, path_var) is None]
        exe = shims.thresher_exe()
        stale = [n for n in names if exe not in _text(os.path.join(folder, n))]
        if missing or stale:
            out.append(Check(FAIL, "shims", f"{folder}: no real program for {missing}, written for "
                             f"another thresher: {stale}", f"thresher shims remove {folder} && "
                             f"thresher shims install {folder}"))
        else:
            out.append(Check(OK, "shims", f"{folder}: {len(names)} shims resolve past the folder"))
    return out


def _text(path: str) -> str:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def check_archive() -> Check:
    """The database opens and takes a write transaction."""
    try:
        from thresher.stores.db import database, home
        database().write(lambda conn: conn.execute("SELECT 1").fetchall())
        return Check(OK, "archive", f"{home()} is writable")
    except Exception as exc:  # noqa: BLE001 - any failure is the finding
        return Check(FAIL, "archive", f"cannot write the store: {exc}",
                     "check THRESHER_HOME points to a writable folder (default "
                     "~/.local/share/thresher)")


def check_plans() -> Check:
    """The compiled plans are cached for the current graph files (compiles them if not)."""
    try:
        from thresher.dataflow.plan import load_plans, plans_cache_path
        fresh = os.path.exists(plans_cache_path())
        plans = load_plans()
    except Exception as exc:  # noqa: BLE001
        return Check(FAIL, "graphs", f"plans do not compile: {exc}", "thresher graph check FILE")
    if plans.errors:
        return Check(FAIL, "graphs", "; ".join(plans.errors[:3]), "thresher graph show")
    how = "cache fresh" if fresh else "cache was stale, recompiled now"
    return Check(OK, "graphs", f"{len(plans.plans)} plans, {how}")


def check_mcp() -> Check:
    """``thresher mcp`` starts over stdio and lists its four tools; report their token cost."""
    try:
        import anyio
        from mcp import Client, StdioServerParameters
    except ImportError:
        return Check(WARN, "mcp", "the MCP SDK is not installed (optional)",
                     "pip install 'thresher[mcp]'")
    import sys

    async def listing() -> list[str]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "thresher", "mcp"])
        with anyio.fail_after(60):
            async with Client(params) as client:
                return sorted(t.name for t in (await client.list_tools()).tools)
    try:
        names = anyio.run(listing)
        from .mcp_server import surface_tokens
        size = surface_tokens()
    except Exception as exc:  # noqa: BLE001
        return Check(FAIL, "mcp", f"thresher mcp did not start: {exc!r}", "thresher mcp --help")
    exact = f", {size['cl100k']} cl100k" if size["cl100k"] is not None else ""
    return Check(OK, "mcp", f"server lists {', '.join(names)}; tool list + instructions cost "
                 f"{size['estimate']} tokens (estimate){exact} per request")


def run_all(settings: list[str], path_var: str, mcp: bool = True) -> list[Check]:
    """Every check, in order."""
    checks = check_hooks(settings) + check_shims(path_var) + [check_archive(), check_plans()]
    return checks + ([check_mcp()] if mcp else [])
