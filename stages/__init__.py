"""Typed stages: one module per stage, listed in ``registry.py``; params models in ``params.py``."""
