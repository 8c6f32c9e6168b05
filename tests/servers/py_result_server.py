"""An MCP server on the official Python SDK (PyPI `mcp` 2.x, MCPServer), for mcp-pin's result
contract: tools whose return value is no object get the SDK's `outputSchema` `{"result": ...}`,
`structuredContent` `{"result": X}` and X as text (a list as one block per item); one tool
returns an object. `stale_total` builds its own result whose text really disagrees with the
wrapped value.

    python py_result_server.py
"""
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations

server = MCPServer("py-results")
# Read-only: probed in the server's own session, wherever the tests run.
READ = ToolAnnotations(read_only_hint=True)


@server.tool(annotations=READ)
def list_notes() -> list[dict[str, str]]:
    """List the notes."""
    return [{"id": "n1", "title": "First"}, {"id": "n2", "title": "Second"}]


@server.tool(annotations=READ)
def count_words() -> list[int]:
    """Words per note."""
    return [3, 5]


@server.tool(annotations=READ)
def greet() -> str:
    """A greeting."""
    return "Hello!"


@server.tool(annotations=READ)
def find_note() -> dict[str, str] | None:
    """The first note, if any (an object the SDK wraps)."""
    return {"id": "n1", "title": "First"}


@server.tool(annotations=READ)
def stats() -> dict[str, int]:
    """Counts by kind (an object, not wrapped)."""
    return {"notes": 2, "words": 8}


@server.tool(annotations=READ)
def stale_total() -> Annotated[CallToolResult, list[int]]:
    """Totals; its text is not what its structure says."""
    return CallToolResult(content=[TextContent(type="text", text="[1, 3]")], structured_content={"result": [1, 2]})


if __name__ == "__main__":
    server.run()
