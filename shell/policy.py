"""The wrap decision for one real command (its argv, transparent prefixes already stripped).

:func:`decide` walks the entry of :data:`thresher.shell.commands.TABLE` for the command through its
subcommands, checking flags at each level. Every "no" carries the reason shown by ``--explain``.
Unknown commands are never wrapped: thresher only sits in front of output it has a use for.
"""

from __future__ import annotations

from .commands import (ALIASES, BUILTINS, DEV_NAMES, DOCUMENT_VALUE_FLAGS, DOCUMENT_VALUES, INTERACTIVE,
                       INTERACTIVE_BARE, STRUCTURED, STRUCTURED_VALUE_FLAGS, STRUCTURED_VALUES, TABLE,
                       WATCH)
from .prefixes import skip_options

TYPE_CHECKING = False  # as in commands: no typing on the hook's path
if TYPE_CHECKING:
    from .commands import Entry


def command_name(word: str) -> str:
    """The table key of a command word: basename, version suffix dropped, aliases resolved."""
    name = word.rsplit("/", 1)[-1]
    for stem in ("python", "pip"):  # python3.12, pip3.11
        if name.startswith(stem) and name[len(stem):].replace(".", "").isdigit():
            name = stem
    return ALIASES.get(name, name)


def decide(argv: list[str]) -> tuple[bool, str]:
    """Whether the real command ``argv`` is worth wrapping, and why (or why not)."""
    if not argv:
        return False, "no command (assignments or redirections only)"
    name, args = command_name(argv[0]), argv[1:]
    if name == "thresher":
        return False, "already runs through thresher"
    if name in BUILTINS:
        return False, "builtin or trivial command"
    if name in INTERACTIVE:
        return False, "interactive program"
    if not args and name in INTERACTIVE_BARE:
        return False, "interactive without arguments"
    entry = TABLE.get(name)
    if entry is None:
        return False, "not in the table of commands worth wrapping"
    if any(a in WATCH or (a.startswith("--watch=") and a not in ("--watch=false", "--watch=0"))
           for a in args):   # `--watch=false`/`--watchAll=false`: the run that does not watch
        return False, "watch mode never exits"
    if structured(args, (), ""):
        return False, "structured output (passes byte-exact anyway): left alone, zero overhead"
    return _entry(entry, name, args)


def _entry(entry: Entry, label: str, args: list[str]) -> tuple[bool, str]:
    """Apply one table entry (and, through ``sub``, its children) to ``args``."""
    if "no" in entry:
        return False, f"{label}: {entry['no']}"
    vletters = entry.get("vletters", "")
    for flag, why in entry.get("never", {}).items():
        if has_flag(args, flag, vletters):
            return False, f"{label} {flag}: {why}"
    if structured(args, entry.get("structured", ()), vletters):
        return False, "structured output (passes byte-exact anyway): left alone, zero overhead"
    if "need" in entry and not any(has_flag(args, f, vletters) for f in entry["need"]):
        return False, f"{label}: {entry['need_why']}"
    if "module" in entry:
        return _python(entry, args)
    if "sub" in entry:
        return _sub(entry, label, args)
    if not args and isinstance(entry.get("bare"), str):
        return False, f"{label}: {entry['bare']}"
    if entry.get("script"):
        i = skip_options(args, 0, *entry.get("gopts", ("", ())))
        if i < len(args) and dev_like(args[i]):
            return False, f"{label} {args[i]}: looks like a dev server or watcher"
    return True, f"{label}: in the table"


def _sub(entry: Entry, label: str, args: list[str]) -> tuple[bool, str]:
    """Find the subcommand (after global options and ``+toolchain`` words) and recurse."""
    i = skip_options(args, 0, *entry.get("gopts", ("", ())))
    while i < len(args) and args[i].startswith("+"):  # cargo +nightly build
        i += 1
    if i >= len(args):
        if entry.get("bare") is True:
            return True, f"{label}: in the table"
        return False, f"{label}: no subcommand"
    sub = args[i]
    child = entry["sub"].get(sub)
    if child is None:
        child = entry["sub"].get("*")
        if child is None:
            return False, f"{label} {sub}: subcommand not in the table"
    if child.get("self_script") and dev_like(sub):
        return False, f"{label} {sub}: looks like a dev server or watcher"
    return _entry(child, f"{label} {sub}", args[i + 1:])


def _python(entry: Entry, args: list[str]) -> tuple[bool, str]:
    """``python [opts] -m MODULE ...`` is looked up by module; scripts and ``-c`` are unknown."""
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg == "-":
            return False, "python script: its output is unknown"
        i += 1
        for j, ch in enumerate(arg[1:], start=2):
            if arg.startswith("--"):
                break
            if ch == "c":
                return False, "python -c: inline code, its output is unknown"
            if ch == "m":
                module = arg[j:] or (args[i] if i < len(args) else "")
                rest = args[i + (0 if arg[j:] else 1):]
                child = entry["module"].get(module)
                if child is None:
                    return False, f"python -m {module}: module not in the table"
                return _entry(child, f"python -m {module}", rest)
            if ch in "WXQ":
                i += 0 if arg[j:] else 1  # the option's value
                break
    return False, "python without a script or module: interactive or trivial"


def has_flag(args: list[str], flag: str, vletters: str = "") -> bool:
    """Whether ``flag`` is among ``args`` (see the flag notation in ``commands``).

    Letters in ``vletters`` take a value, so a short cluster stops there (``-owide`` holds no w).
    """
    if not flag.startswith("-"):
        return flag in args
    if flag.startswith("--") or len(flag) > 2:
        if flag.endswith((":", "=")):
            return any(a.startswith(flag) for a in args)
        return any(a == flag or a.startswith(flag + "=") for a in args)
    for arg in args:
        if arg.startswith("-") and not arg.startswith("--"):
            for ch in arg[1:]:
                if ch == flag[1]:
                    return True
                if not ch.isalpha() or ch in vletters:
                    break
    return False


def structured(args: list[str], extra: tuple[str, ...], vletters: str) -> bool:
    """Output meant for a program (``--porcelain``, ``-z``, ``--format=%H``, ``-o name``); one
    JSON/YAML document (``--json``, ``-o yaml``) is not: the agent reading it gets the crushed view."""
    if any(has_flag(args, f, vletters) for f in STRUCTURED + extra):
        return True
    for i, arg in enumerate(args):
        for flag in STRUCTURED_VALUE_FLAGS:
            if arg == flag and i + 1 < len(args):
                value = args[i + 1]
            elif arg.startswith(flag + "=") or (len(flag) == 2 and arg.startswith(flag)):
                value = arg[len(flag):].lstrip("=")
            else:
                continue
            value = value.split("=", 1)[0]
            if flag in DOCUMENT_VALUE_FLAGS and value in DOCUMENT_VALUES:
                continue  # one JSON/YAML document: a read when the agent sees it (issue 16)
            if flag == "--format" or value in STRUCTURED_VALUES:
                return True
    return False


def dev_like(name: str) -> bool:
    """A script/target name that usually starts a server or watcher (``dev``, ``test:watch``)."""
    for sep in ":-_/":
        name = name.replace(sep, " ")
    return any(part in DEV_NAMES for part in name.lower().split())
