#!/usr/bin/env python3
"""Adversarial surfaces for scripts/bench.sh: each case writes before.json and after.json (fixture
surfaces) into a folder; mcp-pin's own work on them (listing, argument synthesis, $ref expansion,
normalisation, the diff and the word diff of the report) must stay bounded.

Usage: adversarial.py CASE DIR      (CASE: ref-bomb, wide-union, long-rewrite, deep-nesting,
                                     huge-strings, many-tools)"""
import json, os, random, sys

def tool(name, schema, description="A tool.", read_only=True):
    return {"name": name, "description": description, "inputSchema": schema,
            "annotations": {"readOnlyHint": read_only}}

def ref_bomb(level_type):
    # Each definition refers to the next twice: expanded naively, 2^40 schemas.
    defs = {}
    n = 40
    for i in range(n):
        defs[f"d{i}"] = {"anyOf": [{"$ref": f"#/$defs/d{i+1}"}, {"type": "array", "items": {"$ref": f"#/$defs/d{i+1}"}}]}
    defs[f"d{n}"] = {"type": level_type}
    schema = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}, "required": ["x"]}
    return {"tools": [tool("bomb", schema)]}

def wide_union(changed):
    alts = [{"type": "object", "properties": {f"k{i}": {"const": i}}, "required": [f"k{i}"]} for i in range(5000)]
    if changed:
        alts[2500] = {"type": "object", "properties": {"k2500": {"const": "x"}}, "required": ["k2500"]}
    return {"tools": [tool("wide", {"type": "object", "properties": {"v": {"anyOf": alts}}, "required": ["v"]})]}

def long_rewrite(seed):
    rnd = random.Random(seed)
    words = " ".join("".join(rnd.choice("abcdefghij") for _ in range(6)) for _ in range(40000))
    lines = "\n".join(words[i:i + 80] for i in range(0, len(words), 80))
    return {"instructions": lines, "tools": [tool("text", {"type": "object"}, description=lines)]}

def deep_nesting(t):
    s = {"type": t}
    for i in range(200):
        s = {"type": "object", "properties": {f"p{i}": s}, "required": [f"p{i}"]}
    return {"tools": [tool("deep", s)]}

def huge_strings(n):
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "minLength": n, "pattern": "^(a|b|c)*(d{1,1000}){1,1000}$"},
        "b": {"type": "array", "minItems": n, "items": {"type": "string", "minLength": n}},
        "c": {"type": "integer", "minimum": 10**30, "multipleOf": 7}},
        "required": ["a", "b", "c"]}
    return {"tools": [tool("huge", schema)]}

def many_tools(n, variant):
    return {"tools": [tool(f"t{i}", {"type": "object", "properties": {"q": {"type": "string", "enum": ["a", "b"] if variant else ["a"]}}})
                      for i in range(n)]}

CASES = {
    "ref-bomb": (lambda: ref_bomb("string"), lambda: ref_bomb("integer")),
    "wide-union": (lambda: wide_union(False), lambda: wide_union(True)),
    "long-rewrite": (lambda: long_rewrite(1), lambda: long_rewrite(2)),
    "deep-nesting": (lambda: deep_nesting("string"), lambda: deep_nesting("integer")),
    "huge-strings": (lambda: huge_strings(10**9), lambda: huge_strings(10**9 + 1)),
    "many-tools": (lambda: many_tools(9000, False), lambda: many_tools(9000, True)),
}

if __name__ == "__main__":
    case, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    before, after = CASES[case]
    for name, make in (("before.json", before), ("after.json", after)):
        with open(os.path.join(out, name), "w") as f:
            json.dump(make(), f)
