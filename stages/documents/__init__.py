"""Distillers for documents an agent reads: source code, markdown, HTML, prose and manuals."""
