"""What a stage's source says it can do, checked against what its ``StageInfo`` declares.

Two promises of a registry entry are otherwise checked only while a graph runs, where a broken
one is silent quality loss (fail-open hands the input on and the output still says compressed):

- *summary lines*: a stage that writes a line whose origin is ``SYNTHETIC`` must declare
  ``emits_summaries=True`` (the executor rejects a new synthetic line from any other stage, INV-3;
  keeping one an earlier stage wrote needs no right), and a stage that declares it should be able
  to write one (an honest flag);
- *ports*: every ``Out("port", ...)`` a stage can return names a declared port (the executor
  rejects any other), and every declared port besides ``out`` is returned somewhere (else the
  graph wires an edge that never carries anything).

The check reads syntax trees (finding a module imports its parent packages, nothing else runs):
from the stage function it follows
every function and class it names, in its own module and in the modules it imports from
``thresher`` (``stages/lib`` helpers such as ``build``, ``drop``, ``elide``, ``mask_view``, the
filter engine) or from the stage's own top-level package, and collects the ``SYNTHETIC`` values it
writes (any use of the name that is not a comparison) and the ``Out(...)`` calls it makes.
Methods called on objects of unknown type are not followed, which is why a stage's own code names
what it writes (the shipped stages all do). ``tests/test_stage_contract.py`` runs it strictly over
every built-in stage; ``plugins.validate`` runs the definite half (an undeclared summary line or
port) over users' stages when a graph names one.
"""

from __future__ import annotations

import ast
import importlib.util
import os
from collections.abc import Callable, Iterable
from typing import NamedTuple

_PAYLOAD_MODULES = ("thresher.dataflow.payload", "thresher.dataflow.contract")
"""Modules through which stages reach ``SYNTHETIC`` and ``Out``."""

Loader = Callable[[str], "tuple[str, str] | None"]
"""Module name -> ``(file path, source)``, or ``None`` for a module that is not followed."""


class Finding(NamedTuple):
    """One broken promise: the stage, where in the code, what is wrong and how to fix it."""

    key: str
    path: str
    line: int
    problem: str
    fix: str

    def __str__(self) -> str:
        return f"stage {self.key!r} ({self.path}:{self.line}): {self.problem}; {self.fix}"


class _Module:
    """One parsed module: its top-level functions and classes and what its names are bound to."""

    def __init__(self, name: str, path: str, source: str, loader: Loader) -> None:
        self.name, self.path = name, path
        self.tree = ast.parse(source, filename=path)
        self.defs: dict[str, ast.AST] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}   # local name -> (module, attr|None)
        package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defs[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):   # tables of functions, aliases
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        self.defs[target.id] = node
        for imp in ast.walk(self.tree):
            if isinstance(imp, ast.Import):
                for a in imp.names:
                    if a.asname:
                        self.imports[a.asname] = (a.name, None)
                    else:
                        top = a.name.partition(".")[0]
                        self.imports[top] = (top, None)
            elif isinstance(imp, ast.ImportFrom):
                base = imp.module or ""
                if imp.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - imp.level + 1]
                    base = ".".join(parts + ([imp.module] if imp.module else []))
                for a in imp.names:
                    sub = f"{base}.{a.name}"
                    # `from pkg import mod` binds a module when pkg is a package holding one
                    # (asked of packages only: finding X.name imports X)
                    is_module = sub in _PAYLOAD_MODULES or (base not in _PAYLOAD_MODULES and (
                        _package(loader, base) and loader(sub) is not None))
                    self.imports[a.asname or a.name] = (sub, None) if is_module else (base, a.name)


def _package(loader: Loader, name: str) -> bool:
    got = loader(name)
    return got is not None and os.path.basename(got[0]) == "__init__.py"


class _Facts(NamedTuple):
    synthetic: list[tuple[str, int]]        # (path, line) of each SYNTHETIC value written
    outs: list[tuple[str | None, str, int]]  # (port or None when computed, path, line)
    entry_line: int
    path: str


def module_loader(follow: tuple[str, ...]) -> Loader:
    """Sources of the modules named ``follow`` or under them, found as Python finds them."""
    cache: dict[str, tuple[str, str] | None] = {}

    def load(name: str) -> tuple[str, str] | None:
        if name in cache:
            return cache[name]
        got = None
        if any(name == p or name.startswith(p + ".") for p in follow) \
                and not any(name == p for p in _PAYLOAD_MODULES):
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                spec = None
            origin = getattr(spec, "origin", None)
            if origin and origin.endswith(".py"):
                try:
                    with open(origin, encoding="utf-8") as f:
                        got = (origin, f.read())
                except (OSError, UnicodeDecodeError):
                    got = None
        cache[name] = got
        return got
    return load


class _Scanner:
    def __init__(self, loader: Loader) -> None:
        self.loader = loader
        self.modules: dict[str, _Module | None] = {}

    def module(self, name: str) -> _Module | None:
        if name not in self.modules:
            got = self.loader(name)
            try:
                self.modules[name] = None if got is None else _Module(name, got[0], got[1], self.loader)
            except (SyntaxError, ValueError):   # not ours to report: importing it says why
                self.modules[name] = None
        return self.modules[name]

    def _target(self, mod: _Module, node: ast.AST) -> tuple[str, str] | None:
        """The (module, top-level name) a Name or ``alias.attr`` load refers to, if followed."""
        if isinstance(node, ast.Name):
            if node.id in mod.defs:
                return mod.name, node.id
            bound = mod.imports.get(node.id)
            if bound is not None and bound[1] is not None:
                return bound[0], bound[1]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            bound = mod.imports.get(node.value.id)
            if bound is not None and bound[1] is None:
                return bound[0], node.attr
        return None

    @staticmethod
    def _is(mod: _Module, node: ast.AST, name: str) -> bool:
        """True when ``node`` is the payload module's ``name`` (imported under any alias)."""
        if isinstance(node, ast.Name):
            bound = mod.imports.get(node.id)
            return bound is not None and bound[0] in _PAYLOAD_MODULES and bound[1] == name
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr == name:
            bound = mod.imports.get(node.value.id)
            return bound is not None and bound[1] is None and bound[0] in _PAYLOAD_MODULES
        return False

    def facts(self, module: str, entry: str) -> _Facts | None:
        """What the function ``module:entry`` and everything it names can write and return."""
        root = self.module(module)
        if root is None or entry not in root.defs:
            return None
        synthetic: list[tuple[str, int]] = []
        outs: list[tuple[str | None, str, int]] = []
        seen: set[tuple[str, str]] = set()
        todo = [(module, entry)]
        while todo:
            where = todo.pop()
            if where in seen:
                continue
            seen.add(where)
            mod = self.module(where[0])
            node = mod.defs.get(where[1]) if mod is not None else None
            if mod is None or node is None:
                continue
            compared: set[int] = set()
            for sub in ast.walk(node):
                if isinstance(sub, ast.Compare):
                    compared.update(id(x) for x in [sub.left, *sub.comparators])
            for sub in ast.walk(node):
                if isinstance(sub, ast.Call) and self._is(mod, sub.func, "Out"):
                    port = sub.args[0] if sub.args else next(
                        (k.value for k in sub.keywords if k.arg == "port"), None)
                    name = port.value if isinstance(port, ast.Constant) and isinstance(port.value, str) \
                        else None
                    outs.append((name, mod.path, sub.lineno))
                elif isinstance(sub, (ast.Name, ast.Attribute)) and isinstance(sub.ctx, ast.Load):
                    if self._is(mod, sub, "SYNTHETIC"):
                        if id(sub) not in compared:
                            synthetic.append((mod.path, sub.lineno))
                        continue
                    target = self._target(mod, sub)
                    if target is not None and target not in seen:
                        todo.append(target)
        start = root.defs[entry]
        return _Facts(sorted(set(synthetic)), sorted(set(outs), key=lambda o: (o[1], o[2])),
                      getattr(start, "lineno", 1), root.path)


def check(key: str, impl: str, ports: Iterable[str], emits_summaries: bool, *,
          strict: bool = True, follow: tuple[str, ...] = ("thresher",),
          loader: Loader | None = None) -> list[Finding]:
    """The broken promises of the stage ``key`` whose function is ``impl`` (``"module:attr"``).

    ``strict`` (the built-in stages) also reports what a source may only seem not to do: a
    declared ``emits_summaries`` or port that no code it reaches uses, and an ``Out`` whose port
    is computed. Without it (users' stages, whose helpers may live anywhere) only the definite
    mistakes are reported: a summary line or a port the entry does not declare. The stage's own
    top-level package is followed besides ``follow``.
    """
    module, _, entry = impl.partition(":")
    follow = tuple(follow) + (module.partition(".")[0],)
    facts = _Scanner(loader or module_loader(follow)).facts(module, entry)
    if facts is None:
        return [Finding(key, module, 0, f"no source found for {impl!r}",
                        "point impl at a function defined in a Python module")] if strict else []
    found: list[Finding] = []
    declared = set(ports) | {"out"}
    if facts.synthetic and not emits_summaries:
        path, line = facts.synthetic[0]
        found.append(Finding(key, path, line, "writes summary lines (a SYNTHETIC origin) but does not "
                             "declare emits_summaries=True, so the executor rejects them (INV-3) and "
                             "the stage never applies", "add emits_summaries=True to its StageInfo"))
    if strict and emits_summaries and not facts.synthetic:
        found.append(Finding(key, facts.path, facts.entry_line, "declares emits_summaries=True but "
                             "no code it reaches writes a SYNTHETIC origin",
                             "remove emits_summaries=True (or write the summary lines it promises)"))
    returned = set()
    for port, path, line in facts.outs:
        if port is None:
            if strict:
                found.append(Finding(key, path, line, "returns Out(...) with a computed port name, "
                                     "which this check cannot follow", "name the port as a literal"))
        elif port not in declared:
            found.append(Finding(key, path, line, f"returns Out({port!r}, ...) but declares ports "
                                 f"{sorted(declared)}, so the executor rejects that result",
                                 f"add {port!r} to its ports (and wire it in the graphs)"))
        returned.add(port)
    if strict:
        for port in sorted(declared - returned - {"out"}):
            found.append(Finding(key, facts.path, facts.entry_line, f"declares port {port!r} but "
                                 "never returns Out(" + repr(port) + ", ...)",
                                 f"remove {port!r} from its ports (or return through it)"))
    return found
