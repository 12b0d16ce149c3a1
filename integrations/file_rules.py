"""Could a Claude Code ``Read(...)``/``Edit(...)`` rule, or the working-directory limit, see a path?

Claude Code applies ``Read``/``Edit`` deny and ask rules to the file commands it recognises in a
Bash line (``cat .env``, ``grep -r KEY src``...) and, with ``blockReadsOutsideWorkingDirectories``,
refuses reads outside the working directories (https://code.claude.com/docs/en/permissions,
"Read and Edit" and "Working directories"). It does not look inside a subprocess: once a segment
runs as ``thresher run -- cat .env`` those rules no longer meet it. So a segment is wrapped only
when no such rule could match any path it touches; this module answers that question,
over-approximating (any doubt means "could match", hence no rewrite):

- the paths a segment touches are every non-option word and ``--opt=value`` value, every
  redirection target, and the current folder for a file command given no path (``grep -r KEY``);
- a word that expands (``$X``, ``~user``) could be any path;
- a glob word (``*.env``) stands for its literal folder and everything below it;
- rule paths follow the documented forms: ``//abs`` from the filesystem root, ``~/p`` from HOME,
  ``/p`` from the folder of the settings file (any candidate project folder, and ``/`` too, since
  the merged rules forget which file they came from), ``p`` or ``./p`` from the current folder;
  a pattern without a slash matches at any depth, as in gitignore;
- a path "could match" when the pattern matches it or one of its parent folders, or when it is
  a folder (or not there at all: it may be one) that may hold something the pattern matches.
"""

from __future__ import annotations

import os

from thresher.dataflow.rxcache import Lazy
from thresher.dataflow.rxcache import re_lazy as re  # imported only when a rule needs a regex

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from re import Pattern

FILE_KINDS = ("Read", "Edit", "Write", "MultiEdit", "NotebookEdit")
# Commands that read the current folder when given no path operand.
TREE_READERS = frozenset({"find", "ls", "tree", "du"})
# Searchers whose first operand is the pattern: with no further operand they read the folder.
SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack"})
# git reads the work tree (diff, log -p, grep show file contents) whatever its operands.
GLOB = Lazy(r"[*?\[]")


class FilePolicy:
    """The Read/Edit-family deny/ask patterns and the working-directory limit of one session."""

    def __init__(self, patterns: list[str | None], block_outside: bool,
                 workdirs: list[str]) -> None:
        self.patterns, self.block_outside = patterns, block_outside
        self.workdirs = [os.path.normpath(w) for w in workdirs if w]

    def active(self) -> bool:
        """Whether anything here could refuse a path."""
        return bool(self.patterns) or self.block_outside


def file_specs(entries: list[str]) -> list[str | None]:
    """The path specifiers of Read/Edit-family rules; ``None`` stands for a rule on every file."""
    out: list[str | None] = []
    for entry in entries:
        tool, paren, spec = entry.strip().partition("(")
        tool = tool.strip()
        if tool not in FILE_KINDS and not ("*" in tool and any(
                re.fullmatch(tool.replace("*", ".*"), k) for k in FILE_KINDS)):
            continue
        spec = spec[:-1].strip() if paren and spec.endswith(")") else ""
        out.append(spec or None)
    return out


def policy_from(rules: dict, cwd: str, environ: Mapping[str, str]) -> FilePolicy:
    """The :class:`FilePolicy` of merged ``rules`` (see ``permissions.load_rules``)."""
    patterns = file_specs(rules.get("deny", [])) + file_specs(rules.get("ask", []))
    workdirs = [cwd, environ.get("CLAUDE_PROJECT_DIR") or ""] + list(rules.get("dirs", []))
    return FilePolicy(patterns, bool(rules.get("block_outside")), workdirs)


def _anchors(spec: str, cwd: str, home: str, roots: list[str]) -> list[tuple[str, bool]]:
    """``(absolute pattern, anchored)`` readings of one rule path (several when ambiguous)."""
    if spec.startswith("//"):
        return [("/" + spec[2:].lstrip("/"), True)]
    if spec.startswith("~/"):
        return [(os.path.join(home, spec[2:]), True)]
    if spec.startswith("/"):
        return [(os.path.join(r, spec[1:]), True) for r in roots] + [(spec, True)]
    body = spec[2:] if spec.startswith("./") else spec
    anchored = "/" in body.rstrip("/")
    return [(os.path.join(cwd, body), anchored)]


def _glob_regex(pattern: str) -> Pattern[str]:
    """A gitignore-style glob (``**`` crosses folders, ``*`` and ``?`` do not) as a regex."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out).rstrip("/") + r"(?:/.*)?\Z", re.S)


def _literal_dir(pattern: str) -> str:
    """The folder part of ``pattern`` before its first wildcard."""
    m = GLOB.search(pattern)
    head = pattern if m is None else pattern[:m.start()]
    return os.path.normpath(head if m is None else os.path.dirname(head) or "/")


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def pattern_may_see(spec: str | None, path: str, is_dir: bool, ctx: dict) -> bool:
    """Whether the rule path ``spec`` could match ``path`` or, for a folder, anything below it."""
    if spec is None:
        return True
    for pattern, anchored in _anchors(spec, ctx["cwd"], ctx["home"], ctx["roots"]):
        if not anchored:  # ".env", "*.key": any depth below its folder
            base = os.path.dirname(pattern)
            name = _glob_regex(os.path.basename(pattern.rstrip("/")))
            if _within(path, base) and (is_dir or any(
                    name.match(part) for part in path[len(base):].split("/") if part)):
                return True
            if is_dir and _within(base, path):
                return True
            continue
        if _glob_regex(pattern).match(path):
            return True
        if is_dir:
            lit = _literal_dir(pattern)
            if _within(lit, path) or _within(path, lit):
                return True
    return False


def touched(segment, cwd: str, home: str) -> list[tuple[str, bool]] | None:
    """``(absolute path, may be a folder)`` for each path a segment may touch; ``None`` if unknown.

    ``segment`` is a :class:`thresher.shell.segments.Segment`; words before the command name
    (assignments) are skipped, the command name itself is not a path it reads.
    """
    words = [w for w in segment.words if not w.assign]
    if not words:
        return []
    from thresher.shell.policy import command_name
    name = command_name(words[0].value)
    values, operands = [], 0
    for tok in words[1:] + [t for _, t in segment.redirects]:
        if tok.expands or tok.value.startswith("~") and not tok.value.startswith("~/"):
            return None
        value = tok.value
        if value.startswith("-"):
            if "=" not in value:
                continue
            value = value.split("=", 1)[1]
        else:
            operands += 1
        if value:
            values.append(value)
    if name == "git" or (name in TREE_READERS and not operands) or (
            name in SEARCHERS and operands <= 1):
        values.append(".")
    out = []
    for value in values:
        value = os.path.join(home, value[2:]) if value.startswith("~/") else value
        glob = GLOB.search(value) is not None
        if glob:
            value = _literal_dir(value)
        path = os.path.normpath(os.path.join(cwd, value))
        # a path that is not there may be a folder the command creates or a name it searches for
        maybe_dir = glob or os.path.isdir(path) or not os.path.lexists(path) or value[-1] in "/."
        out.append((path, maybe_dir))
    return out


def may_refuse(policy: FilePolicy, segment, cwd: str, environ: Mapping[str, str]) -> bool:
    """Whether a Read/Edit rule or the working-directory limit could meet ``segment``'s paths."""
    if not policy.active():
        return False
    from thresher.dataflow.paths import home_of   # an empty HOME counts as unset
    home = home_of(dict(environ))
    paths = touched(segment, cwd, home)
    if paths is None:
        return True
    ctx = {"cwd": cwd, "home": home, "roots": policy.workdirs + [cwd]}
    for path, is_dir in paths:
        real = os.path.realpath(path)
        for candidate in {path, real}:
            if policy.block_outside and not any(_within(candidate, w) for w in policy.workdirs):
                return True
            if any(pattern_may_see(p, candidate, is_dir, ctx) for p in policy.patterns):
                return True
    return False
