"""Would Claude Code's permission flow meet a rewritten Bash line the way it meets the original?

The hook answers a rewrite with ``updatedInput`` and *no* ``permissionDecision``, so Claude Code's
normal flow (deny rules, then ask rules, then allow rules, then the permission mode) decides. But
that flow looks at the rewritten line: "Claude Code evaluates permission rules ... against the input
your hook returns, not the input Claude sent" (hooks reference, PreToolUse decision control,
https://code.claude.com/docs/en/hooks#pretooluse-decision-control), and ``thresher run --`` is
neither one of the wrappers Claude Code strips before matching nor one of its built-in read-only
commands (https://code.claude.com/docs/en/permissions#process-wrappers and #read-only-commands).
A user's ``Bash(git push *)`` deny rule would no longer match ``thresher run -- git push``
(reported in anthropics/claude-code#65393: deny degrades to ask, allow rules stop matching).

So a rewrite is sent only when it provably leaves the outcome alone, judged with an
*over-approximating* matcher (a rule "may match" when its pattern matches any word-suffix of a
segment, assignments and wrappers included, so doubt always means "no rewrite"):

1. no deny or ask rule may match the original or the rewritten line, no sandbox is configured
   (its excluded commands run unsandboxed only under their own name), no rule came on the
   ``claude`` command line (:func:`cli_rules_seen`), and every settings file Claude Code would
   read parses (Read/Edit rules are judged apart: :mod:`thresher.integrations.file_rules`);
2. the mode is checked before any allow rule: ``bypassPermissions`` lets both run unprompted;
   in the prompting modes (``default``, ``acceptEdits``) a bare ``Bash`` allow rule does too,
   or else *both* lines must certainly prompt: each holds a segment that no allow rule may match
   and that is not possibly one of Claude Code's read-only commands (the original's such segment
   is a test run, a build, an install...); any other mode: no rewrite.

Commands Claude Code would run without asking (``git status``, ``ls``, ``grep``, or anything an
allow rule covers) are therefore left alone in the prompting modes: wrapping them would add a
prompt. ``auto``, ``plan``, ``dontAsk`` and an absent mode are never rewritten (the classifier or
the mode's own list would judge a different line).
"""

from __future__ import annotations

import os

from thresher.boundary import fastjson
from thresher.dataflow.rxcache import re_lazy as re  # imported only when a rule needs a regex

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from re import Pattern

PROMPT_MODES = frozenset({"default", "acceptEdits"})
FREE_MODES = frozenset({"bypassPermissions"})
PARAM_NAMES = frozenset({"description", "timeout", "run_in_background", "dangerouslyDisableSandbox"})

# Real commands that certainly are not in Claude Code's read-only set: they run code or change
# state. name -> None (any use) or the set of subcommands that qualify.
_BUILDERS = frozenset({"test", "build", "install", "ci", "run", "exec", "add", "check", "clippy",
                       "bench", "fmt", "doc", "nextest", "vet", "generate", "sync", "lock",
                       "pull", "push", "apply", "plan", "init", "upgrade", "destroy",
                       "t", "i", "x", "run-script", "publish", "update", "remove", "uninstall",
                       "fetch", "clone", "commit", "merge", "rebase", "cherry-pick", "am",
                       "tidy", "download", "wheel", "delete", "create", "rollout", "scale",
                       "patch", "template", "lint"})
CERTAIN_PROMPT: dict[str, frozenset | None] = {
    name: None for name in (
        "pytest", "py.test", "tox", "nox", "make", "gmake", "cmake", "ninja", "meson", "tsc",
        "eslint", "ruff", "mypy", "pyright", "flake8", "pylint", "black", "prettier", "jest",
        "vitest", "mocha", "mvn", "gradle", "gradlew", "javac", "gcc", "g++", "cc", "c++",
        "clang", "clang++", "rustc", "bazel", "dotnet", "phpunit", "rspec", "rake")}
CERTAIN_PROMPT.update({name: _BUILDERS for name in (
    "cargo", "go", "npm", "pnpm", "yarn", "bun", "pip", "uv", "poetry", "pdm", "hatch", "docker",
    "podman", "git", "kubectl", "helm", "terraform", "tofu")})
PYTHON_MODULES = frozenset({"pytest", "pip", "mypy", "unittest", "tox", "build", "ruff"})


class Unknown(Exception):
    """The outcome cannot be predicted (unreadable settings, an unknown rule form)."""


def settings_files(cwd: str, environ: Mapping[str, str]) -> list[str]:
    """Every settings file Claude Code may merge for a session in ``cwd`` (more is safer)."""
    from thresher.dataflow.paths import home_of   # an empty HOME counts as unset
    config = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home_of(dict(environ)) or "/", ".claude")
    files = ["/etc/claude-code/managed-settings.json",
             "/Library/Application Support/ClaudeCode/managed-settings.json",
             os.path.join(config, "settings.json"), os.path.join(config, "settings.local.json")]
    for drop in ("/etc/claude-code/managed-settings.d",):
        if os.path.isdir(drop):
            files += [os.path.join(drop, n) for n in sorted(os.listdir(drop)) if n.endswith(".json")]
    folders = {cwd, environ.get("CLAUDE_PROJECT_DIR") or cwd}
    for start in list(folders):  # settings.local.json loads from the repository root
        folder = start
        while folder and folder != os.path.dirname(folder):
            folders.add(folder)
            if os.path.exists(os.path.join(folder, ".git")):
                break
            folder = os.path.dirname(folder)
    for folder in sorted(f for f in folders if f):
        files += [os.path.join(folder, ".claude", "settings.json"),
                  os.path.join(folder, ".claude", "settings.local.json")]
    return files


# Claude Code command-line options that add rules or settings the files do not show.
CLI_RULE_FLAGS = ("--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools",
                  "--settings", "--add-dir", "--permission-prompt-tool")


def cli_rules_seen(environ: Mapping[str, str], pid: int | None = None, depth: int = 8) -> bool:
    """Whether the ``claude`` process that started this hook was given rule flags.

    Only when Claude Code started the hook (it sets ``CLAUDE_PROJECT_DIR`` for hook commands);
    the walk up the parents stops at the first process named like ``claude``. Read from
    ``/proc`` (Linux); where it cannot be read the answer is False and the README says what
    follows. Rules passed this way are invisible in the settings files, so with any of them the
    hook rewrites nothing (a deny rule there could stop matching the wrapped line).
    """
    if not environ.get("CLAUDE_PROJECT_DIR"):
        return False
    pid = os.getppid() if pid is None else pid
    for _ in range(depth):
        if pid <= 1:
            return False
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                words = [a.decode("utf-8", "replace") for a in fh.read().split(b"\0") if a]
            with open(f"/proc/{pid}/stat", "rb") as fh:
                pid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        if any(w.split("=", 1)[0] in CLI_RULE_FLAGS for w in words):
            return True
        if any(os.path.basename(w).startswith("claude") for w in words[:2]):
            return False  # Claude Code itself, without such flags
    return False


def load_rules(files: list[str]) -> dict:
    """``{"allow": [...], "ask": [...], "deny": [...], "sandbox": bool}`` merged from ``files``."""
    rules: dict = {"allow": [], "ask": [], "deny": [], "sandbox": False, "dirs": [],
                   "block_outside": False}
    for path in files:
        try:
            with open(path, "rb") as fh:
                data = fastjson.loads(fh.read() or b"{}")
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            raise Unknown(f"cannot read {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise Unknown(f"{path}: not a JSON object")
        perms = data.get("permissions") or {}
        if not isinstance(perms, dict):
            raise Unknown(f"{path}: \"permissions\" is not an object")
        for kind in ("allow", "ask", "deny"):
            entries = perms.get(kind) or []
            if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
                raise Unknown(f"{path}: permissions.{kind} is not a list of rules")
            rules[kind] += entries
        sandbox = data.get("sandbox")
        if isinstance(sandbox, dict) and sandbox.get("enabled"):
            rules["sandbox"] = True
        dirs = perms.get("additionalDirectories") or []
        rules["dirs"] += [d for d in dirs if isinstance(d, str)] if isinstance(dirs, list) else []
        # read wherever it may sit: doubt about a refusal means no rewrite, never a looser one
        if data.get("blockReadsOutsideWorkingDirectories") or \
                perms.get("blockReadsOutsideWorkingDirectories"):
            rules["block_outside"] = True
    return rules


def bash_specs(entries: list[str], kind: str) -> list[str | None]:
    """The Bash specifiers among ``entries``; ``None`` stands for a rule matching every command."""
    out: list[str | None] = []
    for entry in entries:
        tool, paren, spec = entry.strip().partition("(")
        tool = tool.strip()
        if paren and not spec.endswith(")"):
            raise Unknown(f"unparsed permission rule {entry!r}")
        spec = spec[:-1].strip() if paren else ""
        globbed = "*" in tool and kind != "allow" and re.fullmatch(
            tool.replace("*", ".*").replace("?", "."), "Bash") is not None
        if tool == "Bash" or globbed:
            out.append(None if spec in ("", "*") or globbed else spec)
    return out


def _regex(spec: str) -> Pattern[str]:
    """A Claude Code Bash pattern as a regex: ``*`` is any text; ``X *`` and ``X:*`` also match X."""
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    parts = [re.escape(p) for p in spec.split("*")]
    if spec.endswith(" *") and spec.count("*") == 1:
        return re.compile(parts[0][:-len(re.escape(" "))] + r"(?: .*)?", re.S)
    return re.compile(".*".join(parts), re.S)


def _suffixes(text: str) -> list[str]:
    """``text`` and every suffix of it starting at a word, each also with its first word's folder
    dropped (``/venv/bin/thresher run`` may meet a rule written for ``thresher run``)."""
    text = text.strip()
    out = [text] + [text[m.end():] for m in re.finditer(r"\s+", text) if text[m.end():]]
    return out + [re.sub(r"\A\S*/(?=\S)", "", s) for s in out if re.match(r"\S*/\S", s)]


def may_match(specs: list[str | None], texts: list[str], tool_input: dict) -> bool:
    """Whether any spec might match any of ``texts`` (over-approximated, see the module doc)."""
    for spec in specs:
        if spec is None:
            return True
        name, colon, value = spec.partition(":")
        if colon and name.strip() in PARAM_NAMES:
            got = tool_input.get(name.strip())
            if got is not None and re.fullmatch(_regex(value.strip()).pattern,
                                                str(got).lower(), re.S):
                return True
            continue
        regex = _regex(spec)
        if any(regex.fullmatch(s) for t in texts for s in _suffixes(t)):
            return True
    return False


def certain_prompt_command(real: str) -> bool:
    """``real`` (a command's words) certainly is not one of Claude Code's read-only commands."""
    words = real.split()
    if not words:
        return False
    from thresher.shell.policy import command_name
    name, args = command_name(words[0]), words[1:]
    if name == "thresher":  # Claude Code does not know thresher: never one of its read-only commands
        return True
    if name == "python":
        return "-m" in args[:-1] and args[args.index("-m") + 1] in PYTHON_MODULES
    if name not in CERTAIN_PROMPT:
        return False
    verbs = CERTAIN_PROMPT[name]
    first = next((a for a in args if not a.startswith("-")), "")
    return verbs is None or first in verbs


def unchanged(old: list, new: list, tool_input: dict, mode: str | None, rules: dict) -> bool:
    """Whether the rewrite keeps the permission outcome (see the module doc).

    ``old`` and ``new`` are ``(segment text, certainly not read-only)`` pairs of the two lines
    (a ``thresher run --`` segment is never read-only; see :func:`certain_prompt_command`).
    """
    if rules["sandbox"] or rules.get("cli"):
        return False
    texts = [t for t, _ in old] + [t for t, _ in new]
    guards = bash_specs(rules["deny"], "deny") + bash_specs(rules["ask"], "ask")
    if may_match(guards, texts, tool_input):
        return False
    allow = bash_specs(rules["allow"], "allow")
    # The mode comes first: auto, plan, dontAsk and unknown modes judge a line by their own
    # lights whatever the allow rules say (auto mode even drops broad Bash allow rules).
    if mode in FREE_MODES:
        return True
    if mode not in PROMPT_MODES:
        return False
    if None in allow:
        return True

    def prompts(pairs: list) -> bool:
        return any(certain and not may_match(allow, [text], tool_input)
                   for text, certain in pairs)
    return prompts(old) and prompts(new)


# Process wrappers Claude Code strips before matching a rule (permissions, "Process wrappers").
WRAPPERS = {"timeout": 1, "time": 0, "nice": 0, "nohup": 0, "stdbuf": 0}


def _bare(command: str) -> list[str]:
    """``command`` as Claude Code matches it: leading assignments and process wrappers dropped."""
    words = command.split()
    while words and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words = words[1:]
    while words and words[0] in WRAPPERS:
        takes = WRAPPERS[words[0]]
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
        words = words[takes:]
    return [" ".join(words)] if words else []


def verdict_for(command: str, tool_input: dict, rules: dict) -> str | None:
    """``"deny"``/``"ask"`` when a deny/ask rule would meet ``command`` typed on its own, else None.

    For ``thresher run -- X`` typed by the agent: Claude Code judges the whole line, which names
    thresher, so a rule written for ``X`` would never see ``X``. Matching here is the rule's own
    (anchored at the command's start, past assignments and the documented wrappers), not the
    hook's over-approximation: a false "deny" would block a command the user allowed.
    """
    texts = _bare(command)
    for kind in ("deny", "ask"):
        for spec in bash_specs(rules[kind], kind):
            if spec is None:
                return kind
            name, colon, value = spec.partition(":")
            if colon and name.strip() in PARAM_NAMES:
                if may_match([spec], texts, tool_input):
                    return kind
                continue
            if any(_regex(spec).fullmatch(t) for t in texts):
                return kind
    return None
