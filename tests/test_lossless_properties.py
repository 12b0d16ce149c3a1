"""Property tests: the lossless tier round-trips on arbitrary input; the data crushers never inflate."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thresher.dataflow import escapes
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.payload import SYNTHETIC
from thresher.dataflow.tokens import estimate
from thresher.stages.data import crush_json
from thresher.stages.data import crush_table
from thresher.stages.data import crush_yaml
from thresher.stages.generic import lossless
from thresher.stages.lib import jsontree as jt

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**12, 10**12),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=30))
json_values = st.recursive(scalars, lambda kids: st.one_of(
    st.lists(kids, max_size=6), st.dictionaries(st.text(max_size=10), kids, max_size=6)), max_leaves=40)
line_lists = st.lists(st.one_of(st.sampled_from(["", "", "a", "a", "x = 1", "[thresher: 2 more blank lines]",
                                                 "[thresher: previous line repeated 1 more times]"]),
                                st.text(alphabet="ab \t", max_size=4)), max_size=60)


class Ctx:
    """A stage context with a small budget, so that every stage has work to do."""

    def __init__(self, max_lines: int = 5, max_tokens: int = 60) -> None:
        self.budget = {"max_lines": max_lines, "max_tokens": max_tokens}
        self.handle = "0123456789ab"
        self.extras: dict = {}


def _payload(text: str):
    return initial_payload(text.encode("utf-8", "surrogatepass"))


@SETTINGS
@given(line_lists, st.integers(2, 5), st.booleans())
def test_run_collapse_round_trips(lines, min_run, blank):
    """Folded runs expand back to the exact lines, unless the input holds count-line look-alikes
    (then the stage's run-time check declines, see the next test)."""
    out = lossless.collapse_runs(lines, min_run, blank)
    lookalike = any(lossless._RUN_RE.match(t) or lossless._BLANK_RE.match(t) for t in lines)
    if out is not None and not lookalike:
        assert lossless.expand_runs([t for t, _ in out]) == lines


@SETTINGS
@given(line_lists)
def test_lossless_stage_output_expands_to_its_input(lines):
    """Whatever the input (count-line look-alikes included), an applied text transform inverts exactly."""
    p = _payload("\n".join(lines) + "\n")
    params = {"json_forms": False, "runs": True, "min_run": 3, "min_blank_run": 3, "max_json_bytes": 1 << 20}
    out = lossless.run(p, params, Ctx(max_lines=1, max_tokens=1))
    if out is not None:
        assert lossless.expand_runs(list(out.lines)) == list(p.lines)
        assert all(line == p.source[o] for line, o in zip(out.lines, out.origin) if o != SYNTHETIC)


@SETTINGS
@given(json_values, st.sampled_from([1, 2, 4, "\t"]), st.booleans())
def test_json_forms_invert_byte_for_byte(value, indent, ascii_only):
    """JSON compaction and the table form re-indent to the exact input; canonical input is handled."""
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    compact = lossless.json_compact(text)
    if compact is not None:
        assert lossless.json_uncompact(compact[0], compact[1], jt.detect_colon(text)) == text
    elif isinstance(value, (dict, list)) and value:
        # a container always compacts unless its first member sits on the first line (cannot happen)
        raise AssertionError(f"canonical JSON not compacted: {text[:80]!r}")
    table = lossless.json_table(text)
    if table is not None:
        assert lossless.json_untable(table[0], table[1], jt.detect_colon(text)) == text


@SETTINGS
@given(json_values)
def test_lexeme_tree_minifies_like_the_json_module(value):
    """The lexeme-preserving parser reads what json.dumps writes and writes it back minified."""
    text = json.dumps(value, indent=2)
    root = jt.parse(text)
    assert root is not None
    assert jt.minify(root) == json.dumps(value, separators=(",", ":"))


def _hex(code: int, upper: bool) -> str:
    return f"\\u{code:04X}" if upper else f"\\u{code:04x}"


# JSON written every way a writer may write it: escapes a canonical writer would not use (\/,
# \u0041, \u00E9, a space as \u0020, a control character in either hex case, a surrogate
# pair), raw non-ASCII, numbers as 1.50, 1E+5, -0, duplicate keys, any whitespace between tokens
chars = st.one_of(
    st.sampled_from(["a", " ", "/", "é", "\U0001f600", "\u2028", "\x7f", '\\"', "\\\\", "\\/",
                     "\\b", "\\f", "\\n", "\\r", "\\t", "\\ud83d\\ude00", "\\uD83D\\uDE00"]),
    st.builds(_hex, st.sampled_from([0x1, 0x1F, 0x20, 0x22, 0x2F, 0x41, 0x5C, 0xE9, 0x2028]), st.booleans()))
strings = st.lists(chars, max_size=6).map(lambda cs: '"' + "".join(cs) + '"')
numbers = st.builds(lambda sign, whole, frac, exp: sign + whole + frac + exp,
                    st.sampled_from(["", "-"]), st.sampled_from(["0", "1", "12", "9007199254740993"]),
                    st.sampled_from(["", ".0", ".5", ".50", ".25", ".1000000000000000055511151231257827"]),
                    st.sampled_from(["", "e5", "E+2", "e-07", "e0", "e400"]))
lexemes = st.one_of(strings, numbers, st.sampled_from(["true", "false", "null"]))
spaces = st.sampled_from(["", "", " ", "\n  ", "\t", "\r\n"])


@st.composite
def written_json(draw, depth: int = 0) -> str:
    """One JSON value as some writer could have written it."""
    kind = draw(st.sampled_from(["scalar", "array", "object"] if depth < 4 else ["scalar"]))
    if kind == "scalar":
        return draw(lexemes)
    pad = draw(spaces)
    if kind == "array":
        items = draw(st.lists(written_json(depth + 1), max_size=4))
        return "[" + pad + ("," + pad).join(items) + pad + "]"
    keys = draw(st.lists(st.one_of(st.sampled_from(['"a"', '"b"', '"a b"']), strings), max_size=4))
    members = [k + pad + ":" + draw(spaces) + draw(written_json(depth + 1)) for k in keys]
    return "{" + pad + ("," + pad).join(members) + pad + "}"


def _strictly_equal(a, b) -> bool:
    """Equal trees, containers of the same class (an Obj and an Arr of the same items differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, jt.Obj):
        return len(a) == len(b) and all(ka == kb and _strictly_equal(va, vb) for (ka, va), (kb, vb) in zip(a, b))
    if isinstance(a, jt.Arr):
        return len(a) == len(b) and all(map(_strictly_equal, a, b))
    return a == b


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(written_json(), spaces)
def test_lexeme_tree_is_the_tokens_tree_however_the_json_is_written(text, pad):
    """The tree built from orjson's value (when the text is written canonically) is the tree of
    the text's own tokens, for every way of writing JSON; ``None`` exactly when a token-by-token
    parse finds no single valid document (the ones orjson accepts)."""
    import orjson
    text = pad + text + pad
    root = jt.parse(text)
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        assert root is None
        return
    toks = jt.tokens(text)
    assert toks is not None
    assert _strictly_equal(root, jt.build(toks))


def test_lexeme_tree_from_the_value_only_for_text_written_as_orjson_writes():
    """The value gives the tree only when no lexeme is written another way (checked: the texts
    without whitespace are equal); otherwise the tokens do, and both trees keep every lexeme."""
    import orjson
    canonical = '{"a b": [1, 1.5, -0.0, "x \\"y\\"", true, null], "c": {}}'
    other = ['{"a b": [1, 1.50, -0.0, "x \\"y\\"", true, null], "c": {}}',
             '{"a\\u0020b": [1, 1.5, -0.0, "x \\"y\\"", true, null], "c": {}}',
             '{"a b": [1, 1.5, -0.0, "x \\u0022y\\"", true, null], "c": {}}',
             '{"a b": [1, 1.5, -0.0, "x \\"y\\"", true, null], "c": {}, "c": {}}']
    def from_value(text):
        return jt._from_value(orjson.loads(text), jt._Stripped(text))

    assert _strictly_equal(from_value(canonical), jt.build(jt.tokens(canonical)))
    for text in other:
        assert from_value(text) is None
    for text in [canonical] + other:
        assert _strictly_equal(jt.parse(text), jt.build(jt.tokens(text)))
        assert jt.minify(jt.parse(text)) == "".join(jt.tokens(text))
    for depth in (200, 300):    # deeper than orjson writes: built by the iterative builder
        deep = "[" * depth + '{"a": 1.0}' + "]" * depth
        assert _strictly_equal(jt.parse(deep), jt.build(jt.tokens(deep)))


@SETTINGS
@given(st.text(alphabet="ab\x1b[31m0;K\n", max_size=80))
def test_sgr_strip_keeps_the_visible_text(text):
    """Only colour sequences go, and only when nothing else would change what a terminal shows."""
    out = escapes.strip_sgr(text)
    if out is not None:
        assert "\x1b" not in out and out == escapes.SGR_RE.sub("", text)


rows = st.lists(st.fixed_dictionaries({
    "id": st.integers(0, 10**6), "status": st.sampled_from([200, 200, 200, 404, 500]),
    "name": st.text(alphabet="abcdef ", min_size=1, max_size=12),
    "score": st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)),
}), min_size=1, max_size=120)


@SETTINGS
@given(rows, st.integers(20, 400))
def test_crush_json_never_inflates_and_shows_only_input_values(records, max_tokens):
    """crush-json output is never larger than its input, and every value it shows is an input lexeme."""
    from thresher.property.relayout import values_from_input
    text = json.dumps(records, indent=2)
    p = _payload(text + "\n")
    out = crush_json.run(p, {"max_bytes": 1 << 22, "max_ratio": 1.0}, Ctx(10, max_tokens))
    if out is not None:
        view = out.payload
        assert estimate(view.text()) < estimate(p.text())
        for line in view.lines:
            assert line.lstrip().startswith("[thresher: ") or values_from_input(line, text), line
        # no marker inside the data: the summary lines come first, then a sample that parses
        body = [ln for ln in view.lines if not ln.startswith("[thresher: ")]
        assert not any("[thresher: " in ln for ln in body)
        assert isinstance(json.loads("\n".join(body)), list)


@SETTINGS
@given(rows, st.integers(20, 400))
def test_table_and_yaml_crushers_never_inflate_and_keep_lines_byte_exact(records, max_tokens):
    """crush-table and crush-yaml keep source lines byte-exact and never grow the view."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=["id", "status", "name", "score"], lineterminator="\n")
    w.writeheader()
    w.writerows(records)
    import yaml
    for stage, text, params in (
            (crush_table, buf.getvalue(), {"delimiter": "", "max_ratio": 1.0, "max_anomalies": 60,
                                           "tail_share": 0.25}),
            (crush_yaml, yaml.safe_dump(records, sort_keys=False), {"max_ratio": 1.0, "max_bytes": 1 << 22})):
        p = _payload(text)
        out = stage.run(p, params, Ctx(10, max_tokens))
        if out is not None:
            assert estimate(out.text()) < estimate(p.text())
            assert all(line == p.source[o] for line, o in zip(out.lines, out.origin) if o != SYNTHETIC)
