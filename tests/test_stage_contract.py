"""The engine ↔ stage contract, checked before anything runs (issue 17 §2).

Each promise below is otherwise checked only at run time, where fail-open turns a broken one into
a quietly worse output:
- a params key a stage reads but its model does not declare would be a ``KeyError``: this test
  reads every built-in stage's module and finds each ``params["key"]`` / ``params.get("key")`` in
  its params model;
- a stage that writes summary lines (``SYNTHETIC`` origins, itself or through ``build``, ``drop``,
  ``elide``, ``mask_view``...) must declare ``emits_summaries=True`` (INV-3 rejects them
  otherwise), and one that declares it must be able to write one;
- every ``Out("port", ...)`` a stage can return names a declared port, and every declared port
  besides ``out`` is returned somewhere.
The last two are :mod:`thresher.stages.contract_check`, run here strictly on every built-in stage
and, on small broken stage modules given as source, shown to report each mistake with the stage
key, file and line. (That no stage is rejected or raises on real outputs is checked on every
corpus case and fixture by ``test_corpus.test_case_contracts``.)
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap

import pytest
from thresher.stages.contract_check import check, module_loader
from thresher.stages.registry import REGISTRY


def _attr(path: str):
    module, attr = path.split(":")
    return getattr(importlib.import_module(module), attr)


def params_read(source: str) -> set[str]:
    """Constant keys read from a name ``params`` anywhere in ``source``."""
    keys = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == "params" and isinstance(node.slice, ast.Constant):
            keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "params" and node.args \
                and isinstance(node.args[0], ast.Constant):
            keys.add(node.args[0].value)
    return keys


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_every_params_key_a_stage_reads_is_in_its_model(key):
    info = REGISTRY[key]
    run = _attr(info.impl)
    model = _attr(info.params)
    assert callable(run)
    defaults = model().model_dump()          # every model builds from its defaults alone
    missing = params_read(inspect.getsource(inspect.getmodule(run))) - set(model.model_fields)
    assert not missing, f"stage {key!r} ({info.impl}) reads params {sorted(missing)} " \
                        f"that {info.params} does not declare: add them to the model"
    assert set(defaults) == set(model.model_fields)


def test_the_scan_sees_subscripts_and_get_calls_only_on_params():
    src = ("def run(payload, params, ctx):\n"
           "    other = {'x': 1}\n"
           "    return params['declared'] or params.get('typo', 3) or other['x'] or other.get('y')\n")
    assert params_read(src) == {"declared", "typo"}


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_a_stage_declares_the_summary_lines_and_ports_its_code_writes(key):
    """Summary lines written <=> emits_summaries; Out ports returned <=> declared ports."""
    info = REGISTRY[key]
    found = check(key, info.impl, info.ports, info.emits_summaries)
    assert not found, "\n".join(map(str, found))


# -- the checker itself, on stage modules given as source -------------------------------------

def _check(stage: str, *, ports=("out",), summaries=False, strict=True, **modules: str):
    """Findings for ``demo.stage:run`` (``stage``), with ``demo.<name>`` modules beside it;
    thresher's own modules are read from the installed package."""
    sources = {"demo": ("demo/__init__.py", ""), "demo.stage": ("demo/stage.py", textwrap.dedent(stage))}
    sources.update({f"demo.{name}": (f"demo/{name}.py", textwrap.dedent(src)) for name, src in modules.items()})
    ours = module_loader(("thresher",))
    return check("demo", "demo.stage:run", ports, summaries, strict=strict,
                 loader=lambda name: sources.get(name) or ours(name))


def _one(found, path: str, line: int, words: str):
    assert len(found) == 1, found
    f = found[0]
    assert (f.key, f.path, f.line) == ("demo", path, line), f
    assert words in str(f) and f"stage 'demo' ({path}:{line})" in str(f)
    return f


def test_the_check_sees_a_summary_line_written_by_a_helper_in_the_module():
    found = _check("""\
        from thresher.dataflow.payload import SYNTHETIC


        def _counted(payload, n):
            return payload.with_view(payload.lines + (f"[{n} lines]",), payload.origin + (SYNTHETIC,))


        def run(payload, params, ctx):
            return _counted(payload, 3)
        """)
    f = _one(found, "demo/stage.py", 5, "does not declare emits_summaries=True")
    assert "INV-3" in f.problem and f.fix == "add emits_summaries=True to its StageInfo"
    assert not _check("""\
        from thresher.dataflow.payload import SYNTHETIC


        def run(payload, params, ctx):
            return payload.with_view(("[3 lines]",), (SYNTHETIC,))
        """, summaries=True)


def test_the_check_follows_the_shared_helpers_into_stages_lib():
    """build(...) of lib/common writes the counted line: the stage calling it must declare it."""
    import thresher.stages.lib.common as common
    found = _check("""\
        from thresher.stages.lib.common import build, critical_flags


        def run(payload, params, ctx):
            keep = [c or not line.startswith("DEBUG") for line, c in zip(payload.lines, critical_flags(payload))]
            return build(payload, keep, {0: "[thresher: debug lines not shown]"})
        """)
    assert found and all(f.path == common.__file__ for f in found)
    assert "emits_summaries" in found[0].problem
    found = _check("""\
        from thresher.stages.lib import dropsum as ds


        def run(payload, params, ctx):
            return ds.drop(payload, [None] * len(payload.lines), "demo")
        """)
    assert found and "emits_summaries" in found[0].problem


def test_the_check_follows_module_tables_and_other_modules_of_the_package():
    found = _check("""\
        from demo import helpers

        _WAYS = {"short": helpers.fold}


        def run(payload, params, ctx):
            return _WAYS["short"](payload)
        """, helpers="""\
        from thresher.dataflow import payload as pl


        def fold(payload):
            return payload.with_view(("[all folded]",), (pl.SYNTHETIC,))
        """)
    _one(found, "demo/helpers.py", 5, "emits_summaries")


def test_carrying_or_testing_for_summary_lines_needs_no_declaration():
    """Comparing with SYNTHETIC (e.g. skipping earlier summaries) writes none; copying origins
    keeps the ones an earlier stage wrote, which the executor allows any stage."""
    assert not _check("""\
        from thresher.dataflow.payload import SYNTHETIC


        def run(payload, params, ctx):
            keep = [i for i, o in enumerate(payload.origin) if o == SYNTHETIC or i % 2]
            return payload.select(keep)
        """)


def test_a_declared_emits_summaries_that_no_code_uses_is_reported():
    found = _check("""\
        def run(payload, params, ctx):
            return payload.select(range(10))
        """, summaries=True)
    f = _one(found, "demo/stage.py", 1, "declares emits_summaries=True but no code it reaches")
    assert "remove emits_summaries=True" in f.fix
    assert not _check("def run(payload, params, ctx):\n    return None\n", summaries=True, strict=False)


def test_an_undeclared_output_port_is_reported_at_the_out_call():
    found = _check("""\
        from thresher.dataflow.payload import Out


        def run(payload, params, ctx):
            if payload.failed:
                return None
            return Out("done", payload.select(range(5)))
        """)
    f = _one(found, "demo/stage.py", 7, "returns Out('done', ...) but declares ports ['out']")
    assert "add 'done' to its ports" in f.fix
    found = _check("""\
        from demo.helpers import finish


        def run(payload, params, ctx):
            return finish(payload)
        """, ports=("out", "masked"), helpers="""\
        from thresher.dataflow.contract import Out as Result


        def finish(view):
            return None if view is None else Result("done", view)
        """)
    assert [(f.path, f.line) for f in found] == [("demo/helpers.py", 5), ("demo/stage.py", 4)]
    assert "Out('done'" in found[0].problem and "declares port 'masked' but never returns" in found[1].problem


def test_a_declared_port_never_returned_and_a_computed_port_are_reported_when_strict():
    found = _check("""\
        from thresher.dataflow.payload import Out


        def run(payload, params, ctx):
            return Out(params["port"], payload)
        """, ports=("out", "done"))
    assert [f.line for f in found] == [5, 4]
    assert "computed port name" in found[0].problem and "never returns Out('done'" in found[1].problem
    assert not _check("""\
        from thresher.dataflow.payload import Out


        def run(payload, params, ctx):
            return Out(params["port"], payload)
        """, ports=("out", "done"), strict=False)


def test_the_check_reads_the_shipped_helpers_it_is_told_about():
    """Sanity: the facts behind the registry test are there (a reference stage of each kind)."""
    common = inspect.getsourcefile(importlib.import_module("thresher.stages.lib.common"))
    found = check("x", REGISTRY["distill-go"].impl, ("out",), False)
    assert [f.path for f in found] == [common]
    found = check("x", REGISTRY["distill-git-status"].impl, ("out",), True)
    assert len(found) == 1 and "Out('done'" in found[0].problem
