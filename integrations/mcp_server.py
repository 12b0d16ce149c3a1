"""``thresher mcp``: a stdio MCP server (the official ``mcp`` SDK, v2) with small, bounded tools.

- ``thresher_read(path, mode, lines)``: a file the way ``thresher read`` shows it (outline of a
  large file; ``full``, ``outline``, ``signatures``, ``anchored``, ``section:NAME``; or a line
  range), only regular files under the project roots (:mod:`.mcp_jail`);
- ``thresher_expand(handle, lines, grep)``: the original behind a thresher footer;
- ``thresher_run(command)``: only when the server was started with ``--allow-run`` (policy,
  timeout and limits: :mod:`.mcp_run`), a shell line with its commands routed through
  ``thresher run``, in the environment the server was started with;
- ``thresher_gain(days)``: what was saved (exact cl100k counts when tiktoken is installed).

Each tool validates its arguments (a value is never read as an option of the CLI underneath:
``path: "--help"`` is a file named ``--help``) and runs the ``thresher`` command as a subprocess,
so a call sees exactly what the CLI prints and a crash in one call never takes the server down.
A failure (refused path, unknown handle, bad mode, CLI error) comes back as a tool result with
``isError: true`` and one line saying why. Malformed JSON-RPC is answered by :mod:`.mcp_stdio`.
The tool list plus the instructions is a standing cost in every request of the host;
:func:`surface_tokens` measures it and ``thresher doctor`` reports it. Imported only by
``thresher mcp`` and doctor, never on the hot path.
"""

# No ``from __future__ import annotations`` here: the SDK finds the resolved parameter of
# ``thresher_read`` (defined inside :func:`_read_tool`) through its evaluated annotation.
import math
import os
import re
import subprocess

from .mcp_run import THRESHER_ARGV, RunPolicy

INSTRUCTIONS = ("Shortened command output and file reads. A shortened result ends with a "
                "[thresher: ...] footer naming the handle and lines to pass to thresher_expand.")
MODES = ("full", "outline", "signatures", "anchored")
_RANGE = re.compile(r"[1-9][0-9]{0,8}(-[1-9][0-9]{0,8})?")
_HANDLE = re.compile(r"[0-9a-f]{4,64}")
READ_DOC = ("Read a file under the project roots (large ones as an outline). "
            "mode: full|outline|signatures|anchored|section:NAME; lines: A-B.")
"""``thresher_read``'s description (what the host shows the model)."""
MAX_RESULT = 8 * 1024 * 1024
"""Largest tool result (an archived original can be 64 MiB: ask for lines or grep instead)."""


class Config:
    """How the server was started: ``--root`` folders, the run policy, its working directory."""

    def __init__(self, roots=None, run: RunPolicy | None = None, cwd: str | None = None) -> None:
        self.roots = list(roots or [])
        self.run = run or RunPolicy()
        self.cwd = cwd or os.getcwd()


def _fail(message: str):
    from mcp.server.mcpserver.exceptions import ToolError
    return ToolError(message)


def _thresher(args: list, timeout: float = 120) -> str:
    """Run ``thresher ARGS``; its stdout, or a ToolError with its stderr when it failed."""
    try:
        proc = subprocess.run([*THRESHER_ARGV, *args], capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise _fail(f"thresher {args[0]} took over {timeout:g} s; stopped") from None
    if proc.returncode:
        err = proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}"
        raise _fail(err.splitlines()[-1] if len(err) > 2000 else err)
    if len(proc.stdout) > MAX_RESULT:
        raise _fail(f"the result is {len(proc.stdout):,} bytes, over the limit of {MAX_RESULT:,}: "
                    "ask for a part (lines A-B, or grep)")
    return proc.stdout.decode("utf-8", "replace")


def _lines_arg(lines: str) -> list:
    if not lines:
        return []
    if not _RANGE.fullmatch(lines):
        raise _fail(f"lines must look like A-B or A (1-based), got {lines!r}")
    return [f"--lines={lines}"]


def _mode_arg(mode: str) -> list:
    if not mode:
        return []
    if mode in MODES or (mode.startswith("section:") and len(mode) > 8) or \
            (mode.startswith("lines:") and _RANGE.fullmatch(mode[6:])):
        return [f"--mode={mode}"]
    raise _fail(f"unknown mode {mode!r}; use one of {', '.join(MODES)}, section:NAME, lines:A-B")


def declared_roots(result) -> list:
    """The real paths of the ``file://`` roots in a ``ListRootsResult`` (empty: none declared)."""
    from .mcp_jail import roots_from_uris
    return roots_from_uris([str(r.uri) for r in result.roots])


def read_args(path: str, mode: str, lines: str, roots: list, cwd: str) -> list:
    """The ``thresher read`` arguments for a jailed, validated read (raises ToolError)."""
    from .mcp_jail import Refused, resolve
    opts = _mode_arg(mode) + _lines_arg(lines)
    try:
        real = resolve(path, roots, cwd)
    except Refused as exc:
        raise _fail(str(exc)) from None
    return ["read", *opts, "--", real]


def expand_args(handle: str, lines: str, grep: str) -> list:
    """The ``thresher expand`` arguments (raises ToolError)."""
    if not _HANDLE.fullmatch(handle or ""):
        raise _fail(f"not a thresher handle: {handle!r} (the hex after 'thresher expand' in a footer)")
    opts = _lines_arg(lines)
    if grep:
        try:
            re.compile(grep)
        except re.error as exc:
            raise _fail(f"grep is not a valid regular expression: {exc}") from None
        opts.append(f"--grep={grep}")
    return ["expand", *opts, "--", handle]


def gain_args(days: float) -> list:
    """The ``thresher gain`` arguments (raises ToolError)."""
    if not isinstance(days, (int, float)) or not math.isfinite(days) or days < 0:
        raise _fail(f"days must be a number >= 0, got {days!r}")
    return ["gain"] + ([f"--days={days}"] if days else [])


async def thresher_expand(handle: str, lines: str = "", grep: str = "") -> str:
    """The archived original behind a thresher footer (optionally lines A-B or lines matching a regex)."""
    import anyio
    return await anyio.to_thread.run_sync(_thresher, expand_args(handle, lines, grep))


async def thresher_gain(days: float = 0) -> str:
    """Tokens saved by thresher (signed; expansions counted against it)."""
    import anyio
    return await anyio.to_thread.run_sync(_thresher, gain_args(days), 300)


def _read_tool(config: Config):
    """``thresher_read`` for ``config``, its roots asked of the client through an SDK resolver."""
    from typing import Annotated

    import anyio
    import mcp_types
    from mcp.server.mcpserver import Context, ListRoots, Resolve
    from .mcp_jail import effective_roots

    def roots_request(ctx: Context):
        """Ask the client for its roots (MCP ``roots/list``) when it declares the capability, else
        an empty list. The SDK sends the request the way the negotiated protocol wants it
        (mid-call before 2026-07-28, an input-required round from then on)."""
        caps = ctx.client_capabilities
        if caps is None or caps.roots is None:
            return mcp_types.ListRootsResult(roots=[])
        return ListRoots()

    async def thresher_read(path: str, mode: str = "", lines: str = "",
                            client_roots: Annotated[mcp_types.ListRootsResult | None,
                                                    Resolve(roots_request)] = None) -> str:
        declared = declared_roots(client_roots) if client_roots is not None else []
        roots = effective_roots(declared, config.roots, config.cwd)
        args = read_args(path, mode, lines, roots, config.cwd)
        return await anyio.to_thread.run_sync(_thresher, args)
    thresher_read.__doc__ = READ_DOC
    return thresher_read


def _run_tool(config: Config):
    """``thresher_run`` under ``config.run``'s policy."""
    import anyio
    import mcp_types
    from .mcp_run import execute, refusal

    async def thresher_run(command: str):
        why = refusal(command, config.run)
        if why:
            raise _fail(f"not run: {why} (thresher mcp --allow-run sets the policy)")
        out, failed = await anyio.to_thread.run_sync(execute, command, config.run.timeout)
        if failed:  # stopped (timeout, size): the output so far, flagged as an error, unprefixed
            return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=out)],
                                            is_error=True)
        return out
    thresher_run.__doc__ = ("Run a shell command line (" + config.run.describe() + f"; stopped "
                            f"after {config.run.timeout:g} s); output worth shrinking is shrunk. "
                            "Ends with its exit status.")
    return thresher_run


def build(config: Config | None = None):
    """The MCP server object (imports the SDK); ``thresher_run`` only when the policy enables it."""
    from mcp.server.mcpserver import MCPServer
    from thresher import __version__
    config = config or Config()
    server = MCPServer(name="thresher", instructions=INSTRUCTIONS, version=__version__)
    tools = [_read_tool(config), thresher_expand, thresher_gain]
    if config.run.enabled:
        tools.append(_run_tool(config))
    for fn in tools:
        server.tool(name=fn.__name__, description=fn.__doc__, structured_output=False)(fn)
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


def serve(config: Config | None = None) -> None:
    """Serve over stdio until the client closes the pipe (malformed JSON-RPC answered)."""
    import anyio
    from .mcp_stdio import serve as serve_stdio
    server = build(config)
    # MCPServer.run_stdio_async passes this same (private) low-level server to the SDK's stdio
    # transport; ours differs only in answering malformed lines.
    anyio.run(serve_stdio, server._lowlevel_server)
