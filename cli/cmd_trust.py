"""``thresher trust PATH...``: trust a project's files by content hash (also --list, --revoke).

Project files are filters (``.thresher/filters.*``, ``.thresher/filters/*``), graphs and the classify
table (``.thresher/graphs/*.yaml``) and prefixes (``.thresher/prefixes``).
The file's bytes are read once, validated and hashed (blake3); the hash and the absolute path go
to ``$THRESHER_CONFIG_HOME/trusted-filters``. The engine loads a project filter file only while its
current bytes hash to the recorded value: after any edit, trust it again.
"""

from __future__ import annotations

import argparse
import os
import sys

DESCRIPTION = """Trust a project's thresher files so that thresher uses them: filters
(.thresher/filters.yaml, .thresher/filters/*), graphs and the classify table (.thresher/graphs/*.yaml)
and prefixes (.thresher/prefixes). They are written by whoever wrote the repository and shape what
the agent sees, so thresher ignores them (with one warning line on stderr) until you have read them
and trusted their exact content. Each file is validated first. Trust is by content hash: an edited
file is ignored again until re-trusted."""

EPILOG = """examples:
  thresher trust .thresher/filters.yaml
  thresher trust .thresher/graphs/pytest.default.yaml .thresher/graphs/classify.yaml
  thresher trust --list
  thresher trust --revoke .thresher/filters.yaml"""


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher trust", description=DESCRIPTION, epilog=EPILOG,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", metavar="PATH", help="project files to trust as they are now")
    ap.add_argument("--list", action="store_true", help="show trusted files and whether they changed")
    ap.add_argument("--revoke", metavar="PATH", action="append", default=[],
                    help="forget the trust of PATH (repeatable)")
    return ap


def _show() -> int:
    from thresher.filters import trust
    records = trust.load()
    if not records:
        print(f"nothing trusted ({trust.trust_path()})")
    for path, h in sorted(records.items()):
        try:
            with open(path, "rb") as fh:
                state = "trusted" if trust.digest(fh.read()) == h else "CHANGED since trusted"
        except OSError:
            state = "missing"
        print(f"{h[:16]}  {state:<21}  {path}")
    return 0


def _kind(path: str) -> str:
    """``graph``, ``classify``, ``prefixes`` or ``filters``: what the file is, by where it lives."""
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    if parts[-1] == "prefixes" and parts[-2:-1] == [".thresher"]:
        return "prefixes"
    if parts[-3:-2] == [".thresher"] and parts[-2] == "graphs":
        return "classify" if parts[-1] in ("classify.yaml", "classify.yml") else "graph"
    return "filters"


def _validate(kind: str, path: str, data: bytes) -> str:
    """What the file holds, for the confirmation line; raises ValueError with the errors."""
    if kind == "prefixes":
        n = sum(1 for line in data.decode("utf-8", "replace").splitlines()
                if line.split("#", 1)[0].strip())
        return f"{n} prefix{'es' if n != 1 else ''}"
    if kind == "filters":
        from thresher.filters.load import FilterErrors, parse
        try:
            n = len(parse(path, data))
        except FilterErrors as exc:
            raise ValueError("\n".join(err.render() for err in exc.errors)) from None
        return f"{n} filter{'s' if n != 1 else ''}"
    from thresher.dataflow.errors import GraphError
    try:
        if kind == "classify":
            from thresher.dataflow.build import load_classify
            tables, errors = _classify_from(path, data, load_classify)
            if errors:
                raise ValueError("\n".join(e.render() for e in errors))
            return f"{len(tables['rules'])} classify rules"
        from thresher.dataflow.spec import load_graph
        load_graph(path, data.decode("utf-8"))
    except GraphError as exc:
        raise ValueError(exc.render()) from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from None
    return "graph"


def _classify_from(path: str, data: bytes, load_classify):
    """Validate the classify table bytes that will be hashed (via a private temporary copy)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "classify.yaml")
        with open(copy, "wb") as fh:
            fh.write(data)
        tables, errors = load_classify([("project", copy)])
    for e in errors:
        e.file = path
    return tables, errors


def _trust(paths: list[str]) -> int:
    from thresher.filters import trust
    status = 0
    for path in paths:
        try:
            with open(path, "rb") as fh:
                data = fh.read()  # read once: what is validated is what is hashed
        except OSError as exc:
            print(f"thresher trust: cannot read {path}: {exc.strerror}", file=sys.stderr)
            status = 2
            continue
        try:
            what = _validate(_kind(path), path, data)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            print(f"thresher trust: {path} not trusted: fix the errors above first", file=sys.stderr)
            status = 2
            continue
        h = trust.record(path, data)
        print(f"trusted {os.path.abspath(path)} ({what}, blake3 {h[:16]})")
    return status


def _run(args) -> int:
    from thresher.filters import trust
    if not (args.paths or args.list or args.revoke):
        _parser().print_usage(sys.stderr)
        print("thresher trust: name a PATH to trust, or use --list / --revoke PATH", file=sys.stderr)
        return 2
    status = _trust(args.paths) if args.paths else 0
    for path in args.revoke:
        if trust.revoke(path):
            print(f"revoked {os.path.abspath(path)}")
        else:
            print(f"thresher trust: {path} was not trusted", file=sys.stderr)
            status = status or 1
    if args.list:
        _show()
    return status


def main(argv: list[str]) -> int:
    """Entry point of ``thresher trust``."""
    from thresher.common import run_command
    return run_command("thresher trust", _parser(), argv, _run)
