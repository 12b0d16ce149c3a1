"""A small, quote-aware shell tokenizer that keeps the exact source span of every token.

``shlex`` is not used: it drops operators and positions, and a rewrite must reproduce every
unchanged byte of the agent's line. The tokenizer is context-free (reserved words, compound
commands and segments are handled by :mod:`thresher.shell.segments`); it understands single and
double quotes, ``$'...'``, backslash escapes and line continuations, ``$( )`` (nested, tokenized
recursively), backticks, ``$(( ))``, ``${ }``, process substitution ``<( )``/``>( )``, array
assignments ``a=( ... )``, comments, operators and redirections.

Anything it cannot balance raises :class:`Unparsable`; a here-document raises :class:`Heredoc`
(its body is not shell syntax, so the caller leaves the whole line alone). Neither escapes the
package: :func:`thresher.shell.rewrite.rewrite` turns both into "no rewrite".
"""

from __future__ import annotations

WORD, OP, REDIR, COMMENT = "word", "op", "redir", "comment"

# Longest first: the tokenizer takes the first operator the text starts with.
OPERATORS = (";;&", "&&", "||", "|&", ";;", ";&", "|", "&", ";", "(", ")", "\n")
REDIRECTS = ("&>>", "<<<", "<<-", ">>", ">&", "<&", "<>", ">|", "&>", "<<", ">", "<")
METACHARS = frozenset(" \t\n|&;<>()")
IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
IDENT_CHARS = IDENT_START | frozenset("0123456789")


class Unparsable(Exception):
    """The line is not something this lexer can reproduce safely (the reason is the message)."""


class Heredoc(Unparsable):
    """The line holds a here-document: its body is data, so the whole line is left alone."""


class Token:
    """One token: ``kind`` (word/op/redir/comment), ``text`` as written, ``start``/``end`` offsets.

    Words also carry ``value`` (quotes and escapes removed, expansions kept as written),
    ``subst`` (holds a command or arithmetic substitution, which runs code of its own),
    ``expands`` (holds any ``$``/backtick expansion, so ``value`` is not what will run) and
    ``assign`` (a ``NAME=value`` assignment word). Redirections carry ``fd`` (``None`` if absent).
    """

    __slots__ = ("kind", "text", "start", "end", "value", "subst", "expands", "assign", "fd")
    fd: int | None

    def __init__(self, kind: str, text: str, start: int, end: int) -> None:
        self.kind, self.text, self.start, self.end = kind, text, start, end
        self.value, self.subst, self.expands, self.assign, self.fd = text, False, False, False, None

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.start}, {self.end})"


def tokenize(src: str) -> list[Token]:
    """All tokens of ``src``; raises :class:`Unparsable` or :class:`Heredoc`."""
    tokens, end = _scan(src, 0, nested=False)
    assert end == len(src)
    return tokens


def _scan(src: str, pos: int, nested: bool) -> tuple[list[Token], int]:
    """Tokenize from ``pos``; when ``nested`` (inside ``$(``), stop after the matching ``)``."""
    tokens: list[Token] = []
    depth = 0  # parens opened inside a nested scan: ``$( (a) )`` closes on the outer ``)``
    n = len(src)
    while pos < n:
        ch = src[pos]
        if ch in " \t":
            pos += 1
        elif src.startswith("\\\n", pos):  # line continuation between words is plain spacing
            pos += 2
        elif ch == "#":
            end = src.find("\n", pos)
            end = n if end < 0 else end
            tokens.append(Token(COMMENT, src[pos:end], pos, end))
            pos = end
        else:
            tok = _redirect(src, pos) or _operator(src, pos) or _word(src, pos)
            if nested and tok.kind == OP and tok.text in "()":
                depth += 1 if tok.text == "(" else -1
                if depth < 0:
                    return tokens, tok.end
            tokens.append(tok)
            pos = tok.end
    if nested:
        raise Unparsable("unclosed $(")
    return tokens, pos


def _operator(src: str, pos: int) -> Token | None:
    """The control operator at ``pos``, if any."""
    for op in OPERATORS:
        if src.startswith(op, pos):
            return Token(OP, op, pos, pos + len(op))
    return None


def _redirect(src: str, pos: int) -> Token | None:
    """The redirection operator at ``pos`` (with an optional leading fd number), if any."""
    digits = pos
    while digits < len(src) and src[digits].isdigit():
        digits += 1
    if src.startswith(("<(", ">("), digits):
        return None  # process substitution: a word
    for op in REDIRECTS:
        if src.startswith(op, digits):
            if digits > pos and op[0] == "&":
                return None  # ``2&>x`` is not a redirection of fd 2
            if op in ("<<", "<<-"):
                raise Heredoc("here-document")
            tok = Token(REDIR, src[pos:digits + len(op)], pos, digits + len(op))
            tok.fd = int(src[pos:digits]) if digits > pos else None
            return tok
    return None


def _word(src: str, pos: int) -> Token:
    """The word starting at ``pos`` with its unquoted value and expansion flags."""
    start, n = pos, len(src)
    value: list[str] = []
    tok = Token(WORD, "", start, start)
    while pos < n:
        ch = src[pos]
        if ch in METACHARS:
            if ch in "<>" and src.startswith("(", pos + 1):
                pos = _nested(src, pos + 2, tok, value)  # process substitution
                continue
            if ch == "(" and pos > start and _is_assignment(src[start:pos]):
                pos = _array(src, pos, value)  # a=(x y z)
                continue
            break  # a ``(`` right after a word is a function definition ``f()``, or an error
        pos = _word_char(src, pos, tok, value)
    if pos == start:
        raise Unparsable(f"unexpected {src[pos]!r}")
    tok.text, tok.end, tok.value = src[start:pos], pos, "".join(value)
    tok.assign = _is_assignment(tok.text)
    return tok


def _word_char(src: str, pos: int, tok: Token, value: list[str]) -> int:
    """Consume one unit of a word (a char, an escape, a quoted string or an expansion)."""
    ch = src[pos]
    if ch == "\\":
        if pos + 1 >= len(src):
            raise Unparsable("trailing backslash")
        if src[pos + 1] != "\n":  # ``\<newline>`` inside a word joins the halves
            value.append(src[pos + 1])
        return pos + 2
    if ch == "'":
        end = src.find("'", pos + 1)
        if end < 0:
            raise Unparsable("unbalanced single quote")
        value.append(src[pos + 1:end])
        return end + 1
    if ch == '"':
        return _double(src, pos + 1, tok, value)
    if ch == "`":
        return _backtick(src, pos, tok, value)
    if ch == "$":
        return _dollar(src, pos, tok, value)
    value.append(ch)
    return pos + 1


def _double(src: str, pos: int, tok: Token, value: list[str]) -> int:
    """Scan a double-quoted string whose opening quote is just before ``pos``."""
    while pos < len(src):
        ch = src[pos]
        if ch == '"':
            return pos + 1
        if ch == "\\" and pos + 1 < len(src):
            value.append(src[pos + 1] if src[pos + 1] in '$`"\\' else src[pos:pos + 2])
            pos += 2
        elif ch == "`":
            pos = _backtick(src, pos, tok, value)
        elif ch == "$":
            pos = _dollar(src, pos, tok, value)
        else:
            value.append(ch)
            pos += 1
    raise Unparsable("unbalanced double quote")


def _backtick(src: str, pos: int, tok: Token, value: list[str]) -> int:
    """Scan a backtick command substitution starting at ``pos``."""
    i = pos + 1
    while i < len(src):
        if src[i] == "\\":
            i += 2
            continue
        if src[i] == "`":
            tok.subst = tok.expands = True
            value.append(src[pos:i + 1])
            return i + 1
        i += 1
    raise Unparsable("unbalanced backtick")


def _dollar(src: str, pos: int, tok: Token, value: list[str]) -> int:
    """Scan what follows a ``$``: ``$((``, ``$(``, ``${``, ``$'``, ``$"``, or a plain parameter."""
    nxt = src[pos + 1:pos + 2]
    if src.startswith("$((", pos):
        end = _arith(src, pos + 3)
        tok.subst = True  # arithmetic may hold command substitutions of its own
    elif nxt == "(":
        return _nested(src, pos + 2, tok, value, begin=pos)
    elif nxt == "{":
        end = _brace(src, pos + 2, tok)
    elif nxt == "'":
        return _ansi_c(src, pos + 2, value)
    elif nxt == '"':
        return _double(src, pos + 2, tok, value)
    else:
        tok.expands = tok.expands or bool(nxt) and (nxt in IDENT_CHARS or nxt in "?#@*!$-")
        value.append("$")
        return pos + 1
    tok.expands = True
    value.append(src[pos:end])
    return end


def _nested(src: str, pos: int, tok: Token, value: list[str], begin: int | None = None) -> int:
    """Scan a ``$( )`` or ``<( )`` body from ``pos`` (just inside the paren) recursively."""
    _, end = _scan(src, pos, nested=True)
    tok.subst = tok.expands = True
    value.append(src[(pos - 2 if begin is None else begin):end])
    return end


def _arith(src: str, pos: int) -> int:
    """End offset of a ``$(( ))`` whose body starts at ``pos`` (parens counted)."""
    depth = 2
    for i in range(pos, len(src)):
        if src[i] == "(":
            depth += 1
        elif src[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    raise Unparsable("unclosed $((")


def _brace(src: str, pos: int, tok: Token) -> int:
    """End offset of a ``${ }`` whose body starts at ``pos`` (quotes and nesting respected)."""
    scratch: list[str] = []
    while pos < len(src):
        ch = src[pos]
        if ch == "}":
            return pos + 1
        if ch == "{":
            raise Unparsable("'{' inside ${ }")
        pos = _word_char(src, pos, tok, scratch)
    raise Unparsable("unclosed ${")


def _ansi_c(src: str, pos: int, value: list[str]) -> int:
    """Scan a ``$'...'`` string (backslash escapes allowed) whose body starts at ``pos``."""
    i = pos
    while i < len(src):
        if src[i] == "\\":
            i += 2
        elif src[i] == "'":
            value.append(src[pos:i])  # escapes left undecoded: only used for matching names
            return i + 1
        else:
            i += 1
    raise Unparsable("unbalanced $'")


def _array(src: str, pos: int, value: list[str]) -> int:
    """Scan the ``( ... )`` of an array assignment ``a=( ... )`` starting at ``pos``."""
    _, end = _scan(src, pos + 1, nested=True)
    value.append(src[pos:end])
    return end


def _is_assignment(text: str) -> bool:
    """``NAME=...``, ``NAME+=...`` or ``NAME[i]=...`` with an unquoted name."""
    if not text or text[0] not in IDENT_START:
        return False
    i = 1
    while i < len(text) and text[i] in IDENT_CHARS:
        i += 1
    if text.startswith("[", i):
        close = text.find("]", i)
        if close < 0:
            return False
        i = close + 1
    return text.startswith(("=", "+="), i)
