"""The ``thresher`` command: a thin dispatcher that imports only the subcommand being run.

``thresher pipe`` is on every agent command's path, so its module is imported directly and parses
its own few flags; the other subcommands use argparse.
"""

from __future__ import annotations

import sys

COMMANDS = {
    "run": ("thresher.cmd_run", "run a command and filter its output (exit code kept exact)"),
    "pipe": ("thresher.cmd_pipe", "compress stdin for the agent (the hot path)"),
    "trace": ("thresher.cmd_trace", "show what each stage did to a payload"),
    "graph": ("thresher.cmd_graph", "check, list and draw graphs; list stages; JSON Schema for editors"),
    "check": ("thresher.cmd_check", "property-test a graph against the invariants"),
    "expand": ("thresher.cmd_expand", "print an archived original (byte-exact) by handle"),
    "read": ("thresher.cmd_read", "read a file: outline, signatures, a section, lines, or anchored"),
    "gain": ("thresher.cmd_gain", "report tokens saved (signed, bounces counted) per command/class/day"),
    "session": ("thresher.cmd_session", "reset or show reader scopes of the session ledger"),
    "rewrite": ("thresher.cmd_rewrite", "route a shell line's commands through thresher run"),
    "filters": ("thresher.cmd_filters", "test, list and check declarative filters (YAML/TOML)"),
    "trust": ("thresher.cmd_trust", "trust a project's filter files by content hash"),
    "init": ("thresher.cmd_init", "install (or --uninstall) the Claude Code hooks and agent notes"),
    "hook": ("thresher.cmd_hook", "the Claude Code hook handler (reads the event on stdin)"),
    "shims": ("thresher.cmd_shims", "install or remove PATH shims for hosts without hooks"),
    "mcp": ("thresher.cmd_mcp", "run the MCP server (stdio): read, expand, run, gain"),
    "doctor": ("thresher.cmd_doctor", "check the install end to end and say how to fix it"),
    "bench": ("thresher.cmd_bench", "measure compressors side by side on corpus cases (tokens, facts kept)"),
    "replay": ("thresher.cmd_replay", "what thresher would have saved on Claude Code transcripts (changes nothing)"),
}

USAGE = """usage: thresher COMMAND [ARGS...]

thresher shrinks tool outputs before an LLM agent reads them, and keeps the originals.

commands:
{commands}

Run `thresher COMMAND --help` for the options of one command.
Example:  thresher run -- pytest -q
          pytest -q > out.txt 2>&1; thresher pipe --cmd "pytest -q" --exit-code $? < out.txt
"""


def usage() -> str:
    """The top-level help text."""
    width = max(map(len, COMMANDS))
    return USAGE.format(commands="\n".join(f"  {name:<{width}}  {COMMANDS[name][1]}"
                                           for name in COMMANDS))


GC_YOUNG = 20_000
"""Allocations between two collections of the youngest generation (CPython's default is 700): a
``thresher pipe`` allocates ~10k objects importing its modules and running a small payload, which
is ~15 collections at the default, one of them of the older generation (~1.5 ms of every agent
command). Garbage cycles are still collected, every 20,000 allocations: memory stays bounded."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``thresher`` console script; returns the exit status."""
    import gc
    gc.set_threshold(GC_YOUNG)
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        sys.stdout.write(usage())
        return 0
    if argv[0] == "--version":
        from thresher import __version__
        print(f"thresher {__version__}")
        return 0
    entry = COMMANDS.get(argv[0])
    if entry is None:
        sys.stderr.write(f"thresher: unknown command {argv[0]!r}\n\n{usage()}")
        return 2
    __import__(entry[0])  # (not importlib: its import is a cost on every agent command)
    status = sys.modules[entry[0]].main(argv[1:])
    rx = sys.modules.get("thresher.dataflow.rxcache")
    if rx is not None:  # the output is out: keep what this run compiled for the next start
        rx.save()
    return status
