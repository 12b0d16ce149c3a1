"""``thresher.boundary.fastjson`` is ``json.loads``/``json.dumps`` with their default arguments, byte for
byte and error for error, without importing ``json`` (the hook's start-up, issue 15)."""

from __future__ import annotations

import glob
import json
import math
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from thresher.boundary import fastjson

PAYLOADS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "hook_payloads", "*.json")))

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30)


def _same(a, b) -> bool:
    """Equal, NaN included (json reads NaN back as a float that equals nothing)."""
    return json.dumps(a) == json.dumps(b)


def test_the_real_hook_events_read_and_write_as_json_does():
    assert PAYLOADS
    for path in PAYLOADS:
        with open(path, "rb") as fh:
            raw = fh.read()
        assert fastjson.loads(raw) == json.loads(raw), path
        assert fastjson.dumps(json.loads(raw)) == json.dumps(json.loads(raw)), path


@settings(max_examples=300, deadline=None)
@given(values)
def test_dumps_is_json_dumps(value):
    assert fastjson.dumps(value) == json.dumps(value)


@settings(max_examples=300, deadline=None)
@given(values, st.sampled_from(["", " ", "\n", " \t\r\n "]))
def test_loads_is_json_loads(value, space):
    text = space + json.dumps(value) + space
    assert _same(fastjson.loads(text), json.loads(text))
    assert _same(fastjson.loads(text.encode()), json.loads(text.encode()))


@pytest.mark.parametrize("text", ["", "   ", "{", '{"a": 1} x', '{"a": 1}}', "[1, 2,]", "nul",
                                  '"\x01"', '{"a" 1}', "\ufeff{}", "[1] [2]", "01"])
def test_bad_input_raises_what_json_raises(text):
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as got:
        fastjson.loads(text)
    assert (got.value.msg, got.value.pos) == (want.value.msg, want.value.pos)


def test_other_encodings_and_values_go_to_json():
    for raw in ('{"a": "é"}'.encode("utf-16"), '{"a": 1}'.encode("utf-32-le"),
                b"\xef\xbb\xbf[1]", '{"ü": [1.5, null]}'.encode("utf-16-be")):
        assert fastjson.loads(raw) == json.loads(raw)
    for value in ({1: "a", None: 2, 1.5: 4}, {True: 3, False: 5}, ("t", (1,)), [math.inf, -math.inf],
                  "\ud800 lone surrogate", {"k": 10 ** 30}):
        assert fastjson.dumps(value) == json.dumps(value)
    with pytest.raises(TypeError):
        fastjson.dumps({"a": object()})
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError):
        fastjson.dumps(loop)


def test_it_imports_neither_json_nor_re():
    """(Recorded at the import statements: an editable install preloads ``re`` at start-up.)"""
    code = ("import builtins, sys\n"
            "seen, real = set(), builtins.__import__\n"
            "def record(name, *args, **kw):\n"
            "    seen.add(name)\n"
            "    return real(name, *args, **kw)\n"
            "builtins.__import__ = record\n"
            "from thresher.boundary import fastjson\n"
            "fastjson.dumps(fastjson.loads(b'{\"a\": [1, 2.5, null, \"x\"], \"b\": {}}'))\n"
            "sys.exit(' '.join(sorted(seen & {'json', 're', 'json.decoder', 'enum'})) or 0)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
