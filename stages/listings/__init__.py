"""Distillers for enumerations: search results, file listings, kubectl tables, environments."""
