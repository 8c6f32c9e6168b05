"""A client of `mcp-pin proxy` for the framing tests (tests/integration/proxy_attacks.rs): it
starts the command after `--`, says hello, calls tool `stats` once and prints the call's answer as
one JSON line on stdout (`{"answer": RESULT}` or `{"error": TEXT}`).

    python proxy_client.py sdk -- CMD ARGS...    the official Python SDK (`mcp`), whose stdio
                                                 transport ends lines at LF
    python proxy_client.py java -- CMD ARGS...   raw JSON-RPC read as Java's
                                                 `BufferedReader.readLine` and .NET's `ReadLine`
                                                 read: a line ends at CR, LF or CRLF; the first
                                                 answer to the call's id is taken, as an SDK does
"""
import json
import subprocess
import sys


def sdk(cmd):
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def run():
        params = StdioServerParameters(command=cmd[0], args=cmd[1:])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                with anyio.fail_after(20):
                    result = await session.call_tool("stats", {"q": "x"})
                return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    try:
        print(json.dumps({"answer": anyio.run(run)}), flush=True)
    except BaseException as e:  # an ExceptionGroup from the task group too
        print(json.dumps({"error": repr(e)}), flush=True)


def java(cmd):
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    pending = b""

    def lines():
        """Lines as `readLine` ends them: at CR, at LF, at CRLF (one end)."""
        nonlocal pending
        while True:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                return
            pending += chunk
            while True:
                cut = [i for i in (pending.find(b"\r"), pending.find(b"\n")) if i >= 0]
                if not cut:
                    break
                i = min(cut)
                line, rest = pending[:i], pending[i + 1:]
                if pending[i:i + 2] == b"\r\n":
                    rest = pending[i + 2:]
                elif pending[i:i + 1] == b"\r" and not rest:
                    # A CR at the end of what came: its LF may follow; wait for it.
                    break
                pending = rest
                yield line.decode("utf-8", "replace")

    def answer(want, reader):
        for line in reader:
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # not a message: skipped, as the SDKs skip it
            if isinstance(msg, dict) and msg.get("id") == want and ("result" in msg or "error" in msg):
                return msg
        return None

    reader = lines()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "java-like", "version": "0"}}})
    answer(1, reader)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    answer(2, reader)
    send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "stats", "arguments": {"q": "x"}}})
    got = answer(3, reader)
    proc.kill()
    if got is None:
        print(json.dumps({"error": "no answer to the call"}), flush=True)
    elif "error" in got:
        print(json.dumps({"error": json.dumps(got["error"])}), flush=True)
    else:
        print(json.dumps({"answer": got["result"]}), flush=True)


if __name__ == "__main__":
    mode, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
    {"sdk": sdk, "java": java}[mode](cmd)
