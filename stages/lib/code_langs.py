"""Languages the code outline understands: tree-sitter grammar packages and their node types.

Each language names, by tree-sitter node type, what the outline treats as a function (signature
shown, body elided), a container (header shown, members outlined: classes, modules, impls,
namespaces), a type body (struct/interface/enum: members shown in the full outline, elided in the
signatures view — unless it is an ``api_bodies`` type: a Go interface's members are its API), a
body-less declaration (a C prototype, a TypeScript or Rust signature: every
row shown; ``signatures`` are always function declarations, other ``declarations`` only when they
declare a function), a type alias (``aliases``: a C ``typedef``, whose every declared name is a
definition at every level, like a prototype's), a transparent wrapper (``#ifdef`` blocks: walked as if their children were at the
enclosing level), imports, and comments. Grammar packages are imported only when a file of that
language is outlined; node types a grammar version does not know are dropped at load time (a test
checks that every configured type exists in the installed grammars).
"""

from __future__ import annotations

import importlib
import os

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from tree_sitter import Language

_C_PREPROC = ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef")
_JS_FUNCS = ("function_declaration", "generator_function_declaration", "function_expression",
             "function", "generator_function", "arrow_function", "method_definition")
_JS = dict(functions=_JS_FUNCS, containers=("class_declaration", "class"),
           bodies=("class_body", "statement_block"), imports=("import_statement",),
           comments=("comment",))
_TS_SIGS = ("function_signature", "method_signature", "abstract_method_signature",
            "call_signature", "construct_signature")
_TS = dict(_JS, containers=("class_declaration", "class", "abstract_class_declaration",
                            "internal_module", "module", "interface_declaration"),
           declarations=_TS_SIGS, signatures=_TS_SIGS, types=("enum_declaration",),
           bodies=("class_body", "statement_block", "interface_body", "enum_body", "object_type"))
_C = dict(functions=("function_definition",),
          types=("struct_specifier", "union_specifier", "enum_specifier"),
          containers=("linkage_specification",),
          bodies=("field_declaration_list", "enumerator_list", "declaration_list"),
          transparent=_C_PREPROC, imports=("preproc_include",), comments=("comment",),
          declarations=("declaration", "field_declaration", "expression_statement",
                        "macro_type_specifier"), signatures=("macro_type_specifier",),
          aliases=("type_definition",), alias_keywords=("typedef",), preprocessor=True)

SPECS: dict[str, tuple[str, str, dict]] = {
    "python": ("tree_sitter_python", "language", dict(
        functions=("function_definition",), containers=("class_definition",),
        bodies=("block",), imports=("import_statement", "import_from_statement",
                                    "future_import_statement"),
        comments=("comment",), docstrings=True)),
    "javascript": ("tree_sitter_javascript", "language", _JS),
    "typescript": ("tree_sitter_typescript", "language_typescript", _TS),
    "tsx": ("tree_sitter_typescript", "language_tsx", _TS),
    # an interface's method set (and embedded interfaces / type sets) is its API, like a C
    # prototype: every member row stays at the signatures level, where a struct's fields go
    "go": ("tree_sitter_go", "language", dict(
        functions=("function_declaration", "method_declaration"),
        # a `type ( A struct {...}; B interface {...} )` group: each spec is a definition of
        # its own (``groups``: walked member by member between its `type (` and `)` rows)
        types=("type_declaration", "type_spec", "type_alias"), groups=("type_declaration",),
        bodies=("field_declaration_list", "interface_type"), api_bodies=("interface_type",),
        declarations=("method_elem", "method_spec", "type_elem"),
        signatures=("method_elem", "method_spec", "type_elem"),
        imports=("import_declaration", "package_clause"), comments=("comment",))),
    "rust": ("tree_sitter_rust", "language", dict(
        functions=("function_item",), declarations=("function_signature_item",),
        signatures=("function_signature_item",),
        containers=("impl_item", "trait_item", "mod_item", "foreign_mod_item"),
        types=("struct_item", "enum_item", "union_item"),
        bodies=("declaration_list", "field_declaration_list", "enum_variant_list"),
        imports=("use_declaration", "extern_crate_declaration"),
        comments=("line_comment", "block_comment"))),
    "java": ("tree_sitter_java", "language", dict(
        functions=("method_declaration", "constructor_declaration",
                   "compact_constructor_declaration"),
        containers=("class_declaration", "interface_declaration", "enum_declaration",
                    "record_declaration", "annotation_type_declaration"),
        bodies=("class_body", "interface_body", "enum_body", "annotation_type_body"),
        transparent=("enum_body_declarations",),
        imports=("import_declaration", "package_declaration"),
        comments=("line_comment", "block_comment"))),
    "c": ("tree_sitter_c", "language", _C),
    "cpp": ("tree_sitter_cpp", "language", dict(
        _C, containers=("namespace_definition", "class_specifier", "struct_specifier",
                        "union_specifier", "linkage_specification"),
        types=("enum_specifier",))),
    "ruby": ("tree_sitter_ruby", "language", dict(
        functions=("method", "singleton_method"),
        containers=("class", "module", "singleton_class"), bodies=("body_statement",),
        comments=("comment",))),
    "bash": ("tree_sitter_bash", "language", dict(
        functions=("function_definition",), comments=("comment",))),
    "csharp": ("tree_sitter_c_sharp", "language", dict(
        functions=("method_declaration", "constructor_declaration", "destructor_declaration",
                   "operator_declaration", "local_function_statement"),
        containers=("namespace_declaration", "class_declaration", "struct_declaration",
                    "interface_declaration", "record_declaration"),
        types=("enum_declaration",), transparent=("file_scoped_namespace_declaration",),
        bodies=("declaration_list", "enum_member_declaration_list"),
        imports=("using_directive",), comments=("comment",))),
    "php": ("tree_sitter_php", "language_php", dict(
        functions=("function_definition", "method_declaration"),
        containers=("class_declaration", "interface_declaration", "trait_declaration",
                    "enum_declaration", "namespace_definition"),
        bodies=("declaration_list", "compound_statement", "enum_declaration_list"),
        imports=("namespace_use_declaration",), comments=("comment",))),
    "kotlin": ("tree_sitter_kotlin", "language", dict(
        functions=("function_declaration",),
        containers=("class_declaration", "object_declaration", "companion_object"),
        bodies=("class_body", "enum_class_body"),
        imports=("import_header", "package_header", "import_list"),
        comments=("line_comment", "multiline_comment"))),
    "scala": ("tree_sitter_scala", "language", dict(
        functions=("function_definition",),
        containers=("class_definition", "object_definition", "trait_definition"),
        bodies=("template_body",), imports=("import_declaration", "package_clause"),
        comments=("comment", "block_comment"))),
    "lua": ("tree_sitter_lua", "language", dict(
        functions=("function_declaration",), comments=("comment",))),
}

EXTENSIONS = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".ipp": "cpp", ".tcc": "cpp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".sh": "bash", ".bash": "bash", ".bats": "bash",
    ".cs": "csharp", ".php": "php", ".kt": "kotlin", ".kts": "kotlin",
    ".scala": "scala", ".sc": "scala", ".lua": "lua",
}

_SHEBANGS = (("python", "python"), ("node", "javascript"), ("bash", "bash"), ("/sh", "bash"),
             ("ruby", "ruby"), ("lua", "lua"))


class Lang:
    """One loaded language: the tree-sitter ``Language`` and its node-type sets."""

    __slots__ = ("name", "language", "functions", "containers", "types", "bodies", "transparent",
                 "imports", "comments", "docstrings", "declarations", "signatures", "preprocessor",
                 "api_bodies", "groups", "aliases", "alias_keywords")

    def __init__(self, name: str, language: Language, spec: dict) -> None:
        def known(key: str) -> frozenset:
            return frozenset(t for t in spec.get(key, ()) if language.id_for_node_kind(t, True))
        self.name = name
        self.language = language
        self.functions, self.containers, self.types = (known("functions"), known("containers"),
                                                       known("types"))
        self.bodies, self.transparent = known("bodies"), known("transparent")
        self.imports, self.comments = known("imports"), known("comments")
        self.docstrings = bool(spec.get("docstrings"))
        self.declarations, self.signatures = known("declarations"), known("signatures")
        self.api_bodies, self.groups = known("api_bodies"), known("groups")
        self.aliases = known("aliases")
        self.alias_keywords = frozenset(spec.get("alias_keywords", ()))  # (tokens, not node kinds)
        self.preprocessor = bool(spec.get("preprocessor"))


_LOADED: dict[str, Lang] = {}


def load(name: str) -> Lang | None:
    """The language ``name`` (grammar imported on first use); ``None`` when not installed."""
    if name not in _LOADED:
        module, attr, spec = SPECS[name]
        try:
            from tree_sitter import Language
            grammar = getattr(importlib.import_module(module), attr)()
        except (ImportError, AttributeError):
            return None
        _LOADED[name] = Lang(name, Language(grammar), spec)
    return _LOADED[name]


def detect(path: str | None, first_line: str = "") -> str | None:
    """The language of a file from its extension, else from a ``#!`` line; ``None`` if unknown."""
    if path:
        ext = os.path.splitext(path)[1].lower()
        if ext in EXTENSIONS:
            return EXTENSIONS[ext]
    if first_line.startswith("#!"):
        for needle, name in _SHEBANGS:
            if needle in first_line:
                return name
    return None
