"""The engine ↔ stage contract, checked before anything runs (issue 17 §2).

A params key a stage reads but its model does not declare would be a ``KeyError`` at run time,
which fail-open turns into a quietly worse output: this test reads every built-in stage's module
and finds each ``params["key"]`` / ``params.get("key")`` in its params model. (That no stage is
rejected or raises on real outputs is checked on every corpus case and fixture by
``test_corpus.test_case_contracts``.)
"""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest
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
