"""``thresher expand HANDLE [--lines A-B] [--grep PATTERN] [--raw]``: the archived original;
``thresher expand --search TEXT [--scope S | --all-scopes] [--limit N]``: where it was seen.

- no option: the original bytes, byte-exact (a binary original — an image, a PDF, an archive —
  is one line with its type and size instead: ``--raw`` gives its bytes, for a file);
- ``--lines A-B``: only source lines A to B (1-based, inclusive; the numbering thresher's footers
  and "already shown" markers use), byte-exact;
- ``--grep PATTERN``: only lines matching the regex (escape codes ignored when matching), printed
  ``N:line`` like ``grep -n`` so a ``--lines`` range can follow; with ``--raw``, the bare lines.
  Combined with ``--lines``, searches that range.

Secrets stay masked: the original of an output whose class masks credentials (env/printenv
listings and ``.env`` files, ``curl -v`` auth headers, JSON password/secret/token keys) comes back
with the same values masked, line for line (line numbers unchanged; ``--grep`` searches the masked
text). ``--unmasked`` prints them as they were — only to a terminal: with stdout a pipe or a file
(an agent's tool call) it is refused, exit 2.

``--search TEXT`` looks through every archived output of this reader scope instead (SQLite
FTS5, indexed on first use; ``--scope S`` another scope, ``--all-scopes`` every one): newest
first, each as its handle and command, then its matching lines numbered ``N:line``. Words match
whole and case-insensitively (``Modul*`` is a prefix); lines holding every word are shown, else
those holding any. Only the first MiB of an output is indexed (results say so); binary outputs
are not.

HANDLE may be any unique prefix of a handle. An unknown, ambiguous or expired handle, or a
``--grep`` that matches nothing, prints why on stderr and exits 1. Every expansion is counted
against the saving of the payload it came from (a *bounce*, see ``thresher gain``).
"""

from __future__ import annotations

import argparse
import re
import sys

from thresher.stores.search import ANSI as _ANSI

OPEN_END = 10 ** 12
SHOWN_PER_OUTPUT = 20
"""Matching lines ``--search`` prints of one output (the rest are counted, one --grep away)."""


def split_lines(raw: bytes) -> list[bytes]:
    """Lines as the engine numbers them (split on ``\\n`` only), each keeping its newline."""
    parts = raw.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def parse_range(text: str) -> tuple[int, int]:
    """``"A-B"``, ``"A"`` or ``"A-"`` (to the end) → ``(A, B)``; ValueError when malformed."""
    a, sep, b = text.partition("-")
    start = int(a)
    end = int(b) if b else (OPEN_END if sep else start)
    if start < 1 or end < start:
        raise ValueError(text)
    return start, end


def select(raw: bytes, lines: str | None, grep: str | None, bare: bool) -> tuple[bytes, str]:
    """The bytes to print and a note for stderr ("" when none)."""
    if not lines and not grep:
        return raw, ""
    all_lines = split_lines(raw)
    start, end = parse_range(lines) if lines else (1, len(all_lines))
    chosen = list(enumerate(all_lines[start - 1:end], start))
    note = ""
    if lines and end > len(all_lines) and end != OPEN_END:
        note = f"the original has {len(all_lines)} lines"
    if grep:
        regex = re.compile(grep.encode("utf-8", "surrogateescape"))
        chosen = [(n, line) for n, line in chosen if regex.search(_ANSI.sub(b"", line))]
        if not bare:
            return b"".join(b"%d:%s" % (n, line if line.endswith(b"\n") else line + b"\n")
                            for n, line in chosen), note
    return b"".join(line for _, line in chosen), note


def _bounce(handle: str, shown: bytes) -> None:
    """Count this expansion against the saving of ``handle`` (never fails the command)."""
    try:
        from thresher.stores.savings import COUNTERFACTUAL_CHARS, bounce
        from thresher.dataflow.tokens import estimate
        text = shown[:COUNTERFACTUAL_CHARS * 4].decode("utf-8", "replace")[:COUNTERFACTUAL_CHARS]
        bounce(handle, estimate(text))
    except Exception:  # noqa: BLE001
        pass


def _masked(archive, handle: str, raw: bytes) -> bytes:
    """``raw`` with the secrets its payload class masks masked (``raw`` itself when none)."""
    from thresher.stages.lib.secrets import mask_archived
    masked = mask_archived(raw, archive.meta(handle))
    if masked is None:
        return raw
    sys.stderr.write("thresher expand: secret values are masked as in the filtered output "
                     "(`thresher expand --unmasked` in a terminal shows them)\n")
    return masked


def _mask_for_index(raw: bytes, meta: dict) -> bytes:
    """What the search indexes of an archived output: secrets masked as ``expand`` shows them."""
    from thresher.stages.lib.secrets import mask_archived
    masked = mask_archived(raw, meta)
    return raw if masked is None else masked


def render_search(found: dict, limit: int) -> str:
    """The ``--search`` results: per output a header, then its numbered matching lines."""
    import shlex
    out = []
    for r in found["results"]:
        cut = f" · only its {r['note']} are indexed" if r["note"] else ""
        out.append(f"{r['handle']}  {r['command'] or '(no command)'}  · {len(r['lines'])} "
                   f"matching line{'s' if len(r['lines']) != 1 else ''} of {r['total_lines']}{cut}")
        for n, line in r["lines"][:SHOWN_PER_OUTPUT]:
            out.append(f"{n}:{line}")
        more = len(r["lines"]) - SHOWN_PER_OUTPUT
        if more > 0:
            out.append(f"[thresher: {more} more matching lines · thresher expand {r['handle']} "
                       f"--grep {shlex.quote(r['grep'])}]")
        out.append("")
    if found["matched"] > limit:
        out.append(f"[thresher: {found['matched'] - limit} more outputs match · --limit "
                   f"{found['matched']} shows them]")
    return "\n".join(out).rstrip("\n") + "\n" if out else ""


def search_main(args) -> int:
    """``--search``: print the matches; exit 1 when none, 2 when search cannot run."""
    from thresher.stores.search import ArchiveSearch, SearchError, SearchUnavailable
    if args.all_scopes:
        scope, where = None, "every scope"
    else:
        from thresher.boundary import switches
        scope = switches.scope() if args.scope is None else args.scope.strip()
        where = f"scope {scope!r}" if scope else "no session scope"
    try:
        found = ArchiveSearch(prepare=_mask_for_index).search(args.search, scope, args.limit)
    except (SearchError, SearchUnavailable) as exc:
        sys.stderr.write(f"thresher expand: {exc}\n")
        return 2
    except Exception as exc:  # noqa: BLE001 - an unreadable store is still a clear message
        sys.stderr.write(f"thresher expand: cannot search the archive: {exc}\n")
        return 1
    sys.stdout.write(render_search(found, args.limit))
    notes = [f"{found['binary']} binary not indexed"] if found["binary"] else []
    if found["cut"]:
        notes.append(f"{found['cut']} indexed in their first MiB only")
    if found["busy"]:
        notes.append(f"{found['busy']} not indexed yet (database busy; the next search will)")
    sys.stderr.write(f"thresher expand: {found['matched']} of {found['searched']} archived outputs "
                     f"match ({where}{''.join('; ' + n for n in notes)})\n")
    if not found["searched"] and not args.all_scopes:
        sys.stderr.write("thresher expand: no archived output is recorded for this scope (outputs "
                         "are tied to a scope by the savings ledger, which THRESHER_NO_LEDGER "
                         "turns off); --all-scopes searches every archived output\n")
    return 0 if found["matched"] else 1


def main(argv: list[str]) -> int:
    """Print the original (or a slice) of HANDLE; exit 1 when it is unknown or expired."""
    ap = argparse.ArgumentParser(prog="thresher expand", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("handle", nargs="?",
                    help="the handle printed in a thresher footer (or a unique prefix)")
    ap.add_argument("--search", metavar="TEXT", help="search every archived output of this "
                    "scope for these words (instead of printing one HANDLE)")
    ap.add_argument("--scope", metavar="S", help="with --search: this reader scope (default: "
                    "THRESHER_SESSION[/THRESHER_AGENT]; '' = outputs without a session)")
    ap.add_argument("--all-scopes", action="store_true", help="with --search: every scope")
    ap.add_argument("--limit", type=int, default=10, metavar="N",
                    help="with --search: show at most N outputs (default 10)")
    ap.add_argument("--lines", metavar="A-B", help="only lines A to B (1-based, inclusive)")
    ap.add_argument("--grep", metavar="PATTERN", help="only lines matching this regex, numbered")
    ap.add_argument("--raw", action="store_true",
                    help="with --grep: bare lines, no N: prefixes; a binary original: its bytes")
    ap.add_argument("--unmasked", action="store_true",
                    help="show masked secret values as they were (refused unless stdout is a terminal)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.search is not None or args.handle is None:
        if args.handle is not None or args.search is None:
            sys.stderr.write("thresher expand: give a HANDLE, or --search TEXT (to search one "
                             "output, use HANDLE --grep PATTERN)\n")
            return 2
        if args.limit < 1:
            sys.stderr.write(f"thresher expand: --limit wants a number >= 1, got {args.limit}\n")
            return 2
        return search_main(args)
    if args.unmasked and not sys.stdout.isatty():
        sys.stderr.write("thresher expand: --unmasked prints secret values, so only to a terminal "
                         "(stdout here is a pipe or a file); run it yourself in a terminal\n")
        return 2
    from thresher.dataflow.errors import ArchiveError
    from thresher.stores.archive import default_archive
    archive = default_archive()
    try:
        handle = archive.resolve(args.handle)
        raw = archive.get(handle)
    except ArchiveError as exc:
        sys.stderr.write(f"thresher expand: {exc}\n")
        return 1
    except Exception as exc:  # noqa: BLE001 - an unreadable store is still a clear message
        sys.stderr.write(f"thresher expand: cannot read the archive: {exc}\n")
        return 1
    if not args.unmasked:
        raw = _masked(archive, handle, raw)
    if not (args.raw or args.lines or args.grep):
        from thresher.boundary.media import describe, sniff
        found = sniff(raw)
        if found is not None:  # never bytes to the agent: --raw asks for them (into a file)
            sys.stdout.write(describe(found, len(raw), handle, subject=f"{handle} (binary)") + "\n")
            return 0
    try:
        shown, note = select(raw, args.lines, args.grep, args.raw)
    except ValueError:
        sys.stderr.write(f"thresher expand: --lines wants A-B (1-based, A <= B), got {args.lines!r}\n")
        return 2
    except re.error as exc:
        sys.stderr.write(f"thresher expand: bad --grep pattern: {exc}\n")
        return 2
    sys.stdout.buffer.write(shown)
    sys.stdout.flush()
    if note:
        sys.stderr.write(f"thresher expand: {note}\n")
    _bounce(handle, shown)
    if args.grep and not shown:
        sys.stderr.write(f"thresher expand: no line of {handle} matches {args.grep!r}\n")
        return 1
    return 0
