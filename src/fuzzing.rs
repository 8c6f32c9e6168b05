//! Entry points for the fuzz targets in `fuzz/` (one function per target, so the regression
//! tests in `tests/integration/fuzz_regressions.rs` replay a crash through exactly the code the fuzzer ran).
//!
//! Each function takes arbitrary bytes, must never panic on them, and asserts the invariants that
//! hold for any input it accepts; a failed assertion is a bug the fuzzer reports as a crash.

use std::path::Path;

use serde_json::{json, Value};

use crate::config::Config;
use crate::diff::{diff_surfaces, surface_from_json};
use crate::lockfile::{line_of, Lockfile, ScannedLock};

/// Lockfile parsing: anything that parses writes back to canonical text that parses to the
/// same lock, diffs against itself to nothing, and has a line for every tool.
pub fn lockfile(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("mcp.lock");
    let Ok(lock) = Lockfile::parse(text, path) else {
        return;
    };
    let canonical = lock.to_text();
    let again = Lockfile::parse(&canonical, path).expect("the canonical text of a parsed lock parses");
    assert_eq!(again.to_text(), canonical, "canonical text is a fixed point");
    // Nothing dropped: the tools that are kept are exactly those asked for.
    let scanned = ScannedLock::scan(text, path).expect("what parses, scans");
    let none = scanned.build(&|_, _, _| false).unwrap();
    assert!(none.servers.values().all(|s| s.surface.tools.is_empty()));
    assert_eq!(none.servers.len(), lock.servers.len());
    // `check`'s path: each server's tools resolved against the same surface leave no change,
    // whether or not the input was canonical text.
    for (name, pending) in scanned.pending(&|_| true).unwrap() {
        let mut live = lock.servers[&name].surface.clone();
        let pinned = pending.resolve(&mut live).expect("a scanned lock's tools parse");
        let d = diff_surfaces(&pinned.surface, &live);
        assert!(d.is_empty(), "server `{name}` resolved against itself differs: {d:?}");
    }
    for (name, entry) in &again.servers {
        let d = diff_surfaces(&lock.servers[name].surface, &entry.surface);
        assert!(d.is_empty(), "server `{name}` differs from its own rewrite: {d:?}");
        let server_line = line_of(&canonical, name, None).expect("every server has a line");
        for tool in entry.surface.tools.keys() {
            let l = line_of(&canonical, name, Some(tool)).expect("every tool has a line");
            assert!(l > server_line, "tool `{tool}` of `{name}` points at line {l}, server at {server_line}");
        }
    }
}

/// Config parsing: `mcp-pin.toml` and every client config format, with and without the
/// environment, never panic.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let env = |name: &str| name.len().is_multiple_of(2).then(|| "x".to_string());
    for file in ["mcp-pin.toml", ".mcp.json", ".vscode/mcp.json", "claude_desktop_config.json", ".cursor/mcp.json"] {
        let _ = Config::parse_with(text, Path::new(file), Some(&env));
        let _ = Config::parse_with(text, Path::new(file), None);
    }
}

/// The diff engine, on `[before, after]` surfaces (`{"tools": [...], "serverInfo": ...}`, as in
/// `tests/cases`); any other JSON value is diffed against itself.
pub fn diff(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (a, b) = match &v {
        Value::Array(pair) if pair.len() == 2 => (pair[0].clone(), pair[1].clone()),
        _ => (v.clone(), v.clone()),
    };
    let (old, new) = (surface_from_json(&a), surface_from_json(&b));
    let changes = diff_surfaces(&old, &new);
    for c in &changes {
        assert!(crate::rules::lookup(c.rule).is_some(), "rule {} is not in the catalogue", c.rule);
        assert!(!crate::diff::text::has_hidden(&c.message), "raw hidden character in {:?}", c.message);
        assert!(!c.message.contains('\n'), "message is not one line: {:?}", c.message);
    }
    assert_eq!(changes, diff_surfaces(&old, &new), "not deterministic");
    let order: Vec<_> = changes.iter().map(|c| (&c.tool, &c.pointer, &c.rule)).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "not ordered by (tool, pointer, rule)");
    // A surface that went through the lockfile's writer is the same surface.
    for s in [&old, &new] {
        let mut rewritten = s.clone();
        for tool in rewritten.tools.values_mut() {
            *tool = serde_json::from_str(&crate::json::to_canonical_string(tool)).expect("canonical JSON parses");
        }
        let d = diff_surfaces(s, &rewritten);
        assert!(d.is_empty(), "the lockfile writer changed the meaning: {d:?}");
    }
}

/// Argument synthesis for the probes, on an arbitrary `inputSchema` (alone and as a required
/// property), never panics; what it returns is an object. The candidate argument sets made from
/// it (its values read as descriptions, listed values and a pin too) never panic either.
pub fn synth(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let _ = crate::probe::synthesize_args(&v);
    let wrapped = json!({"type": "object", "properties": {"a": v}, "required": ["a"]});
    if let Ok(smallest) = crate::probe::synthesize_args(&wrapped) {
        let mut known = crate::probe::candidates::Known::default();
        known.listed_by(
            "list_a",
            &json!({"structuredContent": v, "content": [{"type": "text", "text": v.to_string()}]}),
        );
        let def = json!({"name": "read_a_file", "description": v.to_string(), "inputSchema": wrapped});
        for set in crate::probe::candidates::argument_sets("read_a_file", &def, &known, &smallest) {
            let _ = crate::probe::candidates::ArgSet::from_pin(&set.to_pin(2));
            let _ = crate::probe::candidates::replay(set, &def, &known, &smallest);
        }
    }
    let _ = crate::probe::candidates::ArgSet::from_pin(&v);
    if let Some(text) = v.as_str() {
        let _ = crate::probe::candidates::described::examples(text);
    }
}

/// The result contract on arbitrary results: `[lock result, live result]`, or one result held
/// against itself; the lock result is also read as a pin as it stands (a lockfile is hostile
/// input too). Never panics; a result against itself is no change, with or without an
/// `outputSchema`; a pin expands to a bounded number of blocks.
pub fn result(data: &[u8]) {
    use crate::probe::shape;
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let (a, b) = match &v {
        Value::Array(x) if x.len() == 2 => (x[0].clone(), x[1].clone()),
        other => (other.clone(), other.clone()),
    };
    for deep in [true, false] {
        let (sa, sb) = (shape::shape(&a, deep), shape::shape(&b, deep));
        let same = shape::compare("t", &sa, &sa, !deep);
        assert!(same.is_empty(), "a result against itself: {same:?}");
        let blocks = sa["blocks"].as_array().map_or(0, Vec::len);
        assert!(blocks <= shape::MAX_BLOCKS + shape::MAX_EXTRA_ATOMS, "{blocks} block entries");
        let _ = shape::compare("t", &sa, &sb, !deep);
        let _ = shape::content_note(&sa, &sb);
        let _ = shape::compare("t", &a, &sb, !deep);
        let _ = shape::content_note(&a, &sb);
    }
    let _ = shape::payload_problems("t", &b);
    let _ = shape::new_conflict(&b, Some(&a), false);
    let _ = shape::new_conflict(&b, Some(&a), true);
}

/// `report merge` on arbitrary JSON reports never panics, and merging a merged report again
/// changes nothing.
pub fn merge(data: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let reports = match v {
        Value::Array(a) => a,
        other => vec![other],
    };
    let Ok(merged) = crate::report::merge_json(&reports, None) else {
        return;
    };
    let json = crate::report::json::to_value(&merged);
    let again = crate::report::merge_json(std::slice::from_ref(&json), None).expect("a merged report merges");
    assert_eq!(crate::report::json::to_value(&again), json, "merge is idempotent");
}

/// The responders to a rejection (`probe::candidates::responders`) on arbitrary words (at most
/// what the search reads of one), for two small fixed tools (one requiring many kinds of
/// argument, one requiring none) and a call of each: never panic, and every set they give is one
/// the gate admits: at most `PER_REJECTION`, valid against the tool's `inputSchema`, no fixture's
/// value changed, none tried already, each label read back as its source.
pub fn rejection(data: &[u8]) {
    use crate::probe::candidates::{responders, words, ArgSet, Known, Source};
    let text: String = String::from_utf8_lossy(data).chars().take(crate::probe::search::MAX_REJECTION_TEXT).collect();
    let many = json!({"name": "edit_sheet", "inputSchema": {"type": "object", "properties": {
        "path": {"type": "string", "description": "Path of the .xlsx file"},
        "sheet": {"type": "string", "maxLength": 31},
        "range": {"type": "string", "description": "A range, e.g. 'A1:C10'"},
        "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
        "rule": {"type": "object", "properties": {"type": {"type": "string"},
            "colors": {"type": "array", "items": {"type": "string"}}, "source": {"type": "string"}}},
        "start_row": {"type": "integer"}, "end_row": {"type": "integer"}, "shape_index": {"type": "integer"},
        "pid": {"type": "integer"}, "query": {"type": "string", "description": "The SQL query"},
        "search_text": {"type": "string"}, "allowEmpty": {"type": "boolean", "description": "Allow an empty sheet."}
    }, "required": ["path", "sheet", "range", "rows", "rule", "start_row", "end_row", "shape_index", "pid", "query"]}});
    let mut sent = ArgSet::smallest(
        json!({"path": "data/sales.xlsx", "sheet": "Sales", "range": "", "rows": [],
            "rule": {"type": "color_scale", "colors": [""]}, "start_row": 0, "end_row": 0,
            "shape_index": 0, "pid": 4_194_305, "query": ""})
        .as_object()
        .cloned()
        .unwrap_or_default(),
    );
    sent.relative = vec!["/path".into()];
    sent.from.insert("sheet".into(), Source::Fixture);
    let none = json!({"name": "list_books", "inputSchema": {"type": "object", "properties": {
        "directory": {"type": "string"}, "recursive": {"type": "boolean"}}}});
    let known = Known::default();
    for (def, rejected) in [(many, sent), (none, ArgSet::smallest(serde_json::Map::new()))] {
        let tried = vec![rejected.clone()];
        let sets = responders::sets_from_rejection(&def, &known, &rejected, &text, &tried);
        assert!(sets.len() <= words::PER_REJECTION, "{} sets", sets.len());
        let root = &def["inputSchema"];
        let whole = crate::probe::validate::compile_as(
            root,
            crate::probe::validate::draft_of(root),
            crate::probe::validate::Formats::Assert,
        )
        .expect("the tool's schema compiles");
        for (i, s) in sets.iter().enumerate() {
            assert!(whole.is_valid(&Value::Object(s.resolve(None))), "not valid: {s:?}");
            assert_eq!(s.args.get("sheet"), rejected.args.get("sheet"), "a fixture's value changed");
            let again = tried.iter().chain(&sets[..i]).any(|t| t.args == s.args && t.relative == s.relative);
            assert!(!again, "tried already: {s:?}");
            for f in s.from.values() {
                assert_eq!(Source::from_label(&f.label()), Some(*f), "{f:?}");
            }
        }
    }
}

/// Whether `text` holds `value` as masking must hide it (the rule of docs/security.md, written here apart from
/// `secrets`): anywhere for a value of 8 characters or more, else only as a whole word (no
/// letter, digit or `_` right before or after it).
fn holds(text: &str, value: &str) -> bool {
    if value.chars().count() >= 8 {
        return text.contains(value);
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(value)
        .any(|(at, _)| !word(text[..at].chars().next_back()) && !word(text[at + value.len()..].chars().next()))
}

/// Masking never corrupts what it masks. From a surface (or a `[before, after]` pair), values
/// are registered as secrets: JSON literals, numbers, and pieces of the input's own text picked
/// by its bytes (so they fall on strings, keys, numbers and syntax alike). Then:
/// - the lockfile as written parses, reads back to the same text (a second `lock` is a no-op),
///   holds no registered value in any string, value or key, but the digests' values, and its
///   digests are those of its tools as written;
/// - the live surface masked as `take` masks it is no change against what the lock pinned;
/// - the JSON, SARIF and JUnit reports of the diff (with the input's text in an error and a
///   note) parse.
pub fn mask(data: &[u8]) {
    use crate::report::{FailOn, Format, RenderContext, Report, ServerReport};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let (a, b) = match &v {
        Value::Array(pair) if pair.len() == 2 => (pair[0].clone(), pair[1].clone()),
        _ => (v.clone(), v.clone()),
    };
    crate::secrets::scoped(|| {
        let mut values: Vec<String> = ["true", "false", "null", "8080", "0", "-1.5", "1e3"].map(String::from).to_vec();
        let chars: Vec<char> = text.chars().collect();
        for pick in data.chunks(2).take(8) {
            let start = (pick[0] as usize * 31) % chars.len().max(1);
            let len = 4 + pick.get(1).map_or(0, |b| *b as usize % 20);
            values.push(chars.iter().skip(start).take(len).collect());
        }
        // A value holding the mask itself could be made by masking: not a secret anyone has.
        values.retain(|v| !v.contains('*'));
        for v in &values {
            crate::secrets::register(v);
        }
        let secrets: Vec<&String> =
            values.iter().filter(|v| crate::secrets::kind_of(v) == crate::secrets::ValueKind::Secret).collect();

        let (old, new) = (surface_from_json(&a), surface_from_json(&b));
        let mut lock = Lockfile::new();
        lock.servers.insert(
            "s".into(),
            crate::lockfile::ServerEntry {
                surface: old.clone(),
                source: json!({"args": [text]}),
                ..Default::default()
            },
        );
        let written = lock.written_text();
        let path = Path::new("mcp.lock");
        let pinned = Lockfile::parse(&written, path).expect("the lockfile as written parses");
        assert_eq!(pinned.written_text(), written, "a second lock writes the same text");
        let tree: Value = serde_json::from_str(&written).expect("the lockfile is JSON");
        let entry = &tree["servers"]["s"];
        for_each_string(entry, &mut |at, s, key| {
            // The entry's own field names (`instructions`, `tools`, `source`'s `args`) are the
            // lockfile format's words, not the server's; digests are hashes.
            let own_key = key && ["", "/source", "/launch"].contains(&at);
            if !(own_key || !key && at.starts_with("/digests")) {
                if let Some(v) = secrets.iter().find(|v| holds(s, v)) {
                    let place = if key { format!("the key {s:?} in {at}") } else { at.to_string() };
                    panic!("the lock holds the registered value {v:?} at {place}: {s:?}");
                }
            }
        });
        if let (Some(tools), Some(digests)) = (entry["tools"].as_object(), entry["digests"].as_object()) {
            for (name, tool) in tools {
                assert_eq!(digests.get(name).and_then(Value::as_str), Some(crate::digest::tool_digest(tool).as_str()));
            }
        }
        let mut live = old.clone();
        if live.mask_secrets().is_empty() {
            let d = diff_surfaces(&pinned.servers["s"].surface, &live);
            assert!(d.is_empty(), "the masked live surface drifts from the lock: {d:?}");
        }

        let mut server = ServerReport::error("s", text.to_string());
        server.changes = diff_surfaces(&old, &new);
        server.notes.push(text.to_string());
        let report = Report { fail_on: FailOn::Silent, servers: vec![server] };
        let ctx = RenderContext { lock_text: crate::report::LazyText::text(written.clone()), ..Default::default() };
        for f in [Format::Json, Format::Sarif] {
            let out = crate::report::render_masked(&report, f, &ctx);
            if let Err(e) = serde_json::from_str::<Value>(&out) {
                panic!("the {f} report does not parse ({e}):\n{out}");
            }
        }
        let xml = crate::report::render_masked(&report, Format::Junit, &ctx);
        if let Err(e) = xml_well_formed(&xml) {
            panic!("the JUnit report is not well-formed XML ({e}):\n{xml}");
        }
    });
}

/// Every string of `v`, each value with its JSON pointer and each key with where it is.
/// Every string of `v` with its JSON Pointer: `f(at, text, false)` for a value at `at`, and
/// `f(at, key, true)` for a key of the object at `at`.
fn for_each_string(v: &Value, f: &mut dyn FnMut(&str, &str, bool)) {
    fn walk(v: &Value, at: &mut String, f: &mut dyn FnMut(&str, &str, bool)) {
        match v {
            Value::String(s) => f(at, s, false),
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let len = at.len();
                    at.push_str(&format!("/{i}"));
                    walk(x, at, f);
                    at.truncate(len);
                }
            }
            Value::Object(m) => {
                for (k, x) in m {
                    f(at, k, true);
                    let len = at.len();
                    at.push('/');
                    at.push_str(k);
                    walk(x, at, f);
                    at.truncate(len);
                }
            }
            _ => {}
        }
    }
    walk(v, &mut String::new(), f);
}

/// Whether `xml` is well-formed as far as masking could break it: every element closed in
/// order, attribute values quoted, every `&` a character or entity reference, no `<` in text or
/// in an attribute value.
fn xml_well_formed(xml: &str) -> Result<(), String> {
    let reference = regex::Regex::new(r"^&(?:[A-Za-z]+|#[0-9]+|#x[0-9A-Fa-f]+);").expect("valid regex");
    let at = |s: &str| s.chars().take(30).collect::<String>();
    let mut open: Vec<String> = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find(['<', '&']) {
        let tail = &rest[i..];
        if tail.starts_with('&') {
            let m = reference.find(tail).ok_or_else(|| format!("a bare `&` at {:?}", at(tail)))?;
            rest = &tail[m.end()..];
            continue;
        }
        // The tag ends at the first `>` outside a quoted attribute value.
        let mut quote = None;
        let mut end = None;
        for (j, c) in tail.char_indices().skip(1) {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), '<') => return Err(format!("a `<` in an attribute value at {:?}", at(tail))),
                (Some(_), '&') if !reference.is_match(&tail[j..]) => {
                    return Err(format!("a bare `&` in an attribute value at {:?}", at(tail)))
                }
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '<') => return Err(format!("a `<` inside a tag at {:?}", at(tail))),
                (None, '>') => {
                    end = Some(j);
                    break;
                }
                (None, _) => {}
            }
        }
        let end = end.ok_or_else(|| format!("a tag that never closes at {:?}", at(tail)))?;
        let tag = &tail[1..end];
        rest = &tail[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name.trim() => {}
                other => return Err(format!("`</{name}>` closes {other:?}")),
            }
            continue;
        }
        let name = tag.trim_end_matches('/').split_whitespace().next().ok_or("an empty tag")?;
        if !tag.ends_with('/') {
            open.push(name.to_string());
        }
    }
    match open.last() {
        Some(o) => Err(format!("`<{o}>` is never closed")),
        None => Ok(()),
    }
}
