"""Stores: the archive of raw payloads (and, later, the session ledger and savings ledger)."""
