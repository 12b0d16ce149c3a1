"""``thresher mcp``: a stdio MCP server (the official ``mcp`` SDK, v2) with four small tools.

- ``thresher_read(path, mode, lines)``: a file the way ``thresher read`` shows it (outline of a
  large file; ``full``, ``signatures``, ``section:NAME``, ``anchored``; or a line range);
- ``thresher_expand(handle, lines, grep)``: the original behind a thresher footer;
- ``thresher_run(command)``: run a shell line with its commands routed through ``thresher run``,
  for hosts where the agent hands commands off instead of running them itself;
- ``thresher_gain(days)``: what was saved.

Every tool runs the ``thresher`` command as a subprocess, so a tool call sees exactly what the CLI
prints (and a crash in one call never takes the server down). The tool list plus the instructions
is a standing cost in every request of the host; :func:`surface_tokens` measures it and
``thresher doctor`` reports it. Imported only by ``thresher mcp`` and doctor, never on the hot path.
"""

from __future__ import annotations

import os
import subprocess
import sys

INSTRUCTIONS = ("Shortened command output and file reads. A shortened result ends with a "
                "[thresher: ...] footer naming the handle and lines to pass to thresher_expand.")
RUN_TIMEOUT_S = 600


def _thresher(args: list[str], timeout: float = 120) -> str:
    """Run ``thresher ARGS``; its stdout, plus stderr and the exit status when it failed."""
    proc = subprocess.run([sys.executable, "-m", "thresher", *args], capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode:
        err = proc.stderr.decode("utf-8", "replace")
        out += f"{err}[exit status {proc.returncode}]\n"
    return out


def read(path: str, mode: str = "", lines: str = "") -> str:
    """Read a file (large ones as an outline). mode: full|outline|signatures|anchored|section:NAME; lines: A-B."""
    args = ["read", path] + (["--mode", mode] if mode else []) + (["--lines", lines] if lines else [])
    return _thresher(args)


def expand(handle: str, lines: str = "", grep: str = "") -> str:
    """The archived original behind a thresher footer (optionally lines A-B or lines matching a regex)."""
    args = ["expand", handle] + (["--lines", lines] if lines else []) + (["--grep", grep] if grep else [])
    return _thresher(args)


def run(command: str) -> str:
    """Run a shell command line; output worth shrinking is shrunk. Ends with its exit status."""
    from thresher.shell.rewrite import rewrite
    line = rewrite(command) or command
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
    try:
        proc = subprocess.run([shell, "-c", line], capture_output=True, env=env,
                              timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"[thresher_run: still running after {RUN_TIMEOUT_S} s; stopped]\n"
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    return out + f"[exit status {proc.returncode}]\n"


def gain(days: float = 0) -> str:
    """Tokens saved by thresher (signed; expansions counted against it)."""
    return _thresher(["gain", "--no-exact"] + (["--days", str(days)] if days else []))


def build():
    """The MCP server object (imports the SDK)."""
    from mcp.server.mcpserver import MCPServer
    from thresher import __version__
    server = MCPServer(name="thresher", instructions=INSTRUCTIONS, version=__version__)
    for name, fn in (("thresher_read", read), ("thresher_expand", expand), ("thresher_run", run),
                     ("thresher_gain", gain)):
        server.tool(name=name, description=fn.__doc__, structured_output=False)(fn)
    return server


def surface_text(server=None) -> str:
    """What a host puts in its context for this server: instructions plus the tool list (JSON)."""
    import anyio
    import json
    server = server or build()
    tools = anyio.run(server.list_tools)
    listing = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]
    return INSTRUCTIONS + "\n" + json.dumps(listing, separators=(",", ":"))


def surface_tokens(server=None) -> dict:
    """``{"tools": n, "estimate": tokens, "cl100k": tokens or None}`` of :func:`surface_text`."""
    from thresher.dataflow.tokens import estimate
    from thresher.stores.savings import exact_encoder
    text = surface_text(server)
    enc = exact_encoder()
    return {"tools": text.count('"name":'), "estimate": estimate(text),
            "cl100k": len(enc.encode(text, disallowed_special=())) if enc else None}


def serve() -> None:
    """Serve over stdio until the client closes the pipe."""
    build().run("stdio")
