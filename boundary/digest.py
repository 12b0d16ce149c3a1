"""Digests the faces need without importing ``hashlib`` (which loads OpenSSL)."""

from __future__ import annotations


def sha256_hex(text: str) -> str:
    """SHA-256 of ``text`` (UTF-8) in hex, from CPython's built-in implementation: ``hashlib``
    loads OpenSSL (~20 ms of the hook's start-up) for this one digest."""
    data = text.encode("utf-8", "surrogatepass")
    for name in ("_sha2", "_sha256"):   # the module's name since 3.12, and before
        try:
            return __import__(name).sha256(data).hexdigest()
        except ImportError:
            continue
    import hashlib
    return hashlib.sha256(data).hexdigest()
