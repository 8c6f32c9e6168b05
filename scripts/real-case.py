#!/usr/bin/env python3
"""Turn two lockfiles of one server (an old and a new release) into a diff-corpus case.

Usage: scripts/real-case.py NAME OLD.lock NEW.lock [SERVER]

Writes tests/cases/NAME/{before,after}.json (the server's surface: tools, instructions,
serverInfo, protocolVersion, capabilities) and an empty expected.json. Then run
`cargo test --test integration diff_cases::corpus`, review every change it prints against
docs/rules.md, write the ones you agree with into expected.json, and
`INSTA_UPDATE=always cargo test --test integration diff_cases::` (then `git diff`: the case's
report snapshot).
"""
import json
import os
import sys


def surface(path, server):
    servers = json.load(open(path))["servers"]
    if server is None:
        if len(servers) != 1:
            sys.exit(f"{path} pins {len(servers)} servers; name one: {', '.join(sorted(servers))}")
        server = next(iter(servers))
    entry = servers[server]
    out = {"tools": list(entry.get("tools", {}).values())}
    for key in ("instructions", "serverInfo", "protocolVersion", "capabilities"):
        if key in entry:
            out[key] = entry[key]
    return out


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    name, old, new = sys.argv[1:4]
    server = sys.argv[4] if len(sys.argv) == 5 else None
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "cases", name)
    os.makedirs(root, exist_ok=True)
    for file, lock in (("before.json", old), ("after.json", new)):
        with open(os.path.join(root, file), "w") as f:
            json.dump(surface(lock, server), f, indent=2, ensure_ascii=False)
            f.write("\n")
    expected = os.path.join(root, "expected.json")
    if not os.path.exists(expected):
        with open(expected, "w") as f:
            f.write("[]\n")
    print(f"wrote {os.path.normpath(root)}; now review: cargo test --test integration diff_cases::corpus")


main()
