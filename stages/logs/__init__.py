"""Distillers for logs and HTTP transcripts."""
