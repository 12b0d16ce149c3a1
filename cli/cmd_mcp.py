"""``thresher mcp [--tokens]``: the MCP server over stdio (needs the ``mcp`` extra).

Tools: thresher_read (path, mode, lines), thresher_expand (handle, lines, grep), thresher_run
(command), thresher_gain (days). Register it with a host, e.g. for Claude Code:
``claude mcp add thresher -- thresher mcp``. ``--tokens`` prints the standing cost of the tool list
and instructions (what the host adds to every request) instead of serving.
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    """Serve, or print the tool surface's token size."""
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__.split("\n", 1)[1].lstrip() + "\n")
        return 0
    try:
        from thresher.integrations import mcp_server
        if argv == ["--tokens"]:
            size = mcp_server.surface_tokens()
            exact = f", {size['cl100k']} cl100k" if size["cl100k"] is not None else ""
            print(f"thresher mcp: {size['tools']} tools + instructions = "
                  f"{size['estimate']} tokens (estimate){exact}")
            return 0
        if argv:
            sys.stderr.write(f"thresher mcp: unknown arguments {argv!r}; see --help\n")
            return 2
        mcp_server.serve()
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "mcp":
            raise
        sys.stderr.write("thresher mcp: the MCP SDK is not installed: pip install 'thresher[mcp]'\n")
        return 1
    return 0
