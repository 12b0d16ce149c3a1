"""Group shell tokens into segments: simple commands and whole compound constructs.

A segment ends at a control operator (``&&``, ``||``, ``;``, ``|``, ``|&``, ``&``, newline) at
nesting depth 0. Compound constructs (``( )``, ``{ }``, ``if``/``for``/``while``/``until``/
``select``/``case``, ``[[ ]]``, function definitions) are kept whole, as one segment marked with
``compound``, because the operators inside them do not split the line. Reserved words count only
in command position, as in bash: ``echo done`` is an argument, ``; done`` closes a loop.
"""

from __future__ import annotations

from .lexer import COMMENT, OP, REDIR, WORD, Token, Unparsable

SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&", "\n", ";;", ";&", ";;&"})
CONTINUES = frozenset({"&&", "||", "|", "|&"})  # a newline after these continues the line
OPENERS = {"if": "fi", "case": "esac", "for": "done", "select": "done", "while": "done",
           "until": "done", "{": "}", "[[": "]]"}
# After these the next word is again a command (so it may be a reserved word).
KEEP_CMDPOS = frozenset({"then", "do", "else", "elif", "!", "time", "if", "while", "until", "{"})
CASE_ENDS = frozenset({";;", ";&", ";;&"})


class Segment:
    """One simple command or compound construct with its exact span in the source line.

    ``words`` are the command's words (redirection operators and targets excluded), ``redirects``
    pairs of (operator token, target token), ``sep`` the operator that ended it ("" at the end),
    ``piped_in`` whether its stdin is the previous segment's pipe, ``compound`` the opening
    keyword of a compound construct (or ``None``) and ``subst`` whether any word holds a command
    or arithmetic substitution.
    """

    __slots__ = ("start", "end", "words", "redirects", "sep", "piped_in", "compound", "subst")

    def __init__(self) -> None:
        self.start = self.end = -1
        self.words: list[Token] = []
        self.redirects: list[tuple[Token, Token]] = []
        self.sep, self.piped_in = "", False
        self.compound: str | None = None
        self.subst = False

    def text(self, src: str) -> str:
        """The segment's source text, exactly as written."""
        return src[self.start:self.end]


def split(tokens: list[Token]) -> list[Segment]:
    """The segments of a tokenized line, in order; raises :class:`Unparsable` on bad syntax."""
    segs: list[Segment] = []
    pending = ""  # the operator that ended the last non-empty segment
    i = 0
    while i < len(tokens):
        seg, i = _segment(tokens, i)
        if seg is None:  # a bare separator: fine only as a blank line or a continuation
            if tokens[i - 1].text != "\n":
                raise Unparsable(f"unexpected {tokens[i - 1].text!r}")
            continue
        seg.piped_in = pending in ("|", "|&")
        pending = seg.sep
        segs.append(seg)
    if pending in CONTINUES:
        raise Unparsable(f"line ends with {pending!r}")
    return segs


def _segment(tokens: list[Token], i: int) -> tuple[Segment | None, int]:
    """Read one segment from ``tokens[i]``; returns it (``None`` if empty) and the next index."""
    seg, state = Segment(), _State()
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok.kind == COMMENT:
            continue
        if tok.kind == OP and tok.text in SEPARATORS and state.at_top():
            if tok.text in CASE_ENDS:
                raise Unparsable(f"{tok.text!r} outside case")
            seg.sep = tok.text
            break
        if seg.start < 0:
            seg.start = tok.start
        i = state.feed(seg, tokens, i - 1)
        seg.end = tokens[i - 1].end  # feed may have consumed a redirection target too
    if seg.start < 0:
        return None, i
    if state.stack:
        raise Unparsable(f"unclosed {state.stack[-1]!r}")
    if state.want_body:
        raise Unparsable("function without a body")
    seg.compound = state.compound
    return seg, i


class _State:
    """Nesting and command-position tracking while one segment is read."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # expected closers
        self.cmdpos = True  # the next word starts a command (reserved words count)
        self.want_body = False  # a function header was read; its body must follow
        self.compound: str | None = None

    def at_top(self) -> bool:
        """Depth 0 and no function body pending."""
        return not self.stack and not self.want_body

    def feed(self, seg: Segment, tokens: list[Token], i: int) -> int:
        """Account for ``tokens[i]``; returns the index of the next unread token."""
        tok = tokens[i]
        if self.stack and self.stack[-1] == "]]":  # inside [[ ]] operators are test syntax
            if tok.kind == WORD and tok.text == "]]":
                self.stack.pop()
                self.cmdpos = False
            return i + 1
        if tok.kind == REDIR:
            if i + 1 >= len(tokens) or tokens[i + 1].kind != WORD:
                raise Unparsable(f"redirection {tok.text!r} without a target")
            if not self.stack and self.compound is None:
                seg.redirects.append((tok, tokens[i + 1]))
            seg.subst = seg.subst or tokens[i + 1].subst
            return i + 2
        if tok.kind == OP:
            return self._op(tok, tokens, i)
        self._word(seg, tok)
        return i + 1

    def _word(self, seg: Segment, tok: Token) -> None:
        """A word: maybe a reserved word opening or closing a construct, else an argument."""
        seg.subst = seg.subst or tok.subst
        if self.cmdpos and tok.text in OPENERS:
            self._open(tok.text, OPENERS[tok.text])
            self.cmdpos = tok.text in KEEP_CMDPOS  # ``if``/``while`` are followed by a command
        elif self.cmdpos and tok.text == "function":
            self.compound = self.compound or "function"
            self.want_body, self.cmdpos = True, False
        elif self.cmdpos and self.stack and tok.text == self.stack[-1]:
            self.stack.pop()
            self.cmdpos = False
        else:
            if not self.stack and self.compound is None:
                seg.words.append(tok)
            # After an assignment bash no longer recognises reserved words: cmdpos goes False.
            self.cmdpos = self.want_body or (self.cmdpos and tok.text in KEEP_CMDPOS)

    def _op(self, tok: Token, tokens: list[Token], i: int) -> int:
        """``(``, ``)`` or a separator inside a construct."""
        if tok.text == "(":
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            prev = tokens[i - 1] if i else None
            if (nxt is not None and nxt.text == ")" and prev is not None and prev.kind == WORD
                    and (self.want_body or not self.cmdpos)):
                self.compound = self.compound or "function"  # name() { ...; }
                self.want_body, self.cmdpos = True, True
                return i + 2
            if not self.cmdpos:
                raise Unparsable("unexpected '('")
            self._open("(", ")")
            return i + 1
        if tok.text == ")":
            if self.stack and self.stack[-1] == ")":
                self.stack.pop()
                self.cmdpos = False
            elif self.stack and self.stack[-1] == "esac":
                self.cmdpos = True  # the end of a case pattern
            else:
                raise Unparsable("unmatched ')'")
            return i + 1
        self.cmdpos = True  # a separator inside a construct
        return i + 1

    def _open(self, kind: str, closer: str) -> None:
        """Push a construct; the segment becomes a compound one."""
        self.stack.append(closer)
        self.want_body = False
        self.compound = self.compound or kind
