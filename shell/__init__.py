"""Shell-line analysis for ``thresher rewrite``: which parts of an agent's command go through thresher.

``lexer`` tokenizes with exact spans, ``segments`` groups tokens into simple commands and
compound constructs, ``prefixes`` strips transparent wrappers (``sudo``, ``uv run``, ...),
``policy`` + ``commands`` decide from a data table, and ``rewrite`` puts it together.
Everything here is pure standard library and cheap to import: it runs on every agent command.
"""
