"""Load and validate filter files (control plane: imports yaml and pydantic).

``parse(path, data)`` turns the bytes of one YAML or TOML file into validated
:class:`~thresher.filters.model.FilterSpec` objects, or raises :class:`FilterErrors` naming the
file, the line, the filter and the key, with a close-match suggestion for a misspelt key.
``compile_files`` does that for every discovered file and returns the plain data the hot path
caches (``marshal``): one dict per filter, in search order, plus the rendered errors.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from pydantic import ValidationError

from thresher.dataflow.errors import FilterError, GraphError, GraphErrors
from thresher.dataflow.regex_safety import UnsafeRegex
from thresher.dataflow.regex_safety import check as check_regex

from .model import FilterFile, FilterSpec, known_keys, model_at

NEVER = "never"
"""The literal `unless` value that turns a short-circuit rule's guard off, on purpose."""


class FilterErrors(GraphErrors):
    """Every problem found in one or more filter files."""

    def __init__(self, errors: Sequence[FilterError]) -> None:
        super().__init__(list(errors))


def _yaml_lines(path: str, text: str) -> dict[tuple, int]:
    """Key path → line; raise :class:`FilterError` on a key given twice in one mapping (YAML
    would silently keep the last one)."""
    import yaml

    from thresher.dataflow.spec import _key_lines
    root = yaml.compose(text)
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key, value in node.value:
                if key.value in seen:
                    raise FilterError(path, f"key {key.value!r} given twice in one mapping",
                                      line=key.start_mark.line + 1, hint="keep one of them")
                seen.add(key.value)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return _key_lines(root) if root is not None else {}


_TOML_HEADER = re.compile(r"^\s*\[\[\s*filters(?:\.(\w+))?\s*\]\]")
_TOML_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+|\"[^\"]+\")\s*=")


def _toml_lines(text: str) -> dict[tuple, int]:
    """Key path → line for the ``[[filters]]`` / ``[[filters.tests]]`` shape of a filter file."""
    out: dict[tuple, int] = {}
    path: tuple = ()
    i = -1
    counters: dict[str, int] = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = _TOML_HEADER.match(line)
        if m:
            if m.group(1) is None:
                i, counters = i + 1, {}
                path = ("filters", i)
            else:
                j = counters[m.group(1)] = counters.get(m.group(1), -1) + 1
                path = ("filters", i, m.group(1), j)
            out.setdefault(path, n)
            continue
        m = _TOML_KEY.match(line)
        if m and path:
            out.setdefault(path + (m.group(1).strip('"'),), n)
    return out


def _decode(path: str, data: bytes) -> tuple[object, dict[tuple, int]]:
    """The parsed document and its key lines; raise :class:`FilterError` on bad syntax."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FilterError(path, f"not UTF-8 text (byte {exc.start})") from None
    if path.endswith(".toml"):
        import tomllib
        try:
            return tomllib.loads(text), _toml_lines(text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            raise FilterError(path, f"malformed TOML: {exc}", line=int(m.group(1)) if m else None,
                              hint="check quoting on that line") from None
    import yaml
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), _yaml_lines(path, text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise FilterError(path, f"malformed YAML: {getattr(exc, 'problem', None) or exc}",
                          line=mark.line + 1 if mark else None,
                          hint="check indentation and quoting on that line") from None


def _line(lines: dict[tuple, int], loc: tuple) -> int | None:
    for cut in range(len(loc), 0, -1):
        if loc[:cut] in lines:
            return lines[loc[:cut]]
    return None


def _filter_name(doc: object, loc: tuple) -> str | None:
    if len(loc) >= 2 and loc[0] == "filters" and isinstance(loc[1], int) and isinstance(doc, dict):
        items = doc.get("filters")
        if isinstance(items, list) and loc[1] < len(items) and isinstance(items[loc[1]], dict):
            name = items[loc[1]].get("name")
            return str(name) if name is not None else f"#{loc[1] + 1}"
    return None


def _pydantic_errors(path: str, doc: object, lines: dict, exc: ValidationError) -> list[FilterError]:
    errors = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        where = ".".join(map(str, loc[2:] if loc[:1] == ("filters",) else loc)) or "file"
        name, line, hint = _filter_name(doc, loc), _line(lines, loc), None
        if err["type"] == "extra_forbidden":
            model = model_at(loc)
            close = difflib.get_close_matches(str(loc[-1]), known_keys(model), n=1)
            problem = f"unknown key {loc[-1]!r}"
            hint = (f"did you mean {close[0]!r}? " if close else "") + \
                f"known keys: {', '.join(known_keys(model))}"
        elif err["type"] == "missing" and loc[-1] == "unless":
            problem = "short_circuit rule without `unless`"
            hint = ("add `unless: '<regex of error output>'` so failing output is never swallowed, "
                    "or `unless: never` to say on purpose that nothing can block it")
        else:
            problem = f"{where}: {err['msg']}"
            if loc[-1:] == ("name",) and err["type"] == "string_pattern_mismatch":
                hint = "lowercase letters, digits and dashes, e.g. `terraform-plan`"
        errors.append(FilterError(path, problem, node=name, line=line, hint=hint))
    return sorted(errors, key=lambda e: e.line or 0)


def regex_fields(f: FilterSpec) -> list[tuple[tuple, str, int]]:
    """``(loc, regex, flags)`` of every regex of ``f``."""
    out: list[tuple[tuple, str, int]] = [(("match",), f.match, 0)]
    out += [(("replace", i, "pattern"), r.pattern, 0) for i, r in enumerate(f.replace)]
    for i, rule in enumerate(f.short_circuit):
        out.append((("short_circuit", i, "when"), rule.when, re.M))
        if rule.unless != NEVER:
            out.append((("short_circuit", i, "unless"), rule.unless, re.M))
    out += [(("strip", i), p, 0) for i, p in enumerate(f.strip)]
    out += [(("keep", i), p, 0) for i, p in enumerate(f.keep or [])]
    return out


_GROUP_REF = re.compile(r"\\(?:(\d+)|g<([^>]*)>)")


def _semantic_errors(path: str, i: int, f: FilterSpec, lines: dict) -> list[FilterError]:
    """Regexes that do not compile, replacement group references that do not exist, and
    multi-line messages."""
    errors = []

    def err(loc: tuple, problem: str, hint: str | None = None) -> None:
        errors.append(FilterError(path, problem, node=f.name, line=_line(lines, ("filters", i) + loc),
                                  hint=hint))
    for loc, regex, flags in regex_fields(f):
        try:
            check_regex(regex, flags)
        except re.error as exc:
            err(loc, f"{'.'.join(map(str, loc))}: bad regex {regex!r}: {exc}",
                "Python `re` syntax; quote backslashes in YAML with single quotes")
        except UnsafeRegex as exc:
            err(loc, f"{'.'.join(map(str, loc))}: regex {regex!r} can take exponential time: "
                f"{exc.problem}", exc.fix)
    for j, r in enumerate(f.replace):
        try:
            groups = re.compile(r.pattern)
        except re.error:
            continue
        for num, named in _GROUP_REF.findall(r.with_):
            ok = (int(num) <= groups.groups) if num else (
                named in groups.groupindex or (named.isdigit() and int(named) <= groups.groups))
            if not ok:
                err(("replace", j, "with"), f"replace.{j}.with: group reference "
                    f"{num or named!r} is not a group of {r.pattern!r}")
    one_line: list[tuple[tuple, str]] = [(("description",), f.description),
                                         (("on_empty",), f.on_empty or "")]
    one_line += [(("short_circuit", j, "message"), s.message) for j, s in enumerate(f.short_circuit)]
    for loc, text in one_line:
        if "\n" in text.strip("\n"):
            err(loc, f"{'.'.join(map(str, loc))}: must be one line",
                "use a single-line string (no `|` block)")
    return errors


def parse(path: str, data: bytes) -> list[FilterSpec]:
    """The validated filters of one file; raise :class:`FilterErrors` listing every problem."""
    try:
        doc, lines = _decode(path, data)
    except FilterError as exc:
        raise FilterErrors([exc]) from None
    if not isinstance(doc, dict):
        raise FilterErrors([FilterError(path, "a filter file is a mapping with a `filters:` list",
                                        hint="start the file with `filters:`")])
    try:
        spec = FilterFile.model_validate(doc)
    except ValidationError as exc:
        raise FilterErrors(_pydantic_errors(path, doc, lines, exc)) from None
    errors = []
    seen: dict[str, int] = {}
    for i, f in enumerate(spec.filters):
        errors += _semantic_errors(path, i, f, lines)
        if f.name in seen:
            errors.append(FilterError(path, f"duplicate filter name (also filter #{seen[f.name] + 1})",
                                      node=f.name, line=_line(lines, ("filters", i, "name")),
                                      hint="names are unique across all loaded filter files"))
        seen.setdefault(f.name, i)
    if errors:
        raise FilterErrors(errors)
    return list(spec.filters)


def name_line(path: str, data: bytes, index: int) -> int | None:
    """Line of the ``name`` key of filter ``index`` (for errors found across files)."""
    try:
        _, lines = _decode(path, data)
    except FilterError:
        return None
    return _line(lines, ("filters", index, "name"))


def plain(f: FilterSpec, origin: str, path: str) -> dict:
    """The hot path's form of one filter: plain data, ``marshal``-able, regexes as strings."""
    return {
        "name": f.name, "description": f.description, "origin": origin, "file": path,
        "match": f.match, "strip_ansi": f.strip_ansi,
        "replace": [[r.pattern, r.with_] for r in f.replace],
        "short_circuit": [[s.when, s.message.strip("\n"), None if s.unless == NEVER else s.unless]
                          for s in f.short_circuit],
        "strip": list(f.strip), "keep": None if f.keep is None else list(f.keep),
        "max_line_chars": f.max_line_chars, "head": f.head, "tail": f.tail,
        "max_lines": f.max_lines,
        "on_empty": None if f.on_empty is None else f.on_empty.strip("\n"),
    }


def load_files(entries: list[tuple[str, str, bytes]]) -> tuple[list[tuple[str, str, FilterSpec]],
                                                               list[GraphError]]:
    """Validate every ``(origin, path, bytes)`` entry, in the given (search) order.

    A file with any error is left out whole, its errors kept; a filter whose name an earlier file
    already uses is rejected (the later file in search order is blamed).
    """
    loaded: list[tuple[str, str, FilterSpec]] = []
    errors: list[GraphError] = []  # FilterErrors.errors: filter errors, typed as the base's list
    owner: dict[str, str] = {}
    for origin, path, data in entries:
        try:
            specs = parse(path, data)
        except FilterErrors as exc:
            errors += exc.errors
            continue
        for i, f in enumerate(specs):
            if f.name in owner:
                errors.append(FilterError(path, f"duplicate filter name (already defined in "
                                          f"{owner[f.name]})", node=f.name,
                                          line=name_line(path, data, i),
                                          hint="rename it: filters are searched project, user, "
                                          "shipped, so a new name already takes precedence"))
                continue
            owner[f.name] = path
            loaded.append((origin, path, f))
    return loaded, errors


def compile_files(entries: list[tuple[str, str, bytes]]) -> dict:
    """What the filter cache stores: plain filters in search order and rendered errors."""
    loaded, errors = load_files(entries)
    return {"filters": [plain(f, origin, path) for origin, path, f in loaded],
            "errors": [e.render() for e in errors]}
