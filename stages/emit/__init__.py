"""Collapse (the fallback), Ledger, Route and Persist: what happens after Distill."""
