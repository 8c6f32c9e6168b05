//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`).
//!
//! One `reportingDescriptor` per rule of the catalogue (plus any id a result uses that the
//! catalogue lacks), one `result` per finding located on the tool's line of the lockfile, with
//! `partialFingerprints` built from server, tool, rule and pointer so that an alert keeps its
//! identity across runs while the lockfile's line numbers move.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::finding::{findings, fnv1a_hex, Finding, Level, Source, PROBE_FAILED_RULE, SERVER_ERROR_RULE};
use super::{ProbeKind, RenderContext, Report};
use crate::change::Class;
use crate::json::escape_for_display;
use crate::rules::{lookup, RuleInfo, Surface, RULES};

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of our fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mcpPinFinding/v1";

fn surface_tag(s: Surface) -> &'static str {
    match s {
        Surface::Tool => "tool",
        Surface::InputSchema => "inputSchema",
        Surface::OutputSchema => "outputSchema",
        Surface::Server => "server",
        Surface::Probe => "probe",
    }
}

fn descriptor(rule: &RuleInfo) -> Value {
    let mut help_text = rule.help.to_string();
    let mut help_md = rule.help.to_string();
    if !rule.before.is_empty() || !rule.after.is_empty() {
        help_text.push_str(&format!("\n\nBefore:\n{}\n\nAfter:\n{}", rule.before, rule.after));
        help_md.push_str(&format!(
            "\n\nBefore:\n\n{}\n\nAfter:\n\n{}",
            super::markdown::fenced(rule.before, ""),
            super::markdown::fenced(rule.after, "")
        ));
    }
    help_text.push_str(&format!("\n\nRun `mcp-pin explain {}` for more.", rule.id));
    help_md.push_str(&format!("\n\nRun `mcp-pin explain {}` for more.", rule.id));
    json!({
        "id": rule.id,
        "name": pascal(rule.id),
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.help},
        "help": {"text": help_text, "markdown": help_md},
        "defaultConfiguration": {"level": Level::of_class(rule.class).as_str()},
        "properties": {"tags": ["mcp", rule.class.as_str(), surface_tag(rule.surface)]}
    })
}

/// A descriptor for an id the catalogue does not have: the id is all we know.
fn fallback_descriptor(id: &str, class: Class) -> Value {
    let text = match id {
        SERVER_ERROR_RULE => {
            "mcp-pin could not check the server (it failed to start, answer, or is missing from the lockfile)"
                .to_string()
        }
        PROBE_FAILED_RULE => "A probe call failed".to_string(),
        _ => id.to_string(),
    };
    json!({
        "id": id,
        "name": pascal(id),
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
        "defaultConfiguration": {"level": Level::of_class(class).as_str()},
        "properties": {"tags": ["mcp", class.as_str()]}
    })
}

/// `required-removed` -> `RequiredRemoved` (SARIF's `name` is a PascalCase identifier).
fn pascal(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next().map(|c| c.to_ascii_uppercase().to_string() + cs.as_str()).unwrap_or_default()
        })
        .collect()
}

/// Percent-encode what may not stand in a URI reference (spaces, `%`, non-ASCII...).
pub fn uri_reference(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn fingerprint(f: &Finding<'_>) -> String {
    let kind = match f.source {
        Source::Change(_) => "change",
        Source::Probe(ProbeKind::Call) => "probe-call",
        Source::Probe(ProbeKind::Incomplete) => "probe-incomplete",
        Source::ServerError => "server-error",
    };
    fnv1a_hex(&[kind, f.server, f.tool.unwrap_or(""), f.rule, f.pointer])
}

fn result(f: &Finding<'_>, rule_index: usize, ctx: &RenderContext) -> Value {
    let mut physical = Map::new();
    physical.insert("artifactLocation".into(), json!({"uri": uri_reference(&ctx.lockfile_display)}));
    if let Some(line) = ctx.lock_text.get().and_then(|t| crate::lockfile::line_of(t, f.server, f.tool)) {
        physical.insert("region".into(), json!({"startLine": line}));
    }
    let logical = match f.tool {
        Some(t) => json!({"name": t, "fullyQualifiedName": f.subject(), "kind": "function"}),
        None => json!({"name": f.server, "fullyQualifiedName": f.server, "kind": "module"}),
    };
    let mut props = Map::new();
    props.insert("server".into(), json!(f.server));
    if let Some(t) = f.tool {
        props.insert("tool".into(), json!(t));
    }
    props.insert("class".into(), json!(f.class.as_str()));
    props.insert("failsGate".into(), json!(f.fails_gate));
    if !f.pointer.is_empty() {
        props.insert("pointer".into(), json!(f.pointer));
    }
    if let Source::Change(c) = f.source {
        if let Some(b) = &c.before {
            props.insert("before".into(), b.clone());
        }
        if let Some(a) = &c.after {
            props.insert("after".into(), a.clone());
        }
    }
    let text = format!("{}: {}", f.subject(), escape_for_display(f.message));
    json!({
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": f.level().as_str(),
        "message": {"text": text},
        "locations": [{
            "physicalLocation": Value::Object(physical),
            "logicalLocations": [logical]
        }],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f)},
        "properties": Value::Object(props)
    })
}

/// The SARIF log as a value.
pub fn to_value(report: &Report, ctx: &RenderContext) -> Value {
    let found = findings(report, ctx.style.verbose);
    // Descriptors: the whole catalogue in its order, then ids it lacks, sorted.
    let mut rules: Vec<Value> = RULES.iter().map(descriptor).collect();
    let mut index: BTreeMap<String, usize> = RULES.iter().enumerate().map(|(i, r)| (r.id.to_string(), i)).collect();
    let mut extra: BTreeMap<&str, Class> = BTreeMap::new();
    for f in &found {
        if lookup(f.rule).is_none() {
            let class = extra.entry(f.rule).or_insert(f.class);
            *class = (*class).max(f.class);
        }
    }
    for (id, class) in extra {
        index.insert(id.to_string(), rules.len());
        rules.push(fallback_descriptor(id, class));
    }
    let results: Vec<Value> = found.iter().map(|f| result(f, index[f.rule], ctx)).collect();
    let errors: Vec<Value> = report
        .servers
        .iter()
        .filter_map(|s| {
            s.error.as_ref().map(|e| {
                json!({
                    "level": "error",
                    "message": {"text": format!("{}: {}", s.name, escape_for_display(e))},
                    "descriptor": {"id": SERVER_ERROR_RULE}
                })
            })
        })
        .collect();
    let mut invocation = json!({"executionSuccessful": errors.is_empty()});
    if !errors.is_empty() {
        invocation["toolExecutionNotifications"] = Value::Array(errors);
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "mcp-pin",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
            "results": results
        }]
    })
}

pub fn render(report: &Report, ctx: &RenderContext) -> String {
    let mut s = serde_json::to_string_pretty(&to_value(report, ctx)).expect("SARIF serialises");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_and_uri() {
        assert_eq!(pascal("required-removed"), "RequiredRemoved");
        assert_eq!(uri_reference("dir with space/mcp.lock"), "dir%20with%20space/mcp.lock");
        assert_eq!(uri_reference("a/é"), "a/%C3%A9");
    }
}
