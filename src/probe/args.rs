//! Argument synthesis: the smallest arguments an `inputSchema` accepts.
//!
//! Only required properties are filled. For each value, in order: `const`, `default`,
//! `examples`, the first fitting `enum` value, the first working `anyOf`/`oneOf` branch
//! (non-null branches first), then by `type` (non-null types first), honouring `format`,
//! length, bounds, `multipleOf`, `pattern`, item counts, nested required properties, local
//! `$ref`s and `allOf`. Every candidate is checked against its own (sub)schema with the
//! `jsonschema` crate and the whole result against the whole schema before it is returned, so
//! `Ok` arguments always validate. Deterministic: no clock, no global RNG; patterns use a
//! ChaCha RNG seeded from a constant and the pattern text.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use jsonschema::{Draft, Validator};
use serde_json::{json, Map, Number, Value};

use super::regexgen;
use super::validate::{self, Formats};

/// Seed of every random choice (pattern sampling). Changing it changes synthesised arguments.
pub const SEED: u64 = 0x6d63_702d_7069_6e21;
/// Deeper than this, the schema is taken to recurse without a base case.
const MAX_DEPTH: usize = 32;
/// Longest string and largest count mcp-pin makes up.
const MAX_LEN: usize = 10_000;

/// The smallest valid arguments for `input_schema`, or why none can be made (naming the
/// property that stops it).
pub fn synthesize_args(input_schema: &Value) -> Result<Map<String, Value>, String> {
    let draft = validate::draft_of(input_schema);
    let whole = validate::compile_as(input_schema, draft, Formats::Assert)
        .map_err(|e| format!("its inputSchema cannot be compiled ({e})"))?;
    let mut bare = input_schema.clone();
    if let Value::Object(m) = &mut bare {
        m.remove("$schema");
    }
    // Inline local `$ref`s where the crate can (circular ones stay); ours are followed anyway.
    // Not when inlining would blow up: definitions that each refer to the next twice double
    // at every level (40 levels took 15 GB), so past a size the refs stay refs.
    let root = if expanded_size(&bare, MAX_EXPANDED) <= MAX_EXPANDED {
        jsonschema::options().with_draft(draft).dereference(&bare).unwrap_or(bare)
    } else {
        bare
    };
    let mut g = Gen::new(&root, draft);
    // The arguments are an object even when the schema forgets to say so.
    let top = json!({"allOf": [root.clone(), {"type": "object"}]});
    let value = g.value(&top, "", 0)?;
    if let Some(e) = validate::first_error(&whole, &value) {
        return Err(format!("the arguments mcp-pin made do not validate ({e})"));
    }
    match value {
        Value::Object(m) => Ok(m),
        _ => Err("its inputSchema does not describe an object".into()),
    }
}

/// The most schema nodes a `$ref`-inlined copy of an input schema may have.
const MAX_EXPANDED: usize = 200_000;
/// The most subschemas synthesis visits for one tool (alternatives tried included): a schema
/// built to make the search exponential stops here with a clear message.
pub const MAX_STEPS: usize = 20_000;

/// How many JSON nodes `schema` would have with every local `$ref` inlined, counting up to
/// `cap` (then stopping). Each definition is sized once (memoised); a circular one counts 1,
/// as the inliner leaves it a reference.
pub fn expanded_size(schema: &Value, cap: usize) -> usize {
    fn size(
        v: &Value,
        root: &Value,
        memo: &mut HashMap<String, usize>,
        visiting: &mut Vec<String>,
        cap: usize,
        depth: usize,
    ) -> usize {
        if depth > 256 {
            return cap + 1;
        }
        match v {
            Value::Object(m) => {
                let mut n = 1usize;
                if let Some(Value::String(r)) = m.get("$ref") {
                    if let Some(ptr) = r.strip_prefix('#') {
                        let ptr = percent_decode(ptr);
                        let t = if let Some(&k) = memo.get(&ptr) {
                            k
                        } else if visiting.contains(&ptr) {
                            1
                        } else {
                            match root.pointer(&ptr) {
                                Some(target) => {
                                    visiting.push(ptr.clone());
                                    let k = size(target, root, memo, visiting, cap, depth + 1);
                                    visiting.pop();
                                    memo.insert(ptr.clone(), k);
                                    k
                                }
                                None => 1,
                            }
                        };
                        n = n.saturating_add(t);
                    }
                }
                for (k, x) in m {
                    if k == "$defs" || k == "definitions" || k == "$ref" {
                        continue;
                    }
                    n = n.saturating_add(size(x, root, memo, visiting, cap, depth + 1));
                    if n > cap {
                        return n;
                    }
                }
                n
            }
            Value::Array(a) => {
                let mut n = 1usize;
                for x in a {
                    n = n.saturating_add(size(x, root, memo, visiting, cap, depth + 1));
                    if n > cap {
                        return n;
                    }
                }
                n
            }
            _ => 1,
        }
    }
    size(schema, schema, &mut HashMap::new(), &mut Vec::new(), cap, 0)
}

/// Describe where a failure is.
fn at(path: &str) -> String {
    if path.is_empty() {
        "the arguments object".to_string()
    } else {
        format!("property `{path}`")
    }
}

fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

struct Gen<'a> {
    root: &'a Value,
    draft: Draft,
    /// Which alternative to pick at the leaves (0 = the smallest); used to make distinct
    /// items for `uniqueItems`.
    variant: usize,
    validators: HashMap<String, Option<Arc<Validator>>>,
    /// Subschemas visited so far (bounded by [`MAX_STEPS`]).
    steps: usize,
}

impl<'a> Gen<'a> {
    fn new(root: &'a Value, draft: Draft) -> Gen<'a> {
        Gen { root, draft, variant: 0, validators: HashMap::new(), steps: 0 }
    }

    /// A validator for a subschema, with the root's definitions beside it so local refs
    /// resolve. `None` when it cannot be compiled on its own (the final check still runs).
    fn validator(&mut self, schema: &Value) -> Option<Arc<Validator>> {
        let mut doc = match schema {
            Value::Object(m) => m.clone(),
            _ => return None,
        };
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(defs)) = self.root.get(key) {
                let entry = doc.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(e) = entry {
                    for (k, v) in defs {
                        e.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
        }
        let doc = Value::Object(doc);
        let key = doc.to_string();
        if let Some(v) = self.validators.get(&key) {
            return v.clone();
        }
        let v = validate::compile_as(&doc, self.draft, Formats::Assert).ok().map(Arc::new);
        self.validators.insert(key, v.clone());
        v
    }

    fn fits(&mut self, schema: &Value, value: &Value) -> bool {
        match schema {
            Value::Bool(b) => *b,
            _ => self.validator(schema).is_none_or(|v| v.is_valid(value)),
        }
    }

    fn resolve(&self, r: &str) -> Option<Value> {
        if r == "#" {
            return Some(self.root.clone());
        }
        let pointer = r.strip_prefix('#')?;
        let decoded = percent_decode(pointer);
        self.root.pointer(&decoded).cloned()
    }

    /// The schema as one object: `$ref` followed (siblings merged), `allOf` merged in.
    fn normalize(&self, schema: &Value, path: &str, depth: usize) -> Result<Map<String, Value>, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "{}: the schema nests deeper than {MAX_DEPTH} levels (a required recursive $ref?)",
                at(path)
            ));
        }
        match schema {
            Value::Bool(true) => Ok(Map::new()),
            Value::Bool(false) => Err(format!("{}: its schema is `false`; no value is allowed", at(path))),
            Value::Object(m) => {
                let mut s = m.clone();
                if let Some(r) = s.remove("$ref") {
                    let r = r.as_str().unwrap_or_default().to_string();
                    let target = self.resolve(&r).ok_or_else(|| {
                        format!(
                            "{}: $ref `{r}` is not a local reference mcp-pin can follow (remote references are never fetched)",
                            at(path)
                        )
                    })?;
                    let t = self.normalize(&target, path, depth + 1)?;
                    s = merge(t, s);
                }
                if let Some(all) = s.remove("allOf") {
                    for sub in all.as_array().cloned().unwrap_or_default() {
                        let n = self.normalize(&sub, path, depth + 1)?;
                        s = merge(s, n);
                    }
                }
                Ok(s)
            }
            _ => Err(format!("{}: its schema is not a JSON Schema", at(path))),
        }
    }

    fn value(&mut self, schema: &Value, path: &str, depth: usize) -> Result<Value, String> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(format!(
                "{}: the schema is too intricate to make arguments for within {MAX_STEPS} steps",
                at(path)
            ));
        }
        let s = self.normalize(schema, path, depth)?;
        let sv = Value::Object(s.clone());

        if let Some(c) = s.get("const") {
            return if self.fits(&sv, c) {
                Ok(c.clone())
            } else {
                Err(format!("{}: its `const` contradicts the rest of its schema", at(path)))
            };
        }
        if self.variant == 0 {
            if let Some(d) = s.get("default") {
                if self.fits(&sv, d) {
                    return Ok(d.clone());
                }
            }
            let mut examples: Vec<Value> = s.get("examples").and_then(Value::as_array).cloned().unwrap_or_default();
            examples.extend(s.get("example").cloned());
            for e in examples {
                if self.fits(&sv, &e) {
                    return Ok(e);
                }
            }
        }
        if let Some(values) = s.get("enum").and_then(Value::as_array) {
            let fitting: Vec<Value> = values.iter().filter(|v| self.fits(&sv, v)).cloned().collect();
            if fitting.is_empty() {
                return Err(format!("{}: no `enum` value satisfies the rest of its schema", at(path)));
            }
            return Ok(fitting[self.variant % fitting.len()].clone());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = s.get(key).and_then(Value::as_array) {
                return self.branch_value(&s, key, branches, path, depth);
            }
        }

        let mut types = types_of(&s);
        types.sort_by_key(|t| *t == "null");
        if types.is_empty() {
            return Err(format!("{}: its schema allows no type", at(path)));
        }
        let mut last = None;
        for t in types {
            match self.gen_typed(t, &s, path, depth) {
                Ok(v) if self.fits(&sv, &v) => return Ok(v),
                Ok(_) => last = Some(format!("{}: no {t} satisfies its schema", at(path))),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_default())
    }

    /// A value of one branch of the `anyOf`/`oneOf` under `key` of `s` (non-null branches first)
    /// that the whole schema accepts.
    fn branch_value(
        &mut self,
        s: &Map<String, Value>,
        key: &str,
        branches: &[Value],
        path: &str,
        depth: usize,
    ) -> Result<Value, String> {
        let sv = Value::Object(s.clone());
        let mut rest = s.clone();
        rest.remove(key);
        let mut ordered: Vec<&Value> = branches.iter().filter(|b| !is_null_only(b)).collect();
        ordered.extend(branches.iter().filter(|b| is_null_only(b)));
        let mut last = None;
        for b in ordered {
            let nb = match self.normalize(b, path, depth + 1) {
                Ok(n) => n,
                Err(e) => {
                    last = Some(e);
                    continue;
                }
            };
            let merged = Value::Object(merge(rest.clone(), nb));
            match self.value(&merged, path, depth + 1) {
                Ok(v) if self.fits(&sv, &v) => return Ok(v),
                Ok(_) => {
                    last =
                        Some(format!("{}: no branch of its `{key}` gives a value the whole schema accepts", at(path)))
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| format!("{}: its `{key}` has no branches", at(path))))
    }

    fn gen_typed(&mut self, t: &str, s: &Map<String, Value>, path: &str, depth: usize) -> Result<Value, String> {
        match t {
            "null" => Ok(Value::Null),
            "boolean" => Ok(Value::Bool(self.variant % 2 == 1)),
            "integer" => self.number(s, true, path),
            "number" => self.number(s, false, path),
            "string" => self.string(s, path),
            "array" => self.array(s, path, depth),
            "object" => self.object(s, path, depth),
            other => Err(format!("{}: unknown type `{other}`", at(path))),
        }
    }

    fn number(&mut self, s: &Map<String, Value>, is_int: bool, path: &str) -> Result<Value, String> {
        let num = |k: &str| s.get(k).and_then(Value::as_f64);
        let (mut lo, mut lo_ex) = (num("minimum"), false);
        match s.get("exclusiveMinimum") {
            Some(Value::Bool(true)) => lo_ex = lo.is_some(),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::MIN);
                if lo.is_none_or(|l| x >= l) {
                    lo = Some(x);
                    lo_ex = true;
                }
            }
            _ => {}
        }
        let (mut hi, mut hi_ex) = (num("maximum"), false);
        match s.get("exclusiveMaximum") {
            Some(Value::Bool(true)) => hi_ex = hi.is_some(),
            Some(Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::MAX);
                if hi.is_none_or(|h| x <= h) {
                    hi = Some(x);
                    hi_ex = true;
                }
            }
            _ => {}
        }
        let step = num("multipleOf").filter(|m| *m > 0.0 && m.is_finite());
        let decimals = step.map(decimals_of).unwrap_or(0);
        let ok = |v: f64| {
            v.is_finite()
                && lo.is_none_or(|l| if lo_ex { v > l } else { v >= l })
                && hi.is_none_or(|h| if hi_ex { v < h } else { v <= h })
                && (!is_int || v.fract() == 0.0)
                && step.is_none_or(|m| {
                    let q = v / m;
                    (q - q.round()).abs() < 1e-9
                })
        };
        let unit = step.unwrap_or(1.0);
        // Walk outward from the point of the range nearest to zero, in steps of `unit`.
        let kmin = lo.map(|l| (l / unit).floor());
        let kmax = hi.map(|h| (h / unit).ceil());
        let mut start = 0.0f64;
        if let Some(k) = kmin {
            start = start.max(k);
        }
        if let Some(k) = kmax {
            start = start.min(k);
        }
        let mut found = 0usize;
        for d in 0..4000u32 {
            let d = f64::from(d);
            for k in if d == 0.0 { vec![start] } else { vec![start + d, start - d] } {
                let v = round_to(k * unit, decimals);
                if ok(v) {
                    if found == self.variant {
                        return Ok(to_number(v));
                    }
                    found += 1;
                }
            }
        }
        if !is_int {
            // No multiple of the step fits: a point inside the range.
            let mid = match (lo, hi) {
                (Some(l), Some(h)) => Some(l + (h - l) / 2.0),
                (Some(l), None) => Some(l + 0.5),
                (None, Some(h)) => Some(h - 0.5),
                _ => None,
            };
            if let Some(v) = mid.filter(|v| ok(*v)) {
                return Ok(to_number(v));
            }
        }
        Err(format!(
            "{}: no {} satisfies its minimum/maximum/multipleOf",
            at(path),
            if is_int { "integer" } else { "number" }
        ))
    }

    fn string(&mut self, s: &Map<String, Value>, path: &str) -> Result<Value, String> {
        let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
        if min > MAX_LEN {
            return Err(format!("{}: minLength {min} is too long for a probe", at(path)));
        }
        let sv = Value::Object(s.clone());
        let mut cands: Vec<String> = Vec::new();
        if let Some(v) = s.get("format").and_then(Value::as_str).and_then(format_value) {
            cands.push(v.to_string());
        }
        let mut pattern_error = None;
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            match regexgen::candidates(p, SEED) {
                Ok(mut c) => {
                    c.sort_by_key(|x| x.chars().count());
                    cands.extend(c);
                }
                Err(e) => pattern_error = Some(e),
            }
        }
        cands.push("a".repeat(min));
        for c in 'a'..='z' {
            cands.push(c.to_string().repeat(min.max(1)));
        }
        let validator = self.validator(&sv);
        let mut found = 0usize;
        for c in cands {
            let v = Value::String(c);
            if validator.as_ref().is_none_or(|val| val.is_valid(&v)) {
                if found == self.variant {
                    return Ok(v);
                }
                found += 1;
            }
        }
        Err(match pattern_error {
            Some(e) => format!("{}: {e}", at(path)),
            None => format!("{}: no string satisfies its format/pattern/minLength/maxLength", at(path)),
        })
    }

    fn array(&mut self, s: &Map<String, Value>, path: &str, depth: usize) -> Result<Value, String> {
        let min = s.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
        let (prefix, rest) = match (s.get("prefixItems"), s.get("items")) {
            (Some(Value::Array(p)), items) => (p.clone(), items.cloned()),
            (None, Some(Value::Array(p))) => (p.clone(), s.get("additionalItems").cloned()),
            (_, items) => (vec![], items.cloned()),
        };
        let contains = s.get("contains").cloned();
        let min_contains = match &contains {
            Some(_) => s.get("minContains").and_then(Value::as_u64).unwrap_or(1) as usize,
            None => 0,
        };
        let n = min.max(min_contains);
        if n > MAX_LEN {
            return Err(format!("{}: minItems {n} is too many for a probe", at(path)));
        }
        let unique = s.get("uniqueItems") == Some(&Value::Bool(true));
        let saved = self.variant;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let mut item = prefix.get(i).cloned().or_else(|| rest.clone()).unwrap_or(json!({}));
            if let (Some(c), true) = (&contains, i < min_contains) {
                item = json!({"allOf": [item, c]});
            }
            if unique {
                self.variant = saved + i;
            }
            let v = self.value(&item, &format!("{path}[{i}]"), depth + 1);
            self.variant = saved;
            out.push(v?);
        }
        if unique {
            for i in 0..out.len() {
                for j in 0..i {
                    if validate::json_eq(&out[i], &out[j]) {
                        return Err(format!("{}: cannot make {n} distinct items for uniqueItems", at(path)));
                    }
                }
            }
        }
        Ok(Value::Array(out))
    }

    fn object(&mut self, s: &Map<String, Value>, path: &str, depth: usize) -> Result<Value, String> {
        let empty = Map::new();
        let props = s.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let mut required: BTreeSet<String> = s
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        // dependentRequired (2019-09+) and the array form of `dependencies` (draft-07).
        loop {
            let mut more = Vec::new();
            for name in &required {
                for key in ["dependentRequired", "dependencies"] {
                    if let Some(Value::Array(deps)) = s.get(key).and_then(|d| d.get(name)) {
                        more.extend(deps.iter().filter_map(Value::as_str).map(str::to_string));
                    }
                }
            }
            let before = required.len();
            required.extend(more);
            if required.len() == before {
                break;
            }
        }
        let mut names: Vec<String> = required.into_iter().collect();
        let min_props = s.get("minProperties").and_then(Value::as_u64).unwrap_or(0) as usize;
        for k in props.keys() {
            if names.len() >= min_props {
                break;
            }
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
        let additional = s.get("additionalProperties");
        let mut extra = 0;
        while names.len() < min_props && additional != Some(&Value::Bool(false)) && extra < 1000 {
            extra += 1;
            let k = format!("p{extra}");
            if !names.contains(&k) {
                names.push(k);
            }
        }
        let mut out = Map::new();
        for name in names {
            let sub = if let Some(p) = props.get(&name) {
                p.clone()
            } else if let Some(p) = pattern_property(s, &name) {
                p
            } else {
                match additional {
                    Some(Value::Bool(false)) => {
                        return Err(format!(
                            "{}: its required property `{name}` is not allowed by additionalProperties: false",
                            at(path)
                        ))
                    }
                    Some(schema @ Value::Object(_)) => schema.clone(),
                    _ => json!({}),
                }
            };
            let v = self.value(&sub, &child(path, &name), depth + 1)?;
            out.insert(name, v);
        }
        Ok(Value::Object(out))
    }
}

fn pattern_property(s: &Map<String, Value>, name: &str) -> Option<Value> {
    let pp = s.get("patternProperties")?.as_object()?;
    pp.iter().find(|(p, _)| regex::Regex::new(p).is_ok_and(|r| r.is_match(name))).map(|(_, v)| v.clone())
}

/// A branch that only admits `null` (Python's `anyOf [X, {type: null}]`).
fn is_null_only(b: &Value) -> bool {
    match b {
        Value::Object(m) => {
            m.get("type") == Some(&json!("null"))
                || m.get("type") == Some(&json!(["null"]))
                || m.get("const") == Some(&Value::Null)
                || m.get("enum") == Some(&json!([null]))
        }
        _ => false,
    }
}

/// The types a schema admits, as written; inferred from its keywords when `type` is absent.
fn types_of(s: &Map<String, Value>) -> Vec<&'static str> {
    const ALL: [&str; 7] = ["object", "array", "string", "integer", "number", "boolean", "null"];
    let named = |t: &str| ALL.iter().copied().find(|a| *a == t);
    match s.get("type") {
        Some(Value::String(t)) => named(t).into_iter().collect(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter_map(named).collect(),
        _ => {
            let has = |keys: &[&str]| keys.iter().any(|k| s.contains_key(*k));
            let mut out = Vec::new();
            if has(&["properties", "required", "additionalProperties", "patternProperties", "minProperties"]) {
                out.push("object");
            }
            if has(&["items", "prefixItems", "minItems", "contains", "uniqueItems"]) {
                out.push("array");
            }
            if has(&["minLength", "maxLength", "pattern", "format"]) {
                out.push("string");
            }
            if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
                out.push("number");
            }
            if out.is_empty() {
                // Anything goes: a string is the most common argument type.
                out.extend(["string", "object", "null"]);
            }
            out
        }
    }
}

/// Merge two schemas into one that asks for both (best effort; what cannot be expressed is
/// left to the final validation).
pub(crate) fn merge(mut a: Map<String, Value>, b: Map<String, Value>) -> Map<String, Value> {
    for (k, vb) in b {
        let Some(va) = a.remove(&k) else {
            a.insert(k, vb);
            continue;
        };
        let merged = match k.as_str() {
            "required" => {
                let mut out: Vec<Value> = va.as_array().cloned().unwrap_or_default();
                for x in vb.as_array().cloned().unwrap_or_default() {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
                Value::Array(out)
            }
            "properties" | "patternProperties" | "$defs" | "definitions" => merge_properties(va, vb),
            "type" => merge_types(&va, &vb),
            "minimum" | "minLength" | "minItems" | "minProperties" | "minContains" => pick(va, vb, |x, y| x >= y),
            "maximum" | "maxLength" | "maxItems" | "maxProperties" | "maxContains" => pick(va, vb, |x, y| x <= y),
            "exclusiveMinimum" if va.is_number() && vb.is_number() => pick(va, vb, |x, y| x >= y),
            "exclusiveMaximum" if va.is_number() && vb.is_number() => pick(va, vb, |x, y| x <= y),
            "enum" => {
                let (ea, eb) = (va.as_array().cloned().unwrap_or_default(), vb.as_array().cloned().unwrap_or_default());
                Value::Array(ea.into_iter().filter(|x| eb.iter().any(|y| validate::json_eq(x, y))).collect())
            }
            "anyOf" | "oneOf" => merge_branches(&va, &vb),
            "additionalProperties" | "items" | "additionalItems" | "contains" | "propertyNames" => match (&va, &vb) {
                (Value::Bool(false), _) | (_, Value::Bool(true)) => va,
                (_, Value::Bool(false)) | (Value::Bool(true), _) => vb,
                _ if va == vb => va,
                (Value::Object(_), Value::Object(_)) => json!({"allOf": [va, vb]}),
                _ => va,
            },
            "uniqueItems" => Value::Bool(va == Value::Bool(true) || vb == Value::Bool(true)),
            _ => va,
        };
        a.insert(k, merged);
    }
    a
}

/// Two `properties`-like maps of one `allOf`: a name in both asks for both schemas.
fn merge_properties(va: Value, vb: Value) -> Value {
    match (va, vb) {
        (Value::Object(mut pa), Value::Object(pb)) => {
            for (name, sb) in pb {
                let combined = match pa.remove(&name) {
                    Some(sa) if sa != sb => json!({"allOf": [sa, sb]}),
                    Some(sa) => sa,
                    None => sb,
                };
                pa.insert(name, combined);
            }
            Value::Object(pa)
        }
        (va, _) => va,
    }
}

/// Two `type`s of one `allOf`: the types both accept (`integer` is a `number`).
fn merge_types(va: &Value, vb: &Value) -> Value {
    let set = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
            _ => vec![],
        }
    };
    let (ta, tb) = (set(va), set(vb));
    let mut out = Vec::new();
    for t in &ta {
        if tb.contains(t) || (t == "integer" && tb.iter().any(|x| x == "number")) {
            out.push(t.clone());
        } else if t == "number" && tb.iter().any(|x| x == "integer") {
            out.push("integer".to_string());
        }
    }
    out.dedup();
    Value::Array(out.into_iter().map(Value::String).collect())
}

/// Both sides of one `allOf` branch: the cross product (bounded), each pair asking for both.
fn merge_branches(va: &Value, vb: &Value) -> Value {
    let (ba, bb) = (va.as_array().cloned().unwrap_or_default(), vb.as_array().cloned().unwrap_or_default());
    let mut out = Vec::new();
    for x in &ba {
        for y in &bb {
            if out.len() < 64 {
                out.push(json!({"allOf": [x, y]}));
            }
        }
    }
    Value::Array(out)
}

fn pick(a: Value, b: Value, keep_a: impl Fn(f64, f64) -> bool) -> Value {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => {
            if keep_a(x, y) {
                a
            } else {
                b
            }
        }
        (Some(_), None) => a,
        _ => b,
    }
}

/// A value for a string `format`; reserved names and documentation addresses only, so a tool
/// that acts on it reaches nobody (`.invalid` never resolves; 192.0.2.0/24 and 2001:db8::/32
/// are for documentation).
pub fn format_value(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => "2000-01-01",
        "date-time" => "2000-01-01T00:00:00Z",
        "time" => "00:00:00Z",
        "duration" => "P1D",
        "email" | "idn-email" => "user@example.invalid",
        "uri" | "iri" | "uri-reference" | "iri-reference" | "url" => "https://example.invalid/",
        "uri-template" => "https://example.invalid/{id}",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "ipv4" => "192.0.2.1",
        "ipv6" => "2001:db8::1",
        "hostname" | "idn-hostname" => "example.invalid",
        "json-pointer" => "/a",
        "relative-json-pointer" => "0",
        "regex" => "a",
        _ => return None,
    })
}

fn decimals_of(m: f64) -> i32 {
    let s = format!("{m:e}"); // d.ddde-N
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let frac = mant.split_once('.').map_or(0, |(_, f)| f.len() as i32);
    let exp: i32 = exp.parse().unwrap_or(0);
    (frac - exp).clamp(0, 15)
}

fn round_to(v: f64, decimals: i32) -> f64 {
    if decimals == 0 {
        return v.round();
    }
    let p = 10f64.powi(decimals);
    (v * p).round() / p
}

fn to_number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Value::from(v as i64)
    } else {
        Number::from_f64(v).map(Value::Number).unwrap_or(Value::Null)
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(b) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}
