"""``thresher rewrite "LINE"``: route the parts of an agent's shell line through ``thresher run``.

Called by a PreToolUse hook on every Bash command, so it imports only the standard-library
``thresher.shell`` modules and parses its few flags by hand (argparse alone costs milliseconds).
"""

from __future__ import annotations

import sys

NO_REWRITE = 3

HELP = """usage: thresher rewrite [--explain] [--] LINE
       thresher rewrite [--explain] -            (the line is read from stdin)

Print LINE with `thresher run -- ` inserted in front of each command whose output the agent will
read and thresher can shrink, e.g.

  cd src && FOO=1 sudo -u app pytest -q  ->  cd src && FOO=1 thresher run -- sudo -u app pytest -q

Exit status:
  0  the rewritten line is printed on stdout, followed by one newline
  3  no rewrite: nothing is printed; run LINE as it is (also on any internal error)
  2  bad usage

Every byte of LINE that is not rewritten is kept as written. From stdin, one trailing newline is
dropped before the line is analysed. Bytes that are not UTF-8 pass through unchanged.

What is wrapped: a segment (the shell splits on && || ; | |& & and newlines) whose stdout the agent
sees and whose real command is in thresher's table: git status/diff/log/..., pytest, cargo, go,
npm/pnpm/yarn/bun, pip/uv/poetry, tsc/eslint/ruff/mypy, make, compilers, docker, kubectl, helm,
terraform, grep/rg, ls -l/-R, find, tree, du, df, ps, cat/head/tail of files, curl, journalctl...
Transparent prefixes are looked through: VAR=value, sudo, env, timeout, nice, time, uv/poetry/
pipenv/pdm/hatch run, npx, pnpm exec, bunx, bundle exec, docker [compose] exec, kubectl exec --,
direnv exec, nix develop -c, plus your own from $THRESHER_PREFIXES (comma-separated, e.g.
"mise exec --,devbox run") and .thresher/prefixes (one per line) at or above the working folder.

Left alone: stdout into a pipe or a file (`| tail`, `> out.txt`), a segment reading a pipe, `&`
background jobs, here-documents (the whole line), $( ), backticks, $(( )), loops, if/case,
functions, ( ) and { } groups, builtins (cd, echo, export, rm, ...), watch/follow modes
(--watch, tail -f, kubectl logs -f, npm run dev), interactive tools (vim, less, ssh, a bare
python), structured output (--json, --porcelain, -o json, --format=...: it would pass byte-exact
anyway, so it is not worth thresher's start-up), unknown commands, and lines that do not parse.

options:
  --explain   print one line per segment on stderr: decision, reason, real command, segment
  -h, --help  this help
"""


def main(argv: list[str]) -> int:
    """Print the rewritten line and return 0, or print nothing and return 3 (no rewrite)."""
    explain, args = False, []
    for i, arg in enumerate(argv):
        if arg in ("-h", "--help"):
            sys.stdout.write(HELP)
            return 0
        if arg == "--explain":
            explain = True
        elif arg == "--":
            args += argv[i + 1:]
            break
        else:
            args.append(arg)
    if len(args) != 1:
        sys.stderr.write("usage: thresher rewrite [--explain] [--] LINE  (or - for stdin)\n")
        return 2
    try:
        return _run(args[0], explain)
    except Exception as exc:  # noqa: BLE001 - never block the agent's command: no rewrite
        sys.stderr.write(f"thresher rewrite: internal error, no rewrite: {exc!r}\n")
        return NO_REWRITE


def _run(line: str, explain: bool) -> int:
    """Analyse ``line`` (``-`` = stdin), report, write the result."""
    if line == "-":
        line = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
        line = line[:-1] if line.endswith("\n") else line
    from thresher.shell.rewrite import analyze, apply
    decisions = analyze(line)
    if explain:
        for d in decisions:
            mark = "wrap" if d.wrap else "keep"
            sys.stderr.write(f"{mark} | {d.reason} | real: {_one_line(d.real) or '-'} | "
                             f"{_one_line(d.text)}\n")
    out = apply(line, decisions)
    if out is None:
        return NO_REWRITE
    sys.stdout.buffer.write((out + "\n").encode("utf-8", "surrogateescape"))
    sys.stdout.flush()
    return 0


def _one_line(text: str) -> str:
    """``text`` with newlines shown as ``\\n`` so each segment stays on one explain line."""
    return text.replace("\n", "\\n")
