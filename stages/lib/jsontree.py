"""A lexeme-preserving JSON reader and writer, shared by the lossless tier and the JSON crusher.

Values are kept as the exact text they had in the input (``"caf\\u00e9"`` stays escaped, ``1.50``
keeps its zero), so whatever a stage shows of a value appears in the input verbatim (INV-3), and a
re-indented document can be compared byte for byte with the original. Containers are :class:`Obj`
(a list of ``(key lexeme, value)`` pairs, in input order, duplicates kept) and :class:`Arr`; a
scalar is its lexeme string. The parser is iterative, so deeply nested input cannot overflow the
Python stack. orjson is the fast gate: text it refuses is not parsed further.
"""

from __future__ import annotations

import re
from itertools import chain

TOKEN_RE = re.compile(
    r'[ \t\n\r]+|"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
    r"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}\[\]:,]")
"""A JSON token or a run of whitespace (a run is its own match: findall stays linear)."""
_VALID_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\s{}\[\]:,"]+|[{}\[\]]')
"""The tokens of a document orjson accepted but its commas and colons (no whitespace kept: a
valid document has nothing else between its tokens, so no tiling check is needed; in a valid
document a comma or a colon is implied by its neighbours, and half the matches are theirs)."""


class Obj(list):
    """A JSON object: ``[(key_lexeme, value), ...]`` in input order."""

    __slots__ = ()


class Arr(list):
    """A JSON array: ``[value, ...]``."""

    __slots__ = ()


TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import TypeAlias
    Node: TypeAlias = "Obj | Arr | str"
    """A parsed JSON value: an object, an array, or a scalar's token (its lexeme)."""


def tokens(text: str) -> list[str] | None:
    """The JSON tokens of ``text`` (whitespace dropped), or ``None`` when it is not tokenisable.

    One ``findall`` over the text; the matches tile it (their lengths add up to the text's) exactly
    when matching token after token from the start succeeds, so that is the check.
    """
    found = TOKEN_RE.findall(text)
    if sum(map(len, found)) != len(text):
        return None
    return [tok for tok in found if tok[0] not in " \t\n\r"]


def build(toks: list[str]) -> Node | None:
    """The tree of a token list, or ``None`` when the tokens are not exactly one JSON value."""
    stack: list = []
    root, key = None, None
    state: str | None = "value"
    for tok in toks:
        c = tok[0]
        if state == "end":
            return None
        if state in ("key", "key|close"):
            if c == "}" and state == "key|close":
                state = _close(stack, "}")
            elif c == '"':
                key, state = tok, "colon"
            else:
                return None
        elif state == "colon":
            if c != ":":
                return None
            state = "value"
        elif state in ("value", "value|close"):
            if c == "]" and state == "value|close":
                state = _close(stack, "]")
                continue
            if c in "}],:":
                return None
            node = Obj() if c == "{" else Arr() if c == "[" else tok
            if not stack:
                root = node
            elif isinstance(stack[-1], Obj):
                stack[-1].append((key, node))
            else:
                stack[-1].append(node)
            if c in "{[":
                stack.append(node)
                state = "key|close" if c == "{" else "value|close"
            else:
                state = "sep" if stack else "end"
        else:  # "sep": a comma or the closing bracket of the open container
            if c == ",":
                state = "key" if isinstance(stack[-1], Obj) else "value"
            elif c in "}]":
                state = _close(stack, c)
            else:
                return None
        if state is None:
            return None
    return root if state == "end" else None


def _close(stack: list, bracket: str) -> str | None:
    """Pop the open container if ``bracket`` closes it; the next parser state (None: mismatch)."""
    if not stack or (bracket == "}") != isinstance(stack[-1], Obj):
        return None
    stack.pop()
    return "sep" if stack else "end"


def parse(text: str) -> Node | None:
    """The lexeme tree of ``text``, or ``None`` when it is not one valid JSON document."""
    head = text.lstrip()[:1]
    if not head or head not in '{["-0123456789tfn':
        return None
    import orjson
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    try:
        root = _from_value(value, _Stripped(text))
    except (orjson.JSONEncodeError, RecursionError):
        root = None     # nested deeper than orjson writes or Python's stack allows
    return root if root is not None else _build_valid(_valid_tokens(text))


_WHITESPACE = b" \t\n\r"


class _Stripped:
    """The UTF-8 bytes of a text without its whitespace, read in order a piece at a time (made a
    chunk of :data:`CHUNK` characters at a time: no stripped copy of the whole text)."""

    def __init__(self, text: str) -> None:
        self.text, self.done_chars = text, 0
        self.buf, self.pos = b"", 0

    def follows(self, piece: bytes) -> bool:
        """Whether ``piece`` comes next (it is then read)."""
        n = len(piece)
        while len(self.buf) - self.pos < n and self.done_chars < len(self.text):
            more = self.text[self.done_chars:self.done_chars + CHUNK].encode().translate(None, _WHITESPACE)
            self.buf, self.pos = self.buf[self.pos:] + more, 0
            self.done_chars += CHUNK
        if self.buf[self.pos:self.pos + n] != piece:
            return False
        self.pos += n
        return True

    def at_end(self) -> bool:
        """Whether everything was read."""
        return self.pos == len(self.buf) and not self.text[self.done_chars:].strip(" \t\n\r")


class _Lexemes(dict):
    """str or int value -> its lexeme (``orjson.dumps``: as the canonical text writes it), each
    distinct one made once and shared by the tree."""

    def __missing__(self, value):
        import orjson
        lex = self[value] = orjson.dumps(value).decode()
        return lex


def _from_value(value, text: _Stripped) -> Node | None:
    """The lexeme tree of ``text`` (a document orjson read as ``value``) built from the value, or
    ``None`` when some lexeme of the text is not written as ``orjson.dumps`` writes its value.

    The check: the text and the canonical one (``orjson.dumps`` of each top-level member, between
    the brackets, commas and colons) are equal without their whitespace (a raw space is the only
    whitespace a string may hold). Whitespace gone, the tokens of a JSON text are still told
    apart, so two such texts that are equal have equal tokens one by one: a number, literal or
    bracket has no whitespace, so it is the same; of two strings with one value that are equal
    but for their raw spaces, the canonical one writes every space raw, so the other has no space
    escaped (they would differ by that escape), and then their pieces between spaces decode to the
    same text: they are equal too. Duplicate keys (orjson keeps one), ``1.50``, ``1e5``, ``-0``,
    ``\\u00e9`` or ``\\/`` differ. The top-level members are checked, converted and released
    one by one (the value, the tree and the canonical text are never all held whole)."""
    import orjson
    lexeme = _Lexemes().__getitem__
    dumps = orjson.dumps

    def node(v):
        t = type(v)
        if t is str or t is int:   # (not bool: its type is bool; 1 and True must not share a lexeme)
            return lexeme(v)
        if t is dict:   # (a string member without a call: most members are strings)
            return Obj(zip(map(lexeme, v), [lexeme(x) if type(x) is str else node(x) for x in v.values()]))
        if t is list:
            return Arr([lexeme(x) if type(x) is str else node(x) for x in v])
        if v is None:
            return "null"
        if t is bool:
            return "true" if v else "false"
        return dumps(v).decode()  # a float (no memo: 0.0 == -0.0)

    def written(v) -> bytes:
        return dumps(v).translate(None, _WHITESPACE)

    if type(value) is list:
        if not text.follows(b"["):
            return None
        root = Arr()
        for i, v in enumerate(value):
            if not text.follows(b"," + written(v) if i else written(v)):
                return None
            root.append(node(v))
            value[i] = None
        return root if text.follows(b"]") and text.at_end() else None
    if type(value) is dict:
        if not text.follows(b"{"):
            return None
        pairs = Obj()
        for i, k in enumerate(list(value)):
            v = value.pop(k)
            if not text.follows((b"," if i else b"") + written(k) + b":" + written(v)):
                return None
            pairs.append((lexeme(k), node(v)))
        return pairs if text.follows(b"}") and text.at_end() else None
    return node(value) if text.follows(written(value)) and text.at_end() else None


CHUNK = 1 << 20
"""Characters of a valid document tokenised at a time (up to a line end: no JSON token holds a
raw newline, so a chunk ends between tokens)."""


def _valid_tokens(text: str):
    """The tokens of a valid document (:data:`_VALID_TOKEN`), each distinct token one string (a
    document repeats its keys and many values: the tree holds each once), found a chunk at a time
    (the memory the tokens take: one chunk's plus the distinct ones)."""
    seen: dict[str, str] = {}
    return chain.from_iterable(map(seen.setdefault, toks, toks) for toks in _chunk_tokens(text))


def _chunk_tokens(text: str):
    """:data:`_VALID_TOKEN`'s matches in ``text``, one list per chunk of about :data:`CHUNK`."""
    start, n = 0, len(text)
    while start < n:
        end = text.find("\n", start + CHUNK)
        end = n if end < 0 else end + 1
        yield _VALID_TOKEN.findall(text, start, end)
        start = end


def _build_valid(toks) -> Node | None:
    """:func:`build` for the tokens of a document orjson accepted, without its commas and colons
    (valid JSON: no state checks; a string in an object where a key is due is the key)."""
    stack: list = []
    root, key, top, obj = None, None, None, False   # top: the open container (obj: an Obj)
    for tok in toks:
        c = tok[0]
        if c == "}" or c == "]":
            stack.pop()
            if stack:
                top = stack[-1]
                obj = type(top) is Obj
            continue
        if obj:
            if key is None:
                key = tok
                continue
            node = Obj() if c == "{" else Arr() if c == "[" else tok
            top.append((key, node))  # type: ignore[union-attr]
            key = None
        else:
            node = Obj() if c == "{" else Arr() if c == "[" else tok
            if top is None:
                root = node
            else:
                top.append(node)
        if c == "{" or c == "[":
            stack.append(node)
            top, obj = node, c == "{"
    return root


def minify(node: Node) -> str:
    """``node`` serialised with no whitespace at all (the lexemes, joined)."""
    if isinstance(node, Obj):
        return "{" + ",".join(k + ":" + minify(v) for k, v in node) + "}"
    if isinstance(node, Arr):
        return "[" + ",".join(minify(v) for v in node) + "]"
    return node


def pretty(toks: list[str], indent: str, colon: str = ": ") -> str:
    """The tokens laid out as the common pretty-printers do (``json.dumps(indent=…)``, jq,
    ``JSON.stringify(x, null, n)``): one member per line, ``colon`` after keys, empty containers
    as ``{}``/``[]``."""
    out, depth, n = [], 0, len(toks)
    for i, tok in enumerate(toks):
        c = tok[0]
        if c in "{[":
            out.append(tok)
            if i + 1 < n and toks[i + 1] in ("}", "]"):
                continue
            depth += 1
            out.append("\n" + indent * depth)
        elif c in "}]":
            if toks[i - 1] not in ("{", "["):
                depth -= 1
                out.append("\n" + indent * depth)
            out.append(tok)
        elif c == ",":
            out.append(",\n" + indent * depth)
        elif c == ":":
            out.append(colon)
        else:
            out.append(tok)
    return "".join(out)


def detect_colon(text: str) -> str:
    """The key separator of pretty-printed ``text``: ``": "`` (the common one) or ``":"``."""
    m = re.search(r'"(?:[^"\\\n]|\\.)*"(:\s?)', text)
    return ":" if m is not None and m.group(1) == ":" else ": "


def detect_indent(text: str) -> str | None:
    """The indent unit of pretty-printed JSON ``text`` (from its second line), or ``None``."""
    lines = text.split("\n", 2)
    if len(lines) < 2:
        return None
    second = lines[1]
    unit = second[:len(second) - len(second.lstrip(" \t"))]
    return unit or None


def parse_shared(text: str, ctx):
    """:func:`parse`, remembered for this run in ``ctx.memo`` so that the lossless tier and the
    crusher of one payload parse its text once (no memo without a ``ctx``, or with a stand-in
    that has none)."""
    key = ("jsontree", len(text), hash(text))
    cache = getattr(ctx, "memo", None)
    memo = cache.get("jsontree") if cache is not None else None
    if memo is not None and memo[0] == key:
        return memo[1]
    root = parse(text)
    if cache is not None:
        cache["jsontree"] = (key, root)
    return root
