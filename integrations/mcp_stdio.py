"""The stdio transport of ``thresher mcp``: the SDK's, with malformed JSON-RPC answered per the spec.

The SDK's stdio reader drops a line it cannot parse, so a client that sends one waits forever.
Here every line is checked first (JSON-RPC 2.0 §4, §5.1; MCP: one message per line, no batches):
- not JSON, or not UTF-8 → ``-32700 Parse error``, ``id: null``;
- JSON that is not a request, notification or response (no ``"jsonrpc": "2.0"``, an ``id`` that
  is not a string or integer, a non-string ``method``, neither ``method`` nor ``result``/``error``)
  → ``-32600 Invalid Request``, with the request's ``id`` when it has a valid one, else ``null``;
- a batch (a JSON array) → an array holding one ``-32600`` per element (an empty one: a single
  ``-32600``): MCP since 2025-06-18 has no batches;
- a request whose ``params`` is not an object → ``-32602 Invalid params``;
- a line over :data:`MAX_LINE` bytes → ``-32600``, and the rest of that line is skipped unread.
Invalid notifications and responses get no answer (JSON-RPC never answers those); everything
else goes to the SDK, which answers unknown methods (``-32601``) itself.
"""

from __future__ import annotations

import json
import os
import sys

import anyio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 16 * 1024 * 1024


def error(code: int, message: str, msg_id=None) -> dict:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def _valid_id(value) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def check_message(msg):
    """The error response for one parsed message, or ``None`` when it is well formed (or a bad
    notification/response, which gets no answer: then ``False``)."""
    if not isinstance(msg, dict):
        return error(-32600, "Invalid Request: a message must be a JSON object")
    has_id = "id" in msg
    msg_id = msg.get("id") if _valid_id(msg.get("id")) else None
    if msg.get("jsonrpc") != "2.0":
        return error(-32600, 'Invalid Request: "jsonrpc" must be "2.0"', msg_id)
    if has_id and msg_id is None and "method" in msg:
        return error(-32600, 'Invalid Request: "id" must be a string or an integer')
    if "method" in msg:
        if not isinstance(msg["method"], str):
            return error(-32600, 'Invalid Request: "method" must be a string', msg_id)
        if "params" in msg and not isinstance(msg["params"], dict):
            return error(-32602, 'Invalid params: "params" must be an object', msg_id) \
                if has_id else False
        return None
    if ("result" in msg or "error" in msg) and msg_id is not None:
        return None
    if not has_id:
        return error(-32600, 'Invalid Request: no "method"')
    return False if ("result" in msg or "error" in msg) else \
        error(-32600, 'Invalid Request: no "method"', msg_id)


def check_line(line: bytes):
    """``(reply, forward)``: the error reply to write (or ``None``) and whether the SDK gets it."""
    try:
        msg = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return error(-32700, "Parse error: not a JSON text"), False
    if isinstance(msg, list):
        if not msg:
            return error(-32600, "Invalid Request: an empty batch"), False
        return [error(-32600, "Invalid Request: batches are not supported",
                      m.get("id") if isinstance(m, dict) and _valid_id(m.get("id")) else None)
                for m in msg], False
    reply = check_message(msg)
    if reply is None:
        return _sdk_check(line, msg), True
    return (reply or None), False


def _sdk_check(line: bytes, msg: dict):
    """``None``, or -32600 for a request the SDK's own message schema rejects (it would drop it)."""
    import mcp_types
    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except Exception as exc:  # noqa: BLE001 - pydantic says why; the first error is enough
        if "method" in msg and "id" in msg:
            first = str(exc).splitlines()[1:2] or ["schema"]
            return error(-32600, f"Invalid Request: {first[0].strip()}", msg["id"])
    return None


class _Wire:
    """The private duplicates of fds 0/1; fd 0 then reads /dev/null and fd 1 writes to stderr, so
    a stray print or child never touches the protocol stream (as the SDK's transport does)."""

    def __init__(self) -> None:
        self.rd = os.fdopen(os.dup(0), "rb")
        self.wr = os.fdopen(os.dup(1), "wb")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
        self.lock = anyio.Lock()

    def readline(self) -> bytes:
        """One line, at most MAX_LINE + 1 bytes (longer: the rest is skipped, b"\\0" marks it)."""
        line = self.rd.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:
                rest = self.rd.readline(1 << 20)
                if not rest or rest.endswith(b"\n"):
                    return b"\0"
        return line

    async def write(self, text: str) -> None:
        """Write one whole frame (the SDK writes ``json + "\\n"`` in one call)."""
        async with self.lock:
            await anyio.to_thread.run_sync(self._put, text.encode("utf-8"))

    def _put(self, data: bytes) -> None:
        self.wr.write(data)
        self.wr.flush()

    async def flush(self) -> None:
        """Every write is flushed already."""

    async def lines(self):
        """The lines the SDK should see; the others are answered here."""
        while True:
            line = await anyio.to_thread.run_sync(self.readline, abandon_on_cancel=True)
            if not line:
                return
            if line == b"\0":
                await self.send(error(-32600, f"Invalid Request: message over {MAX_LINE} bytes"))
                continue
            if not line.strip():
                continue
            reply, forward = check_line(line)
            if reply is not None:
                await self.send(reply)
            if forward:
                yield line.decode("utf-8")

    async def send(self, reply) -> None:
        """Write an error reply of ours."""
        await self.write(json.dumps(reply, separators=(",", ":")) + "\n")

    def __aiter__(self):
        return self.lines()


async def serve(lowlevel_server: Any) -> None:
    """Serve ``lowlevel_server`` (the SDK's) over this process's stdin/stdout until EOF."""
    from typing import cast

    from mcp.server.stdio import stdio_server
    wire = cast("anyio.AsyncFile[str]", _Wire())  # the two methods the SDK's transport calls
    async with stdio_server(stdin=wire, stdout=wire) as (read_stream, write_stream):
        await lowlevel_server.run(read_stream, write_stream,
                                  lowlevel_server.create_initialization_options())
    sys.stdout.flush()
