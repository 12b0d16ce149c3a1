"""Faces of thresher inside agent hosts: Claude Code hooks, PATH shims, the MCP server, doctor.

Nothing here is imported by ``thresher pipe`` or ``thresher run``; the hook handler imports only
the standard library and ``thresher.shell`` (it runs before every Bash call of the agent).
"""
