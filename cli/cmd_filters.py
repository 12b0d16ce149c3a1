"""``thresher filters test|list|check``: run inline tests, list the filters in effect, validate files.

Control-plane tooling (imports yaml and pydantic through ``thresher.filters.load``); the hot path
loads the same files through the cache in ``thresher.filters.runtime``.
"""

from __future__ import annotations

import argparse
import os
import sys

DESCRIPTION = """Declarative filters: YAML/TOML files that shrink the output of commands without a
native distiller. Searched in order (first `match` wins): project (.thresher/filters.yaml or
.thresher/filters/*, only once trusted with `thresher trust PATH`), user
($THRESHER_CONFIG_HOME/filters/*, default ~/.config/thresher/filters), shipped (graphs/filters)."""

EPILOG = """An inline test's `expected` is what the filter stage emits BEFORE the executor's footer
line ([thresher: N of M lines omitted · thresher expand …]); when the filter declines (nothing
changed, or not smaller) it is the input itself. Trailing newlines are not significant.

examples:
  thresher filters test                         # every loaded filter's inline tests
  thresher filters test .thresher/filters.yaml  # one file's tests (trusted or not)
  thresher filters list
  thresher filters check my-filters.yaml"""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher filters", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="action", required=True, metavar="{test,list,check}")
    test = sub.add_parser("test", help="run inline tests (exit 1 on any failure)",
                          description="Run the inline tests of FILEs, or of every loaded filter "
                          "when no FILE is given; print a diff for each failure.")
    test.add_argument("files", nargs="*", metavar="FILE", help="filter files (YAML or TOML)")
    test.add_argument("-k", metavar="TEXT", help="only tests whose `filter::test` id contains TEXT")
    sub.add_parser("list", help="show every filter in effect: name, origin, file, match",
                   description="List the loaded filters in search order, then untrusted project "
                   "files and files that failed to load.")
    check = sub.add_parser("check", help="validate filter files only (exit 2 on any error)",
                           description="Validate FILEs (every discovered file when none is "
                           "given): unknown keys, regexes, `unless` guards, duplicate names.")
    check.add_argument("files", nargs="*", metavar="FILE", help="filter files (YAML or TOML)")
    return ap


def _shown(path: str) -> str:
    """``path`` relative to the working directory when below it, else absolute."""
    rel = os.path.relpath(path)
    return os.path.abspath(path) if rel.startswith("..") else rel


def _entries(files: list[str]) -> tuple[list[tuple[str, str, bytes]], list[tuple[str, str]]]:
    """``(origin, path, bytes)`` of the named files, or of every discovered (trusted) file."""
    from thresher.filters import runtime
    if not files:
        return runtime.read_entries(runtime.discover())
    entries = []
    for path in files:
        with open(path, "rb") as fh:
            entries.append(("given", path, fh.read()))
    return entries, []


def _load(files: list[str]):
    from thresher.filters.load import load_files
    entries, untrusted = _entries(files)
    loaded, errors = load_files(entries)
    for err in errors:
        print(err.render(), file=sys.stderr)
    for path, _ in untrusted:
        print(f"{_shown(path)}: untrusted project filter file skipped "
              f"(review it, then: thresher trust {_shown(path)})", file=sys.stderr)
    return loaded, errors, entries


def _test(args) -> int:
    from thresher.filter_tests import cases, check
    loaded, errors, _ = _load(args.files)
    passed = failed = 0
    for case_id, f, test in cases(loaded):
        if args.k and args.k not in case_id:
            continue
        report = check(f, test)
        if report is None:
            passed += 1
            continue
        failed += 1
        print(f"FAIL {_shown(f['file'])} {case_id}\n{report}\n")
    print(f"{passed} passed, {failed} failed" + (f", {len(errors)} load errors" if errors else ""))
    return 2 if errors else (1 if failed else 0)


def _list(args: object) -> int:  # noqa: ARG001 - the actions share one signature
    loaded, errors, _ = _load([])
    rows = [(spec.name, origin, _shown(path), spec.match) for origin, path, spec in loaded]
    if not rows:
        print("no filters loaded")
        return 2 if errors else 0
    widths = [max(len(r[i]) for r in rows + [("name", "origin", "file", "")]) for i in range(3)]
    print(f"{'name':<{widths[0]}}  {'origin':<{widths[1]}}  {'file':<{widths[2]}}  match")
    for r in rows:
        print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    return 2 if errors else 0


def _check(args) -> int:
    loaded, errors, entries = _load(args.files)
    for _, path, _ in entries:
        n = sum(1 for _, p, _ in loaded if p == path)
        if not any(e.file == path for e in errors):
            print(f"{_shown(path)}: ok ({n} filter{'s' if n != 1 else ''})")
    return 2 if errors else 0


def main(argv: list[str]) -> int:
    """Entry point of ``thresher filters``."""
    from thresher.common import run_command
    actions = {"test": _test, "list": _list, "check": _check}
    return run_command("thresher filters", _parser(), argv, lambda a: actions[a.action](a))
