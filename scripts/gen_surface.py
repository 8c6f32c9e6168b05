#!/usr/bin/env python3
"""Generate realistic MCP surfaces and lockfiles for mcp-pin's benchmarks.

    gen_surface.py surface N TAG > surface.json     # a fixture-server surface with N tools
    gen_surface.py lock N TAG SERVERS > x.lock      # an mcp-pin lockfile with SERVERS servers of N tools

Tools look like real ones: nested objects, enums, formats, anyOf-with-null, $defs refs, outputSchema,
annotations. TAG varies descriptions and a few schema details so two tags differ in realistic ways.
"""
import json
import sys


def tool(i, tag):
    drift = tag != "a"
    props = {
        "query": {"type": "string", "description": f"Search text for tool {i}", "minLength": 1, "maxLength": 200},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
        "status": {"type": "string", "enum": ["open", "closed", "all"] if not (drift and i % 97 == 0) else ["open", "all"]},
        "since": {"type": "string", "format": "date-time"},
        "filters": {
            "type": "object",
            "properties": {
                "owner": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                "labels": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
                "range": {"$ref": "#/$defs/range"},
            },
            "required": ["owner"] if not (drift and i % 89 == 0) else [],
        },
    }
    t = {
        "name": f"tool_{i:05d}",
        "title": f"Tool {i}",
        "description": f"Searches collection {i} and returns matching records. Revision {'b' if drift and i % 53 == 0 else 'a'}.",
        "inputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": props,
            "required": ["query", "status"],
            "additionalProperties": False,
            "$defs": {"range": {"type": "object", "properties": {"from": {"type": "number"}, "to": {"type": "number"}}}},
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "score": {"type": "number"}}, "required": ["id"]}},
                "total": {"type": "integer"},
            },
            "required": ["items", "total"],
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
        "execution": {"taskSupport": "forbidden"},
    }
    return t


def surface(n, tag):
    return {"serverInfo": {"name": "bench", "version": "1.0.0"}, "tools": [tool(i, tag) for i in range(n)]}


def lock(n, tag, servers):
    out = {"lockfileVersion": 1, "normalizerVersion": 1, "servers": {}}
    for s in range(servers):
        out["servers"][f"server_{s:03d}"] = {
            "source": {"transport": "stdio", "command": "bench", "args": []},
            "clientCapabilities": [],
            "protocolVersion": "2025-11-25",
            "serverInfo": {"name": "bench", "version": "1.0.0"},
            "capabilities": {"tools": {}},
            "tools": {t["name"]: t for t in (tool(i, tag) for i in range(n // servers))},
        }
    return out


if __name__ == "__main__":
    kind, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == "surface":
        json.dump(surface(n, tag), sys.stdout)
    else:
        json.dump(lock(n, tag, int(sys.argv[4]) if len(sys.argv) > 4 else 1), sys.stdout, indent=2, sort_keys=True)
