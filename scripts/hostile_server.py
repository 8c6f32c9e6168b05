#!/usr/bin/env python3
"""A hostile MCP server for scripts/bench.sh: it answers the handshake, then lists tools built to
cost a client memory, written piece by piece (it never holds a listing itself, so the peak memory
measured is the client's, not this server's).

Usage: hostile_server.py stdio CASE ARG...
       hostile_server.py http PORT CASE ARG...       (prints `listening on URL` once bound)

CASE:  huge-description MB       one tool whose description is MB x 10^6 bytes
       many-tools N              N small tools in one page
       many-pages PAGES KB       PAGES pages of tools, KB x 10^3 bytes each
       realistic MB              ~1 KB tools (descriptions, schemas) up to MB x 10^6 bytes, one page
       mapped MB                 the same, each mapping an argument to a header (x-mcp-header)
       dense MB                  one tool whose schema is an enum of MB x 10^6 / 2 zeros
"""
import json, sys

CHUNK = 1 << 20


def small_tool(i):
    return '{"name":"t%d","inputSchema":{"type":"object"}}' % i


def realistic_tool(i, mapped=False):
    words = "lorem ipsum dolor sit amet " * 12
    query = {"type": "string", "description": words}
    if mapped:
        query["x-mcp-header"] = "Query"
    return json.dumps({
        "name": f"tool_{i:07d}", "description": f"Tool {i}: {words}",
        "inputSchema": {"type": "object", "properties": {
            "query": query,
            "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
            "required": ["query"]},
        "annotations": {"readOnlyHint": True}}, separators=(",", ":"))


def pieces(case, args, cursor):
    """The `result` of tools/list for `cursor`, as text pieces."""
    if case == "huge-description":
        n = int(float(args[0]) * 1_000_000)
        yield '{"tools":[{"name":"big","inputSchema":{"type":"object"},"description":"'
        while n > 0:
            k = min(n, CHUNK)
            yield "a" * k
            n -= k
        yield '"}]}'
    elif case == "many-tools":
        n = int(args[0])
        yield '{"tools":['
        batch = []
        for i in range(n):
            batch.append(small_tool(i))
            if len(batch) == 10000:
                yield ",".join(batch) + ("," if i + 1 < n else "")
                batch = []
        if batch:
            yield ",".join(batch)
        yield "]}"
    elif case == "many-pages":
        pages, per = int(args[0]), int(float(args[1]) * 1000)
        page = int(cursor or 0)
        tools, size, i = [], 0, 0
        while size < per:
            t = realistic_tool(page * 100000 + i)
            tools.append(t)
            size += len(t) + 1
            i += 1
        nxt = ',"nextCursor":"%d"' % (page + 1) if page + 1 < pages else ""
        yield '{"tools":[' + ",".join(tools) + "]" + nxt + "}"
    elif case in ("realistic", "mapped"):
        n = int(float(args[0]) * 1_000_000)
        yield '{"tools":['
        size, i, first = 0, 0, True
        while size < n:
            t = realistic_tool(i, case == "mapped")
            yield ("" if first else ",") + t
            first = False
            size += len(t) + 1
            i += 1
        yield "]}"
    elif case == "dense":
        n = int(float(args[0]) * 1_000_000) // 2
        yield '{"tools":[{"name":"dense","inputSchema":{"type":"object","properties":{"v":{"enum":['
        while n > 0:
            k = min(n, CHUNK // 2)
            yield ",".join("0" * k)
            n -= k
            if n > 0:
                yield ","
        yield "]}}}}]}"
    else:
        raise SystemExit(f"unknown case {case}")


def answer(msg, case, args, write):
    """Answer one JSON-RPC message through `write(piece)`; False when nothing is sent."""
    if "id" not in msg or "method" not in msg:
        return False
    mid = json.dumps(msg["id"])
    method = msg["method"]
    if method == "initialize":
        version = msg.get("params", {}).get("protocolVersion", "2025-11-25")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "hostile", "version": "1.0.0"}}
        write('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (mid, json.dumps(result)))
    elif method == "tools/list":
        cursor = (msg.get("params") or {}).get("cursor")
        write('{"jsonrpc":"2.0","id":%s,"result":' % mid)
        for p in pieces(case, args, cursor):
            write(p)
        write("}\n")
    elif method == "ping":
        write('{"jsonrpc":"2.0","id":%s,"result":{}}\n' % mid)
    else:
        write('{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' % mid)
    return True


def stdio(case, args):
    out = sys.stdout.buffer
    write = lambda s: out.write(s.encode())
    try:
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            if answer(json.loads(line), case, args, write):
                out.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass


def http(port, case, args):
    import http.server, socketserver

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *a):
            pass

        def do_GET(self):
            self.send_response(405)
            self.end_headers()

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            msg = json.loads(body or b"{}")
            if "id" not in msg:
                self.send_response(202)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("connection", "close")
            self.end_headers()
            try:
                answer(msg, case, args, lambda s: self.wfile.write(s.encode()))
            except (BrokenPipeError, ConnectionResetError):
                pass

    srv = socketserver.ThreadingTCPServer(("127.0.0.1", port), H)
    srv.daemon_threads = True
    print(f"listening on http://127.0.0.1:{srv.server_address[1]}/mcp", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "http":
        http(int(sys.argv[2]), sys.argv[3], sys.argv[4:])
    else:
        stdio(sys.argv[2], sys.argv[3:])
