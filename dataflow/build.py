"""Build every plan from the discovered graph files (control plane; imports yaml/pydantic/networkx).

For each ``class.role`` the file of the highest-precedence origin wins. A role file may extend a
graph of the same id from a lower origin (a user overriding the built-in ``pytest.default``).
A graph that fails to load or validate is left out and its errors are kept, so one broken user file
never stops the others (the resolver then falls back to the next graph in line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from . import wired
from .compile import compile_graph, default_registry
from .errors import GraphError, GraphErrors
from .plan import CLASSIFY_FILE, ORIGINS, file_stamp
from .shapes import Services
from .regex_safety import UnsafeRegex
from .regex_needles import needles
from .regex_safety import check as check_regex
from .spec import SAFE_LOADER, LoadedGraph, load_graph


def load_all(files: list[tuple[str, str]]) -> tuple[dict[str, list[tuple[str, LoadedGraph]]],
                                                    list[GraphError]]:
    """Load every graph file; return candidates per graph id (highest precedence first) and errors."""
    by_id: dict[str, list[tuple[str, LoadedGraph]]] = {}
    errors: list[GraphError] = []
    for origin, path in files:
        if path.endswith((CLASSIFY_FILE, "classify.yml")):
            continue
        try:
            g = load_graph(path)
        except GraphError as exc:
            errors.append(exc)
            continue
        by_id.setdefault(g.graph_id, []).insert(0, (origin, g))
    return by_id, errors


def finder(by_id: dict[str, list[tuple[str, LoadedGraph]]],
           me: LoadedGraph | None = None,  # noqa: ARG001 - callers name the graph; find() is told
           ) -> Callable[[str, LoadedGraph], LoadedGraph | None]:
    """A ``find_base`` for :func:`compile_graph`.

    A layer that extends its own id (a project ``pytest.default`` extending the built-in one) gets
    the candidate of the next lower origin; any other id resolves to its winning file (``find``
    is told which graph asks, so ``me`` is not needed).
    """
    def find(gid: str, requester: LoadedGraph) -> LoadedGraph | None:
        cands = [g for _, g in by_id.get(gid, [])]
        if gid == requester.graph_id and requester in cands:
            cands = cands[cands.index(requester) + 1:]
        return cands[0] if cands else None
    return find


def _rules(path: str, data: dict, section: str) -> list[dict]:
    import re
    rules = []
    for i, rule in enumerate(data.get(section) or []):
        if not isinstance(rule, dict) or set(rule) != {"match", "class"}:
            raise GraphError(path, f"{section}[{i}]: needs exactly the keys `match` and `class`",
                             hint="- {match: '<regex>', class: <payload class>}")
        try:
            check_regex(rule["match"])
        except re.error as exc:
            raise GraphError(path, f"{section}[{i}]: bad regex {rule['match']!r}: {exc}") from None
        except UnsafeRegex as exc:
            raise GraphError(path, f"{section}[{i}]: regex {rule['match']!r} can take exponential "
                             f"time: {exc.problem}", hint=exc.fix) from None
        rules.append({"match": rule["match"], "class": str(rule["class"]),
                      "needles": needles(rule["match"])})
    return rules


def load_classify(files: list[tuple[str, str]]) -> tuple[dict, list[GraphError]]:
    """Command → class rules and output-fingerprint rules; project first, then user, then built-in."""
    tables: dict[str, list[dict]] = {"rules": [], "sniff": []}
    errors: list[GraphError] = []
    for _origin, path in sorted(files, key=lambda f: -ORIGINS.index(f[0])):
        if not path.endswith((CLASSIFY_FILE, "classify.yml")):
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                data = yaml.load(fh, Loader=SAFE_LOADER) or {}
            if not isinstance(data, dict) or set(data) - {"rules", "sniff"}:
                raise GraphError(path, "a classify table has only `rules:` and `sniff:` lists")
            for section in tables:
                tables[section] += _rules(path, data, section)
        except (OSError, yaml.YAMLError) as exc:
            errors.append(GraphError(path, f"cannot read classify table: {exc}"))
        except GraphError as exc:
            errors.append(exc)
    return tables, errors


def build_all(files: list[tuple[str, str]], services: Services | None = None) -> dict[str, Any]:
    """Compile every winning graph with the stages of ``services`` (default: the wired ones); the
    result is what the plan cache stores. ``code`` stamps the sources the plans depend on besides
    the graph files (``Services.code_files``), ``stamps`` what a scan of users' stages read."""
    services = services or wired()
    registry = default_registry(services)
    by_id, errors = load_all(files)
    plans, sources = {}, {}
    for gid, cands in sorted(by_id.items()):
        sources[gid] = [[origin, g.file] for origin, g in cands]
        g = cands[0][1]
        try:
            plans[gid] = compile_graph(g, registry, finder(by_id, g))
        except GraphErrors as exc:
            errors.extend(exc.errors)
        except GraphError as exc:
            errors.append(exc)
    tables, cerrors = load_classify(files)
    stamps = registry.stamps() if hasattr(registry, "stamps") else {}
    code = {path: file_stamp(path) for path in services.code_files()}
    return {"plans": plans, "sources": sources, "classify": tables["rules"], "sniff": tables["sniff"],
            "errors": [e.render() for e in errors + cerrors], "stamps": stamps, "code": code}


def warm_filters(cwd: str | None = None, services: Services | None = None) -> None:
    """Compile the declarative filters into their cache now, in the control plane, so the
    ``filter`` stage never pays for yaml/pydantic inside its time budget. Never raises: the
    stage compiles on its own if this fails."""
    try:
        (services or wired()).warm_filters(cwd)
    except Exception:  # noqa: BLE001 - a cache that cannot be warmed is not an error
        pass
