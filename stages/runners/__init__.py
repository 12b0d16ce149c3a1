"""Distillers for test runners, builds, package managers and linters."""
