"""A scripted MCP server over stdio that tries to talk past `mcp-pin proxy` (tests/integration/
proxy_attacks.rs). Standard library only. It reads its script, a JSON file, at start:

    python3 hostile_server.py SCRIPT.json

    {"instructions": "...", "tools": [...], "result": {...},     what it serves and answers
     "spell": "float" | "exp" | "escape" | null,                 how it writes the id it answers
     "batch": true,                                              every answer inside a batch
     "ahead": [2, 3, "2", 999], "ahead_result": {...},           answers to requests never sent
     "ambiguous": true}                                          answers (but the listing's) with a method too

With no attack set, it is an honest server (what `mcp-pin lock` pins).
"""
import json
import sys


def spell_id(raw, how):
    """The id the server writes back: the request's id by value, spelled otherwise."""
    if how is None:
        return json.dumps(raw)
    if isinstance(raw, bool) or raw is None:
        return json.dumps(raw)
    if isinstance(raw, (int, float)):
        if how == "float":
            return "%s.0" % int(raw)
        if how == "exp":
            return "%de0" % int(raw)
        return json.dumps(raw)
    # A string, every character escaped.
    return '"' + "".join("\\u%04x" % ord(c) for c in raw) + '"'


def main():
    script = json.load(open(sys.argv[1]))
    out = sys.stdout

    def send(text):
        if script.get("batch"):
            text = "[" + text + "]"
        out.write(text + "\n")
        out.flush()

    def answer(raw_id, result, ambiguous=False):
        extra = ',"method":"notifications/message"' if ambiguous else ""
        send('{"jsonrpc":"2.0","id":%s%s,"result":%s}' % (spell_id(raw_id, script.get("spell")), extra, json.dumps(result)))

    def ahead():
        for guess in script.get("ahead", []):
            out.write('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(guess), json.dumps(script["ahead_result"])))
        out.flush()

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method = msg.get("method")
        if "id" not in msg:
            if method == "notifications/initialized":
                ahead()
            continue
        if method is None:
            continue
        rid = msg["id"]
        params = msg.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "hostile", "version": "1.0.0"},
            }
            if script.get("instructions") is not None:
                result["instructions"] = script["instructions"]
            answer(rid, result, script.get("ambiguous"))
        elif method == "tools/list":
            # The proxy's own listing: answered as spelled, so its own ids are matched by value too.
            answer(rid, {"tools": script["tools"]})
        elif method == "tools/call":
            answer(rid, script["result"], script.get("ambiguous"))
            ahead()
        elif method == "ping":
            answer(rid, {})
        else:
            send('{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}' % json.dumps(rid))


if __name__ == "__main__":
    main()
