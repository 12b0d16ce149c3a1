"""Merge thresher's hooks into a Claude Code settings.json, and take them out again.

Layout (hooks reference, "Configuration", https://code.claude.com/docs/en/hooks#configuration):
``{"hooks": {EVENT: [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}``;
events without matcher support ignore the ``matcher`` field, so those groups carry none. The
PostToolUse group holds one handler per command thresher has a use for, each with an ``if``
condition (see :func:`post_conditions`). Hook
entries merge across settings levels, so thresher only ever adds its own groups and never
touches anyone else's. Our handlers are recognised by their command (``... hook claude``).

The first install keeps the file's exact bytes in ``settings.json.thresher-backup`` (or notes in
``settings.json.thresher-absent`` that there was no file). ``--uninstall`` removes thresher's
handlers; when what is left equals the backup, the backup's bytes are put back exactly (or the
file is removed when there was none), otherwise the cleaned file is written and the backup kept.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping

EVENTS = {"PreToolUse": "Bash", "PostToolUse": "Bash", "SessionStart": None, "PreCompact": None,
          "SubagentStart": None, "SubagentStop": None, "SessionEnd": None}
TIMEOUT_S = 10  # a timed-out hook does not block: the call goes on (or its output stays) unchanged
# Spellings of a command that reach the table only through a path Claude Code matches literally.
LOCAL_SPELLINGS = ("./gradlew", "./mvnw", "./node_modules/.bin/tsc", "./node_modules/.bin/jest",
                   "./node_modules/.bin/eslint", "./node_modules/.bin/vitest")
MARK = "hook claude"


class SettingsError(Exception):
    """The settings file cannot be read or merged (the message names the file and the fix)."""


def user_settings(environ: Mapping[str, str] | None = None) -> str:
    """``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json`` when set)."""
    env = os.environ if environ is None else environ
    from thresher.dataflow.paths import home_of   # an empty HOME counts as unset
    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home_of(dict(env)) or "~", ".claude")
    return os.path.join(os.path.expanduser(base), "settings.json")


def project_settings(project: str) -> str:
    """``PROJECT/.claude/settings.json``."""
    return os.path.join(project, ".claude", "settings.json")


SHELL_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")
"""The characters ``shlex.quote`` leaves unquoted."""


def shell_quote(text: str) -> str:
    """``shlex.quote(text)``, importing ``shlex`` (and its ``re``) only for a text it must quote:
    the hook writes this install's path into every rewrite."""
    if text and SHELL_SAFE.issuperset(text):
        return text
    import shlex
    return shlex.quote(text)


def runner_words() -> str:
    """This install's ``thresher`` as shell words: its absolute path, quoted.

    The hook command and every rewritten line use it, because the agent's shell need not have
    the venv on PATH (README install: ``.venv/bin/thresher``); a bare ``thresher`` would exit 127.
    """
    exe = os.path.join(os.path.dirname(sys.executable), "thresher")
    if not os.access(exe, os.X_OK):
        import shutil
        exe = shutil.which("thresher") or ""
    if exe:
        return shell_quote(os.path.abspath(exe))
    return f"{shell_quote(sys.executable)} -m thresher"


def hook_command() -> str:
    """The shell command Claude Code should run: this install's ``thresher``, absolute, quoted."""
    return f"{runner_words()} {MARK}"


def is_ours(handler: object) -> bool:
    """A handler thresher installed."""
    return (isinstance(handler, dict) and isinstance(handler.get("command"), str)
            and handler["command"].endswith(MARK) and "thresher" in handler["command"])


def _load(path: str) -> tuple[dict, bytes | None]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return {}, None
    import json
    try:
        data = json.loads(raw.decode("utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        where = (f" (line {exc.lineno}, column {exc.colno})"
                 if isinstance(exc, json.JSONDecodeError) else "")
        raise SettingsError(f"{path}{where}: not valid JSON: {exc}; fix or move the file, then "
                            "run `thresher init claude` again") from exc
    if not isinstance(data, dict) or not isinstance(data.get("hooks", {}), dict):
        raise SettingsError(f"{path}: expected a JSON object whose \"hooks\" is an object")
    return data, raw


def _write(path: str, data: dict) -> None:
    import json
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".thresher-tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def strip_ours(data: dict) -> dict:
    """``data`` without thresher's handlers (empty groups and events dropped)."""
    out = dict(data)
    hooks = {}
    for event, groups in (data.get("hooks") or {}).items():
        kept = []
        for group in groups if isinstance(groups, list) else [groups]:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                rest = [h for h in group["hooks"] if not is_ours(h)]
                if not rest:
                    continue
                group = {**group, "hooks": rest}
            kept.append(group)
        if kept:
            hooks[event] = kept
    if hooks:
        out["hooks"] = hooks
    else:
        out.pop("hooks", None)
    return out


def post_conditions() -> list[str]:
    """The ``if`` conditions of the PostToolUse handlers: one per command thresher has a use for.

    The ``if`` field (hooks reference, "Hook handler fields"; Claude Code >= 2.1.85) takes one
    permission rule and starts the handler only for a call it matches, so the process (~50 ms)
    is not started for ``cd``, ``echo`` or anything else thresher would leave alone. A rule holds
    no alternation, hence one handler per command; identical handlers (same command string) are
    run once per call by the host, and a second answer for one call is refused anyway
    (``claude_post.claim``). Output replacement needs Claude Code 2.1.121, which knows the field;
    a handler started for a call it has no use for declines it itself.
    """
    from thresher.shell.commands import ALIASES, TABLE
    from thresher.shell.prefixes import BUILTIN
    names = set(TABLE) | {a for a, t in ALIASES.items() if t in TABLE} | set(LOCAL_SPELLINGS)
    names |= set(BUILTIN)  # sudo, timeout, npx, uv run...: the real command comes after them
    return [f"Bash({name} *)" for name in sorted(names)]


def _handlers(event: str, command: str) -> list[dict]:
    handler = {"type": "command", "command": command, "timeout": TIMEOUT_S}
    if event == "PostToolUse":
        return [{**handler, "if": cond} for cond in post_conditions()]
    return [handler]


def _groups(event: str, matcher: str | None, command: str) -> list[dict]:
    """thresher's groups for one event (PostToolUse has a second one, for the Grep tool)."""
    handlers = _handlers(event, command)
    groups = [{"matcher": matcher, "hooks": handlers} if matcher else {"hooks": handlers}]
    if event == "PostToolUse":
        groups.append({"matcher": "Grep", "hooks": [
            {"type": "command", "command": command, "timeout": TIMEOUT_S}]})
    return groups


def merged(data: dict, command: str) -> dict:
    """``data`` with exactly one thresher group per event (others' entries untouched)."""
    out = strip_ours(data)
    hooks = dict(out.get("hooks") or {})
    for event, matcher in EVENTS.items():
        hooks[event] = list(hooks.get(event) or []) + _groups(event, matcher, command)
    out["hooks"] = hooks
    return out


def install(path: str, command: str | None = None) -> str:
    """Merge the hooks into ``path``; return what happened (one line)."""
    data, raw = _load(path)
    new = merged(data, command or hook_command())
    if raw is not None and new == data:
        return f"already installed in {path}"
    backup, absent = path + ".thresher-backup", path + ".thresher-absent"
    if not os.path.exists(backup) and not os.path.exists(absent):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(backup if raw is not None else absent, "wb") as fh:
            fh.write(raw or b"")
    _write(path, new)
    return f"installed hooks in {path} (backup: {backup if raw is not None else 'none, new file'})"


def uninstall(path: str) -> str:
    """Remove thresher's handlers from ``path``, restoring the backup byte-exact when possible."""
    data, raw = _load(path)
    backup, absent = path + ".thresher-backup", path + ".thresher-absent"
    left = strip_ours(data)
    if os.path.exists(absent) and not left:
        if raw is not None:
            os.remove(path)
        os.remove(absent)
        return f"removed {path} (it did not exist before thresher)"
    if os.path.exists(backup):
        with open(backup, "rb") as fh:
            old = fh.read()
        if _load_bytes(old) == left:
            with open(path, "wb") as fh:
                fh.write(old)
            os.remove(backup)
            return f"restored {path} from its backup (byte-exact)"
    if raw is None or left == data:
        return f"no thresher hooks in {path}"
    _write(path, left)
    kept = f"; the pre-install copy is kept at {backup}" if os.path.exists(backup) else ""
    return f"removed thresher's hooks from {path} (other edits since install kept{kept})"


def _load_bytes(raw: bytes) -> dict | None:
    import json
    try:
        data = json.loads(raw.decode("utf-8") or "{}")
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def check(path: str) -> list[str]:
    """Problems with thresher's hooks in ``path`` ([] when every event is wired and well-formed)."""
    try:
        data, raw = _load(path)
    except SettingsError as exc:
        return [str(exc)]
    if raw is None:
        return [f"{path}: no such file"]
    problems = []
    hooks = data.get("hooks") or {}
    for event, matcher in EVENTS.items():
        groups = hooks.get(event)
        ours = [g for g in groups or [] if isinstance(g, dict)
                and any(is_ours(h) for h in g.get("hooks") or [])]
        if not ours:
            problems.append(f"{path}: no thresher handler for {event}")
        elif matcher and not any(g.get("matcher") == matcher for g in ours):
            problems.append(f"{path}: the thresher {event} group does not match {matcher!r}")
        elif event == "PostToolUse":
            conds = {h.get("if") for g in ours if g.get("matcher") == "Bash"
                     for h in g.get("hooks") or [] if is_ours(h)}
            if not any(g.get("matcher") == "Grep" for g in ours):
                problems.append(f"{path}: no thresher PostToolUse handler for the Grep tool")
            elif conds != set(post_conditions()):
                problems.append(f"{path}: the thresher PostToolUse conditions are not this "
                                "version's (re-run init to refresh them)")
    return problems


def commands_in(path: str) -> list[str]:
    """The distinct thresher hook commands configured in ``path``."""
    try:
        data, _ = _load(path)
    except SettingsError:
        return []
    found = []
    for groups in (data.get("hooks") or {}).values():
        for group in groups if isinstance(groups, list) else []:
            for h in (group.get("hooks") or []) if isinstance(group, dict) else []:
                if is_ours(h) and h["command"] not in found:
                    found.append(h["command"])
    return found
