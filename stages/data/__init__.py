"""Distillers for data: JSON, CSV/TSV, YAML, TOML, JSON Lines, and secret masking in JSON."""
