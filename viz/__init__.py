"""Renderers of the graph/trace data model: terminal table, Mermaid, DOT. Never imports stages."""
