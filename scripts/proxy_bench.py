#!/usr/bin/env python3
"""The proxy's cost, for scripts/bench.sh: per-call latency through `mcp-pin proxy` against the
fixture server direct (p50, p99) for a small result and a 1 MiB result, and the cost of a judged
`tools/list` of a 1,000-tool server.

    proxy_bench.py PIN FIXTURE GEN_SURFACE WORKDIR

One client (this script) speaks newline-delimited JSON-RPC over stdio, the same way to both; its
own time per call (writing, reading and parsing the answer) is in both figures.
"""
import json
import os
import subprocess
import sys
import time

PIN, FIX, GEN, WORK = sys.argv[1:5]


def session(cmd, cwd):
    p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=1 << 16)
    out = p.stdout

    def send(m):
        p.stdin.write((json.dumps(m) + "\n").encode())
        p.stdin.flush()

    def recv(want):
        while True:
            line = out.readline()
            if not line:
                raise SystemExit(f"{cmd[0]} ended")
            m = json.loads(line)
            if m.get("id") == want and "method" not in m:
                return m

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    recv(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p, send, recv


def close(p):
    p.stdin.close()
    p.wait()


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def calls(cmd, cwd, tool, n, warm=20):
    p, send, recv = session(cmd, cwd)
    # A first listing (the proxy judges it), as a client does before calling.
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    recv(1)
    times = []
    for i in range(warm + n):
        t0 = time.perf_counter()
        send({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": tool, "arguments": {}}})
        m = recv(10 + i)
        dt = (time.perf_counter() - t0) * 1000
        assert "result" in m and not m["result"].get("isError"), m
        if i >= warm:
            times.append(dt)
    close(p)
    return percentile(times, 0.5), percentile(times, 0.99)


def listings(cmd, cwd, n=15):
    p, send, recv = session(cmd, cwd)
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        send({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/list", "params": {}})
        m = recv(100 + i)
        times.append((time.perf_counter() - t0) * 1000)
        count = len(m["result"]["tools"])
    close(p)
    return percentile(times, 0.5), count


def main():
    d = os.path.join(WORK, "proxy")
    os.makedirs(d, exist_ok=True)
    small = {"tools": [{"name": "small", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}]}
    big_text = "x" * (1 << 20)
    big = {"tools": [{"name": "big", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}],
           "calls": {"big": {"result": {"content": [{"type": "text", "text": big_text}]}}}}
    json.dump(small, open(os.path.join(d, "small.json"), "w"))
    json.dump(big, open(os.path.join(d, "big.json"), "w"))
    for tag in ("a", "b"):
        with open(os.path.join(d, f"l1000{tag}.json"), "w") as f:
            subprocess.run([sys.executable, GEN, "surface", "1000", tag], stdout=f, check=True)
    os.replace(os.path.join(d, "l1000a.json"), os.path.join(d, "l1000.json"))
    with open(os.path.join(d, "mcp-pin.toml"), "w") as f:
        for name in ("small", "big", "l1000"):
            f.write(f'[servers.{name}]\ncommand = "{FIX}"\nargs = ["--surface", "{name}.json"]\nprobe = "none"\ntimeout = "60s"\n\n')
    subprocess.run([PIN, "lock", "-q"], cwd=d, check=True, stdout=subprocess.DEVNULL)

    def direct(name):
        return [FIX, "--surface", f"{name}.json"]

    def proxied(name):
        return [PIN, "proxy", "--server", name]

    for name, n in (("small", 2000), ("big", 200)):
        d50, d99 = calls(direct(name), d, name, n)
        p50, p99 = calls(proxied(name), d, name, n)
        label = "small result" if name == "small" else "1 MiB result"
        print(f"{label} ({n} calls): direct p50 {d50:.3f} ms, p99 {d99:.3f} ms; through the proxy p50 {p50:.3f} ms, p99 {p99:.3f} ms; "
              f"ratio p50 {p50 / d50:.2f}x, p99 {p99 / d99:.2f}x (target <= 1.5x); added p50 {p50 - d50:.3f} ms")

    l_direct, n_direct = listings(direct("l1000"), d)
    l_proxy, n_proxy = listings(proxied("l1000"), d)
    print(f"tools/list of 1,000 tools, unchanged since the lock: direct {l_direct:.1f} ms; through the proxy (every page taken, judged, served) {l_proxy:.1f} ms ({n_proxy} of {n_direct} served)")
    os.replace(os.path.join(d, "l1000b.json"), os.path.join(d, "l1000.json"))
    l_direct, n_direct = listings(direct("l1000"), d)
    l_proxy, n_proxy = listings(proxied("l1000"), d)
    print(f"tools/list of 1,000 tools, drifted (tag b: silent changes on some tools): direct {l_direct:.1f} ms; through the proxy {l_proxy:.1f} ms ({n_proxy} of {n_direct} served, the rest quarantined)")


main()
