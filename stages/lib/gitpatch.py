"""Parse git diff / git show / git log (and ``diff -u``) output into commits, files and hunks.

The parser only labels view lines; it never changes them. It returns ``None`` for anything it does
not fully understand (word diffs, binary patches, ``--graph`` drawings), so the distiller declines
instead of guessing. Hunk bodies are delimited by the line counts of their ``@@`` header (a body
line that looks like a header — ``+diff --git`` — is still body), falling back to the line-prefix
rule only when the counts run past a line that cannot be body.
"""

from __future__ import annotations

import re

COMMIT_RE = re.compile(r"^commit [0-9a-f]{7,64}(?:\s.*)?$")
FIELD_RE = re.compile(r"^[A-Z][A-Za-z]*(?: [a-z]+)?:(?:\s|$)")
FILE_START_RE = re.compile(r"^(?:diff --git |diff --cc |diff --combined |diff (?:-\S+ )+\S)")
FILE_META_RE = re.compile(r"^(?:old mode|new mode|deleted file mode|new file mode|similarity index|"
                          r"dissimilarity index|rename from|rename to|copy from|copy to|index) |"
                          r"^(?:---|\+\+\+) |^Binary files .* differ$|^Only in .+: ")
HUNK_RE = re.compile(r"^(@{2,}) (?P<ranges>(?:[-+]\d+(?:,\d+)? )+)\1(?: .*)?$")
STAT_ROW_RE = re.compile(r"^ \S.*\s\|\s+(?:\d+(?: [+-]*)?|Bin(?: \d+ -> \d+ bytes)?)$")
STAT_SUM_RE = re.compile(r"^ \d+ files? changed(?:, \d+ insertions?\(\+\))?(?:, \d+ deletions?\(-\))?$")
NAME_STATUS_RE = re.compile(r"^[ACDMRTUXB]\d*\t\S")
ONELINE_RE = re.compile(r"^[0-9a-f]{7,64} (?!\|)\S")
ERROR_WORD_RE = re.compile(r"(?i)(?:\b|[a-z0-9_])(?:error|exception)s?\b|\bfail(?:ed|ure|ures|ing|s)?\b|"
                           r"\b(?:fatal|panic|panicked)\b")
"""A line of a hunk that names an error: ``error``/``errors``, ``ValueError``, ``IOException``,
``fail``/``failed``/``failure``, ``fatal``, ``panic``: what a reviewer of error handling reads."""


class Hunk:
    """One ``@@`` hunk: its header's view index, its body's, and its +/- line counts."""

    __slots__ = ("header", "body", "adds", "dels", "rank")

    def __init__(self, header: int) -> None:
        self.header = header
        self.body: list[int] = []
        self.adds = self.dels = 0
        self.rank: int | None = None   # (error_rank's, once computed)


class FileDiff:
    """One file of a diff: its header lines (``diff --git``, modes, ``---``/``+++``) and hunks."""

    __slots__ = ("header", "hunks")

    def __init__(self) -> None:
        self.header: list[int] = []
        self.hunks: list[Hunk] = []

    def last(self) -> int:
        """View index of the file's last line."""
        return self.hunks[-1].body[-1] if self.hunks and self.hunks[-1].body else (
            self.hunks[-1].header if self.hunks else self.header[-1])


class Commit:
    """One commit of a log: header fields, subject, body, stat or name-status rows, and files."""

    __slots__ = ("head", "subject", "body", "rows", "files")

    def __init__(self) -> None:
        self.head: list[int] = []       # commit line and fields (Author, Date, Merge, ...)
        self.subject: int | None = None
        self.body: list[int] = []       # message lines after the subject (and notes)
        self.rows: list[int] = []       # --stat / --name-status / --name-only rows
        self.files: list[FileDiff] = []


class Patch:
    """The whole output: commits (maybe none), files outside any commit, and loose stat rows."""

    __slots__ = ("commits", "files", "rows")

    def __init__(self) -> None:
        self.commits: list[Commit] = []
        self.files: list[FileDiff] = []
        self.rows: list[int] = []       # stat rows of a bare ``git diff --stat``

    def all_files(self) -> list[FileDiff]:
        """Files in output order, across commits."""
        return self.files + [f for c in self.commits for f in c.files]


_ERROR_STEMS = ("error", "exception", "fail", "fatal", "panic")
"""Every match of :data:`ERROR_WORD_RE` holds one of these, lower-cased: a hunk without any is
ranked without a regex search per line."""


def error_rank(lines: list[str], hunk: Hunk) -> int:
    """0 when a changed line (``+``/``-``) of ``hunk`` names an error, 1 when only a context line
    does, 2 otherwise: the order in which hunks are kept under a budget (computed once a hunk)."""
    if hunk.rank is not None:
        return hunk.rank
    rank = 2
    text = "\n".join([lines[i] for i in hunk.body]).lower()
    if any(stem in text for stem in _ERROR_STEMS):
        for i in hunk.body:
            line = lines[i]
            if ERROR_WORD_RE.search(line):
                if line[:1] in "+-" and line:
                    rank = 0
                    break
                rank = 1
    hunk.rank = rank
    return rank


def _hunk_body(lines: list[str], start: int, m: re.Match[str], hunk: Hunk) -> int:
    """Consume the body of ``hunk`` (its header matched as ``m``) from ``start``; return the
    index after it."""
    width = len(m.group(1)) - 1                    # 1 for @@, 2 for a combined @@@ diff
    if width == 1:
        counts = [int(r.split(",")[1]) if "," in r else 1 for r in m["ranges"].split()]
        return _counted_body(lines, start, sum(counts[:-1]), counts[-1], hunk)
    i = start
    while i < len(lines):                          # a combined diff: the line-prefix rule
        line = lines[i]
        if line.startswith("\\"):                  # "\ No newline at end of file"
            pass
        elif len(line) >= width and all(c in " +-" for c in line[:width]):
            if FILE_START_RE.match(line) or COMMIT_RE.match(line):
                break
        else:
            break
        hunk.body.append(i)
        first = line[:width]
        hunk.adds += "+" in first
        hunk.dels += "-" in first
        i += 1
    return i


_NOT_BODY_RE = re.compile(r"[^ +\\\-]")
"""A first character no line of a counted hunk body has (``""`` lines are read as ``" "``)."""


def _counted_body(lines: list[str], start: int, old: int, new: int, hunk: Hunk) -> int:
    """The body of a ``@@`` hunk whose header counts ``old`` and ``new`` lines, from ``start``.

    Line by line the rule is: a ``\\`` line (no newline at end of file) is body; otherwise the
    body ends once both counts are used up, or at a line that is not ``" "``/``+``/``-``/empty;
    a context (or empty) line uses one of each count, ``-`` one old, ``+`` one new. Here the
    lines' first characters are joined in one string and counted in C: since a line uses at
    most one of each count, ``k`` lines read with ``d`` old/new still to use are followed by at
    least ``d`` more, so jumping ``k`` by the larger deficit finds the same end in a few steps."""
    n = len(lines)
    heads = ""           # first character of lines[start:], as far as read ("" lines as " ")
    k = max(old, new, 0)           # lines certainly in the body (unless it ends early)
    done = used_old = used_new = 0  # heads[:done] counted and checked
    while True:
        if len(heads) <= k and start + len(heads) < n:   # read on (one line past k, too)
            more = lines[start + len(heads):start + max(k + 1 + k // 8, 16)]
            heads += "".join([s[:1] or " " for s in more])
            continue
        k = min(k, len(heads))
        bad = _NOT_BODY_RE.search(heads, done, k)
        if bad:                                          # not a body line: the hunk ends there
            k = bad.start()
            break
        context = heads.count(" ", done, k)
        used_old += context + heads.count("-", done, k)
        used_new += context + heads.count("+", done, k)
        done = k
        step = max(old - used_old, new - used_new)
        if step <= 0 or k == len(heads):                 # counts used up, or the lines ran out
            while k < len(heads) and heads[k] == "\\":   # (a no-newline mark is still body)
                k += 1
                if k == len(heads) and start + k < n:
                    heads += "".join([s[:1] or " " for s in lines[start + k:start + 2 * k]])
            break
        k += step
    hunk.body = list(range(start, start + k))
    hunk.adds = heads.count("+", 0, k)
    hunk.dels = heads.count("-", 0, k)
    return start + k


def _starts_file(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(FILE_START_RE.match(line)) or (
        line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "))


def _message_line(commit: Commit, i: int, line: str) -> None:
    """File a message line as the subject (first non-blank one) or the body."""
    if commit.subject is None:
        if line.strip():
            commit.subject = i
    else:
        commit.body.append(i)


def _after_message(p: Patch, commit: Commit | None, i: int, line: str) -> None:
    """Stat / name-status / name-only rows and notes after a message (or in a bare diff)."""
    if not line or STAT_SUM_RE.match(line) or FIELD_RE.match(line):
        return                                         # kept as they are
    if commit is not None and line.startswith("    "):
        commit.body.append(i)                          # notes text
    elif commit is not None or STAT_ROW_RE.match(line) or NAME_STATUS_RE.match(line):
        (commit.rows if commit is not None else p.rows).append(i)


def parse(lines: list[str]) -> Patch | None:
    """The commits, files and hunks of ``lines``, or ``None`` when the shape is not understood."""
    p, commit, fdiff, state = Patch(), None, None, "top"
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if COMMIT_RE.match(line):
            commit, fdiff, state = Commit(), None, "head"
            commit.head.append(i)
            p.commits.append(commit)
        elif line.startswith("GIT binary patch"):
            return None
        elif state == "file" and fdiff is not None and FILE_META_RE.match(line):   # (set with "file")
            fdiff.header.append(i)
        elif state != "head" and _starts_file(lines, i):
            fdiff, state = FileDiff(), "file"
            fdiff.header.append(i)
            (commit.files if commit is not None else p.files).append(fdiff)
        elif fdiff is not None and (m := HUNK_RE.match(line)):
            hunk = Hunk(i)
            fdiff.hunks.append(hunk)
            i, state = _hunk_body(lines, i + 1, m, hunk), "hunks"
            continue
        elif state == "head" and commit is not None:   # (set with "head", as with "message")
            if line == "":
                state = "message"
            elif not FIELD_RE.match(line):
                return None
            else:
                commit.head.append(i)
        elif state == "message" and commit is not None and (
                line.startswith("    ") or (line == "" and commit.subject is None)):
            _message_line(commit, i, line)
        elif state in ("message", "after", "top"):
            state = "after" if commit is not None else "top"
            _after_message(p, commit, i, line)
        i += 1
    if not (p.commits or p.files or p.rows):
        return None
    return p
