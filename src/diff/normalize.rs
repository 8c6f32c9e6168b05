//! Stage one: normalise a JSON Schema so that equal spellings become equal values.
//!
//! The walker ([`super::walk`]) never needs to know about spelling. What this stage does (and what
//! RULES.md calls equal spellings):
//! - `type` as a sorted set (`integer` dropped when `number` is present, all types = no `type`);
//! - `enum` and `required` as sorted sets; `const: v` as `enum: [v]`;
//! - `nullable: true` (OpenAPI) and `anyOf/oneOf: [X, {type: null}]` as `null` added to X;
//! - single-branch `allOf`/`anyOf`/`oneOf` merged into the parent when nothing conflicts;
//! - titled enums (`oneOf`/`anyOf` of `{const, title}`) as `enum` + `$enumTitles`;
//! - a `oneOf`/`anyOf` of objects alike but for the one value a required property allows as the
//!   one object whose property allows them all;
//! - `definitions` as `$defs`, local `$ref`s as `#<json pointer>`;
//! - draft-04 boolean exclusive bounds, draft-07 array `items`/`additionalItems`, `dependencies`;
//! - `true` schemas as `{}`, `false` schemas as `{"type": []}` (accepts nothing), except where
//!   `false` has its own reading (`additionalProperties`, `items`, ...), where it stays `false`;
//! - keywords at their default removed; numbers in canonical decimal spelling (done beforehand);
//! - for `integer` schemas, exclusive or fractional bounds as the inclusive integer bound, and
//!   the safe-integer bounds (±(2^53 - 1), zod's `.int()`) as no bound.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::num::Dec;
use super::MAX_DEPTH;

/// Keywords whose value is a map of name -> schema.
pub const MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "$defs", "dependentSchemas"];
/// Keywords whose value is one schema, where `false` keeps its own meaning (closed).
pub const CLOSABLE_KEYWORDS: &[&str] =
    &["additionalProperties", "unevaluatedProperties", "unevaluatedItems", "items", "additionalItems"];
/// Keywords whose value is one schema.
pub const SINGLE_KEYWORDS: &[&str] = &["contains", "not", "if", "then", "else", "propertyNames", "contentSchema"];
/// Keywords whose value is an array of schemas.
pub const ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

pub const ALL_TYPES: &[&str] = &["array", "boolean", "null", "number", "object", "string"];

/// Normalise one schema (any JSON value; non-schemas are returned unchanged).
pub fn normalize_schema(v: &Value) -> Value {
    // Under 2020-12 `additionalItems` is no keyword: a draft-07 closed tuple
    // (`items: [...]`, `additionalItems: false`) read in 2020-12 is open (RULES: a keyword that
    // reads differently in the two dialects is compared as read).
    let d2020 = v.get("$schema").and_then(Value::as_str).is_some_and(|s| s.contains("2020-12"));
    let mut out = norm(v, 0, d2020);
    // `definitions` pointers were rewritten; nothing else to do at the root.
    if let Value::Object(m) = &mut out {
        m.remove("$nullable");
    }
    out
}

fn norm(v: &Value, depth: usize, d2020: bool) -> Value {
    match v {
        Value::Bool(true) => Value::Object(Map::new()),
        Value::Bool(false) => nothing(),
        Value::Object(m) if depth <= MAX_DEPTH => Value::Object(norm_object(m, depth, d2020)),
        other => other.clone(),
    }
}

/// The schema that accepts nothing.
pub fn nothing() -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::Array(vec![]));
    Value::Object(m)
}

fn norm_object(src: &Map<String, Value>, depth: usize, d2020: bool) -> Map<String, Value> {
    let mut m: Map<String, Value> = Map::new();
    // 1. children, and keyword spellings that move things around.
    for (k, v) in src {
        match k.as_str() {
            "definitions" => {
                if let Value::Object(defs) = v {
                    let entry = m.entry("$defs").or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(e) = entry {
                        for (name, s) in defs {
                            if !e.contains_key(name) {
                                e.insert(name.clone(), norm(s, depth + 1, d2020));
                            }
                        }
                    }
                } else {
                    m.insert(k.clone(), v.clone());
                }
            }
            "$defs" => {
                if let Value::Object(defs) = v {
                    let entry = m.entry("$defs").or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(e) = entry {
                        // `$defs` wins over `definitions` for the same name.
                        for (name, s) in defs {
                            e.insert(name.clone(), norm(s, depth + 1, d2020));
                        }
                    }
                } else {
                    m.insert(k.clone(), v.clone());
                }
            }
            "dependencies" => {
                if let Value::Object(deps) = v {
                    for (name, d) in deps {
                        match d {
                            Value::Array(_) => {
                                let e = m.entry("dependentRequired").or_insert_with(|| Value::Object(Map::new()));
                                if let Value::Object(e) = e {
                                    e.entry(name.clone()).or_insert_with(|| d.clone());
                                }
                            }
                            _ => {
                                let e = m.entry("dependentSchemas").or_insert_with(|| Value::Object(Map::new()));
                                if let Value::Object(e) = e {
                                    e.entry(name.clone()).or_insert_with(|| norm(d, depth + 1, d2020));
                                }
                            }
                        }
                    }
                } else {
                    m.insert(k.clone(), v.clone());
                }
            }
            "dependentRequired" | "dependentSchemas" if m.contains_key(k.as_str()) => {
                // merged with `dependencies`: the explicit keyword wins per name
                if let (Some(Value::Object(e)), Value::Object(src)) = (m.get_mut(k.as_str()), v) {
                    for (name, s) in src {
                        let s = if k == "dependentSchemas" { norm(s, depth + 1, d2020) } else { s.clone() };
                        e.insert(name.clone(), s);
                    }
                }
            }
            key if MAP_KEYWORDS.contains(&key) => match v {
                Value::Object(children) => {
                    let n: Map<String, Value> =
                        children.iter().map(|(name, s)| (name.clone(), norm(s, depth + 1, d2020))).collect();
                    m.insert(k.clone(), Value::Object(n));
                }
                _ => {
                    m.insert(k.clone(), v.clone());
                }
            },
            "items" if v.is_array() => {
                // draft-07 tuple form: read as prefixItems (closed by `additionalItems` before 2020-12)
                let arr =
                    v.as_array().map(|a| a.iter().map(|s| norm(s, depth + 1, d2020)).collect()).unwrap_or_default();
                m.insert("prefixItems".into(), Value::Array(arr));
                if let Some(ai) = src.get("additionalItems").filter(|_| !d2020) {
                    if let Some(x) = closable(ai, depth, d2020) {
                        m.insert("items".into(), x);
                    }
                }
            }
            "additionalItems" if src.get("items").is_some_and(Value::is_array) => {}
            key if CLOSABLE_KEYWORDS.contains(&key) => {
                if let Some(x) = closable(v, depth, d2020) {
                    // `items` set by the tuple form above wins
                    if !(key == "items" && m.contains_key("items")) {
                        m.insert(k.clone(), x);
                    }
                }
            }
            key if SINGLE_KEYWORDS.contains(&key) => {
                m.insert(k.clone(), norm(v, depth + 1, d2020));
            }
            key if ARRAY_KEYWORDS.contains(&key) => match v {
                Value::Array(a) => {
                    let arr: Vec<Value> = a.iter().map(|s| norm(s, depth + 1, d2020)).collect();
                    if key == "prefixItems" && m.contains_key("prefixItems") {
                        continue;
                    }
                    m.insert(k.clone(), Value::Array(arr));
                }
                _ => {
                    m.insert(k.clone(), v.clone());
                }
            },
            "$ref" => {
                m.insert(
                    k.clone(),
                    match v {
                        Value::String(s) => Value::String(canonical_ref(s)),
                        other => other.clone(),
                    },
                );
            }
            _ => {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    // 2. local keyword spellings.
    local(&mut m);
    // 3. compositions that are spellings of something simpler.
    let composed = m.contains_key("anyOf") || m.contains_key("oneOf") || m.contains_key("allOf");
    if composed {
        for kw in ["anyOf", "oneOf"] {
            nullable_branch(&mut m, kw);
        }
        for kw in ["anyOf", "oneOf"] {
            titled_enum(&mut m, kw);
        }
        value_branches(&mut m);
        for kw in ["anyOf", "oneOf"] {
            value_split_objects(&mut m, kw);
        }
        for kw in ["allOf", "anyOf", "oneOf"] {
            single_branch(&mut m, kw);
        }
        // merged keywords may need their spelling normalised again
        local(&mut m);
    }
    drop_defaults(&mut m);
    m
}

/// Normalise a keyword where `false` means "closed": `None` when it is at its default (true / {}).
fn closable(v: &Value, depth: usize, d2020: bool) -> Option<Value> {
    match v {
        Value::Bool(true) => None,
        Value::Bool(false) => Some(Value::Bool(false)),
        other => {
            let n = norm(other, depth + 1, d2020);
            if n.as_object().is_some_and(Map::is_empty) {
                None
            } else if n == nothing() {
                Some(Value::Bool(false))
            } else {
                Some(n)
            }
        }
    }
}

/// `#/definitions/x` -> `#/$defs/x`, `#` -> `#`, percent-decoded; other refs unchanged.
pub fn canonical_ref(s: &str) -> String {
    let Some(frag) = s.strip_prefix('#') else {
        return s.to_string();
    };
    let frag = percent_decode(frag);
    if frag.is_empty() {
        return "#".into();
    }
    if let Some(rest) = frag.strip_prefix("/definitions/") {
        return format!("#/$defs/{rest}");
    }
    format!("#{frag}")
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(x) = hex {
                out.push(x);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Canonical text of a JSON value (sorted keys, canonical numbers already applied).
pub fn canon(v: &Value) -> String {
    let mut s = String::new();
    write_canon(v, &mut s, 0);
    s
}

fn write_canon(v: &Value, s: &mut String, depth: usize) {
    match v {
        Value::Object(m) if depth < MAX_DEPTH * 4 => {
            let sorted: BTreeMap<&String, &Value> = m.iter().collect();
            s.push('{');
            for (i, (k, x)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(&Value::String(k.clone()).to_string());
                s.push(':');
                write_canon(x, s, depth + 1);
            }
            s.push('}');
        }
        Value::Array(a) if depth < MAX_DEPTH * 4 => {
            s.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                write_canon(x, s, depth + 1);
            }
            s.push(']');
        }
        other => s.push_str(&other.to_string()),
    }
}

/// A normalised schema with what a rename sets aside removed at every depth (RULES,
/// `tool-renamed` (a)): every `description` and `title`, and the titles and descriptions of a
/// titled enum. Only schema positions are entered, so a property named `title` stays; the
/// alternatives of `allOf`/`anyOf`/`oneOf` are put in one order (they are matched by content,
/// never by index). Schemas equal under this are one definition apart from its words.
pub fn without_annotations(v: &Value) -> Value {
    strip_annotations(v, 0)
}

fn strip_annotations(v: &Value, depth: usize) -> Value {
    let Value::Object(m) = v else { return v.clone() };
    if depth > MAX_DEPTH {
        return v.clone();
    }
    let mut out = Map::new();
    for (k, x) in m {
        let x = match k.as_str() {
            "description" | "title" | "$enumTitles" | "$enumDescriptions" => continue,
            key if MAP_KEYWORDS.contains(&key) => match x {
                Value::Object(c) => {
                    Value::Object(c.iter().map(|(n, s)| (n.clone(), strip_annotations(s, depth + 1))).collect())
                }
                other => other.clone(),
            },
            key if CLOSABLE_KEYWORDS.contains(&key) || SINGLE_KEYWORDS.contains(&key) => {
                strip_annotations(x, depth + 1)
            }
            key if ARRAY_KEYWORDS.contains(&key) => match x {
                Value::Array(a) => {
                    let mut a: Vec<(String, Value)> = a
                        .iter()
                        .map(|s| {
                            let s = strip_annotations(s, depth + 1);
                            (canon(&s), s)
                        })
                        .collect();
                    // `prefixItems` is a sequence; the compositions are sets of alternatives.
                    if key != "prefixItems" {
                        a.sort_by(|p, q| p.0.cmp(&q.0));
                    }
                    Value::Array(a.into_iter().map(|(_, s)| s).collect())
                }
                other => other.clone(),
            },
            _ => x.clone(),
        };
        out.insert(k.clone(), x);
    }
    Value::Object(out)
}

/// Sort and deduplicate an array by canonical text.
fn set_of(a: &[Value]) -> Vec<Value> {
    let mut by: BTreeMap<String, Value> = BTreeMap::new();
    for x in a {
        by.entry(canon(x)).or_insert_with(|| x.clone());
    }
    by.into_values().collect()
}

pub fn type_set(m: &Map<String, Value>) -> Option<BTreeSet<String>> {
    match m.get("type")? {
        Value::String(s) => Some([s.clone()].into()),
        Value::Array(a) if a.iter().all(Value::is_string) => {
            Some(a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
        }
        _ => None,
    }
}

/// Keyword spellings local to one object. Idempotent.
fn local(m: &mut Map<String, Value>) {
    // type as a set
    if let Some(mut t) = type_set(m) {
        if t.contains("number") {
            t.remove("integer");
        }
        if ALL_TYPES.iter().all(|x| t.contains(*x)) {
            m.remove("type");
        } else {
            m.insert("type".into(), Value::Array(t.into_iter().map(Value::String).collect()));
        }
    }
    // const as a one-value enum
    if let Some(c) = m.remove("const") {
        match m.get("enum").and_then(Value::as_array) {
            Some(e) => {
                let keep: Vec<Value> = if e.iter().any(|x| canon(x) == canon(&c)) { vec![c] } else { vec![] };
                m.insert("enum".into(), Value::Array(keep));
            }
            None => {
                m.insert("enum".into(), Value::Array(vec![c]));
            }
        }
    }
    if let Some(Value::Array(e)) = m.get("enum") {
        let s = set_of(e);
        m.insert("enum".into(), Value::Array(s));
    }
    if let Some(Value::Array(r)) = m.get("required") {
        let s = set_of(r);
        m.insert("required".into(), Value::Array(s));
    }
    // OpenAPI nullable
    match m.get("nullable") {
        Some(Value::Bool(true)) => {
            m.remove("nullable");
            apply_null(m);
        }
        Some(Value::Bool(false)) => {
            m.remove("nullable");
        }
        _ => {}
    }
    // draft-04 boolean exclusive bounds
    for (ex, inc) in [("exclusiveMaximum", "maximum"), ("exclusiveMinimum", "minimum")] {
        match m.get(ex) {
            Some(Value::Bool(true)) => {
                if let Some(v) = m.remove(inc) {
                    m.insert(ex.into(), v);
                } else {
                    m.remove(ex);
                }
            }
            Some(Value::Bool(false)) => {
                m.remove(ex);
            }
            _ => {}
        }
    }
    integer_bounds(m);
}

/// For an integer-only schema, an exclusive or fractional bound is the inclusive integer bound
/// inside it.
fn integer_bounds(m: &mut Map<String, Value>) {
    let Some(t) = type_set(m) else { return };
    let ints_only = t.contains("integer") && t.iter().all(|x| x == "integer" || x == "null");
    if !ints_only {
        return;
    }
    // upper
    let mut upper: Option<i128> = None;
    let mut ok = true;
    if let Some(v) = m.get("maximum") {
        match Dec::from_value(v).and_then(|d| d.floor()) {
            Some(x) => upper = Some(x),
            None => ok = false,
        }
    }
    if let Some(v) = m.get("exclusiveMaximum") {
        match Dec::from_value(v).and_then(|d| d.ceil()).and_then(|c| c.checked_sub(1)) {
            Some(x) => upper = Some(upper.map_or(x, |u| u.min(x))),
            None => ok = false,
        }
    }
    // The safe-integer bounds (2^53 - 1) that schema generators add to every integer (zod's
    // `.int()`) say nothing a JSON integer argument could notice: the same as no bound.
    const SAFE: i128 = 9_007_199_254_740_991;
    if ok {
        if let Some(u) = upper {
            m.remove("exclusiveMaximum");
            if u == SAFE {
                m.remove("maximum");
            } else {
                m.insert("maximum".into(), Value::Number(Dec::from_i128(u).to_number()));
            }
        }
    }
    let mut lower: Option<i128> = None;
    let mut ok = true;
    if let Some(v) = m.get("minimum") {
        match Dec::from_value(v).and_then(|d| d.ceil()) {
            Some(x) => lower = Some(x),
            None => ok = false,
        }
    }
    if let Some(v) = m.get("exclusiveMinimum") {
        match Dec::from_value(v).and_then(|d| d.floor()).and_then(|c| c.checked_add(1)) {
            Some(x) => lower = Some(lower.map_or(x, |u| u.max(x))),
            None => ok = false,
        }
    }
    if ok {
        if let Some(l) = lower {
            m.remove("exclusiveMinimum");
            if l == -SAFE {
                m.remove("minimum");
            } else {
                m.insert("minimum".into(), Value::Number(Dec::from_i128(l).to_number()));
            }
        }
    }
}

/// Make a schema also accept `null`, spelled the one way.
pub fn apply_null(m: &mut Map<String, Value>) {
    let has_enum = m.get("enum").is_some_and(Value::is_array);
    let has_type = type_set(m).is_some();
    if m.contains_key("$ref") && !has_enum && !has_type {
        m.insert("$nullable".into(), Value::Bool(true));
        return;
    }
    if !has_enum && !has_type && ["anyOf", "oneOf", "allOf"].iter().any(|k| m.contains_key(*k)) {
        // A union (or intersection) without types of its own: null becomes one more alternative.
        let keep =
            |k: &str| matches!(k, "description" | "title" | "$comment" | "default" | "examples" | "$schema" | "$defs");
        let inner: Map<String, Value> =
            m.iter().filter(|(k, _)| !keep(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        m.retain(|k, _| keep(k));
        let mut alternatives = match (inner.len(), inner.get("anyOf")) {
            (1, Some(Value::Array(a))) => a.clone(),
            _ => vec![Value::Object(inner)],
        };
        alternatives.push(serde_json::json!({"type": ["null"]}));
        m.insert("anyOf".into(), Value::Array(alternatives));
        return;
    }
    if has_enum {
        if let Some(Value::Array(e)) = m.get_mut("enum") {
            e.push(Value::Null);
            let s = set_of(e);
            *e = s;
        }
    }
    if let Some(mut t) = type_set(m) {
        t.insert("null".into());
        m.insert("type".into(), Value::Array(t.into_iter().map(Value::String).collect()));
    }
}

fn is_null_schema(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let t_null = matches!(o.get("type"), Some(Value::Array(a)) if a.len() == 1 && a[0] == "null");
    let e_null = matches!(o.get("enum"), Some(Value::Array(a)) if a.len() == 1 && a[0].is_null());
    (t_null || e_null)
        && o.keys().all(|k| k == "type" || k == "enum" || k == "title" || k == "description")
        && !o.contains_key("title")
        && !o.contains_key("description")
}

/// Merge `x` into `m` when no keyword conflicts. Returns false (and leaves `m`) otherwise.
fn merge_into(m: &mut Map<String, Value>, x: &Map<String, Value>) -> bool {
    // the same keyword with the same value on both sides (a description repeated outside the
    // union) is no conflict
    if x.iter().any(|(k, v)| m.get(k).is_some_and(|w| w != v)) {
        return false;
    }
    for (k, v) in x {
        m.insert(k.clone(), v.clone());
    }
    true
}

/// `anyOf: [X, {type: null}]` -> X with null added.
fn nullable_branch(m: &mut Map<String, Value>, kw: &str) {
    let Some(Value::Array(branches)) = m.get(kw) else {
        return;
    };
    if branches.len() != 2 {
        return;
    }
    let (nulls, others): (Vec<&Value>, Vec<&Value>) = branches.iter().partition(|b| is_null_schema(b));
    if nulls.len() != 1 || others.len() != 1 {
        return;
    }
    let Some(x) = others[0].as_object().cloned() else {
        return;
    };
    let mut trial = m.clone();
    trial.remove(kw);
    if merge_into(&mut trial, &x) {
        apply_null(&mut trial);
        *m = trial;
    }
}

/// `anyOf: [{const: a}, {const: b}, {type: string}]` -> `anyOf: [{enum: [a, b]}, {type: string}]`:
/// the alternatives that only list values are one list of values. (`anyOf` only: in a `oneOf` a
/// listed value that another alternative also accepts is rejected, so the split matters.)
fn value_branches(m: &mut Map<String, Value>) {
    let Some(Value::Array(branches)) = m.get("anyOf") else {
        return;
    };
    let is_values = |b: &Value| {
        b.as_object().is_some_and(|o| {
            matches!(o.get("enum"), Some(Value::Array(_)))
                && o.keys().all(|k| matches!(k.as_str(), "enum" | "title" | "description" | "type"))
                && o.get("title").is_none_or(Value::is_string)
                && o.get("description").is_none_or(Value::is_string)
        })
    };
    let count = branches.iter().filter(|b| is_values(b)).count();
    if count < 2 || count == branches.len() {
        return; // nothing to merge, or all values (`titled_enum` reads those)
    }
    let mut merged = Map::new();
    let mut values = Vec::new();
    let mut types: BTreeSet<String> = BTreeSet::new();
    let mut typed = true;
    let (mut titles, mut descriptions) = (Map::new(), Map::new());
    let mut rest = Vec::new();
    let mut at = None;
    for (i, b) in branches.iter().enumerate() {
        if !is_values(b) {
            rest.push(b.clone());
            continue;
        }
        at.get_or_insert(i);
        let o = b.as_object().expect("checked");
        let e = o["enum"].as_array().expect("checked");
        for v in e {
            if e.len() == 1 {
                let key = canon(v);
                if let Some(t) = o.get("title") {
                    titles.insert(key.clone(), t.clone());
                }
                if let Some(d) = o.get("description") {
                    descriptions.insert(key, d.clone());
                }
            }
            values.push(v.clone());
        }
        match type_set(o) {
            Some(t) => types.extend(t),
            None => typed = false,
        }
    }
    merged.insert("enum".into(), Value::Array(set_of(&values)));
    if typed && !types.is_empty() {
        merged.insert("type".into(), Value::Array(types.into_iter().map(Value::String).collect()));
    }
    if !titles.is_empty() {
        merged.insert("$enumTitles".into(), Value::Object(titles));
    }
    if !descriptions.is_empty() {
        merged.insert("$enumDescriptions".into(), Value::Object(descriptions));
    }
    let at = at.unwrap_or(0).min(rest.len());
    rest.insert(at, Value::Object(merged));
    m.insert("anyOf".into(), Value::Array(rest));
}

/// `oneOf: [{const: a, title: A}, ...]` -> `enum: [a, ...]` + `$enumTitles`.
fn titled_enum(m: &mut Map<String, Value>, kw: &str) {
    let Some(Value::Array(branches)) = m.get(kw) else {
        return;
    };
    if branches.is_empty() || m.contains_key("enum") {
        return;
    }
    let mut values = Vec::new();
    let mut titles = Map::new();
    let mut descriptions = Map::new();
    let mut types: BTreeSet<String> = BTreeSet::new();
    for b in branches {
        let Some(o) = b.as_object() else { return };
        if !o.keys().all(|k| matches!(k.as_str(), "enum" | "title" | "description" | "type")) {
            return;
        }
        let Some(Value::Array(e)) = o.get("enum") else {
            return;
        };
        if e.len() != 1 {
            return;
        }
        let key = canon(&e[0]);
        if let Some(Value::String(t)) = o.get("title") {
            titles.insert(key.clone(), Value::String(t.clone()));
        } else if o.contains_key("title") {
            return;
        }
        if let Some(Value::String(d)) = o.get("description") {
            descriptions.insert(key.clone(), Value::String(d.clone()));
        } else if o.contains_key("description") {
            return;
        }
        if let Some(t) = type_set(o) {
            types.extend(t);
        }
        values.push(e[0].clone());
    }
    m.remove(kw);
    m.insert("enum".into(), Value::Array(set_of(&values)));
    if !titles.is_empty() {
        m.insert("$enumTitles".into(), Value::Object(titles));
    }
    if !descriptions.is_empty() {
        m.insert("$enumDescriptions".into(), Value::Object(descriptions));
    }
    if !m.contains_key("type") && !types.is_empty() {
        m.insert("type".into(), Value::Array(types.into_iter().map(Value::String).collect()));
    }
}

/// `oneOf: [{type: object, properties: {kind: {enum: [a]}, ...}, required: [kind, ...]}, {... [b]}]`
/// -> `oneOf: [{... kind: {enum: [a, b]} ...}]` (which [`single_branch`] then merges into the
/// parent): objects the same in every keyword except the single value one property allows, that
/// property required in each, accept together what the one object whose property allows every
/// value accepts; and no instance matches two of them (the values differ, the property is always
/// there), so `oneOf` and `anyOf` agree. Anything else differing, the property optional in one
/// branch (an instance without it matches several), a branch allowing two values, a value
/// repeated: left as written.
fn value_split_objects(m: &mut Map<String, Value>, kw: &str) {
    let Some(Value::Array(branches)) = m.get(kw) else {
        return;
    };
    if branches.len() < 2 {
        return;
    }
    let Some(objects) = branches.iter().map(Value::as_object).collect::<Option<Vec<_>>>() else {
        return;
    };
    let object_only = |o: &Map<String, Value>| type_set(o).is_some_and(|t| t.len() == 1 && t.contains("object"));
    if !objects.iter().all(|o| object_only(o)) {
        return;
    }
    let Some(Value::Object(first)) = objects[0].get("properties") else {
        return;
    };
    let merged = first.keys().find_map(|name| merged_on(&objects, name));
    if let Some(merged) = merged {
        m.insert(kw.into(), Value::Array(vec![merged]));
    }
}

/// The one value property `name` of schema `o` allows (a one-value `enum`, `const` normalised).
fn one_value<'v>(o: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    match o.get("properties")?.get(name)?.get("enum")? {
        Value::Array(e) if e.len() == 1 => Some(&e[0]),
        _ => None,
    }
}

/// [`value_split_objects`] on property `name`: the merged object, if every branch qualifies.
fn merged_on(objects: &[&Map<String, Value>], name: &str) -> Option<Value> {
    let mut values = Vec::with_capacity(objects.len());
    let mut rest: Option<String> = None;
    for o in objects {
        let required = o.get("required").and_then(Value::as_array)?;
        if !required.iter().any(|r| r.as_str() == Some(name)) {
            return None;
        }
        values.push(one_value(o, name)?.clone());
        let mut without = (*o).clone();
        if let Some(Value::Object(p)) = without.get_mut("properties").and_then(|p| p.get_mut(name)) {
            p.remove("enum");
        }
        let c = canon(&Value::Object(without));
        match &rest {
            Some(r) if *r != c => return None,
            Some(_) => {}
            None => rest = Some(c),
        }
    }
    let all = set_of(&values);
    if all.len() != values.len() {
        return None;
    }
    let mut merged = objects[0].clone();
    if let Some(Value::Object(p)) = merged.get_mut("properties").and_then(|p| p.get_mut(name)) {
        p.insert("enum".into(), Value::Array(all));
    }
    Some(Value::Object(merged))
}

/// `allOf: [X]` (and anyOf/oneOf of one) merged into the parent when nothing conflicts.
fn single_branch(m: &mut Map<String, Value>, kw: &str) {
    let Some(Value::Array(branches)) = m.get(kw) else {
        return;
    };
    if branches.len() != 1 {
        return;
    }
    let Some(x) = branches[0].as_object().cloned() else {
        return;
    };
    let mut trial = m.clone();
    trial.remove(kw);
    if merge_into(&mut trial, &x) {
        *m = trial;
    }
}

fn is_zero(v: &Value) -> bool {
    Dec::from_value(v).is_some_and(|d| d.is_zero())
}

/// Remove keywords spelled at their default value.
fn drop_defaults(m: &mut Map<String, Value>) {
    let mut drop = Vec::new();
    for (k, v) in m.iter() {
        let default = match k.as_str() {
            "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => v == &Value::Bool(false),
            "minLength" | "minItems" | "minProperties" => is_zero(v),
            "required" | "allOf" => v.as_array().is_some_and(Vec::is_empty),
            "properties" | "patternProperties" | "$defs" | "dependentSchemas" | "dependentRequired" => {
                v.as_object().is_some_and(Map::is_empty)
            }
            "then" | "else" => v.as_object().is_some_and(Map::is_empty),
            // object keys are always strings: `{type: string}` (zod 4 on every record) says nothing
            "propertyNames" => v.as_object().is_some_and(|o| {
                let string_only = match o.get("type") {
                    Some(Value::String(t)) => t == "string",
                    Some(Value::Array(a)) => a.len() == 1 && a[0] == "string",
                    _ => false,
                };
                o.is_empty() || (o.len() == 1 && string_only)
            }),
            _ => false,
        };
        if default {
            drop.push(k.clone());
        }
    }
    for k in drop {
        m.remove(&k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn n(v: Value) -> Value {
        let mut v = v;
        super::super::num::canonicalize_numbers(&mut v, 0);
        normalize_schema(&v)
    }

    #[test]
    fn nullable_spellings() {
        let a = n(json!({"type": ["string", "null"]}));
        let b = n(json!({"anyOf": [{"type": "string"}, {"type": "null"}]}));
        let c = n(json!({"type": "string", "nullable": true}));
        assert_eq!(a, b);
        assert_eq!(a, c);
    }

    #[test]
    fn titled_enum() {
        let a = n(json!({"type": "string", "enum": ["b", "a"]}));
        let mut b = n(json!({"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}));
        b.as_object_mut().unwrap().remove("$enumTitles");
        assert_eq!(a, b);
    }

    /// A union of objects alike but for the one value of a required property is the one object
    /// allowing every value (fails without `value_split_objects`); near misses stay unions.
    #[test]
    fn objects_split_by_one_value() {
        let branch = |kind: Value, required: Value| json!({"type": "object", "properties": {"kind": kind, "n": {"type": "number"}}, "required": required, "additionalProperties": false});
        let one = n(
            json!({"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "number"}}, "required": ["kind", "n"], "additionalProperties": false}),
        );
        for kw in ["oneOf", "anyOf"] {
            let by_const = json!({ kw: [branch(json!({"const": "b"}), json!(["kind", "n"])), branch(json!({"const": "a"}), json!(["n", "kind"]))] });
            assert_eq!(n(by_const), one, "{kw}");
            let by_enum = json!({ kw: [branch(json!({"enum": ["a"]}), json!(["kind", "n"])), branch(json!({"enum": ["b"]}), json!(["kind", "n"]))] });
            assert_eq!(n(by_enum), one, "{kw}");
        }
        let near = [
            // the property optional in one branch
            json!({"oneOf": [branch(json!({"const": "a"}), json!(["kind", "n"])), branch(json!({"const": "b"}), json!(["n"]))]}),
            // a branch allowing two values
            json!({"oneOf": [branch(json!({"enum": ["a", "c"]}), json!(["kind", "n"])), branch(json!({"const": "b"}), json!(["kind", "n"]))]}),
            // a second keyword differs
            json!({"oneOf": [branch(json!({"const": "a"}), json!(["kind", "n"])), branch(json!({"const": "b", "title": "B"}), json!(["kind", "n"]))]}),
            // one value twice
            json!({"oneOf": [branch(json!({"const": "a"}), json!(["kind", "n"])), branch(json!({"const": "a"}), json!(["kind", "n"]))]}),
        ];
        for u in near {
            assert!(n(u.clone()).get("oneOf").is_some(), "{u}");
        }
    }

    #[test]
    fn integer_bounds() {
        assert_eq!(n(json!({"type": "integer", "exclusiveMaximum": 10})), n(json!({"type": "integer", "maximum": 9})));
        // zod's `.int()` bounds are no bound
        assert_eq!(
            n(json!({"type": "integer", "minimum": -9007199254740991_i64, "maximum": 9007199254740991_i64})),
            n(json!({"type": "integer"}))
        );
        assert_ne!(n(json!({"type": "integer", "maximum": 9007199254740990_i64})), n(json!({"type": "integer"})));
        assert_eq!(n(json!({"type": "integer", "exclusiveMinimum": 0})), n(json!({"type": "integer", "minimum": 1})));
        assert_eq!(n(json!({"type": "integer", "maximum": 9.5})), n(json!({"type": "integer", "maximum": 9})));
    }

    #[test]
    fn defs_and_items() {
        assert_eq!(
            n(json!({"definitions": {"a": {"type": "string"}}, "$ref": "#/definitions/a"})),
            n(json!({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}))
        );
        assert_eq!(n(json!({"items": [{"type": "string"}]})), n(json!({"prefixItems": [{"type": "string"}]})));
        // additionalItems closes a tuple before 2020-12, and is no keyword in 2020-12
        let tuple = |dialect: &str| {
            n(json!({"$schema": dialect, "items": [{"type": "string"}], "additionalItems": false}))
                .as_object()
                .unwrap()
                .contains_key("items")
        };
        assert!(tuple("http://json-schema.org/draft-07/schema#"));
        assert!(!tuple("https://json-schema.org/draft/2020-12/schema"));
    }
}
