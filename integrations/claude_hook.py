"""``thresher hook claude``: Claude Code's hook events in, the documented JSON answer out.

Contract (hooks reference, https://code.claude.com/docs/en/hooks): the event arrives as one JSON
object on stdin with the common fields ``session_id``, ``cwd``, ``hook_event_name`` and, inside a
subagent, ``agent_id``; ``PreToolUse`` adds ``permission_mode``, ``tool_name``, ``tool_input``
(for Bash: ``command``, ``description``, ``timeout``, ``run_in_background``) and ``tool_use_id``.
"Exit code 0 with no output means the hook has no decision to report, so the tool call continues
through the normal permission flow" — that is the answer to everything this module cannot parse
or would rather not touch.

- ``PreToolUse`` on Bash: when ``thresher rewrite`` wraps part of the line, and the rewrite leaves
  the permission outcome alone (:mod:`thresher.integrations.permissions`), the answer is
  ``{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {...}}}``: the whole
  tool input ("updatedInput ... replaces the entire input object, so include unchanged fields")
  with the new ``command``, and deliberately no ``permissionDecision`` — ``"allow"`` would skip
  the user's prompt, ``"ask"`` would add one; without it Claude Code's normal flow decides.
- The reader scope travels inside the rewrite: each wrapped command gets
  ``THRESHER_SESSION=cc-<hash of session_id>`` and, in a subagent, ``THRESHER_AGENT=<agent_id>``
  (subagents have their own context: they must never be told "already shown" about their parent's
  output). A ``thresher read``/``expand`` the agent runs itself gets the same assignments. A
  command that did not come through the hook has no scope, so nothing is folded for it.
- ``PostToolUse`` on Bash: the output of a command PreToolUse left alone is replaced by its
  compressed view (:mod:`thresher.integrations.claude_post`); nothing about what ran changes.
- ``PreToolUse`` on a ``thresher run -- X`` line the agent typed: ``X`` is judged against the
  deny/ask rules as if typed alone, and a match answers ``permissionDecision`` deny/ask.
- ``SessionStart`` (source ``clear``/``compact``), ``PreCompact``, ``SubagentStart``,
  ``SubagentStop`` and ``SessionEnd`` drop the scope whose context was lost or ended.
"""

from __future__ import annotations

import os

from thresher.boundary import fastjson  # json.loads/dumps without json's import of re (start-up)
from thresher.dataflow.rxcache import Lazy

from thresher.boundary.digest import sha256_hex

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping

SAFE_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
SCOPED_THRESHER = ("read", "expand")


def session_token(session_id: str) -> str:
    """The short, shell-safe session name used in scopes (``cc-`` + 12 hex of its SHA-256)."""
    return "cc-" + sha256_hex(session_id)[:12]


def safe_id(text: str) -> bool:
    """1 to 64 characters, each a letter, digit, ``.``, ``_`` or ``-`` (a shell-safe name)."""
    return 0 < len(text) <= 64 and SAFE_ID_CHARS.issuperset(text)


def scope_of(data: dict) -> tuple[str, str] | None:
    """``(session token, agent id)`` of a hook input; ``None`` when no safe scope exists."""
    session = data.get("session_id")
    if not isinstance(session, str) or not session:
        return None
    agent = data.get("agent_id") or ""
    if agent and (not isinstance(agent, str) or not safe_id(agent)):
        return None  # a subagent we cannot name must not share its parent's scope
    return session_token(session), agent


def _assignments(scope: tuple[str, str] | None) -> str:
    if scope is None:
        return ""
    return f"THRESHER_SESSION={scope[0]} " + (f"THRESHER_AGENT={scope[1]} " if scope[1] else "")


def rewrite_line(line: str, scope: tuple[str, str] | None):
    """``(new line, old pairs, new pairs, wrapped segment texts)`` or ``None`` when nothing changes.

    Pairs are ``(segment text, certainly not read-only)`` for the permission check. The wrapper
    is this install's ``thresher`` by its absolute path (see ``claude_settings.runner_words``).
    """
    from thresher.shell.policy import command_name
    from thresher.shell.rewrite import analyze
    from .claude_settings import runner_words
    from .permissions import certain_prompt_command
    env, wrap = _assignments(scope), runner_words() + " run -- "
    decisions = analyze(line)
    inserts, old, wrapped = [], [], []
    for d in decisions:
        old.append((d.text, certain_prompt_command(d.real)))
        words = d.real.split()
        if d.wrap:
            inserts.append((d.insert_at, env + wrap))
            wrapped.append(d.text)
        elif env and d.insert_at >= 0 and len(words) > 1 and command_name(words[0]) == "thresher" \
                and words[1] in SCOPED_THRESHER:
            inserts.append((d.insert_at, env))
    if not inserts:
        return None
    out, last = [], 0
    for at, text in inserts:
        out += [line[last:at], text]
        last = at
    new_line = "".join(out) + line[last:]
    new = [(d.text, certain_prompt_command(d.real)) for d in analyze(new_line)]
    return new_line, old, new, wrapped


def run_targets(line: str) -> list[str]:
    """The commands X of every ``thresher run [OPTS] -- X`` segment the agent typed itself."""
    from thresher.shell.policy import command_name
    from thresher.shell.rewrite import analyze
    out = []
    for d in analyze(line):
        words = d.real.split()
        if len(words) > 2 and command_name(words[0]) == "thresher" and words[1] == "run":
            from thresher.boundary.run_args import parse  # (only then: most lines run no thresher)
            try:
                out.append(" ".join(parse(words[2:])[1]))
            except ValueError:
                continue  # thresher run will refuse it itself
    return out


def _verdict(kind: str, command: str) -> dict:
    reason = (f"a permission {kind} rule matches `{command}`, which this line runs through "
              "`thresher run`")
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": kind,
                                   "permissionDecisionReason": reason}}


CHDIR = Lazy(r"(?:\A|[;&|(\s])(?:cd|pushd|popd)(?:\s|\Z|;)")


def _file_rules_allow(texts: list[str], rules: dict, cwd: str, environ: Mapping[str, str],
                      line: str) -> bool:
    """No Read/Edit rule (nor the working-directory limit) could meet a wrapped segment's paths."""
    from thresher.shell.lexer import tokenize
    from thresher.shell.segments import split
    from .file_rules import may_refuse, policy_from
    policy = policy_from(rules, cwd, environ)
    if not policy.active():
        return True
    if CHDIR.search(line):
        return False  # relative paths after a cd are relative to a folder we do not follow
    for text in texts:
        try:
            segs = split(tokenize(text))
        except Exception:  # noqa: BLE001 - cannot say which paths it touches: no rewrite
            return False
        if any(may_refuse(policy, seg, cwd, environ) for seg in segs):
            return False
    return True


def _judge_run_targets(line: str, tool_input: dict, cwd: str, environ: Mapping[str, str]) -> dict | None:
    """For ``thresher run -- X`` lines: the deny/ask answer for X, else the rules loaded (or None).

    Judged even in the background and with thresher switched off: it is the user's rule.
    Raises ``permissions.Unknown`` when the settings cannot be read.
    """
    from .permissions import load_rules, settings_files, verdict_for
    targets = run_targets(line)
    if not targets:
        return None
    rules = load_rules(settings_files(cwd, environ))
    verdicts = [(verdict_for(x, tool_input, rules), x) for x in targets]
    for kind in ("deny", "ask"):
        hit = next((x for v, x in verdicts if v == kind), None)
        if hit is not None:
            return _verdict(kind, hit)
    return rules


def pre_tool_use(data: dict, environ: Mapping[str, str]) -> dict | None:
    """The PreToolUse answer for a Bash call, or ``None`` (no output)."""
    tool_input = data.get("tool_input")
    if data.get("tool_name") != "Bash" or not isinstance(tool_input, dict):
        return None
    line = tool_input.get("command")
    if not isinstance(line, str) or not line.strip():
        return None
    from .permissions import Unknown, load_rules, settings_files, unchanged
    given = data.get("cwd")
    cwd: str = given if isinstance(given, str) else os.getcwd()
    try:
        rules = _judge_run_targets(line, tool_input, cwd, environ)
    except Unknown:
        return None
    if isinstance(rules, dict) and "hookSpecificOutput" in rules:
        return rules
    if tool_input.get("run_in_background"):
        return None  # a background command's output is read while it runs: never hold it back
    from thresher.boundary import switches
    from .claude_post import raw_asked
    if switches.disabled() or switches.off("hooks") or raw_asked(line):
        return None  # off, or the agent asked for this line's output untouched
    done = rewrite_line(line, scope_of(data))
    if done is None:
        return None
    new_line, old, new, wrapped = done
    try:
        rules = rules or load_rules(settings_files(cwd, environ))
    except Unknown:
        return None
    from .permissions import cli_rules_seen
    rules["cli"] = cli_rules_seen(environ)
    mode = data.get("permission_mode")
    if not unchanged(old, new, tool_input, mode if isinstance(mode, str) else None, rules):
        return None
    if not _file_rules_allow(wrapped, rules, cwd, environ, line):
        return None
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                   "updatedInput": {**tool_input, "command": new_line}}}


def scope_event(data: dict) -> None:
    """Drop the ledger scope whose reader lost its context (or ended)."""
    event, scope = data.get("hook_event_name"), scope_of(data)
    if scope is None:
        return
    session, agent = scope
    from thresher.stores.sessions import drop_scope, make_scope
    if event == "SessionStart":
        if data.get("source") in ("clear", "compact"):
            drop_scope(session, subscopes=True)
    elif event in ("PreCompact", "SubagentStart", "SubagentStop"):
        drop_scope(make_scope(session, agent))  # the main reader's compaction keeps subagents
    elif event == "SessionEnd":
        drop_scope(session, subscopes=True)


SCOPE_EVENTS = ("SessionStart", "PreCompact", "SubagentStart", "SubagentStop", "SessionEnd")


def handle(raw: bytes, environ: Mapping[str, str] | None = None) -> str:
    """The hook's stdout for one event ("" for none). Never raises."""
    environ = os.environ if environ is None else environ
    try:
        data = fastjson.loads(raw)
        if not isinstance(data, dict):
            return ""
        event = data.get("hook_event_name")
        if event == "PreToolUse":
            answer = pre_tool_use(data, environ)
            return fastjson.dumps(answer) + "\n" if answer else ""
        if event == "PostToolUse":
            from .claude_post import post_tool_use
            answer = post_tool_use(data, environ)
            return fastjson.dumps(answer) + "\n" if answer else ""
        if event in SCOPE_EVENTS:
            scope_event(data)
    except Exception:  # noqa: BLE001 - anything unexpected: no output, the call runs untouched
        return ""
    return ""
