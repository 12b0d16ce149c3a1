"""``thresher doctor``: verify the install end to end; every problem comes with its fix.

Checks: the Claude Code hooks are present and well-formed (user and project settings, PreToolUse
and PostToolUse with this version's ``if`` conditions); the hook command resolves and answers a
recorded PreToolUse input exactly as documented (run as a real subprocess, with an empty Claude
config so your own permission rules cannot change the answer); rewritten lines are *executed*
with ``env -i PATH=/usr/bin:/bin`` (no venv on PATH) and must keep the original's exit code and
output; a recorded PostToolUse input gets its stdout replaced in the documented shape;
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


def expected_answer(data: dict, runner: str) -> dict:
    """The exact answer the hook must give to :func:`sample_input` when it runs ``runner``."""
    from .claude_hook import session_token
    cmd = f"THRESHER_SESSION={session_token(data['session_id'])} {runner} run -- {SAMPLE_COMMAND}"
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
                         "; ".join(problems) if problems else
                         f"all {len(cs.EVENTS)} events wired in {path}",
                         "thresher init claude" + ("" if path == cs.user_settings() else
                                                   " --project") if problems else ""))
        for command in cs.commands_in(path):
            out += check_hook_command(command)
    return out


def _ask(command: str, data: dict, env: dict, cwd: str) -> tuple[int, dict | None, bytes]:
    """Run the hook ``command`` like Claude Code does (``sh -c``) on ``data``."""
    proc = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(data).encode(),
                          capture_output=True, cwd=cwd, env=env, timeout=30)
    try:
        answer = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        answer = None
    return proc.returncode, answer, proc.stdout[:200] + proc.stderr[:200]


def check_hook_command(command: str) -> list[Check]:
    """The hook answers the documented sample exactly, and its rewritten lines run as the agent's."""
    words = shlex.split(command)
    if not words or not (os.path.isabs(words[0]) and os.access(words[0], os.X_OK)):
        return [Check(FAIL, "hook command", f"{words[0] if words else command!r} is not an "
                      "executable path", "thresher init claude   (rewrites the command)")]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, HOME=tmp, CLAUDE_CONFIG_DIR=os.path.join(tmp, ".claude"))
        for var in ("CLAUDE_PROJECT_DIR", "THRESHER_DISABLE", "THRESHER_RAW", "THRESHER_OFF"):
            env.pop(var, None)
        env["THRESHER_MEASURE_ONLY"] = "0"  # the compressing path; the posture has its own line
        data = sample_input(tmp)
        try:
            rc, answer, said = _ask(command, data, env, tmp)
            runner = _runner_of(answer)
            if rc != 0 or runner is None or answer != expected_answer(data, runner):
                return [Check(FAIL, "hook command", f"{command} exited {rc} with {said!r}",
                              "reinstall thresher, then thresher init claude")]
            found = [Check(OK, "hook command",
                           f"{command} answers a PreToolUse Bash input as documented")]
            return found + [check_rewritten_runs(command, env, tmp), check_post(command, env, tmp)]
        except (OSError, subprocess.TimeoutExpired) as exc:
            return [Check(FAIL, "hook command", f"{command}: {exc}", "thresher init claude")]


def _runner_of(answer: dict | None) -> str | None:
    """The thresher words of a rewritten sample line, when they name an executable by path."""
    try:
        line = (answer or {})["hookSpecificOutput"]["updatedInput"]["command"]
        words = shlex.split(line)
    except (TypeError, KeyError, ValueError):
        return None
    if len(words) < 3 or not os.path.isabs(words[1]) or not os.access(words[1], os.X_OK):
        return None
    head = line.split(" run -- ", 1)[0]
    return head.split(" ", 1)[1] if " " in head else None


def check_post(command: str, env: dict, tmp: str) -> Check:
    """A PostToolUse Bash input with a real, long ``ls -la`` output gets only its stdout replaced."""
    many = os.path.join(tmp, "many")
    os.makedirs(many)
    for i in range(600):
        open(os.path.join(many, f"file_{i:04d}.txt"), "w").close()
    real = subprocess.run(["ls", "-la", many], capture_output=True, text=True, cwd=tmp,
                          env={"PATH": AGENT_PATH, "LC_ALL": "C"}, timeout=30)
    response = {"stdout": real.stdout, "stderr": "", "interrupted": False, "isImage": False}
    # a session of its own, ended afterwards: nothing is folded as "already shown" by an earlier
    # doctor run, and nothing stays in the session ledger
    data = {**sample_input(tmp), "hook_event_name": "PostToolUse", "tool_response": response,
            "session_id": "thresher-doctor-" + os.path.basename(tmp),
            "tool_use_id": "toolu_doctor_" + os.path.basename(tmp),
            "tool_input": {"command": f"ls -la {many}", "description": "doctor"}}
    _, answer, said = _ask(command, data, env, tmp)
    _ask(command, {"session_id": data["session_id"], "cwd": tmp, "reason": "other",
                   "hook_event_name": "SessionEnd", "transcript_path": data["transcript_path"]},
         env, tmp)
    try:
        hook_output = (answer or {})["hookSpecificOutput"]
        new = hook_output["updatedToolOutput"]
        ok = hook_output["hookEventName"] == "PostToolUse" and \
            {k: v for k, v in new.items() if k != "stdout"} == {k: v for k, v in response.items()
                                                                if k != "stdout"} \
            and "thresher expand" in new["stdout"] and len(new["stdout"]) < len(real.stdout)
    except (TypeError, KeyError):
        ok = False
    if not ok:
        return Check(FAIL, "post hook", f"no compressed stdout for a {len(real.stdout)}-byte "
                     f"ls -la output ({said!r})", "reinstall thresher, then thresher init claude")
    return Check(OK, "post hook", f"PostToolUse replaces stdout only ({len(real.stdout)} -> "
                 f"{len(new['stdout'])} bytes of ls -la, original archived)")


AGENT_PATH = "/usr/bin:/bin"  # a shell without the venv on PATH, as the agent's may be


def check_rewritten_runs(command: str, env: dict, tmp: str) -> Check:
    """Execute rewritten sample lines under ``env -i PATH=/usr/bin:/bin``; compare with the originals.

    The lines (``ls -la`` of a small folder, and of a missing one) are rewritten in
    ``bypassPermissions`` mode, where read-only commands are wrapped too; exit code, stdout and
    stderr must all be those of the original line run the same way.
    """
    sample = os.path.join(tmp, "sample")  # its parent must not change while thresher runs
    os.makedirs(os.path.join(sample, "d"))
    for name in ("a.txt", "b.txt"):
        open(os.path.join(sample, "d", name), "w").close()
    bare = {"PATH": AGENT_PATH, "HOME": tmp, "LC_ALL": "C"}
    for line in (f"ls -la {shlex.quote(sample)}/d", f"ls -la {shlex.quote(sample)}/missing"):
        data = {**sample_input(tmp), "permission_mode": "bypassPermissions",
                "tool_input": {"command": line, "description": "doctor"}}
        _, answer, said = _ask(command, data, env, tmp)
        try:
            new = (answer or {})["hookSpecificOutput"]["updatedInput"]["command"]
        except (TypeError, KeyError):
            return Check(FAIL, "rewritten line", f"no rewrite of {line!r} in bypassPermissions "
                         f"mode ({said!r})", "reinstall thresher, then thresher init claude")
        runs = [subprocess.run(["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in bare.items()),
                                "/bin/sh", "-c", text], capture_output=True, cwd=tmp, timeout=60)
                for text in (line, new)]
        got = [(r.returncode, r.stdout, r.stderr) for r in runs]
        if got[0] != got[1]:
            return Check(FAIL, "rewritten line", f"{new!r} under env -i PATH={AGENT_PATH} gave "
                         f"{got[1]!r}, the original {got[0]!r}",
                         "thresher init claude   (then check the hook command's thresher runs)")
    return Check(OK, "rewritten line", f"runs with env -i PATH={AGENT_PATH}: same exit code "
                 "and output as the original (exit 0 and exit 2 samples)")


def check_shims(path_var: str) -> list[Check]:
    """Every shim folder on PATH: each shim finds its real program and its thresher."""
    from . import shims
    out = []
    for folder in shims.shim_folders(path_var):
        names = sorted(n for n in os.listdir(folder) if shims.is_shim(os.path.join(folder, n)))
        missing = [n for n in names if shims.resolve(folder, n, path_var) is None]
        exe = shims.thresher_exe()
        stale = [n for n in names if exe not in (text := _text(os.path.join(folder, n)))
                 or "THRESHER_OFF" not in text]  # written before the shims kill switch
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

