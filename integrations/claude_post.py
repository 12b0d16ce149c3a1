"""PostToolUse on Bash (and Grep): replace the output the agent reads with thresher's view of it.

Contract (hooks reference, "PostToolUse"; Claude Code >= 2.1.121): the event carries
``tool_name``, ``tool_input`` (what ran), ``tool_response`` and ``tool_use_id`` besides the common
fields. For Bash ``tool_response`` is ``{stdout, stderr, interrupted, isImage}`` (plus, for an
output the host saved to disk, ``persistedOutputPath``/``persistedOutputSize`` and only the start
of the text in ``stdout``). The answer ``{"hookSpecificOutput": {"hookEventName": "PostToolUse",
"updatedToolOutput": {...}}}`` replaces what the model reads; a value of another shape is ignored
and the original used, so the host's own object is echoed back with only ``stdout`` replaced.

Nothing about what ran changes, so no permission rule is weakened, in any mode. Deliberately
left alone (no output):
- a line the PreToolUse hook wraps (or the agent wrapped) in ``thresher run``: already
  compressed, never twice;
- a line whose visible output comes from more than one command, or from none worth it (the
  same table as ``thresher rewrite``, plus plain ``ls``), a pipe's reader, a background task;
- ``interrupted`` or image output, and a saved output whose file cannot be read whole;
- failed commands: the host sends those to PostToolUseFailure, whose answer cannot replace the
  output (only add context), so a failing run reaches the agent raw unless PreToolUse wrapped it;
- everything, with ``THRESHER_OFF=hooks``; and under a measure-first root the output is
  compressed and recorded as measure-only, but no answer is sent (the agent reads the original).

The original is archived *before* the answer names its handle; if the archive cannot be
written the answer is not sent (the agent reads the original).
"""

from __future__ import annotations

import os

from thresher.dataflow.rxcache import Lazy

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping

MAX_READ = 64 * 1024 * 1024  # the most of a saved output read back (thresher run's capture cap)
# Commands whose own output is nothing worth a look: they may sit beside the one that speaks.
QUIET = frozenset("""cd pushd popd export unset set source . alias true false mkdir touch rm rmdir
mv cp ln chmod chown chgrp sleep umask shift trap local declare typeset readonly hash""".split())


RAW_ASKED = Lazy(r"(?:\A|[\s;&|(])THRESHER_(?:RAW|DISABLE)=(?![\"']?(?:0|false|no|off)?[\"']?"
                       r"(?:\s|\Z))")


def raw_asked(line: str) -> bool:
    """Whether ``line`` sets ``THRESHER_RAW``/``THRESHER_DISABLE`` on (its regex runs, and ``re``
    is imported, only for a line that names one)."""
    return "THRESHER_" in line and RAW_ASKED.search(line) is not None


def post_command(line: str) -> str | None:
    """The one command whose stdout the agent reads in ``line``, if it is worth compressing."""
    if raw_asked(line):
        return None  # the agent asked for this command's output untouched (see the agent note)
    from thresher.shell.policy import command_name
    from thresher.shell.rewrite import analyze
    decisions = analyze(line)
    speaking = []
    for d in decisions:
        words = d.real.split()
        if words and command_name(words[0]) == "thresher":
            return None  # wrapped already (by the PreToolUse hook or by the agent)
        if d.insert_at < 0 and not d.real:
            if d.reason.startswith(("left alone as a whole", "compound", "holds $(")):
                return None  # cannot tell which command speaks
            continue  # its stdout goes elsewhere (pipe, file, background)
        if words and command_name(words[0]) in QUIET:
            continue
        speaking.append(d)
    if len(speaking) != 1:
        return None
    d = speaking[0]
    words = d.real.split()
    plain_ls = command_name(words[0]) == "ls" and "short listing" in d.reason
    return d.real if d.wrap or plain_ls else None


def _full_text(response: dict) -> tuple[str, bool] | None:
    """The whole stdout and whether it came from the host's saved file (``None``: unreadable)."""
    path = response.get("persistedOutputPath")
    if path is None:
        return response["stdout"], False
    try:
        if not isinstance(path, str) or os.path.getsize(path) > MAX_READ:
            return None
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8", "surrogateescape"), True
    except (OSError, ValueError):
        return None


def _pre_would_wrap(data: dict, environ: Mapping[str, str]) -> bool:
    """Whether the PreToolUse hook rewrites this same call (then it was compressed there)."""
    from .claude_hook import pre_tool_use
    pre = {**data, "hook_event_name": "PreToolUse"}
    answer = pre_tool_use(pre, environ)
    return bool(answer and "updatedInput" in answer.get("hookSpecificOutput", {}))


def _usable(data: dict) -> tuple[str, dict] | None:
    """``(command line, tool_response)`` of a Bash PostToolUse input worth a look, else None."""
    tool_input, response = data.get("tool_input"), data.get("tool_response")
    if data.get("tool_name") != "Bash" or not isinstance(tool_input, dict) \
            or not isinstance(response, dict):
        return None
    line = tool_input.get("command")
    if not isinstance(line, str) or not isinstance(response.get("stdout"), str) \
            or not response["stdout"]:
        return None
    if response.get("interrupted") or response.get("isImage") or tool_input.get(
            "run_in_background") or response.get("backgroundTaskId"):
        return None
    return line, response


def grep_post(data: dict) -> dict | None:
    """The PostToolUse answer for a Grep call in ``content`` mode, or ``None``.

    Only ``content`` is shortened (as the search graph shortens ``rg -n``) and ``numLines`` set to
    the lines it now has; ``numFiles`` and ``filenames`` stay true of the search. The other modes
    are lists of names whose every entry is the answer (and a marker would read as a file name).
    """
    response, tool_input = data.get("tool_response"), data.get("tool_input")
    if not isinstance(response, dict) or not isinstance(tool_input, dict) \
            or response.get("mode") != "content" or not isinstance(response.get("content"), str) \
            or not response["content"]:
        return None
    from thresher.boundary import switches
    if switches.disabled() or switches.off("hooks") or not claim(data.get("tool_use_id")):
        return None
    from thresher.bench.replay import grep_command
    out = compress_for_agent(response["content"], grep_command(tool_input), data, response,
                             measuring=switches.measure_only(_cwd(data)))
    if out is None:
        return None
    replaced = {**response, "content": out}
    if isinstance(response.get("numLines"), int):
        replaced["numLines"] = len(out.splitlines())
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": replaced}}


def post_tool_use(data: dict, environ: Mapping[str, str]) -> dict | None:
    """The PostToolUse answer for a Bash or Grep call, or ``None`` (the original stands)."""
    if data.get("tool_name") == "Grep":
        return grep_post(data)
    usable = _usable(data)
    if usable is None:
        return None
    line, response = usable
    from thresher.boundary import switches
    if switches.disabled() or switches.off("hooks"):
        return None
    command = post_command(line)
    if command is None or _pre_would_wrap(data, environ):
        return None
    got = _full_text(response)
    if got is None or not claim(data.get("tool_use_id")):
        return None
    text, from_file = got
    out = compress_for_agent(text, command, data, response,
                             measuring=switches.measure_only(_cwd(data)))
    if out is None:
        return None
    replaced = {k: v for k, v in response.items()
                if not (from_file and k in ("persistedOutputPath", "persistedOutputSize"))}
    # with the saved-file keys kept, the host would show its own preview of the file instead
    replaced["stdout"] = out
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": replaced}}


CLAIMS_KEPT = 4096


def claim(tool_use_id: object) -> bool:
    """Whether this process is the first to answer ``tool_use_id`` (a second one stays silent).

    Two installs (user and project settings with different thresher paths) both run for one
    call; the second would fold the output against what the first just recorded as delivered.
    """
    if not isinstance(tool_use_id, str) or not tool_use_id:
        return True
    from thresher.stores.db import home

    from .claude_hook import sha256_hex
    folder = os.path.join(home(), "hook-claims")
    name = sha256_hex(tool_use_id)[:32]
    try:
        os.makedirs(folder, exist_ok=True)
        os.close(os.open(os.path.join(folder, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return True  # no claim possible: answering is still right for a single install
    _prune(folder)
    return True


def _prune(folder: str) -> None:
    """Keep the newest claims only (a call is answered within seconds of its claim)."""
    try:
        names = os.listdir(folder)
        if len(names) <= CLAIMS_KEPT:
            return
        paths = sorted((os.path.join(folder, n) for n in names), key=os.path.getmtime)
        for path in paths[:len(paths) // 2]:
            os.remove(path)
    except OSError:
        pass


def _cwd(data: dict) -> str | None:
    return data.get("cwd") if isinstance(data.get("cwd"), str) else None


def compress_for_agent(text: str, command: str, data: dict, response: dict,
                       measuring: bool = False) -> str | None:
    """thresher's view of ``text`` for the reader of ``data``; ``None`` when it is not smaller.

    The archive write (and the savings event) happen here, before the view is handed back.
    ``measuring`` (measure-first): the event is recorded as measure-only and ``None`` returned
    always, so the agent reads the original.
    """
    from thresher.boundary.deliver import deliver
    from thresher.stores.sessions import make_scope

    from .claude_hook import scope_of
    raw = text.encode("utf-8", "surrogateescape")
    named = scope_of(data)
    scope = make_scope(*named) if named else ""
    # the host's own wording when it read a non-zero status as no error (grep's 1, diff's 1)
    exit_code = None if response.get("returnCodeInterpretation") else 0
    done = deliver(raw, command=command, exit_code=exit_code, stream="stdout", scope=scope,
                   measuring=measuring, cwd=_cwd(data), binary=False, smaller_only=True)
    if done.measuring or done.result is None:
        return None  # measuring, not smaller, or not archived: the original stands
    return done.output.decode("utf-8", "replace")
