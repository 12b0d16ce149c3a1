"""Distillers for git: status, patches (diff/show/log -p), blame."""
