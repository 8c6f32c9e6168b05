//! The semantic diff: normalise, walk, classify.
//!
//! - [`canonical`]: numbers in one spelling, made once per value the diff reads (stage zero).
//! - [`normalize`]: equal spellings become equal values (stage one).
//! - [`walk`]: one exhaustive sub-schema walker, input and output mirrored (stage two).
//! - [`tool`]: tool-level fields (description, annotations, execution, ...); [`ui`]: the app an
//!   MCP Apps host renders for a tool (`_meta.ui`).
//! - [`num`]: exact decimal numbers; [`text`]: whitespace and hidden characters.
//! - [`policy`]: config overrides and ignores applied to the default classes.
//! - [`launch`]: the launch a server is started with, as written, against the pinned one.
//! - [`verdict`]: diff and policy as one judgement, and what it means per tool at run time
//!   (`check` gates on it, the proxy acts on it).

pub mod canonical;
pub mod launch;
pub mod normalize;
pub mod num;
pub mod overlap;
pub mod policy;
pub mod text;
pub mod tool;
pub mod ui;
pub mod verdict;
pub mod walk;

use crate::json::pointer_token;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use crate::change::Change;
use crate::rules::{self, RuleId};
use crate::surface::ServerSurface;
use canonical::Canonical;

pub use tool::{diff_canonical, diff_tool};

/// A change of one tool, with the rule's default class.
pub(crate) fn tool_change(
    rule: RuleId,
    tool: &str,
    pointer: String,
    message: String,
    before: Option<Value>,
    after: Option<Value>,
) -> Change {
    Change { rule, class: rule.class(), tool: Some(tool.to_string()), pointer, message, before, after, cues: None }
}

/// How deep the walker follows nested schemas before it stops (`schema-too-deep`).
pub const MAX_DEPTH: usize = 128;

/// Every change between a pinned surface and a live one, unclassified by policy (default classes),
/// ordered by (tool, pointer, rule).
pub fn diff_surfaces(old: &ServerSurface, new: &ServerSurface) -> Vec<Change> {
    // Both steps leave the changes finished (escaped, in order).
    let mut out = diff_surfaces_partial(old, new);
    every_tool_gone(&mut out, old.tools.len(), new.tools.len());
    out
}

/// [`diff_surfaces`] of surfaces that hold only some of their tools (the ones whose text
/// changed): the caller applies [`every_tool_gone`] with the whole surfaces' counts.
pub fn diff_surfaces_partial(old: &ServerSurface, new: &ServerSurface) -> Vec<Change> {
    diff_surfaces_served(old, new, &[])
}

/// [`diff_surfaces_partial`] where `served` names every tool the server serves (both sides of
/// the whole surfaces), not only those the partial surfaces hold: another tool's name is a cue
/// only when the server does not serve it.
pub fn diff_surfaces_served(old: &ServerSurface, new: &ServerSurface, served: &[&str]) -> Vec<Change> {
    let mut out = server_changes(old, new);
    // A digest a tool claims for itself is checked when the tool is new or changed (an
    // unchanged tool was pinned with the same claim).
    out.extend(crate::digest::mismatches(new.tools.iter().filter(|(k, v)| old.tools.get(*k) != Some(*v))));

    let removed: Vec<&String> = old.tools.keys().filter(|k| !new.tools.contains_key(*k)).collect();
    let added: Vec<&String> = new.tools.keys().filter(|k| !old.tools.contains_key(*k)).collect();

    // Each tool the diff reads is made canonical once; a tool sent the same both times is not read.
    for (name, o) in &old.tools {
        if let Some(n) = new.tools.get(name).filter(|n| *n != o) {
            out.extend(diff_canonical(name, &Canonical::of(o), &Canonical::of(n)));
        }
    }
    let gone: HashMap<&String, Canonical> = removed.iter().map(|n| (*n, Canonical::of(&old.tools[*n]))).collect();
    let came: HashMap<&String, Canonical> = added.iter().map(|n| (*n, Canonical::of(&new.tools[*n]))).collect();

    let renames = match_renames(&removed, &added, &gone, &came);
    let renamed_old: BTreeSet<&String> = renames.iter().map(|(o, _)| *o).collect();
    let renamed_new: BTreeSet<&String> = renames.iter().map(|(_, n)| *n).collect();
    for (o, n) in &renames {
        out.push(Change {
            rule: RuleId::ToolRenamed,
            class: rules::default_class(RuleId::ToolRenamed),
            tool: Some((*n).clone()),
            pointer: "/name".into(),
            message: format!(
                "tool {} was renamed to {} (calls to the old name now fail)",
                text::escape_hidden(o),
                text::escape_hidden(n)
            ),
            before: Some(Value::String((*o).clone())),
            after: Some(Value::String((*n).clone())),
            cues: None,
        });
        out.extend(diff_canonical(n, &gone[*o], &came[*n]));
    }
    for name in removed.iter().filter(|n| !renamed_old.contains(*n)) {
        out.push(Change {
            rule: RuleId::ToolRemoved,
            class: rules::default_class(RuleId::ToolRemoved),
            tool: Some((*name).clone()),
            pointer: String::new(),
            message: format!(
                "tool {} was removed (the model is no longer shown it and answers without it)",
                text::escape_hidden(name)
            ),
            before: None,
            after: None,
            cues: None,
        });
    }
    for name in added.iter().filter(|n| !renamed_new.contains(*n)) {
        out.push(Change {
            rule: RuleId::ToolAdded,
            class: rules::default_class(RuleId::ToolAdded),
            tool: Some((*name).clone()),
            pointer: String::new(),
            message: format!("tool {} was added", text::escape_hidden(name)),
            before: None,
            after: None,
            cues: None,
        });
        out.extend(tool::hidden_changes(name, None, &came[*name]));
    }
    mark_cues(&mut out, old, new, served);
    finish(&mut out);
    out
}

/// The cues the words each change adds for the model carry (RULES.md, "Risk within a rule"): in
/// a changed description or instructions, a new tool's descriptions, hidden characters; and,
/// over the release's changes, how much each adds ([`crate::change::mark_adds`]). The tools the server
/// serves are those of both surfaces and `served`; their property names are its own words too;
/// the pinned surface's text (the live one's on a first pin) says what it is written in.
fn mark_cues(out: &mut [Change], old: &ServerSurface, new: &ServerSurface, served: &[&str]) {
    use rules::cues;
    let mut props: Vec<String> = Vec::new();
    for tool in old.tools.values().chain(new.tools.values()) {
        property_names(tool, &mut props, 0);
    }
    let surface = if old.tools.is_empty() && old.instructions.is_none() { new } else { old };
    let mut text_of = surface.tools.values().map(model_text).collect::<Vec<_>>();
    text_of.extend(surface.instructions.clone());
    let names = cues::ToolNames::new(
        old.tools.keys().chain(new.tools.keys()).map(String::as_str).chain(served.iter().copied()),
    )
    .with_words(props.iter().map(String::as_str))
    .with_surface_text(&text_of.join("\n"));
    let text = |v: &Option<Value>| match v {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    for c in out.iter_mut().filter(|c| cues::applies(c.rule)) {
        c.cues = match c.rule {
            RuleId::HiddenCharacters => {
                let at = text(&c.after);
                Some(cues::Cues {
                    found: vec![cues::Cue { kind: cues::CueKind::Hidden, at: at.clone() }],
                    added: at.chars().take(cues::ADDED_MAX).collect(),
                })
            }
            RuleId::ToolAdded => {
                let Some(tool) = c.tool.as_deref().and_then(|t| new.tools.get(t)) else { continue };
                cues::added("", &model_text(tool), names.except(c.tool.as_deref()))
            }
            _ => cues::added(&text(&c.before), &text(&c.after), names.except(c.tool.as_deref())),
        };
    }
    crate::change::mark_adds(out);
}

/// The names of every property in a tool's schemas (`properties` keys), for [`mark_cues`].
fn property_names(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(p)) = m.get("properties") {
                out.extend(p.keys().cloned());
            }
            m.values().for_each(|x| property_names(x, out, depth + 1));
        }
        Value::Array(a) => a.iter().for_each(|x| property_names(x, out, depth + 1)),
        _ => {}
    }
}

/// What a new tool puts before the model: its description and every description in its input
/// schema, one per line.
fn model_text(tool: &Value) -> String {
    fn walk(v: &Value, out: &mut Vec<String>, depth: usize) {
        if depth > 64 {
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("description", Value::String(s)) => out.push(s.clone()),
                        _ => walk(x, out, depth + 1),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out, depth + 1)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(Value::String(d)) = tool.get("description") {
        out.push(d.clone());
    }
    if let Some(schema) = tool.get("inputSchema") {
        walk(schema, &mut out, 0);
    }
    out.join("\n")
}

/// When a server that had `pinned` tools now lists none (`live` is 0), its per-tool
/// `tool-removed` lines become one line saying every tool is gone (usually a start-up or
/// authentication failure). The counts are the whole surfaces': callers that diff only the
/// tools whose text changed pass the real counts.
pub fn every_tool_gone(changes: &mut Vec<Change>, pinned: usize, live: usize) {
    if live > 0 || pinned == 0 {
        return;
    }
    changes.retain(|c| !(c.rule == RuleId::ToolRemoved && c.tool.is_some()));
    changes.push(Change {
        rule: RuleId::ToolRemoved,
        class: rules::default_class(RuleId::ToolRemoved),
        tool: None,
        pointer: "/tools".into(),
        message: format!(
            "every tool is gone: the server listed {pinned} tool{} when locked and lists none now (often a start-up or authentication failure; see the server's log)",
            if pinned == 1 { "" } else { "s" }
        ),
        before: Some(Value::from(pinned)),
        after: Some(Value::from(0)),
        cues: None,
    });
    finish(changes);
}

/// The last step of every diff: each message becomes one line with every hidden or control
/// character spelled out (whatever value a message quotes, from whichever rule), then the
/// deterministic order.
pub(crate) fn finish(v: &mut [Change]) {
    for c in v.iter_mut() {
        c.message = text::escape_hidden(&c.message);
    }
    sort_changes(v);
}

/// Deterministic order: (tool, pointer, rule, message).
pub fn sort_changes(v: &mut [Change]) {
    v.sort_by(|a, b| (&a.tool, &a.pointer, &a.rule, &a.message).cmp(&(&b.tool, &b.pointer, &b.rule, &b.message)));
}

/// A tool name without case and the separators RULES names (`-`, `_`, `.`, space):
/// `get_tiny_image`, `getTinyImage` and `get-tiny-image` fold to one spelling. `/` is no
/// separator: it namespaces (`github/create_issue` is not `githubcreate_issue`).
fn fold_name(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, '-' | '_' | '.' | ' ')).flat_map(char::to_lowercase).collect()
}

/// A tool's inputSchema and outputSchema, normalised, with every description and title set
/// aside ([`normalize::without_annotations`]): two tools with the same key differ in words only.
/// An absent inputSchema reads as `{}` (as the tool diff reads it); an absent outputSchema is
/// no schema, never `{}`.
fn schema_key(v: &Canonical) -> String {
    let schema = |key: &str| v.get(key).map(|s| normalize::without_annotations(&normalize::normalize_schema(s)));
    let input = schema("inputSchema").unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    normalize::canon(&Value::Array(vec![input, schema("outputSchema").unwrap_or(Value::Null)]))
}

/// The (removed, added) pairs whose keys are equal, where exactly one removed and one added
/// tool have that key.
fn one_to_one<'a, K: std::hash::Hash + Eq>(
    removed: &[&'a String],
    added: &[&'a String],
    key_old: impl Fn(&'a String) -> K,
    key_new: impl Fn(&'a String) -> K,
) -> Vec<(&'a String, &'a String)> {
    let mut groups: HashMap<K, (Vec<&'a String>, Vec<&'a String>)> = HashMap::new();
    for o in removed {
        groups.entry(key_old(o)).or_default().0.push(o);
    }
    for n in added {
        if let Some(g) = groups.get_mut(&key_new(n)) {
            g.1.push(n);
        }
    }
    groups
        .into_values()
        .filter_map(|(o, n)| match (&o[..], &n[..]) {
            ([o], [n]) => Some((*o, *n)),
            _ => None,
        })
        .collect()
}

/// Pair removed and added tools that are one renamed tool (RULES, `tool-renamed`): (a) their
/// inputSchema and outputSchema are equal once descriptions and titles are set aside, whatever
/// the names (`run_code` -> `run_code_unsafe`), or (b) their names are equal once case and
/// separators are set aside (`getTinyImage` -> `get-tiny-image`); in both, only one to one. A
/// removed tool with two candidates, or an added tool two removed ones claim (under one
/// condition or across the two), is no rename: it stays removed and added. Linear in the tools.
fn match_renames<'a>(
    removed: &[&'a String],
    added: &[&'a String],
    old: &HashMap<&'a String, Canonical>,
    new: &HashMap<&'a String, Canonical>,
) -> Vec<(&'a String, &'a String)> {
    if removed.is_empty() || added.is_empty() {
        return Vec::new();
    }
    let mut pairs: BTreeSet<(&String, &String)> = BTreeSet::new();
    pairs.extend(one_to_one(removed, added, |o| schema_key(&old[o]), |n| schema_key(&new[n])));
    pairs.extend(one_to_one(removed, added, |o| fold_name(o), |n| fold_name(n)));
    // The two conditions may pair one tool with two others: then neither is a rename.
    let mut degree: HashMap<(bool, &String), usize> = HashMap::new();
    for (o, n) in &pairs {
        *degree.entry((false, *o)).or_default() += 1;
        *degree.entry((true, *n)).or_default() += 1;
    }
    pairs.into_iter().filter(|(o, n)| degree[&(false, *o)] == 1 && degree[&(true, *n)] == 1).collect()
}

fn server_changes(old: &ServerSurface, new: &ServerSurface) -> Vec<Change> {
    let mut out = Vec::new();
    let mk = |rule: RuleId, pointer: String, message: String, before: Option<Value>, after: Option<Value>| Change {
        rule,
        class: rule.class(),
        tool: None,
        pointer,
        message,
        before,
        after,
        cues: None,
    };
    // instructions
    let (io, inew) = (old.instructions.as_deref(), new.instructions.as_deref());
    if io != inew {
        let (a, b) = (io.unwrap_or(""), inew.unwrap_or(""));
        let rule = if text::same_words(a, b) { RuleId::DescriptionReflowed } else { RuleId::InstructionsChanged };
        let msg = match (io, inew) {
            (None, Some(_)) => "the server now sends instructions".to_string(),
            (Some(_), None) => "the server no longer sends instructions".to_string(),
            _ if rule == RuleId::DescriptionReflowed => {
                "the server's instructions were reflowed (whitespace only)".to_string()
            }
            _ => "the server's instructions changed".to_string(),
        };
        out.push(mk(
            rule,
            "/instructions".into(),
            msg,
            io.map(|s| Value::String(s.into())),
            inew.map(|s| Value::String(s.into())),
        ));
        if let Some(b) = inew {
            let known: BTreeSet<String> = io
                .filter(|s| text::has_hidden(s))
                .map(|s| vec![s.to_string()])
                .unwrap_or_default()
                .into_iter()
                .collect();
            if text::has_hidden(b) && !known.contains(b) {
                out.push(mk(
                    RuleId::HiddenCharacters,
                    "/instructions".into(),
                    format!("the server's instructions now contain hidden characters: \"{}\"", text::escape_hidden(b)),
                    None,
                    Some(Value::String(text::escape_hidden(b))),
                ));
            }
        }
    }
    // protocol version
    if old.protocol_version != new.protocol_version {
        out.push(mk(
            RuleId::ProtocolVersionChanged,
            "/protocolVersion".into(),
            format!(
                "negotiated protocol version changed from {} to {}",
                text::escape_hidden(&old.protocol_version),
                text::escape_hidden(&new.protocol_version)
            ),
            Some(Value::String(old.protocol_version.clone())),
            Some(Value::String(new.protocol_version.clone())),
        ));
    }
    // serverInfo
    let (si_old, si_new) = (Canonical::of(&old.server_info), Canonical::of(&new.server_info));
    let empty = serde_json::Map::new();
    let so = si_old.as_object().unwrap_or(&empty);
    let sn = si_new.as_object().unwrap_or(&empty);
    if si_old.is_object() || si_old.is_null() {
        let keys: BTreeSet<&String> = so.keys().chain(sn.keys()).collect();
        for k in keys {
            let (a, b) = (so.get(k), sn.get(k));
            if a.map(normalize::canon) == b.map(normalize::canon) {
                continue;
            }
            let rule = if k == "version" { RuleId::ServerVersionChanged } else { RuleId::ServerInfoChanged };
            let show = |v: Option<&Value>| v.map(walk::short).unwrap_or_else(|| "(none)".into());
            out.push(mk(
                rule,
                format!("/serverInfo/{}", pointer_token(k)),
                format!("serverInfo.{} changed from {} to {}", text::escape_hidden(k), show(a), show(b)),
                a.cloned(),
                b.cloned(),
            ));
        }
    } else if si_old != si_new {
        out.push(mk(
            RuleId::ServerInfoChanged,
            "/serverInfo".into(),
            "serverInfo changed".into(),
            Some((*si_old).clone()),
            Some((*si_new).clone()),
        ));
    }
    // capabilities, per top-level capability
    let (co, cn) = (Canonical::of(&old.capabilities), Canonical::of(&new.capabilities));
    match (co.as_object(), cn.as_object()) {
        (Some(a), Some(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let (x, y) = (a.get(k), b.get(k));
                if x.map(normalize::canon) == y.map(normalize::canon) {
                    continue;
                }
                let msg = match (x, y) {
                    (None, Some(_)) => format!("the server now declares capability {}", text::escape_hidden(k)),
                    (Some(_), None) => format!("the server no longer declares capability {}", text::escape_hidden(k)),
                    (Some(x), Some(y)) => format!(
                        "capability {} changed from {} to {}",
                        text::escape_hidden(k),
                        walk::short(x),
                        walk::short(y)
                    ),
                    (None, None) => continue, // a key of one side or the other
                };
                out.push(mk(
                    RuleId::CapabilitiesChanged,
                    format!("/capabilities/{}", pointer_token(k)),
                    msg,
                    x.cloned(),
                    y.cloned(),
                ));
            }
        }
        _ => {
            let blank = |v: &Value| v.is_null() || v.as_object().is_some_and(|m| m.is_empty());
            if normalize::canon(&co) != normalize::canon(&cn) && !(blank(&co) && blank(&cn)) {
                out.push(mk(
                    RuleId::CapabilitiesChanged,
                    "/capabilities".into(),
                    "the server's capabilities changed".into(),
                    Some((*co).clone()),
                    Some((*cn).clone()),
                ));
            }
        }
    }
    out
}

/// Turn a surface file (`{"tools": [...], "instructions": ..., ...}`) into a [`ServerSurface`].
/// Used by tests and benches; tools without a string `name` are keyed by their index.
pub fn surface_from_json(v: &Value) -> ServerSurface {
    let mut tools = BTreeMap::new();
    if let Some(Value::Array(a)) = v.get("tools") {
        for (i, t) in a.iter().enumerate() {
            let name = t.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("#{i}"));
            tools.insert(name, t.clone());
        }
    }
    ServerSurface {
        protocol_version: v.get("protocolVersion").and_then(Value::as_str).unwrap_or("").to_string(),
        server_info: v.get("serverInfo").cloned().unwrap_or(Value::Null),
        instructions: v.get("instructions").and_then(Value::as_str).map(str::to_string),
        capabilities: v.get("capabilities").cloned().unwrap_or(Value::Null),
        tools,
    }
}
