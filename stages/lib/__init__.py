"""Helpers the stages share (no stage lives here: a module here is never named by a graph)."""
