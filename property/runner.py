"""Run the invariant checks over compiled plans with Hypothesis; used by the tests and `thresher check`.

One *property* is one invariant over one plan: Hypothesis draws cases shaped for the plan's payload
class, runs the check, and on failure shrinks to a minimal falsifying example, which the
:class:`Outcome` keeps (shortened) with the assertion message.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
import zlib
from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar

from hypothesis import given, seed
from hypothesis import strategies as st

from thresher.dataflow.api import Result

from . import invariants as inv
from . import profiles
from . import strategies as gen

if TYPE_CHECKING:
    from thresher.dataflow.shapes import Plan


Example = TypeVar("Example")
"""What a property draws: a :class:`~.strategies.Case`, or for INV-5 (case, node, fault)."""


@dataclasses.dataclass(frozen=True)
class Property(Generic[Example]):
    """An invariant as a property: what to draw for a plan, and how to check one drawn example
    (with the plan and the archive; whatever the check returns is ignored, it fails by raising)."""

    id: str
    title: str
    draw: Callable[[dict], st.SearchStrategy[Example]]
    check: Callable[[Example, dict, object], object]


def _flavour(plan: dict) -> str | None:
    return plan["class"] if plan["class"] in gen.CLASS_COMMANDS else None


def _mixed(plan: dict) -> st.SearchStrategy[gen.Case]:
    c = _flavour(plan)
    # Structured cases mostly pass byte-exact, so they get a smaller share.
    return st.one_of(gen.cases(c), gen.failing_cases(c), gen.cases(c), gen.failing_cases(c),
                     gen.structured_cases(c))


def _run(case: gen.Case, plan: dict, archive, trace: bool = False) -> Result:
    # Only the checks that read the trace pay for it (it doubles the cost of a run).
    return inv.run_case(case, plan, archive, trace=trace)


# Mostly raising faults: timeouts and overruns cost real time (a stage budget) per example, and the
# test suite also runs every fault on every node of one graph (tests/test_properties.py).
_FAULT_MIX = ("raise",) * 8 + ("timeout", "overrun")

PROPERTIES: dict[str, Property[Any]] = {p.id: p for p in (
    Property("INV-1", "deterministic", _mixed,
             lambda c, p, a: inv.check_deterministic(c, _run(c, p, a), p, a)),
    Property("INV-2", "never worse", _mixed, lambda c, p, a: inv.check_never_worse(c, _run(c, p, a))),
    Property("INV-3", "no fabrication", _mixed,
             lambda c, p, a: inv.check_no_fabrication(c, _run(c, p, a), p)),
    Property("INV-4", "one footer, true counts, expandable", _mixed,
             lambda c, p, a: inv.check_one_footer(c, _run(c, p, a), p, a)),
    Property("INV-5", "fail open",
             lambda plan: st.tuples(_mixed(plan), st.sampled_from(plan["order"]),
                                    st.sampled_from(_FAULT_MIX)),
             lambda args, plan, archive: inv.check_fail_open(args[0], plan, archive, *args[1:])),
    Property("INV-6", "error lines kept on failure", lambda p: gen.failing_cases(_flavour(p)),
             # Clipped error lines are accepted here; tests/test_properties.py pins the strict form.
             lambda c, p, a: inv.check_error_lines_kept(c, _run(c, p, a), p, allow_clipped=True)),
    Property("INV-9", "structured output byte-exact", lambda p: gen.structured_cases(_flavour(p)),
             lambda c, p, a: inv.check_structured_exact(c, _run(c, p, a), p)),
    Property("STAGE", "no stage rejected", _mixed,
             lambda c, p, a: inv.check_no_rejections(c, _run(c, p, a, trace=True))),
)}


@dataclasses.dataclass
class Outcome:
    """The result of one property over one plan."""

    graph: str
    invariant: str
    title: str
    ok: bool
    examples: int
    seconds: float
    message: str = ""
    example: str = ""

    def line(self) -> str:
        """``PASS  graph  INV-n title  (N examples, S s)`` for terminals."""
        runs = f"{self.examples} examples" if self.ok else f"falsified; {self.examples} runs with shrinking"
        return (f"{'PASS' if self.ok else 'FAIL'}  {self.graph}  {self.invariant} {self.title}  "
                f"({runs}, {self.seconds:.1f}s)")


def check_plan(plan: dict, prop_id: str, archive, *, label: str | None = None,
               profile: str | None = None, examples: int | None = None) -> Outcome:
    """Run property ``prop_id`` over ``plan``; never raises for a failing property."""
    prop = PROPERTIES[prop_id]
    seen: dict = {"n": 0, "fail": None}

    def body(args):
        seen["n"] += 1
        try:
            prop.check(args, plan, archive)
        except Exception as exc:
            seen["fail"] = (args, exc)
            raise

    overrides: dict[str, object] = dict(database=None, report_multiple_bugs=False,
                                        verbosity=profiles.QUIET)
    if examples:
        overrides["max_examples"] = examples
    chosen = profiles.get(profile, **overrides)
    test = chosen(given(prop.draw(plan))(body))
    if chosen.derandomize:  # reproducible, but not the same examples for every graph and invariant
        test = seed(zlib.crc32(f"{plan['id']}/{prop_id}".encode()))(test)
    t0 = time.perf_counter()
    try:
        test()
    except Exception as exc:  # noqa: BLE001 - any failure is the outcome; the minimal failing example was replayed last
        args, err = seen["fail"] or (None, exc)
        message = str(err) or type(err).__name__
        if not isinstance(err, AssertionError):
            message = f"{prop_id}: the check crashed: {type(err).__name__}: {message}"
        return Outcome(label or plan["id"], prop_id, prop.title, False, seen["n"],
                       time.perf_counter() - t0, message, repr(args) if args is not None else "")
    return Outcome(label or plan["id"], prop_id, prop.title, True, seen["n"], time.perf_counter() - t0)


def check_plans(plans, *, properties: list[str] | None = None, profile: str | None = None,
                examples: int | None = None, archive=None,
                report: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Every property over every plan: ``plans`` is a ``Plans`` (from ``load_plans``) or a dict of
    plans keyed by label. Archives go to a temporary folder unless ``archive`` is given."""
    from thresher.stores.archive import FileArchive
    plans = getattr(plans, "plans", plans)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="thresher-check-") as tmp:
        archive = archive or FileArchive(os.path.join(tmp, "archive"))
        for label in sorted(plans):
            for prop_id in properties or list(PROPERTIES):
                out = check_plan(plans[label], prop_id, archive, label=label, profile=profile,
                                 examples=examples)
                outcomes.append(out)
                if report:
                    report(out)
    return outcomes


def compile_files(paths: list[str], cwd: str | None = None) -> tuple[dict[str, Plan], list[str]]:
    """Validate and compile graph files (bases found among the discovered graphs): plans and errors."""
    from thresher.dataflow.build import finder, load_all, load_classify
    from thresher.dataflow.compile import compile_graph, default_registry
    from thresher.dataflow.errors import GraphError, GraphErrors
    from thresher.dataflow.plan import CLASSIFY_FILE, discover
    from thresher.dataflow.spec import load_graph
    targets = {os.path.realpath(p) for p in paths}
    by_id, _ = load_all([f for f in discover(cwd) if os.path.realpath(f[1]) not in targets])
    registry = default_registry()
    plans: dict[str, Plan] = {}
    errors: list[str] = []
    for path in paths:
        if os.path.basename(path) in (CLASSIFY_FILE, "classify.yml"):
            errors.extend(e.render() for e in load_classify([("project", path)])[1])
            continue
        try:
            g = load_graph(path)
            by_id.setdefault(g.graph_id, []).insert(0, ("project", g))
            plans[path] = compile_graph(g, registry, finder(by_id, g))
        except GraphErrors as exc:
            errors.extend(e.render() for e in exc.errors)
        except GraphError as exc:
            errors.append(exc.render())
    return plans, errors
