"""``json.loads`` and ``json.dumps`` (default arguments) without importing ``json``.

The hook reads one JSON event and writes one JSON answer on every agent command; ``import json``
costs more than the rest of its answer, because ``json.decoder`` compiles regexes and so imports
``re`` (and ``re`` imports ``enum``): half a bare interpreter start. The work itself is done by
the C functions ``json`` uses too (``_json.make_scanner`` to parse, ``_json.encode_basestring_ascii``
for strings), so the results are ``json``'s own:

- :func:`loads` is ``json.loads(s)``: UTF-8 bytes or a str, JSON whitespace around the value, the
  same scanner settings (strict strings, ``NaN``/``Infinity`` accepted) and the same
  ``json.JSONDecodeError`` (imported only when there is an error). Anything else — another
  encoding or a BOM, which ``json`` detects or refuses — is handed to ``json`` itself.
- :func:`dumps` is ``json.dumps(obj)``: ``", "`` and ``": "`` separators, ASCII output, floats as
  ``repr`` (``NaN``, ``Infinity``); a value it does not know (a non-str key, another type, a
  cycle) is handed to ``json``, which encodes it or raises as usual.
"""

from __future__ import annotations

import _json

WHITESPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """The decoder attributes ``_json.make_scanner`` reads (``json.JSONDecoder()``'s defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # (the stub wants json's own class)


def loads(s: "str | bytes | bytearray"):
    """``json.loads(s)``."""
    if isinstance(s, (bytes, bytearray)):
        if not s or s[0] in (0x00, 0xEF, 0xFE, 0xFF) or (len(s) > 1 and s[1] == 0):
            import json  # UTF-16/32 or a BOM: json detects the encoding
            return json.loads(s)
        s = s.decode("utf-8", "surrogatepass")
    elif not isinstance(s, str) or s.startswith("\ufeff"):
        import json  # json's TypeError, or its error for a str that starts with a BOM
        return json.loads(s)
    start = len(s) - len(s.lstrip(WHITESPACE))
    try:
        obj, end = _scan(s, start)
    except StopIteration as err:
        from json import JSONDecodeError
        raise JSONDecodeError("Expecting value", s, err.value) from None
    if end != len(s) and s[end:].lstrip(WHITESPACE):
        from json import JSONDecodeError
        raise JSONDecodeError("Extra data", s, len(s) - len(s[end:].lstrip(WHITESPACE)))
    return obj


class _Unsupported(Exception):
    pass


def dumps(obj) -> str:
    """``json.dumps(obj)``."""
    out: list[str] = []
    try:
        _encode(obj, out.append)
    except (_Unsupported, RecursionError):
        import json
        return json.dumps(obj)
    return "".join(out)


_quote = _json.encode_basestring_ascii


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _encode(o, put) -> None:
    """Append the JSON text of ``o`` in the order and form of ``json``'s C encoder."""
    if o is None:
        put("null")
    elif o is True:
        put("true")
    elif o is False:
        put("false")
    elif isinstance(o, str):
        put(_quote(o))
    elif isinstance(o, int):
        put(int.__repr__(o))
    elif isinstance(o, float):
        put(_float(o))
    elif isinstance(o, (list, tuple)):
        put("[")
        for i, item in enumerate(o):
            if i:
                put(", ")
            _encode(item, put)
        put("]")
    elif isinstance(o, dict):
        put("{")
        for i, (key, value) in enumerate(o.items()):
            if not isinstance(key, str):
                raise _Unsupported  # json turns numbers, booleans and None into key strings
            if i:
                put(", ")
            put(_quote(key))
            put(": ")
            _encode(value, put)
        put("}")
    else:
        raise _Unsupported
