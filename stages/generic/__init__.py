"""Distillers for any text: drop noise, declarative filters, reversible (lossless) rewrites."""
