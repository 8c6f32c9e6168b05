//! The result contract: what `lock` pins from a tool's result and `check` compares (RULES.md,
//! "The result contract"): the error flag, presence and type skeleton of `structuredContent`,
//! the kinds and order of content blocks, per block its URI scheme, MIME type and audience, and
//! how text and structure relate. Never a value. Also the per-result consistency checks
//! (`result-payload-invalid`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::skeleton::{self, skeleton, top_skeleton};
use super::validate::json_eq;
use crate::rules::RuleId;

/// How a result's text blocks relate to its `structuredContent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Neither text blocks nor structured content.
    NoText,
    /// Text blocks, no structured content.
    TextOnly,
    /// Structured content, no text blocks.
    StructureOnly,
    /// A text block parses as JSON equal to `structuredContent`.
    EquivalentJson,
    /// A text block is a JSON object or array that differs from `structuredContent` (and none
    /// is equal).
    ConflictingJson,
    /// Text that is not that JSON, beside structured content (a summary, a scalar).
    TextAndStructure,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::NoText => "no-text",
            Relation::TextOnly => "text-only",
            Relation::StructureOnly => "structure-only",
            Relation::EquivalentJson => "equivalent-json",
            Relation::ConflictingJson => "conflicting-json",
            Relation::TextAndStructure => "text-and-structure",
        }
    }
}

/// The text of every `text` block, in order.
pub fn texts(result: &Value) -> Vec<&str> {
    blocks(result)
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect()
}

fn blocks(result: &Value) -> &[Value] {
    result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// `structuredContent`, when present (an explicit `null` counts as absent).
pub fn structured(result: &Value) -> Option<&Value> {
    result.get("structuredContent").filter(|v| !v.is_null())
}

/// How the text blocks relate to `structuredContent` (RULES.md, the result contract, 6 and 8).
/// A text block "is JSON" when its whole trimmed text parses as an object or an array (a bare
/// scalar, or JSON inside a fenced block, is text), and every such block is held against the
/// structure: one that differs makes the result `conflicting-json`, even beside one that agrees.
pub fn relation(result: &Value) -> Relation {
    relation_in(result, false)
}

/// Whether an `outputSchema` is the SDKs' wrapping of a return value that is no object (the
/// Python SDK and FastMCP write `{"type": "object", "properties": {"result": ...}, "required":
/// ["result"]}`): then `structuredContent` `{"result": X}` and a text block whose JSON is X agree
/// (RULES.md, the result contract, 6).
pub fn is_result_wrapper(output_schema: Option<&Value>) -> bool {
    let Some(os) = output_schema.and_then(Value::as_object) else {
        return false;
    };
    let object = match os.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.len() == 1 && ts[0] == "object",
        _ => false,
    };
    let one_required = matches!(os.get("required"), Some(Value::Array(r)) if r.len() == 1 && r[0] == "result");
    object && one_required && os.get("properties").and_then(|p| p.get("result")).is_some()
}

/// [`relation`], where `wrapper` says the tool's `outputSchema` is the result wrapper
/// ([`is_result_wrapper`]): a text block whose JSON is the wrapped value (or an item of it, a
/// list being written one block per item) agrees too.
pub fn relation_in(result: &Value, wrapper: bool) -> Relation {
    let texts = texts(result);
    let Some(sc) = structured(result) else {
        return if texts.is_empty() { Relation::NoText } else { Relation::TextOnly };
    };
    if texts.is_empty() {
        return Relation::StructureOnly;
    }
    let wrapped = sc.as_object().filter(|m| wrapper && m.len() == 1).and_then(|m| m.get("result"));
    let (mut agree, mut conflict) = (false, false);
    for (t, parsed) in json_texts(&texts) {
        if json_eq(&parsed, sc) || wrapped.is_some_and(|x| unwrapped_agrees(&parsed, x)) {
            agree = true;
        } else if !contains_text(sc, t) {
            // A structure that carries the text itself as a string (server-filesystem's
            // `{"content": "<the text>"}`) wraps it; it does not contradict it.
            conflict = true;
        }
    }
    match (conflict, agree) {
        (true, _) => Relation::ConflictingJson,
        (false, true) => Relation::EquivalentJson,
        (false, false) => Relation::TextAndStructure,
    }
}

/// Whether a text block's JSON agrees with the value `x` the SDK wrapped as `{"result": x}`: it is
/// `x`, or, `x` being a list, one of its items (the Python SDK writes a list's items as one block
/// each).
fn unwrapped_agrees(parsed: &Value, x: &Value) -> bool {
    json_eq(parsed, x) || x.as_array().is_some_and(|items| items.iter().any(|i| json_eq(parsed, i)))
}

/// The text blocks that are JSON (an object or an array, the whole trimmed text), parsed.
fn json_texts<'a>(texts: &[&'a str]) -> Vec<(&'a str, Value)> {
    texts
        .iter()
        .filter_map(|t| {
            let trimmed = t.trim();
            if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
                return None;
            }
            serde_json::from_str::<Value>(trimmed).ok().filter(|v| v.is_object() || v.is_array()).map(|v| (*t, v))
        })
        .collect()
}

/// Whether the result's text and structure disagree now while the pin did not conflict
/// (`text-structure-conflict`): at `lock` (no pin) a conflict is reported. A pin written before
/// every JSON block was held against the structure (contract version below 2) took one agreeing
/// block for agreement; its result is judged that way until the next `lock`, so an upgrade
/// reports nothing the server did not change. `wrapper`: see [`relation_in`].
pub fn new_conflict(result: &Value, pinned: Option<&Value>, wrapper: bool) -> bool {
    if relation_in(result, wrapper) != Relation::ConflictingJson {
        return false;
    }
    let Some(p) = pinned else { return true };
    if p.get("textStructure").and_then(Value::as_str) == Some(Relation::ConflictingJson.as_str()) {
        return false;
    }
    if contract_version(p) >= 2 {
        return true;
    }
    // The earlier reading: any text parsing as JSON equal to the structure was agreement.
    let sc = structured(result);
    !texts(result)
        .iter()
        .any(|t| serde_json::from_str::<Value>(t.trim()).is_ok_and(|v| sc.is_some_and(|sc| json_eq(&v, sc))))
}

/// Whether `text` (or its trimmed form) is a string somewhere inside `v`.
fn contains_text(v: &Value, text: &str) -> bool {
    match v {
        Value::String(s) => s == text || s.trim() == text.trim(),
        Value::Array(a) => a.iter().any(|x| contains_text(x, text)),
        Value::Object(m) => m.values().any(|x| contains_text(x, text)),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Content blocks

/// A block's kind: its `type`, except an embedded resource, which is `resource(text)` or
/// `resource(blob)` by its body (`resource` when it has neither).
pub fn block_kind(b: &Value) -> String {
    match b.get("type").and_then(Value::as_str) {
        Some("resource") => {
            let r = b.get("resource");
            if r.and_then(|r| r.get("text")).is_some_and(Value::is_string) {
                "resource(text)".into()
            } else if r.and_then(|r| r.get("blob")).is_some_and(Value::is_string) {
                "resource(blob)".into()
            } else {
                "resource".into()
            }
        }
        Some(t) => token(t, 64),
        None => "(no type)".into(),
    }
}

/// A server's word pinned as an atom: kept when it is at most `max` printable ASCII characters
/// without spaces (a kind, a scheme, a MIME type, an audience), else `(invalid)`, so a hostile
/// result cannot grow the lock or put control characters in a report.
fn token(s: &str, max: usize) -> String {
    if !s.is_empty() && s.len() <= max && s.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        s.to_string()
    } else {
        "(invalid)".into()
    }
}

/// How a kind is named in a message.
fn label(kind: &str) -> String {
    match kind {
        "text" => "text block".into(),
        "image" => "image block".into(),
        "audio" => "audio block".into(),
        "resource_link" => "resource link".into(),
        "resource(text)" | "resource(blob)" | "resource" => "embedded resource".into(),
        other => format!("`{}` block", crate::secrets::excerpt(other, 40)),
    }
}

/// How a kind is named where kinds are compared (an embedded resource says its body).
fn kind_label(kind: &str) -> String {
    match kind {
        "resource(text)" => "embedded resource (text)".into(),
        "resource(blob)" => "embedded resource (blob)".into(),
        other => label(other),
    }
}

/// The URI scheme with its colon, lowercased (`file:`, `https:`, `ui:`); `(none)` for a URI
/// without one.
pub fn uri_scheme(uri: &str) -> String {
    let mut chars = uri.char_indices();
    if let Some((_, c)) = chars.next() {
        if c.is_ascii_alphabetic() {
            for (i, c) in chars {
                if c == ':' {
                    return token(&format!("{}:", uri[..i].to_ascii_lowercase()), 40);
                }
                if !(c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.') {
                    break;
                }
            }
        }
    }
    "(none)".into()
}

/// A MIME type without its parameters, except `profile` (`text/html;profile=mcp-app`): the whole
/// lowercased (MIME types compare case-insensitively), a quoted `profile` unquoted, `charset` and
/// every other parameter dropped. Applied to pinned values too, so a lock written before case
/// was folded compares the same.
pub fn mime_essence(m: &str) -> String {
    let mut parts = m.split(';');
    let mut out = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    for p in parts {
        if let Some((name, value)) = p.split_once('=') {
            if name.trim().eq_ignore_ascii_case("profile") {
                out.push_str(";profile=");
                out.push_str(&unquote(value.trim()).to_ascii_lowercase());
            }
        }
    }
    token(&out, 160)
}

/// A parameter value without its quotes (RFC 9110 quoted-string: `\x` is `x`).
fn unquote(v: &str) -> String {
    match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::new();
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                out.push(if c == '\\' { chars.next().unwrap_or('\\') } else { c });
            }
            out
        }
        None => v.to_string(),
    }
}

/// A pinned URI scheme as compared: lowercased (schemes compare case-insensitively).
fn norm_scheme(s: &str) -> String {
    if s == "(none)" || s == "(invalid)" {
        s.to_string()
    } else {
        token(&s.to_ascii_lowercase(), 40)
    }
}

/// A pinned MIME type as compared (see [`mime_essence`]).
fn norm_mime(s: &str) -> String {
    if s == "(invalid)" {
        s.to_string()
    } else {
        mime_essence(s)
    }
}

const BOTH: [&str; 2] = ["assistant", "user"];

/// An audience list as read: its roles sorted and distinct; none at all (absent, `[]`, or no
/// role that is a string) means both `assistant` and `user` (RULES.md, the result contract, 8).
fn effective_audience(list: Option<&Value>) -> Vec<String> {
    let mut v: Vec<String> = list
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(|r| token(r, 40)).collect())
        .unwrap_or_default();
    v.sort();
    v.dedup();
    v.truncate(8);
    if v.is_empty() {
        BOTH.iter().map(|s| s.to_string()).collect()
    } else {
        v
    }
}

/// The effective `annotations.audience` of a block (see [`effective_audience`]).
pub fn audience(b: &Value) -> Vec<String> {
    effective_audience(b.pointer("/annotations/audience"))
}

/// The atoms of one block a consumer reads: kind, URI scheme, MIME type, effective audience.
pub fn block_atoms(b: &Value) -> Value {
    let kind = block_kind(b);
    let mut m = Map::new();
    m.insert("kind".into(), json!(kind));
    let (uri, mime) = match kind.as_str() {
        "resource_link" => (b.get("uri"), b.get("mimeType")),
        k if k.starts_with("resource") => {
            let r = b.get("resource");
            (r.and_then(|r| r.get("uri")), r.and_then(|r| r.get("mimeType")))
        }
        "image" | "audio" => (None, b.get("mimeType")),
        _ => (None, None),
    };
    if kind == "resource_link" || kind.starts_with("resource") {
        m.insert("scheme".into(), json!(uri_scheme(uri.and_then(Value::as_str).unwrap_or(""))));
    }
    if let Some(mt) = mime.and_then(Value::as_str) {
        m.insert("mimeType".into(), json!(mime_essence(mt)));
    }
    let aud = audience(b);
    if aud != BOTH {
        m.insert("audience".into(), json!(aud));
    }
    Value::Object(m)
}

/// The audience of a pinned block's atoms (a pin's `audience: []`, written before `[]` was read
/// as absent, is both).
fn atom_audience(a: &Value) -> Vec<String> {
    effective_audience(a.get("audience"))
}

fn show_audience(a: &[String]) -> String {
    format!("[{}]", a.join(", "))
}

/// The kinds of content blocks, distinct, in order of first appearance, by their `type` string
/// (`text`, `image`, `audio`, `resource`, `resource_link`, an unknown kind as it is spelled).
pub fn content_kinds(result: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in blocks(result) {
        let kind = b.get("type").and_then(Value::as_str).unwrap_or("(no type)").to_string();
        if !out.contains(&kind) {
            out.push(kind);
        }
    }
    out
}

fn first_appearance(kinds: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in kinds {
        if !out.contains(k) {
            out.push(k.clone());
        }
    }
    out
}

fn counts(kinds: &[String]) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for k in kinds {
        *m.entry(k.as_str()).or_insert(0) += 1;
    }
    m
}

// ---------------------------------------------------------------------------------------------
// The shape

/// Blocks compared one by one (RULES.md, the result contract, 8). A result with more is pinned
/// with its first `MAX_BLOCKS` blocks and then only atoms not pinned yet, and compared by first
/// appearance; the probe line says so.
pub const MAX_BLOCKS: usize = 4096;
/// Most atoms pinned past [`MAX_BLOCKS`] (each the first appearance of a kind or value there).
pub const MAX_EXTRA_ATOMS: usize = 256;
/// The cap of the releases before the decided cases (a pin of contract version 1).
const OLD_MAX_BLOCKS: usize = 64;
/// The version of the result contract a pin is written under (`contractVersion`): 1 for a pin
/// with `blocks` and no version (the first whole contract), 0 for one without `blocks`. Version 2
/// holds every JSON text block against the structure and pins up to [`MAX_BLOCKS`] blocks.
pub const CONTRACT_VERSION: u64 = 2;

/// The result contract recorded for a result (never a value). `deep`: the tool declares no
/// `outputSchema`, so the type skeleton of `structuredContent` is kept at every depth.
///
/// `blocks` holds the atoms of each block in order; a run of equal atoms is written once with
/// `repeat` (a search of 4,000 links is one entry, not 4,000).
pub fn shape(result: &Value, deep: bool) -> Value {
    shape_in(result, deep, false)
}

/// [`shape`], where `wrapper` says the tool's `outputSchema` is the result wrapper
/// ([`is_result_wrapper`]), which decides how text and structure relate.
pub fn shape_in(result: &Value, deep: bool, wrapper: bool) -> Value {
    let mut m = Map::new();
    m.insert("content".into(), Value::Array(content_kinds(result).into_iter().map(Value::String).collect()));
    let all = blocks(result);
    let head: Vec<Value> = all.iter().take(MAX_BLOCKS).map(block_atoms).collect();
    let mut entries = runs(&head);
    if all.len() > MAX_BLOCKS {
        // Past the cap, only atoms not pinned yet are kept, so every kind and value that occurs
        // is pinned at its first appearance (atoms made one at a time: memory stays bounded).
        let mut seen: std::collections::HashSet<String> = head.iter().map(Value::to_string).collect();
        let mut extra = 0;
        for b in &all[MAX_BLOCKS..] {
            if extra >= MAX_EXTRA_ATOMS {
                break;
            }
            let a = block_atoms(b);
            if seen.insert(a.to_string()) {
                entries.push(a);
                extra += 1;
            }
        }
        m.insert("blocksTruncated".into(), json!(true));
    }
    m.insert("blocks".into(), Value::Array(entries));
    if let Some(sc) = structured(result) {
        m.insert("structuredContent".into(), if deep { skeleton(sc) } else { top_skeleton(sc) });
    }
    m.insert("textStructure".into(), json!(relation_in(result, wrapper).as_str()));
    m.insert("isError".into(), json!(is_error(result)));
    m.insert("contractVersion".into(), json!(CONTRACT_VERSION));
    Value::Object(m)
}

/// Equal atoms in a row as one entry with `repeat`.
fn runs(atoms: &[Value]) -> Vec<Value> {
    let mut out: Vec<(Value, u64)> = Vec::new();
    for a in atoms {
        match out.last_mut() {
            Some((last, n)) if last == a => *n += 1,
            _ => out.push((a.clone(), 1)),
        }
    }
    out.into_iter()
        .map(|(mut a, n)| {
            if let (Value::Object(m), true) = (&mut a, n > 1) {
                m.insert("repeat".into(), json!(n));
            }
            a
        })
        .collect()
}

/// A pin's blocks one by one (runs expanded), at most [`MAX_BLOCKS`] + [`MAX_EXTRA_ATOMS`]
/// whatever a lockfile says.
fn each_block(shape: &Value) -> Vec<&Value> {
    let limit = MAX_BLOCKS + MAX_EXTRA_ATOMS;
    let mut out = Vec::new();
    for e in shape.get("blocks").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]) {
        let n = e.get("repeat").and_then(Value::as_u64).unwrap_or(1).max(1);
        let room = (limit - out.len()) as u64;
        for _ in 0..n.min(room) {
            out.push(e);
        }
        if out.len() >= limit {
            break;
        }
    }
    out
}

/// Whether a pin was written by a release that pins the whole result contract (its `blocks`
/// atom came with it); an older pin holds only kinds, `structuredContent` and the text relation.
pub fn pins_whole_contract(pinned: &Value) -> bool {
    pinned.get("blocks").is_some()
}

/// The version of the result contract a pin was written under (see [`CONTRACT_VERSION`]).
pub fn contract_version(pinned: &Value) -> u64 {
    match pinned.get("contractVersion").and_then(Value::as_u64) {
        Some(v) => v,
        None if pins_whole_contract(pinned) => 1,
        None => 0,
    }
}

/// The shape pinned for a call that got a JSON-RPC error.
pub fn rpc_error_shape(code: i64) -> Value {
    json!({"rpcError": code})
}

/// Only a declared boolean `isError: true` is an error: `"true"`, `1` or `null` are not.
pub fn is_error(result: &Value) -> bool {
    result.get("isError") == Some(&Value::Bool(true))
}

/// Whether a pinned shape records a failed call (`isError: true` or a JSON-RPC error).
pub fn pinned_failure(pinned: &Value) -> bool {
    pinned.get("isError") == Some(&Value::Bool(true))
        || pinned.get("rpcError").is_some()
        || timed_out(pinned)
        || pinned.get("connectionLost") == Some(&Value::Bool(true))
}

/// The shape pinned for a call whose connection was lost (the server died during it, every time
/// it was made): the tool was probed, and there is no result to compare.
pub fn lost_shape() -> Value {
    json!({"connectionLost": true})
}

/// The shape pinned for a call that got no answer within the timeout: the tool was probed (a
/// `check` judges it), and there is no result to compare.
pub fn timeout_shape() -> Value {
    json!({"timedOut": true})
}

/// Whether a pin says the call timed out at lock.
pub fn timed_out(pinned: &Value) -> bool {
    pinned.get("timedOut") == Some(&Value::Bool(true))
}

/// One difference between the pinned contract and a live result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `result-shape-changed` or `result-shape-reduced`.
    pub rule: RuleId,
    pub message: String,
}

impl Finding {
    fn changed(message: String) -> Finding {
        Finding { rule: super::RESULT_SHAPE_CHANGED, message }
    }
    fn reduced(message: String) -> Finding {
        Finding { rule: super::RESULT_SHAPE_REDUCED, message }
    }
}

/// `4,096`.
fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Why the content blocks of a result are compared by first appearance only although every kind
/// occurs as often as at lock, when a cap is the reason: the result (now or at lock) has more
/// than [`MAX_BLOCKS`] blocks, or the pin holds only the first 64 (the cap of an earlier
/// mcp-pin). The probe line says it (RULES.md, the result contract, 8).
pub fn content_note(pinned: &Value, live: &Value) -> Option<String> {
    if !pinned.is_object() || !pins_whole_contract(pinned) || pinned_failure(pinned) || pinned_failure(live) {
        return None;
    }
    let truncated = |v: &Value| v.get("blocksTruncated") == Some(&Value::Bool(true));
    let cap = thousands(MAX_BLOCKS);
    if truncated(live) || (truncated(pinned) && contract_version(pinned) >= 2) {
        Some(format!("more than {cap} blocks: content compared by first appearance only"))
    } else if truncated(pinned) {
        Some(format!(
            "the lock holds the first {OLD_MAX_BLOCKS} blocks (an earlier mcp-pin's cap): content compared by first appearance only; run `mcp-pin lock` to pin every block up to {cap}"
        ))
    } else {
        None
    }
}

/// What changed between a pinned shape and a live one. `has_output_schema`: the tool declares
/// one now (then `structuredContent` is compared by presence and top-level type only, and its
/// absence is `structured-content-missing`, not reported again here). A failed call on either
/// side is not compared. A pinned shape from before an atom existed compares nothing for it:
/// shapes without `blocks` (mcp-pin before the result contract) compare only what they were
/// compared on then (presence and top-level type of `structuredContent`, the distinct block
/// kinds), with the contract's classes. `structuredContent` absent at lock and present now is no
/// change (from then on the text and the structure must agree).
pub fn compare(tool: &str, pinned: &Value, live: &Value, has_output_schema: bool) -> Vec<Finding> {
    let mut out = Vec::new();
    if !pinned.is_object() || pinned_failure(pinned) || pinned_failure(live) {
        return out;
    }
    let whole = pins_whole_contract(pinned);
    let top = |v: &Value| skeleton::kind(v).map(str::to_string).unwrap_or_else(|| skeleton::type_name(v));
    match (pinned.get("structuredContent"), live.get("structuredContent")) {
        (Some(p), None) if !has_output_schema => out.push(Finding::changed(format!(
            "structuredContent of tool {tool}: present at lock ({}), absent now",
            top(p)
        ))),
        (Some(p), Some(l)) if top(p) != top(l) => out.push(Finding::changed(format!(
            "structuredContent of tool {tool}: {} is now {}",
            skeleton::type_name(p),
            skeleton::type_name(l)
        ))),
        (Some(p), Some(l)) if whole && !has_output_schema => {
            let mut found = Vec::new();
            skeleton::compare(tool, "structuredContent", p, l, &mut found);
            out.extend(found.into_iter().map(|(d, m)| match d {
                skeleton::Diff::Changed => Finding::changed(m),
                skeleton::Diff::Reduced => Finding::reduced(m),
            }));
        }
        _ => {}
    }
    if whole {
        compare_blocks(tool, pinned, live, &mut out);
    } else if let Some(pc) = pinned.get("content").and_then(Value::as_array) {
        let strings = |v: &[Value]| -> Vec<String> {
            first_appearance(&v.iter().map(|k| k.as_str().unwrap_or("?").to_string()).collect::<Vec<_>>())
        };
        let lc = live.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
        compare_first_appearance(tool, &strings(pc), &strings(lc), &mut out);
    }
    out
}

fn show_kinds(k: &[String]) -> String {
    format!("[{}]", k.join(", "))
}

/// Kinds compared by the order in which they first appear (counts differ, or an old pin).
fn compare_first_appearance(tool: &str, pinned: &[String], live: &[String], out: &mut Vec<Finding>) {
    for k in live.iter().filter(|k| !pinned.contains(k)) {
        out.push(Finding::changed(format!(
            "content of tool {tool}: {} never seen at lock (pinned kinds: {})",
            kind_label(k),
            show_kinds(pinned)
        )));
    }
    for k in pinned.iter().filter(|k| !live.contains(k)) {
        out.push(Finding::reduced(format!(
            "content of tool {tool}: no {} this time (pinned kinds: {})",
            kind_label(k),
            show_kinds(pinned)
        )));
    }
    let p: Vec<String> = pinned.iter().filter(|k| live.contains(k)).cloned().collect();
    let l: Vec<String> = live.iter().filter(|k| pinned.contains(k)).cloned().collect();
    if p != l {
        out.push(Finding::changed(format!(
            "content of tool {tool}: block kinds first appear in another order, {} (pinned: {})",
            show_kinds(&l),
            show_kinds(&p)
        )));
    }
}

fn compare_blocks(tool: &str, pinned: &Value, live: &Value, out: &mut Vec<Finding>) {
    let pb = each_block(pinned);
    let lb = each_block(live);
    let kind_of = |a: &Value| a.get("kind").and_then(Value::as_str).unwrap_or("?").to_string();
    let pk: Vec<String> = pb.iter().map(|a| kind_of(a)).collect();
    let lk: Vec<String> = lb.iter().map(|a| kind_of(a)).collect();
    let capped = content_note(pinned, live);
    if counts(&pk) == counts(&lk) && capped.is_none() {
        if pk != lk {
            out.push(Finding::changed(format!(
                "content of tool {tool}: block order changed from {} to {}",
                show_kinds(&pk),
                show_kinds(&lk)
            )));
        }
        // Block by block: the i-th block of each kind against the i-th of that kind at lock.
        let n = counts(&pk);
        for (kind, total) in n {
            let ps: Vec<&Value> = pb.iter().copied().filter(|a| kind_of(a) == kind).collect();
            let ls: Vec<&Value> = lb.iter().copied().filter(|a| kind_of(a) == kind).collect();
            for (i, (p, l)) in ps.iter().zip(&ls).enumerate() {
                let who = if total == 1 {
                    format!("{} of tool {tool}", label(kind))
                } else {
                    format!("{} #{} of tool {tool}", label(kind), i + 1)
                };
                compare_atoms(&who, p, l, out);
            }
        }
    } else {
        let start = out.len();
        compare_first_appearance(tool, &first_appearance(&pk), &first_appearance(&lk), out);
        // Over all blocks of each kind together: each atom is a set of the values declared.
        for kind in first_appearance(&pk).iter().filter(|k| lk.contains(k)) {
            let ps: Vec<&Value> = pb.iter().copied().filter(|a| &kind_of(a) == kind).collect();
            let ls: Vec<&Value> = lb.iter().copied().filter(|a| &kind_of(a) == kind).collect();
            let who = format!("{}s of tool {tool}", label(kind));
            let (sp, sl) = (values(&ps, "scheme", norm_scheme), values(&ls, "scheme", norm_scheme));
            compare_sets(&who, "URI scheme", &sp, &sl, out);
            let (mp, ml) = (values(&ps, "mimeType", norm_mime), values(&ls, "mimeType", norm_mime));
            compare_sets(&who, "MIME type", &mp, &ml, out);
            let pa: BTreeSet<String> = ps.iter().map(|a| show_audience(&atom_audience(a))).collect();
            let la: BTreeSet<String> = ls.iter().map(|a| show_audience(&atom_audience(a))).collect();
            compare_sets(&who, "audience", &pa, &la, out);
        }
        if let Some(why) = capped {
            for f in &mut out[start..] {
                f.message.push_str(&format!(" ({why})"));
            }
        }
    }
}

/// The values of one atom declared among `atoms` ("not declared" is no value).
fn values(atoms: &[&Value], key: &str, norm: fn(&str) -> String) -> BTreeSet<String> {
    atoms.iter().filter_map(|a| a.get(key).and_then(Value::as_str)).map(norm).collect()
}

/// One atom over the blocks of a kind, as sets of values: a value never seen at lock is a
/// change, a pinned value that does not occur this time is reduced. Where no block of the kind
/// declared the atom at lock (a link's optional `mimeType`), one that appears is no change.
fn compare_sets(who: &str, what: &str, pinned: &BTreeSet<String>, live: &BTreeSet<String>, out: &mut Vec<Finding>) {
    let quote = |s: &BTreeSet<String>| s.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ");
    if !pinned.is_empty() {
        for v in live.difference(pinned) {
            out.push(Finding::changed(format!("{who}: {what} `{v}` never seen at lock (pinned: {})", quote(pinned))));
        }
    }
    for v in pinned.difference(live) {
        out.push(Finding::reduced(format!("{who}: {what} `{v}` does not appear this time")));
    }
}

fn compare_atoms(who: &str, p: &Value, l: &Value, out: &mut Vec<Finding>) {
    if let Some(ps) = p.get("scheme").and_then(Value::as_str).map(norm_scheme) {
        let ls = l.get("scheme").and_then(Value::as_str).map(norm_scheme).unwrap_or_else(|| "(none)".into());
        if ps != ls {
            out.push(Finding::changed(format!("{who}: URI scheme changed from `{ps}` to `{ls}`")));
        }
    }
    let mime = |a: &Value| a.get("mimeType").and_then(Value::as_str).map(norm_mime);
    match (mime(p), mime(l)) {
        (Some(pm), Some(lm)) if pm != lm => {
            out.push(Finding::changed(format!("{who}: MIME type changed from `{pm}` to `{lm}`")))
        }
        (Some(pm), None) => out.push(Finding::reduced(format!("{who}: MIME type `{pm}` is no longer declared"))),
        _ => {}
    }
    let (pa, la) = (atom_audience(p), atom_audience(l));
    if pa != la {
        out.push(Finding::changed(format!(
            "{who}: audience changed from {} to {}",
            show_audience(&pa),
            show_audience(&la)
        )));
    }
}

// ---------------------------------------------------------------------------------------------
// Consistency of one result (result-payload-invalid)

/// Blocks that contradict their own declaration, one message each: a JSON MIME type whose text
/// does not parse, base64 that does not decode, bytes whose magic number is not the declared
/// MIME type. MIME types without a known magic number are not checked.
pub fn payload_problems(tool: &str, result: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let all = blocks(result);
    let kinds: Vec<String> = all.iter().map(block_kind).collect();
    let n = counts(&kinds);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (b, kind) in all.iter().zip(&kinds) {
        let i = seen.entry(kind.clone()).or_insert(0);
        *i += 1;
        let who = if n.get(kind.as_str()) == Some(&1) {
            format!("{} of tool {tool}", label(kind))
        } else {
            format!("{} #{i} of tool {tool}", label(kind))
        };
        let (body, mime) = match kind.as_str() {
            "image" | "audio" => (b.get("data"), b.get("mimeType")),
            "resource(blob)" => (b.pointer("/resource/blob"), b.pointer("/resource/mimeType")),
            "resource(text)" => {
                let mime = b.pointer("/resource/mimeType").and_then(Value::as_str).map(mime_essence);
                if let (Some(m), Some(t)) = (mime, b.pointer("/resource/text").and_then(Value::as_str)) {
                    if is_json_mime(&m) && serde_json::from_str::<Value>(t).is_err() {
                        out.push(format!("{who}: declares `{m}` but its text is not JSON"));
                    }
                }
                continue;
            }
            _ => continue,
        };
        let Some(body) = body.and_then(Value::as_str) else {
            continue;
        };
        let Some(mime) = mime.and_then(Value::as_str).map(mime_essence) else {
            continue;
        };
        let Some(bytes) = base64_decode(body) else {
            out.push(format!("{who}: its data is not base64"));
            continue;
        };
        if is_json_mime(&mime) {
            if serde_json::from_slice::<Value>(&bytes).is_err() {
                out.push(format!("{who}: declares `{mime}` but its bytes are not JSON"));
            }
        } else if magic_matches(&mime, &bytes) == Some(false) {
            out.push(format!("{who}: declares `{mime}` but its bytes do not start with that type's magic number"));
        }
    }
    out
}

fn is_json_mime(essence: &str) -> bool {
    let base = essence.split(';').next().unwrap_or("");
    base == "application/json" || base.ends_with("+json")
}

/// Whether `bytes` start with the magic number of `mime` (an essence); `None` when the type has
/// no magic number known here (SVG, octet-stream, text: nothing to check). The signatures are the
/// `infer` crate's, except three it would refuse in well-formed data of the declared type
/// ([`mpeg_audio`], [`ebml`], [`iso_media`]).
pub fn magic_matches(mime: &str, bytes: &[u8]) -> Option<bool> {
    use infer::{archive, audio, image};
    let base = mime.split(';').next().unwrap_or("");
    let riff = |form: &[u8]| bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(form);
    Some(match base {
        "image/png" | "image/apng" => image::is_png(bytes),
        "image/jpeg" | "image/jpg" | "image/pjpeg" => image::is_jpeg(bytes),
        "image/gif" => image::is_gif(bytes),
        // infer reads only the form (`WEBP`, `WAVE`), not the `RIFF` before it.
        "image/webp" => image::is_webp(bytes) && riff(b"WEBP"),
        "image/bmp" | "image/x-ms-bmp" => image::is_bmp(bytes),
        "image/tiff" => image::is_tiff(bytes),
        "image/x-icon" | "image/vnd.microsoft.icon" => image::is_ico(bytes),
        "image/avif" => image::is_avif(bytes),
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => audio::is_wav(bytes),
        "audio/mpeg" | "audio/mp3" => mpeg_audio(bytes),
        "audio/ogg" | "audio/opus" | "application/ogg" => audio::is_ogg(bytes),
        "audio/flac" | "audio/x-flac" => audio::is_flac(bytes),
        "audio/webm" | "video/webm" => ebml(bytes),
        "audio/mp4" | "audio/m4a" | "audio/x-m4a" | "video/mp4" => iso_media(bytes),
        "application/pdf" => archive::is_pdf(bytes),
        "application/gzip" | "application/x-gzip" => archive::is_gz(bytes),
        "application/zip" => archive::is_zip(bytes),
        _ => return None,
    })
}

/// MPEG audio: an ID3 tag or any frame sync (11 bits set). infer's `is_mp3` knows three of the
/// frame headers only (`FF FB`, `FF F3`, `FF F2`), and would refuse the others (with a CRC, MPEG
/// 2.5).
fn mpeg_audio(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ID3") || (bytes.len() >= 2 && bytes[0] == 0xff && bytes[1] & 0xe0 == 0xe0)
}

/// WebM's EBML header. infer's `is_webm` wants 257 bytes and the `webm` doc type among the first
/// 256, which a short clip's header need not hold.
fn ebml(bytes: &[u8]) -> bool {
    bytes.starts_with(b"\x1a\x45\xdf\xa3")
}

/// An ISO base media file (`ftyp` at offset 4), whatever its brand. infer's `is_m4a` and `is_mp4`
/// know a list of brands, and MP4 audio or video comes under others too.
fn iso_media(bytes: &[u8]) -> bool {
    bytes.get(4..8) == Some(b"ftyp")
}

/// Standard base64 (RFC 4648, padding optional, ASCII whitespace ignored); `None` when the text
/// is not base64. Up to two `=` are read as padding, wherever the text ends (`QUJD=` is `ABC`);
/// leftover bits that are not zero are allowed.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    use base64::engine::{general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig};
    use base64::Engine;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::RequireNone)
            .with_decode_allow_trailing_bits(true),
    );
    let text: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let body = text.strip_suffix(b"==").or_else(|| text.strip_suffix(b"=")).unwrap_or(&text);
    LENIENT.decode(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations() {
        assert_eq!(relation(&json!({"content": []})), Relation::NoText);
        assert_eq!(
            relation(&json!({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]})),
            Relation::NoText
        );
        assert_eq!(relation(&json!({"content": [{"type": "text", "text": "hi"}]})), Relation::TextOnly);
        assert_eq!(relation(&json!({"content": [], "structuredContent": {"a": 1}})), Relation::StructureOnly);
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "{\"a\": 1.0}"}], "structuredContent": {"a": 1}})),
            Relation::EquivalentJson
        );
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "{\"a\": 2}"}], "structuredContent": {"a": 1}})),
            Relation::ConflictingJson
        );
        assert_eq!(
            relation(
                &json!({"content": [{"type": "text", "text": "summary"}, {"type": "text", "text": "{\"a\":1}"}], "structuredContent": {"a": 1}})
            ),
            Relation::EquivalentJson
        );
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "Done: 3 files"}], "structuredContent": {"a": 1}})),
            Relation::TextAndStructure
        );
        assert_eq!(
            relation(&json!({"content": [{"type": "text", "text": "42"}], "structuredContent": {"a": 1}})),
            Relation::TextAndStructure
        );
        // server-filesystem's directory_tree: the JSON text wrapped as a string.
        assert_eq!(
            relation(
                &json!({"content": [{"type": "text", "text": "[{\"name\": \"a\"}]"}], "structuredContent": {"content": "[{\"name\": \"a\"}]"}})
            ),
            Relation::TextAndStructure
        );
    }

    #[test]
    fn shape_has_no_values() {
        let r = json!({
            "content": [{"type": "text", "text": "secret"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "text", "text": "x"}, {"type": "x-custom"}],
            "structuredContent": {"name": "secret", "n": 3, "f": 1.5, "tags": ["a", "b"], "none": [], "ok": true, "z": null}
        });
        let s = shape(&r, true);
        assert_eq!(
            s,
            json!({
                "content": ["text", "image", "x-custom"],
                "blocks": [{"kind": "text"}, {"kind": "image", "mimeType": "image/png"}, {"kind": "text"}, {"kind": "x-custom"}],
                "structuredContent": {"name": "string", "n": "integer", "f": "number", "tags": ["string"], "none": [], "ok": true_type(), "z": "null"},
                "textStructure": "text-and-structure",
                "isError": false,
                "contractVersion": 2
            })
        );
        assert!(!s.to_string().contains("secret"));
        // With an outputSchema only the top-level type is kept.
        assert_eq!(shape(&r, false)["structuredContent"], json!({}));
    }

    fn true_type() -> &'static str {
        "boolean"
    }

    #[test]
    fn block_atoms_read_scheme_mime_and_audience() {
        let link = json!({"type": "resource_link", "uri": "HTTPS://x.example/a", "name": "a", "mimeType": "text/html; charset=utf-8; profile=mcp-app", "annotations": {"audience": ["user"], "priority": 0.5}});
        assert_eq!(
            block_atoms(&link),
            json!({"kind": "resource_link", "scheme": "https:", "mimeType": "text/html;profile=mcp-app", "audience": ["user"]})
        );
        let emb = json!({"type": "resource", "resource": {"uri": "file:///a.md", "text": "# a", "mimeType": "text/markdown"}, "annotations": {"audience": ["user", "assistant", "user"]}});
        assert_eq!(
            block_atoms(&emb),
            json!({"kind": "resource(text)", "scheme": "file:", "mimeType": "text/markdown"})
        );
        let blob = json!({"type": "resource", "resource": {"uri": "demo://r/2", "blob": "AA=="}});
        assert_eq!(block_atoms(&blob), json!({"kind": "resource(blob)", "scheme": "demo:"}));
        assert_eq!(uri_scheme("/relative/path"), "(none)");
        assert_eq!(uri_scheme("ui://widget"), "ui:");
        assert_eq!(mime_essence("Text/Plain; Charset=UTF-8"), "text/plain");
        // Case-insensitive, and a quoted profile is the unquoted one.
        assert_eq!(mime_essence("TEXT/HTML; Profile=\"MCP-App\""), "text/html;profile=mcp-app");
        assert_eq!(uri_scheme("UI://widget"), "ui:");
        // `audience: []` is read as absent: both.
        assert_eq!(audience(&json!({"type": "text", "annotations": {"audience": []}})), BOTH.to_vec());
        assert_eq!(
            block_atoms(&json!({"type": "text", "text": "", "annotations": {"audience": []}})),
            json!({"kind": "text"})
        );
    }

    fn res(content: Value, sc: Option<Value>) -> Value {
        let mut r = json!({"content": content});
        if let Some(sc) = sc {
            r["structuredContent"] = sc;
        }
        r
    }

    /// (rule, message) of comparing the contract of `lock` with that of `now`.
    fn diff(lock: &Value, now: &Value, has_schema: bool) -> Vec<(RuleId, String)> {
        compare("t", &shape(lock, !has_schema), &shape(now, !has_schema), has_schema)
            .into_iter()
            .map(|f| (f.rule, f.message))
            .collect()
    }

    fn rules_of(d: &[(RuleId, String)]) -> Vec<RuleId> {
        d.iter().map(|x| x.0).collect()
    }

    const CH: RuleId = crate::probe::RESULT_SHAPE_CHANGED;
    const RE: RuleId = crate::probe::RESULT_SHAPE_REDUCED;

    #[test]
    fn structured_content_presence_and_type() {
        let a = res(json!([]), Some(json!({"a": 1})));
        let none = res(json!([]), None);
        let null = res(json!([]), Some(Value::Null));
        assert_eq!(diff(&a, &none, false)[0].1, "structuredContent of tool t: present at lock (object), absent now");
        assert_eq!(rules_of(&diff(&a, &null, false)), vec![CH], "null is absent");
        // With an outputSchema its absence is structured-content-missing, not reported twice.
        assert!(diff(&a, &none, true).is_empty());
        // Appearing is no change.
        assert!(diff(&none, &a, false).is_empty());
        let arr = res(json!([]), Some(json!([1])));
        assert_eq!(diff(&a, &arr, true), vec![(CH, "structuredContent of tool t: object is now array".to_string())]);
        assert_eq!(rules_of(&diff(&arr, &a, false)), vec![CH]);
        // integer and number are one type.
        assert!(diff(&res(json!([]), Some(json!(3))), &res(json!([]), Some(json!(3.5))), false).is_empty());
    }

    #[test]
    fn skeleton_at_every_depth_without_an_output_schema() {
        let lock =
            res(json!([]), Some(json!({"stock": {"on_hand": 3, "sku": "a"}, "items": [{"id": 1}], "note": null})));
        let typed =
            res(json!([]), Some(json!({"stock": {"on_hand": "3", "sku": "b"}, "items": [{"id": 2}], "note": null})));
        assert_eq!(
            diff(&lock, &typed, false),
            vec![(CH, "structuredContent.stock.on_hand of tool t: integer is now string".to_string())]
        );
        // and back
        assert_eq!(rules_of(&diff(&typed, &lock, false)), vec![CH]);
        let deep =
            res(json!([]), Some(json!({"stock": {"on_hand": 3, "sku": "a"}, "items": [{"id": "x"}], "note": null})));
        assert_eq!(diff(&lock, &deep, false)[0].1, "structuredContent.items[].id of tool t: integer is now string");
        // A pinned key absent now is reduced; a new key is no change.
        let fewer = res(json!([]), Some(json!({"stock": {"on_hand": 3}, "items": [], "note": "n", "extra": true})));
        assert_eq!(
            diff(&lock, &fewer, false),
            vec![(
                RE,
                "structuredContent.stock.sku of tool t: pinned key is absent this time (pinned: string)".to_string()
            )]
        );
        // With an outputSchema nothing deeper than the top level is compared.
        assert!(diff(&lock, &typed, true).is_empty());
        // null and [] match anything, at lock or now.
        let nulls = res(json!([]), Some(json!({"stock": null, "items": null, "note": {"x": 1}})));
        assert!(diff(&lock, &nulls, false).is_empty(), "{:?}", diff(&lock, &nulls, false));
        assert!(diff(&nulls, &lock, false).is_empty());
        // A key that was null at lock and is absent now is reduced (RULES.md 8).
        let no_note = res(json!([]), Some(json!({"stock": {"on_hand": 3, "sku": "a"}, "items": [{"id": 1}]})));
        assert_eq!(
            diff(&lock, &no_note, false),
            vec![(RE, "structuredContent.note of tool t: pinned key is absent this time (pinned: null)".to_string())]
        );
        assert!(diff(&no_note, &lock, false).is_empty());
    }

    #[test]
    fn value_variation_is_no_change() {
        let lock = res(
            json!([{"type": "text", "text": "3 hits"}, {"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3}]),
            Some(
                json!({"hits": [{"id": 1, "score": 0.5, "tags": ["x"]}, {"id": 2, "score": 1, "tags": []}], "total": 2, "q": "x"}),
            ),
        );
        let now = res(
            json!([{"type": "text", "text": "other text\n\n"}, {"type": "resource_link", "uri": "file:///zzz/b", "name": "b", "title": "B", "size": 99, "description": "d", "_meta": {"k": 1}, "annotations": {"priority": 1, "lastModified": "2020-01-01T00:00:00Z"}}]),
            Some(
                json!({"q": "y", "total": 7, "hits": [{"tags": ["a", "b", "c"], "score": 2.25, "id": 9}, {"id": 3, "score": 0, "tags": []}, {"id": 4, "score": 1, "tags": ["z"]}]}),
            ),
        );
        assert!(diff(&lock, &now, false).is_empty(), "{:?}", diff(&lock, &now, false));
        // An empty result list: only a key's absence could show, and [] matches anything.
        let empty = res(json!([{"type": "text", "text": "0 hits"}]), Some(json!({"hits": [], "total": 0, "q": "x"})));
        assert_eq!(rules_of(&diff(&lock, &empty, false)), vec![RE], "the link kind not there this time is reduced");
    }

    #[test]
    fn block_sequence_with_equal_counts() {
        let t = json!({"type": "text", "text": "a"});
        let i = json!({"type": "image", "data": "", "mimeType": "image/png"});
        let lock = res(json!([t, i]), None);
        let swapped = res(json!([i, t]), None);
        assert_eq!(
            diff(&lock, &swapped, false),
            vec![(CH, "content of tool t: block order changed from [text, image] to [image, text]".to_string())]
        );
        // Text body to blob body of an embedded resource: another kind.
        let tr = json!({"type": "resource", "resource": {"uri": "file:///a", "text": "x"}});
        let br = json!({"type": "resource", "resource": {"uri": "file:///a", "blob": "AA=="}});
        let d = diff(&res(json!([tr]), None), &res(json!([br]), None), false);
        assert_eq!(rules_of(&d), vec![CH, RE], "{d:?}");
    }

    #[test]
    fn block_kinds_when_counts_differ() {
        let t = json!({"type": "text", "text": "a"});
        let l = json!({"type": "resource_link", "uri": "file:///a", "name": "a"});
        let i = json!({"type": "image", "data": "", "mimeType": "image/png"});
        let lock = res(json!([t, l, l]), None);
        // More or fewer links: counts are values.
        assert!(diff(&lock, &res(json!([t, l, l, l, l]), None), false).is_empty());
        assert!(diff(&lock, &res(json!([t, l]), None), false).is_empty());
        // No link at all: reduced.
        assert_eq!(
            diff(&lock, &res(json!([t]), None), false),
            vec![(
                RE,
                "content of tool t: no resource link this time (pinned kinds: [text, resource_link])".to_string()
            )]
        );
        // A kind never seen at lock: changed.
        let d = diff(&lock, &res(json!([t, l, i]), None), false);
        assert_eq!(rules_of(&d), vec![CH]);
        assert!(d[0].1.contains("image block never seen at lock"), "{d:?}");
        // Another first-appearance order: changed.
        let d = diff(&lock, &res(json!([l, t, l, l]), None), false);
        assert_eq!(rules_of(&d), vec![CH], "{d:?}");
        assert!(d[0].1.contains("first appear in another order"), "{d:?}");
    }

    #[test]
    fn per_block_atoms() {
        let emb = |uri: &str, mime: Option<&str>| {
            let mut r = json!({"type": "resource", "resource": {"uri": uri, "text": "x"}});
            if let Some(m) = mime {
                r["resource"]["mimeType"] = json!(m);
            }
            r
        };
        let lock = res(json!([emb("file:///a.md", Some("text/markdown"))]), None);
        let https = res(json!([emb("https://cdn.example/a.md", Some("text/markdown"))]), None);
        assert_eq!(
            diff(&lock, &https, false),
            vec![(CH, "embedded resource of tool t: URI scheme changed from `file:` to `https:`".to_string())]
        );
        assert_eq!(rules_of(&diff(&https, &lock, false)), vec![CH]);
        // Host and path are values.
        assert!(diff(&lock, &res(json!([emb("file:///other/b.md", Some("text/markdown"))]), None), false).is_empty());
        // MIME: parameters other than profile ignored.
        assert!(diff(&lock, &res(json!([emb("file:///a.md", Some("text/markdown; charset=utf-8"))]), None), false)
            .is_empty());
        let html = res(json!([emb("file:///a.md", Some("text/html"))]), None);
        assert_eq!(
            diff(&lock, &html, false),
            vec![(
                CH,
                "embedded resource of tool t: MIME type changed from `text/markdown` to `text/html`".to_string()
            )]
        );
        let app = res(json!([emb("file:///a.md", Some("text/html;profile=mcp-app"))]), None);
        assert_eq!(rules_of(&diff(&html, &app, false)), vec![CH]);
        assert_eq!(rules_of(&diff(&app, &html, false)), vec![CH]);
        // An optional MIME type gone is reduced; one that appears is no change.
        let bare = res(json!([emb("file:///a.md", None)]), None);
        assert_eq!(rules_of(&diff(&lock, &bare, false)), vec![RE]);
        assert!(diff(&bare, &lock, false).is_empty());
        // Audience: absent means both.
        let to = |aud: Value| res(json!([{"type": "text", "text": "x", "annotations": {"audience": aud}}]), None);
        let plain = res(json!([{"type": "text", "text": "x"}]), None);
        assert!(diff(&plain, &to(json!(["user", "assistant"])), false).is_empty());
        assert_eq!(
            diff(&plain, &to(json!(["user"])), false),
            vec![(CH, "text block of tool t: audience changed from [assistant, user] to [user]".to_string())]
        );
        assert_eq!(rules_of(&diff(&to(json!(["user"])), &plain, false)), vec![CH]);
        assert_eq!(rules_of(&diff(&to(json!(["user"])), &to(json!(["assistant"])), false)), vec![CH]);
        // Several blocks of a kind are numbered.
        let two = |a: &str, b: &str| res(json!([emb(a, None), emb(b, None)]), None);
        let d = diff(&two("file:///a", "file:///b"), &two("file:///a", "ui://b"), false);
        assert_eq!(
            d,
            vec![(CH, "embedded resource #2 of tool t: URI scheme changed from `file:` to `ui:`".to_string())]
        );
    }

    #[test]
    fn per_kind_atoms_when_counts_differ() {
        let link = |uri: &str| json!({"type": "resource_link", "uri": uri, "name": "n"});
        let lock = res(json!([link("file:///a"), link("file:///b")]), None);
        assert!(diff(&lock, &res(json!([link("file:///c")]), None), false).is_empty());
        let d = diff(&lock, &res(json!([link("file:///c"), link("https://x/y"), link("file:///d")]), None), false);
        assert_eq!(
            d,
            vec![(
                CH,
                "resource links of tool t: URI scheme `https:` never seen at lock (pinned: `file:`)".to_string()
            )]
        );
    }

    #[test]
    fn failed_calls_are_not_compared() {
        let ok = res(json!([{"type": "text", "text": "a"}]), None);
        let mut err = ok.clone();
        err["isError"] = json!(true);
        assert!(diff(&ok, &err, false).is_empty());
        assert!(diff(&err, &ok, false).is_empty());
        // isError: false is the default.
        let mut explicit = ok.clone();
        explicit["isError"] = json!(false);
        assert!(diff(&ok, &explicit, false).is_empty());
        assert!(compare("t", &rpc_error_shape(-32603), &shape(&ok, true), false).is_empty());
    }

    #[test]
    fn old_pins_compare_only_what_they_pinned() {
        // A shape from mcp-pin before the result contract: no `blocks`, first-element skeletons.
        let old = json!({"content": ["text", "resource_link"], "structuredContent": {"a": "string"}, "textStructure": "text-only", "isError": false});
        let now = res(
            json!([{"type": "text", "text": "x", "annotations": {"audience": ["user"]}}, {"type": "resource_link", "uri": "https://x", "name": "n", "mimeType": "a/b"}, {"type": "resource_link", "uri": "ui://x", "name": "n"}]),
            Some(json!({"a": 1})),
        );
        assert!(compare("t", &old, &shape(&now, true), false).is_empty());
        let no_link = res(json!([{"type": "text", "text": "x"}]), Some(json!({})));
        let d = compare("t", &old, &shape(&no_link, true), false);
        assert_eq!(d.iter().map(|f| f.rule).collect::<Vec<_>>(), vec![RE]);
        let d = compare("t", &old, &shape(&res(json!([]), None), true), false);
        assert_eq!(d.iter().map(|f| f.rule).collect::<Vec<_>>(), vec![CH, RE, RE]);
    }

    #[test]
    fn payload_consistency() {
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
        let jpeg = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBD";
        let img = |data: &str, mime: &str| res(json!([{"type": "image", "data": data, "mimeType": mime}]), None);
        assert!(payload_problems("t", &img(png, "image/png")).is_empty());
        assert!(payload_problems("t", &img(jpeg, "image/jpeg")).is_empty());
        assert_eq!(
            payload_problems("t", &img(jpeg, "image/png")),
            vec![
                "image block of tool t: declares `image/png` but its bytes do not start with that type's magic number"
            ]
        );
        assert_eq!(
            payload_problems("t", &img("not base64!", "image/png")),
            vec!["image block of tool t: its data is not base64"]
        );
        // Unknown types are not checked.
        assert!(payload_problems("t", &img(jpeg, "image/x-unknown")).is_empty());
        let json_res = |text: &str, mime: &str| {
            res(json!([{"type": "resource", "resource": {"uri": "file:///a", "text": text, "mimeType": mime}}]), None)
        };
        assert!(payload_problems("t", &json_res("{\"a\": 1}", "application/json")).is_empty());
        assert_eq!(payload_problems("t", &json_res("{oops", "application/vnd.x+json; charset=utf-8")).len(), 1);
        assert!(payload_problems("t", &json_res("{oops", "text/plain")).is_empty());
        let blob = res(
            json!([{"type": "resource", "resource": {"uri": "file:///a.gz", "blob": "H4sIAAAAAAAA", "mimeType": "application/gzip"}}]),
            None,
        );
        assert!(payload_problems("t", &blob).is_empty());
        assert_eq!(base64_decode("QUJD").unwrap(), b"ABC");
        assert_eq!(base64_decode("QUI=").unwrap(), b"AB");
        assert_eq!(base64_decode("QUI").unwrap(), b"AB");
        assert!(base64_decode("Q").is_none());
        assert!(base64_decode("QU=I").is_none());
        // Whitespace anywhere, padding where none is needed, leftover bits that are not zero.
        assert_eq!(base64_decode(" Q U\nI = ").unwrap(), b"AB");
        assert_eq!(base64_decode("QUJD=").unwrap(), b"ABC");
        assert_eq!(base64_decode("QUJ").unwrap(), b"AB");
        assert!(base64_decode("QUI===").is_none());
        assert!(base64_decode("QUI=\u{e9}").is_none());
        assert!(base64_decode("QU-_").is_none());
    }

    /// Every type with a magic number takes its own and refuses another's; SVG, octet-stream and
    /// text are not checked.
    #[test]
    fn magic_numbers_of_every_checked_type() {
        let ftyp = |brand: &[u8]| [b"\0\0\0\x10ftyp".as_slice(), brand, b"\0\0\0\0"].concat();
        let cases: &[(&[&str], Vec<u8>)] = &[
            (&["image/png", "image/apng"], b"\x89PNG\r\n\x1a\n".to_vec()),
            (&["image/jpeg", "image/jpg", "image/pjpeg"], b"\xff\xd8\xff\xe0".to_vec()),
            (&["image/gif"], b"GIF89a".to_vec()),
            (&["image/webp"], b"RIFF\0\0\0\0WEBPVP8 ".to_vec()),
            (&["image/bmp", "image/x-ms-bmp"], b"BM\0\0".to_vec()),
            (&["image/tiff"], b"II*\0\x08\0\0\0\0\0\0\0".to_vec()),
            (&["image/x-icon", "image/vnd.microsoft.icon"], b"\0\0\x01\0\x01\0".to_vec()),
            (&["image/avif"], ftyp(b"avif")),
            (&["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"], b"RIFF\0\0\0\0WAVEfmt ".to_vec()),
            (&["audio/mpeg", "audio/mp3"], b"\xff\xfa\x90\x00".to_vec()),
            (&["audio/mpeg"], b"ID3\x04".to_vec()),
            (&["audio/ogg", "audio/opus", "application/ogg"], b"OggS\0\x02".to_vec()),
            (&["audio/flac", "audio/x-flac"], b"fLaC\0\0".to_vec()),
            (&["audio/webm", "video/webm"], b"\x1a\x45\xdf\xa3\x9f".to_vec()),
            (&["audio/mp4", "audio/m4a", "audio/x-m4a", "video/mp4"], ftyp(b"mp42")),
            (&["application/pdf"], b"%PDF-1.7\n".to_vec()),
            (&["application/gzip", "application/x-gzip"], b"\x1f\x8b\x08\0".to_vec()),
            (&["application/zip"], b"PK\x03\x04\x14\0".to_vec()),
        ];
        let other = b"not the type at all, but long enough for every signature".to_vec();
        for (mimes, bytes) in cases {
            for mime in *mimes {
                assert_eq!(magic_matches(mime, bytes), Some(true), "{mime}");
                assert_eq!(magic_matches(mime, &other), Some(false), "{mime}");
            }
        }
        for mime in ["image/svg+xml", "application/octet-stream", "text/plain"] {
            assert_eq!(magic_matches(mime, &other), None, "{mime}");
        }
    }

    #[test]
    fn many_blocks_are_pinned_in_runs_and_hostile_atoms_are_bounded() {
        let link = |i: usize| json!({"type": "resource_link", "uri": format!("file:///{i}"), "name": "n"});
        let many = res(Value::Array((0..10_000).map(link).collect()), None);
        let s = shape(&many, true);
        // 4,096 equal atoms are one run; past the cap nothing new appeared.
        assert_eq!(s["blocks"], json!([{"kind": "resource_link", "scheme": "file:", "repeat": 4096}]));
        assert_eq!(s["blocksTruncated"], true);
        assert_eq!(each_block(&s).len(), MAX_BLOCKS);
        // Past the cap, first appearance only: fewer links now is no change, another scheme is
        // (and `file:` not there reduced), and each such line says why.
        assert!(compare("t", &s, &shape(&res(json!([link(1)]), None), true), false).is_empty());
        let odd = res(json!([{"type": "resource_link", "uri": "ui://x", "name": "n"}]), None);
        let d = compare("t", &s, &shape(&odd, true), false);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(
            d.iter()
                .all(|f| f.message.ends_with("(more than 4,096 blocks: content compared by first appearance only)")),
            "{d:?}"
        );
        assert_eq!(
            content_note(&s, &shape(&odd, true)).as_deref(),
            Some("more than 4,096 blocks: content compared by first appearance only")
        );
        let hostile = json!({"type": "image", "data": "", "mimeType": format!("image/png; profile={}", "x".repeat(10_000)), "annotations": {"audience": ["user\u{202e}"]}});
        let a = block_atoms(&hostile);
        assert_eq!(a, json!({"kind": "image", "mimeType": "(invalid)", "audience": ["(invalid)"]}));
        assert_eq!(uri_scheme(&format!("{}:x", "a".repeat(100))), "(invalid)");
        // A lockfile cannot make mcp-pin expand a run without bound.
        let forged = json!({"blocks": [{"kind": "text", "repeat": u64::MAX}, {"kind": "image", "repeat": 3}]});
        assert_eq!(each_block(&forged).len(), MAX_BLOCKS + MAX_EXTRA_ATOMS);
    }

    #[test]
    fn every_block_up_to_the_cap_is_one_sequence() {
        // 81 blocks whose order changed: the third suite's miss under a cap of 64.
        let t = json!({"type": "text", "text": "81 hits"});
        let i = json!({"type": "image", "data": "", "mimeType": "image/png"});
        let l = |n: usize| json!({"type": "resource_link", "uri": format!("file:///{n}"), "name": "n"});
        let build = |image_at: usize| {
            let mut v = vec![t.clone()];
            v.extend((0..79).map(l));
            v.insert(image_at, i.clone());
            res(Value::Array(v), None)
        };
        let d = diff(&build(41), &build(40), false);
        assert_eq!(rules_of(&d), vec![CH], "{d:?}");
        assert!(d[0].1.starts_with("content of tool t: block order changed from [text, resource_link, "), "{d:?}");
        assert!(diff(&build(41), &build(41), false).is_empty());
        assert_eq!(
            shape(&build(41), true)["blocks"].as_array().unwrap().len(),
            4,
            "runs: text, 40 links, image, 39 links"
        );
        // Past 4,096 blocks, a move is not compared, a kind first appearing past the cap is.
        let big = |image_at: usize, extra: Option<Value>| {
            let mut v: Vec<Value> = (0..5000).map(l).collect();
            v.insert(image_at, i.clone());
            v.extend(extra);
            res(Value::Array(v), None)
        };
        assert!(diff(&big(4500, None), &big(4600, None), false).is_empty());
        let audio = json!({"type": "audio", "data": "", "mimeType": "audio/wav"});
        let d = diff(&big(4500, None), &big(4500, Some(audio)), false);
        assert_eq!(rules_of(&d), vec![CH], "{d:?}");
        assert!(d[0].1.contains("audio block never seen at lock"), "{d:?}");
        let d = diff(&big(4500, None), &big(10, None), false);
        assert!(d.is_empty(), "the image still first appears after the first link: {d:?}");
    }

    #[test]
    fn a_pin_capped_at_64_by_an_earlier_release_is_compared_by_first_appearance() {
        let l = |n: usize| json!({"type": "resource_link", "uri": format!("file:///{n}"), "name": "n"});
        let i = json!({"type": "image", "data": "", "mimeType": "image/png"});
        // What the previous release pinned for [link x 40, image, link x 40]: 64 atoms in a row and
        // `blocksTruncated`, no version.
        let mut old_blocks: Vec<Value> = (0..40).map(|_| json!({"kind": "resource_link", "scheme": "file:"})).collect();
        old_blocks.push(json!({"kind": "image", "mimeType": "image/png"}));
        old_blocks.extend((0..23).map(|_| json!({"kind": "resource_link", "scheme": "file:"})));
        let old = json!({"blocks": old_blocks, "blocksTruncated": true, "content": ["resource_link", "image"], "isError": false, "textStructure": "no-text"});
        let mut now: Vec<Value> = (0..80).map(l).collect();
        now.insert(39, i);
        let live = shape(&res(Value::Array(now), None), true);
        assert!(compare("t", &old, &live, false).is_empty());
        let note = content_note(&old, &live).unwrap();
        assert!(note.starts_with("the lock holds the first 64 blocks"), "{note}");
    }

    #[test]
    fn per_kind_atoms_are_sets_and_not_declared_is_no_value() {
        let link = |mime: Option<&str>| {
            let mut l = json!({"type": "resource_link", "uri": "file:///a", "name": "n"});
            if let Some(m) = mime {
                l["mimeType"] = json!(m);
            }
            l
        };
        let none2 = res(json!([link(None), link(None)]), None);
        // A MIME type that appears on some links where none declared one: no change.
        assert!(diff(&none2, &res(json!([link(Some("text/plain")), link(None), link(None)]), None), false).is_empty());
        // Some declared at lock: a value never seen is a change, a pinned one not there reduced.
        let some = res(json!([link(Some("text/plain")), link(None)]), None);
        assert!(diff(&some, &res(json!([link(None), link(Some("text/plain")), link(None)]), None), false).is_empty());
        let d = diff(&some, &res(json!([link(None), link(None), link(None)]), None), false);
        assert_eq!(
            d,
            vec![(RE, "resource links of tool t: MIME type `text/plain` does not appear this time".to_string())]
        );
        let d = diff(&some, &res(json!([link(Some("text/html")), link(None), link(None)]), None), false);
        assert_eq!(rules_of(&d), vec![CH, RE], "{d:?}");
        assert_eq!(d[0].1, "resource links of tool t: MIME type `text/html` never seen at lock (pinned: `text/plain`)");
        // Embedded resources follow the link rule.
        let emb = |mime: Option<&str>| {
            let mut r = json!({"type": "resource", "resource": {"uri": "file:///a", "text": "x"}});
            if let Some(m) = mime {
                r["resource"]["mimeType"] = json!(m);
            }
            r
        };
        assert!(diff(
            &res(json!([emb(None)]), None),
            &res(json!([emb(Some("text/markdown")), emb(None)]), None),
            false
        )
        .is_empty());
        let d = diff(&res(json!([emb(Some("text/markdown"))]), None), &res(json!([emb(None), emb(None)]), None), false);
        assert_eq!(rules_of(&d), vec![RE], "{d:?}");
        // Letter case, quotes around a profile: the same value.
        assert!(diff(
            &res(json!([emb(Some("text/html;profile=mcp-app")), emb(None)]), None),
            &res(json!([emb(Some("TEXT/HTML; profile=\"MCP-APP\""))]), None),
            false
        )
        .is_empty());
    }

    #[test]
    fn the_audience_atom_is_the_set_of_per_block_audiences() {
        let t = |aud: Option<Value>| match aud {
            Some(a) => json!({"type": "text", "text": "x", "annotations": {"audience": a}}),
            None => json!({"type": "text", "text": "x"}),
        };
        let lock = res(json!([t(Some(json!(["user"]))), t(None)]), None);
        assert!(diff(&lock, &res(json!([t(Some(json!(["user"]))), t(None), t(Some(json!(["user"])))]), None), false)
            .is_empty());
        let d = diff(&lock, &res(json!([t(Some(json!(["assistant"]))), t(None), t(None)]), None), false);
        assert_eq!(
            d,
            vec![
                (CH, "text blocks of tool t: audience `[assistant]` never seen at lock (pinned: `[assistant, user]`, `[user]`)".to_string()),
                (RE, "text blocks of tool t: audience `[user]` does not appear this time".to_string())
            ]
        );
        // `audience: []` is absent, block by block and over a kind; so is a pin of `[]`.
        assert!(diff(&res(json!([t(None)]), None), &res(json!([t(Some(json!([])))]), None), false).is_empty());
        assert!(diff(&res(json!([t(Some(json!([])))]), None), &res(json!([t(None), t(None)]), None), false).is_empty());
        let old_pin = json!({"blocks": [{"kind": "text", "audience": []}], "content": ["text"], "isError": false, "textStructure": "text-only"});
        assert!(compare("t", &old_pin, &shape(&res(json!([t(None)]), None), true), false).is_empty());
        assert!(compare("t", &old_pin, &shape(&res(json!([t(None), t(None)]), None), true), false).is_empty());
    }

    #[test]
    fn a_pin_of_an_earlier_release_compares_mime_and_scheme_case_insensitively() {
        let old_pin = json!({"blocks": [{"kind": "resource(text)", "scheme": "UI:", "mimeType": "text/html;profile=MCP-App"}], "content": ["resource"], "isError": false, "textStructure": "no-text"});
        let now = res(
            json!([{"type": "resource", "resource": {"uri": "ui://w", "mimeType": "text/html;profile=mcp-app", "text": "<p>"}}]),
            None,
        );
        assert!(compare("t", &old_pin, &shape(&now, true), false).is_empty());
    }

    #[test]
    fn text_is_json_only_as_a_whole_object_or_array_and_every_such_block_counts() {
        let r = |texts: &[&str], sc: Value| {
            let content: Vec<Value> = texts.iter().map(|t| json!({"type": "text", "text": t})).collect();
            json!({"content": content, "structuredContent": sc})
        };
        // One block agrees, another is JSON that differs: a conflict.
        assert_eq!(relation(&r(&["{\"a\": 1}", "[1, 2]"], json!({"a": 1}))), Relation::ConflictingJson);
        // A bare scalar, a fenced block, JSON with text around it: text.
        assert_eq!(relation(&r(&["{\"a\": 1}", "2"], json!({"a": 1}))), Relation::EquivalentJson);
        assert_eq!(relation(&r(&["```json\n{\"a\": 2}\n```"], json!({"a": 1}))), Relation::TextAndStructure);
        assert_eq!(relation(&r(&["Result: {\"a\": 2}"], json!({"a": 1}))), Relation::TextAndStructure);
        assert_eq!(relation(&r(&["  {\"a\": 2}\n"], json!({"a": 1}))), Relation::ConflictingJson);
        assert_eq!(relation(&r(&["\"x\""], json!("x"))), Relation::TextAndStructure);
        // The conflict is new against a pin that agreed, not against one that conflicted.
        let both = r(&["{\"a\": 1}", "[1, 2]"], json!({"a": 1}));
        let pin = |rel: &str, version: Option<u64>| {
            let mut p = json!({"blocks": [], "content": ["text"], "isError": false, "textStructure": rel});
            if let Some(v) = version {
                p["contractVersion"] = json!(v);
            }
            p
        };
        assert!(new_conflict(&both, None, false));
        assert!(new_conflict(&both, Some(&pin("equivalent-json", Some(2))), false));
        assert!(!new_conflict(&both, Some(&pin("conflicting-json", Some(2))), false));
        // A pin of an earlier release took one agreeing block for agreement: not reported until
        // the next lock, unless no block agrees at all.
        assert!(!new_conflict(&both, Some(&pin("equivalent-json", None)), false));
        assert!(new_conflict(&r(&["[1, 2]"], json!({"a": 1})), Some(&pin("equivalent-json", None)), false));
    }

    /// The SDKs' wrapping of a return value that is no object (RULES.md, the result contract, 6):
    /// under an `outputSchema` `{result}`, a text block that is X and `structuredContent`
    /// `{"result": X}` agree (a conflict without `relation_in`'s `wrapped`); a text that is not X
    /// still conflicts, and without the wrapper schema nothing is unwrapped.
    #[test]
    fn the_sdk_result_wrapper_agrees_with_its_text() {
        let os = json!({"type": "object", "properties": {"result": {"type": "array"}}, "required": ["result"], "title": "f_Output"});
        assert!(is_result_wrapper(Some(&os)));
        assert!(!is_result_wrapper(Some(
            &json!({"type": "object", "properties": {"result": {}, "n": {}}, "required": ["result", "n"]})
        )));
        assert!(!is_result_wrapper(Some(&json!({"type": "object", "properties": {"result": {}}}))));
        assert!(!is_result_wrapper(None));
        let r = |texts: &[&str], sc: Value| {
            let content: Vec<Value> = texts.iter().map(|t| json!({"type": "text", "text": t})).collect();
            json!({"content": content, "structuredContent": sc})
        };
        let list = r(&["[1, 2]"], json!({"result": [1, 2]}));
        assert_eq!(relation_in(&list, true), Relation::EquivalentJson);
        assert_eq!(relation_in(&list, false), Relation::ConflictingJson);
        let obj = r(&["{\"a\": 1}"], json!({"result": {"a": 1.0}}));
        assert_eq!(relation_in(&obj, true), Relation::EquivalentJson);
        // X and {"result": X} side by side agree.
        assert_eq!(
            relation_in(&r(&["[1]", "{\"result\": [1]}"], json!({"result": [1]})), true),
            Relation::EquivalentJson
        );
        // A list written one block per item (the Python SDK's way) agrees too.
        let items = r(&["{\"id\": 1}", "{\"id\": 2}"], json!({"result": [{"id": 1}, {"id": 2}]}));
        assert_eq!(relation_in(&items, true), Relation::EquivalentJson);
        assert_eq!(relation_in(&r(&["{\"id\": 3}"], json!({"result": [{"id": 1}]})), true), Relation::ConflictingJson);
        // A text that really disagrees with the wrapped value still conflicts.
        assert_eq!(relation_in(&r(&["[1, 3]"], json!({"result": [1, 2]})), true), Relation::ConflictingJson);
        assert!(new_conflict(&r(&["[1, 3]"], json!({"result": [1, 2]})), None, true));
        assert!(!new_conflict(&list, None, true));
        // The pin records the relation as the wrapper reads it.
        assert_eq!(shape_in(&list, false, true)["textStructure"], "equivalent-json");
    }

    #[test]
    fn is_error_is_only_the_boolean_true() {
        for v in [json!("true"), json!(1), json!(null), json!({}), json!(false)] {
            let r = json!({"content": [{"type": "text", "text": "x"}], "isError": v});
            assert!(!is_error(&r), "{v}");
            assert_eq!(shape(&r, true)["isError"], false);
        }
        assert!(is_error(&json!({"content": [], "isError": true})));
    }

    #[test]
    fn an_unknown_block_type_is_a_kind_of_its_own() {
        let w = |t: &str| json!({"type": t, "payload": 1});
        let text = json!({"type": "text", "text": "x"});
        let lock = res(json!([text, w("x-widget")]), None);
        assert!(diff(&lock, &res(json!([text, w("x-widget")]), None), false).is_empty());
        let d = diff(&lock, &res(json!([text, w("x-chart")]), None), false);
        assert_eq!(rules_of(&d), vec![CH, RE], "{d:?}");
        assert!(d[0].1.contains("`x-chart` block never seen at lock"), "{d:?}");
        let d = diff(&lock, &res(json!([w("x-widget"), text]), None), false);
        assert_eq!(
            d,
            vec![(CH, "content of tool t: block order changed from [text, x-widget] to [x-widget, text]".to_string())]
        );
    }
}
