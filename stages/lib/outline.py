"""Which rows of a source file make its outline, computed from a tree-sitter syntax tree.

Never regex and brace counting: a brace inside a string, a comment or a regex literal is just part
of a token to the parser, so it cannot shift a body's extent. Levels, from most to least shown:
- ``OUTLINE`` (2): imports, every definition's signature rows (decorators and annotations
  included), the first text line of its docstring or doc comment, members of classes, structs and
  interfaces, one-line statements at container level, first/last rows of longer ones;
- ``SIGNATURES`` (1): only the signature rows of definitions and containers, and their closing rows;
- ``NAMES`` (0): one row per definition, the row holding its name (decorators and continuation
  rows of long parameter lists elided), for files whose signatures alone exceed the budget.
A function body is never walked: its rows are elided whole (nested functions go with it).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from tree_sitter import Node, Tree
    from thresher.stages.lib.code_langs import Lang

OUTLINE, SIGNATURES, NAMES = 2, 1, 0

_CLOSING = re.compile(r"^(?:[)\]}][)\]};,]*|\}\s*[\w\s,*]+;|end|fi|done|esac|#\s*endif\b.*)"
                      r"(?:\s*(?://|#|/\*|--).*)?$")
_CLOSERS = frozenset(("}", "end", "#endif", "};"))
_NO_SCOPE = frozenset(("linkage_specification",))
_TYPEDEF_TAIL = re.compile(r"^\}\s*[\w\s,*]*\w[\w\s,*]*;")
_DOC_TEXT = re.compile(r"[A-Za-z0-9]")
_MAX_ERROR_SHARE = 0.1
_DECL_ROWS = 24
"""A declaration without a body up to this many rows is shown whole (longer: first and last row)."""


def _text(node: Node) -> str:
    """The source text of ``node`` (a tree parsed from bytes always has it)."""
    return (node.text or b"").decode("utf-8", "replace")


def end_row(node: Node) -> int:
    """The last row holding text of ``node`` (a node ending at column 0 ends on the row before)."""
    row, col = node.end_point
    return row - 1 if col == 0 and row > node.start_point[0] else row


class Outline:
    """The rows shown at one level, and the definitions found (row, name) on the way."""

    def __init__(self, lang: Lang, lines: list[str], level: int) -> None:
        self.lang, self.lines, self.level = lang, lines, level
        self.shown = [False] * len(lines)
        self.defs: list[tuple[int, str]] = []

    def mark(self, a: int, b: int | None = None) -> None:
        """Show rows ``a``..``b`` (inclusive)."""
        for r in range(a, (a if b is None else b) + 1):
            if 0 <= r < len(self.shown):
                self.shown[r] = True

    # -- walking ---------------------------------------------------------------------------------
    def walk(self, children: list[Node], depth: int) -> None:
        """Outline the statements ``children`` of one container level."""
        comment_run: list = []
        for child in children:
            if child.type in self.lang.comments:
                comment_run.append(child)
                continue
            doc = comment_run if comment_run and end_row(comment_run[-1]) >= child.start_point[0] - 1 else []
            comment_run = []
            self.statement(child, depth, doc)

    def statement(self, node: Node, depth: int, doc: list) -> None:
        """Outline one statement (a definition, a container, an import or anything else)."""
        lang = self.lang
        if node.type == "ERROR":  # not understood: never hide what we could not parse
            self.mark(node.start_point[0], end_row(node))
            self.names_within(node)
            if node.children and node.children[0].type in lang.alias_keywords:
                # ``typedef struct _XGC`` cut off by an ``#ifdef`` inside it: still a typedef
                self.defs.append((node.start_point[0], _text(node.children[0])))
            return
        if lang.preprocessor and depth == 0 and _declarator_tail(node):
            self.declarator_tail(node)
            return
        if node.type in lang.aliases:
            self.alias_names(node)
        if node.type in lang.transparent:
            self.mark(node.start_point[0])
            self.walk(node.named_children, depth)
            if closed_by_token(node, node) and _CLOSING.match(self.lines[end_row(node)].strip()):
                self.mark(end_row(node))
            return
        if node.type in lang.groups and any(c.type == "(" for c in node.children):
            self.mark(node.start_point[0])  # `type (`, each spec outlined, then `)`
            self.walk(node.named_children, depth)
            if node.children[-1].type == ")":
                self.mark(end_row(node))
            return
        decl = self.declaration(node)
        if decl is not None:
            self.prototype(node, decl, doc)
            return
        core = self.core(node)
        if core is None:
            self.plain(node, depth)
            return
        if self.level >= OUTLINE and doc:
            self.doc_comment(doc)
        name = def_name(core)
        if name is not None:
            self.defs.append((name.start_point[0], _text(name)))
        body = self.body(core)
        member = core.type in lang.containers or (core.type in lang.types and (
            self.level >= OUTLINE or (body is not None and body.type in lang.api_bodies)))
        if body is None:
            self.plain(node, depth, definition=True)
            return
        header = self.header_end(node, body)
        if not member and any(c.type == "ERROR" for c in core.children):
            # a "function" whose signature did not parse is the parser's guess (macros in a
            # header): its "body" is walked like the statements around it, never elided whole
            self.mark(node.start_point[0], header)
            self.walk(body.named_children, depth)
            return
        if self.level > NAMES:
            self.mark(node.start_point[0], header)
            last = end_row(node)
            if not member and node is not core and core.type in lang.types and last > header \
                    and _TYPEDEF_TAIL.match(self.lines[last].strip()):
                self.mark(last)  # ``} XML_Memory_Handling_Suite;``: the name a typedef gives
        else:
            self.mark(name.start_point[0] if name is not None else core.start_point[0])
        if lang.docstrings and self.level >= OUTLINE:
            self.docstring(body)
        if not member and core.type in lang.types:
            self.nested_types(body, depth + 1)
        if member:
            # ``extern "C" { ... }`` is no scope: what it holds is the file's top level (API)
            self.walk(body.named_children, depth if core.type in _NO_SCOPE else depth + 1)
            last = end_row(node)  # a container's closing row shows where its members end
            if last > header and closed_by_token(core, body) \
                    and _CLOSING.match(self.lines[last].strip()):
                self.mark(last)

    def declarator_tail(self, node: Node) -> None:
        """``*GC;`` or ``Display,\n#endif\n*_XPrivDisplay;`` at file level: what an ``#ifdef``
        inside a typedef leaves of its declarators (the parser sees no declaration, and C has no
        statements outside functions). The names it gives are the API: its rows are shown at
        every level (the directive between them too) and each name is recorded as a definition,
        as :meth:`alias_names` does."""
        if end_row(node) - node.start_point[0] < _DECL_ROWS:
            self.mark(node.start_point[0], end_row(node))
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type in ("identifier", "type_identifier"):
                self.defs.append((n.start_point[0], _text(n)))
                self.mark(n.start_point[0])
            else:
                stack.extend(reversed(n.children))

    def prototype(self, node: Node, decl: Node, doc: list) -> None:
        """A declaration without a body (a C prototype, a TypeScript signature): the API itself.

        Every row of it is shown at the outline and signatures levels (parameter lists one per
        row included), the row of its name at the names level."""
        if self.level >= OUTLINE and doc:
            self.doc_comment(doc)
        first, last = node.start_point[0], end_row(node)
        if decl.has_error:  # the parser's guess at macros it cannot expand: shown whole
            self.mark(first, last)
            self.names_within(decl)
            return
        name = def_name(decl)
        row = name.start_point[0] if name is not None else first  # PNG_EXPORT(1, int, f, (...))
        self.defs.append((row, _text(name or node)))
        if self.level == NAMES:
            self.mark(row)
        elif last - first < _DECL_ROWS:
            self.mark(first, last)
        else:
            self.mark(first)
            self.mark(last)

    def plain(self, node: Node, depth: int, definition: bool = False) -> None:
        """A statement that is not a definition with a body: import, field, one-liner, ...

        Definitions nested in it (an anonymous class in a static block, methods of an object
        literal) are outlined too; function bodies are never searched.
        """
        first, last = node.start_point[0], end_row(node)
        top = depth == 0 and node.type not in self.lang.imports  # API-level declarations
        if self.level == NAMES and definition:
            name = def_name(self.core(node) or node)
            self.mark(name.start_point[0] if name is not None else first)
        elif self.level == NAMES and top and node.type == "type_definition" and first == last:
            self.mark(first)  # ``typedef gpg_error_t gcry_error_t;``: a type's name, one row
        elif self.level >= OUTLINE or definition or (top and self.level > NAMES):
            if node.type in self.lang.imports or last - first < (_DECL_ROWS if definition else 1):
                self.mark(first, last)
                return
            self.mark(first)
            if _CLOSING.match(self.lines[last].strip()):
                self.mark(last)
        if last > first:
            self.nested(node, depth + 1)

    def alias_names(self, node: Node) -> None:
        """A type alias (C ``typedef``) declares names as much as a prototype does: the row of
        each name it gives (``} gcry_buffer_t;`` after a struct body, the first row of
        ``typedef int (*cb_t) (void *arg,``) is shown at every level and recorded as a
        definition, so it survives where the names alone are over the budget."""
        if node.has_error:  # ``typedef CK_CALLBACK_FUNCTION(CK_RV, CK_NOTIFY)(``: a macro
            self.defs.append((node.start_point[0], _text(node.children[0])))  # the parser
            self.mark(node.start_point[0])  # guessed at; its first row names the type
        for decl in node.children_by_field_name("declarator"):
            name = _declared_name(decl)
            if name is not None and name.start_point[0] == name.end_point[0]:
                self.defs.append((name.start_point[0], _text(name)))
                self.mark(name.start_point[0])

    def nested_types(self, body: Node, depth: int) -> None:
        """The named types defined inside a type's body (``struct sqlite3_index_info { struct
        sqlite3_index_constraint { ... } *aConstraint; ...}``) where its members are not shown:
        each is a declaration of the API like its container."""
        if self.level >= OUTLINE:
            return  # every member row is shown already (the nested type's walked as a member)
        for child in body.named_children:
            kind = child.child_by_field_name("type")
            if kind is not None and kind.type in self.lang.types \
                    and kind.child_by_field_name("name") is not None and self.body(kind) is not None:
                self.statement(kind, depth, [])

    def names_within(self, node: Node, limit: int = 20000) -> None:
        """Record the names declared in ``node``, a part that did not parse (shown whole): every
        identifier right before a parenthesised list, since the parser's pieces of a declaration
        it did not understand are not reliably nested (``int f`` in one node, ``(int x);`` in the
        next). They are the file's API like any other name."""
        stack = [node]
        while stack and limit > 0:
            n, limit = stack.pop(), limit - 1
            if n.type in ("identifier", "field_identifier", "type_identifier"):
                nxt, up = n, 0
                while nxt.next_sibling is None and nxt.parent is not None and up < 3:
                    nxt, up = nxt.parent, up + 1
                after = nxt.next_sibling
                if after is not None and (after.text or b"")[:1] == b"(":
                    self.defs.append((n.start_point[0], _text(n)))
            elif n.type != "compound_statement":
                stack.extend(n.children)

    def nested(self, node: Node, depth: int, limit: int = 8) -> None:
        """Outline the outermost definitions inside ``node`` (not itself a definition)."""
        kinds = self.lang.functions | self.lang.containers | self.lang.types
        for child in node.named_children:
            if child.type in kinds:
                self.statement(child, depth, [])
            elif limit > 0 and end_row(child) > child.start_point[0]:
                self.nested(child, depth, limit - 1)

    # -- node helpers ----------------------------------------------------------------------------
    def declaration(self, node: Node) -> Node | None:
        """The body-less function declaration ``node`` is (``export``/``declare`` wrappers looked
        through), or ``None``: a declaration node type of the language that declares a function
        (a ``function_declarator`` in C, a parenthesised macro call such as ``PNG_EXPORT(...)``)."""
        decls = self.lang.declarations
        for _ in range(3):
            if node.type in decls:
                return node if node.type in self.lang.signatures or _declares_function(node) \
                    else None
            kids = node.named_children
            if not kids or node.type in self.lang.containers or node.type in self.lang.types:
                return None
            node = kids[-1]
        return None

    def core(self, node: Node) -> Node | None:
        """The definition or container ``node`` essentially is (``export``, decorators, ``x =``
        wrappers looked through), or ``None``."""
        kinds = self.lang.functions | self.lang.containers | self.lang.types
        if node.type in kinds:
            return node
        last, frontier = end_row(node), [(c, 1) for c in node.named_children]
        while frontier:
            cand, depth = frontier.pop(0)
            if end_row(cand) < last - 1:
                continue
            if cand.type in kinds:
                return cand
            if depth < 3:
                frontier.extend((c, depth + 1) for c in cand.named_children)
        return None

    def body(self, core: Node) -> Node | None:
        """The body node of a definition (its ``body`` field, or a known body type within)."""
        body = core.child_by_field_name("body")
        if body is not None:
            return body
        frontier = list(core.named_children)
        for _ in range(3):
            nxt = []
            for c in frontier:
                if c.type in self.lang.bodies:
                    return c
                nxt.extend(c.named_children)
            frontier = nxt
        return None

    def header_end(self, node: Node, body: Node) -> int:
        """The last row of a definition's signature: the row before its body's contents."""
        prev = body.prev_sibling
        row = end_row(prev) if prev is not None else node.start_point[0]
        start = body.start_point[0]
        if start > row and self.lines[start].strip() in ("{", "{{"):
            row = start  # Allman-style brace on its own line belongs to the header
        return max(node.start_point[0], min(row, end_row(node)))

    def docstring(self, body: Node) -> None:
        """Show the first row of a Python docstring (the body's first statement, a string)."""
        first = body.named_children[0] if body.named_children else None
        if first is not None and first.type == "expression_statement" and first.named_children \
                and first.named_children[0].type in ("string", "concatenated_string"):
            row = first.start_point[0]
            self.mark(row)
            if not _DOC_TEXT.search(self.lines[row].strip().lstrip("rRbBuU")) \
                    and row + 1 <= end_row(first):
                self.mark(row + 1)  # a bare opening quote: its first text line is the summary

    def doc_comment(self, run: list) -> None:
        """Show the first row with text of the comment block right before a definition."""
        for r in range(run[0].start_point[0], end_row(run[-1]) + 1):
            if _DOC_TEXT.search(self.lines[r]):
                self.mark(r)
                return


_TAIL_PARTS = frozenset(("identifier", "type_identifier", "pointer_expression", "comma_expression",
                         "*", ",", ";", "ERROR", "#endif", "#else", "preproc_directive", "comment"))


def _declarator_tail(node: Node) -> bool:
    """True for an expression statement made only of names, ``*`` and commas (``*GC;``,
    ``Display, *_XPrivDisplay;``): the declarators of a declaration split by the preprocessor,
    never a call or an assignment."""
    if node.type != "expression_statement":
        return False
    stack, names = list(node.children), 0
    while stack:
        n = stack.pop()
        if n.type not in _TAIL_PARTS:
            return False
        if n.type == "ERROR" and any(c.type not in ("#endif", "#else", "preproc_directive")
                                     or not _text(c).startswith(("#endif", "#else"))
                                     for c in n.children):
            return False  # only a stray ``#endif``/``#else`` may split the declarators
        names += n.type in ("identifier", "type_identifier")
        stack.extend(n.children)
    return names > 0


def _declares_function(node: Node, depth: int = 0) -> bool:
    """True when a C-family declaration statement declares a function: a ``function_declarator``
    outside any initializer, or (a macro-wrapped declaration) a parenthesised list in a statement
    that is not an assignment."""
    for child in node.named_children:
        if child.type in ("function_declarator", "parameter_list") or (
                child.type == "macro_type_specifier" and node.child_by_field_name("type") is not child):
            return True  # the last: ``API(void *)\nf(int x);``, the name parsed as a macro type
        if child.type in ("call_expression", "parenthesized_declarator") and depth <= 1:
            return True
        if depth < 4 and child.type not in ("initializer_list", "compound_literal_expression") \
                and node.child_by_field_name("value") is not child \
                and _declares_function(child, depth + 1):
            return True
    return False


_NAME_TYPES = frozenset(("type_identifier", "identifier", "primitive_type"))


def _declared_name(node: Node | None, limit: int = 8) -> Node | None:
    """The name a declarator declares (``*gcry_md_hd_t``, ``(*cb_t) (void *)``, ``t[4]``),
    looking through pointer, function, array and parenthesised declarators."""
    while node is not None and limit > 0:
        if node.type in _NAME_TYPES:
            return node
        nxt = node.child_by_field_name("declarator")
        if nxt is None:
            nxt = next((c for c in node.named_children
                        if c.type in _NAME_TYPES or c.type.endswith("declarator")), None)
        node, limit = nxt, limit - 1
    return None


def closed_by_token(core: Node, body: Node) -> bool:
    """True when a block really ends with a closing token (``}``, ``end``, ``#endif``), unlike a
    Python class whose last row merely belongs to its last statement."""
    for node in (body, core):
        if node.child_count and node.children[-1].type in _CLOSERS:
            return True
    return False


def def_name(core: Node) -> Node | None:
    """The name node of a definition: its ``name`` field, or the identifier inside its
    declarator (C/C++ ``int *f(void)``); ``None`` when it has none on one row."""
    node = core.child_by_field_name("name")
    seen = 0
    while node is None and seen < 6:
        nxt = core.child_by_field_name("declarator")
        if nxt is None:
            break
        core, seen = nxt, seen + 1
        if core.type in ("identifier", "field_identifier", "qualified_identifier",
                         "destructor_name", "operator_name"):
            node = core
        else:
            node = core.child_by_field_name("name")
    if node is None or node.start_point[0] != node.end_point[0]:
        return None
    return node


_LINKAGE_OPEN = re.compile(r'^\s*extern\s+"C(?:\+\+)?"\s*\{\s*(?://.*|/\*.*\*/)?$')
_LONE_CLOSE = re.compile(r"^\s*[{}]\s*(?://.*|/\*.*\*/)?$")  # a lone brace (``{`` too)
_PREPROC_IF = re.compile(r"^\s*#\s*if")


def unwrap_linkage(text: str) -> str | None:
    """``text`` with the braces that only C++ sees blanked out, or ``None`` if there are none.

    Headers open ``extern "C" {`` under ``#ifdef __cplusplus`` and close it under another one at
    the end (some after ``#if 0``, and some reopen a lone ``{`` under ``#if 0`` to keep an
    editor's indentation happy, as gcrypt.h): a parser that does not run the preprocessor sees
    a brace closed in a different branch and fails on the whole file. Blanking those lines (spaces, so
    every row and column stays put) leaves the declarations between them where they were.
    """
    lines, prev, changed = text.split("\n"), "", False
    for i, line in enumerate(lines):
        if _LINKAGE_OPEN.match(line) or (_LONE_CLOSE.match(line) and _PREPROC_IF.match(prev)):
            lines[i], changed = " " * len(line), True
        if line.strip():
            prev = line
    return "\n".join(lines) if changed else None


def parse(lang: Lang, text: str) -> Tree | None:
    """The syntax tree of ``text``, or ``None`` when too much of it failed to parse.

    A C/C++ file that fails is parsed once more with its ``extern "C"`` braces blanked."""
    tree = _parse(lang, text)
    if tree is None and lang.preprocessor:
        masked = unwrap_linkage(text)
        tree = _parse(lang, masked) if masked is not None else None
    return tree


def _parse(lang: Lang, text: str) -> Tree | None:
    from tree_sitter import Parser
    tree = Parser(lang.language).parse(text.encode("utf-8", "surrogatepass"))
    root = tree.root_node
    if root.type == "ERROR":
        return None
    if root.has_error:
        rows = text.count("\n") + 1
        bad = sum(end_row(c) - c.start_point[0] + 1 for c in root.children
                  if c.type == "ERROR" or c.is_missing)
        if bad > rows * _MAX_ERROR_SHARE:
            return None
    return tree


def outline(lang: Lang, tree: Tree, lines: list[str], level: int) -> Outline:
    """The rows shown at ``level`` for the parsed file."""
    o = Outline(lang, lines, level)
    root = tree.root_node
    if level >= OUTLINE and lang.docstrings:
        o.docstring(root)
    o.walk(root.named_children, 0)
    return o
