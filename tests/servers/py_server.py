"""A small MCP server on the official Python SDK (PyPI `mcp` 2.x), for mcp-pin's interoperability
tests: it speaks the stateless 2026-07-28 revision (`server/discover`) and the legacy ones.

    python py_server.py stdio
    python py_server.py http PORT      (0: a port of its own, which the tests read from the kernel)
"""
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("py-fixture", instructions="Add numbers with `add`; greet with `greet`.")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def greet(name: str, punctuation: str | None = None) -> str:
    """Greet someone by name."""
    return f"Hello, {name}{punctuation or '!'}"


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]), stateless_http=True, json_response=True)
    else:
        server.run()
