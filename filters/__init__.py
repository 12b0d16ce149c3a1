"""Declarative filters: YAML/TOML files that shrink the output of tools without a native distiller.

``runtime`` (hot path) finds the filter files, checks project files against the trust records and
loads the compiled filters from a ``marshal`` cache; ``load``/``model`` (control plane) validate a
file; ``engine`` applies one filter to a payload; ``testing`` runs a filter's inline tests.
"""
