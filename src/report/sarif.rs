//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`),
//! built from `serde-sarif`'s types (generated from the SARIF schema), so the log is the
//! schema's shape by construction.
//!
//! One `reportingDescriptor` per rule of the catalogue (plus any id a result uses that the
//! catalogue lacks), with what code scanning reads to rank and file an alert: a plain short
//! description, `helpUri` (the rule's entry in docs/rules.md), the `security` tag,
//! `security-severity` (the rule's risk rank over ten) and `precision`. One `result` per finding
//! located on the tool's line of the lockfile, its level the gate's (`error` only for what fails
//! it), its `rank` the rule's risk, and `partialFingerprints` from the finding's identity
//! (server, tool, rule, pointer, before and after; never a line number), unique within a log.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use serde_sarif::sarif;

use super::finding::{
    findings, fingerprints, sort_by_severity, Finding, Level, Source, PROBE_FAILED_RISK, PROBE_FAILED_RULE,
    SERVER_ERROR_RULE,
};
use super::textdiff::{excerpt, pieces, plain, shown_texts, ROW};
use super::{RenderContext, Report};
use crate::json::escape_for_display;
use crate::rules::Class;
use crate::rules::{lookup, Kind, RuleInfo, Surface, RULES};

pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of our fingerprint in `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mcpPinFinding/v2";

fn level(l: Level) -> sarif::ResultLevel {
    match l {
        Level::Note => sarif::ResultLevel::Note,
        Level::Warning => sarif::ResultLevel::Warning,
        Level::Error => sarif::ResultLevel::Error,
    }
}

fn level_value(l: Level) -> Value {
    json!(l.as_str())
}

fn text(t: impl Into<String>) -> sarif::MultiformatMessageString {
    sarif::MultiformatMessageString::builder().text(t.into()).build()
}

/// How sure a finding of this rule is (code scanning's `precision`): the schema diff is exact;
/// a rule that says the direction cannot be proven, or that the walk stopped, is less so; a
/// probe judges one live call.
fn precision(rule: &RuleInfo) -> &'static str {
    match (rule.surface, rule.kind) {
        (Surface::Probe, _) => "high",
        (_, Some(Kind::PatternChanged | Kind::RefChanged | Kind::TooDeep)) => "medium",
        _ => "very-high",
    }
}

/// Code scanning's `security-severity`: the risk rank over ten (`8.4`).
fn security_severity(risk: u8) -> String {
    format!("{:.1}", f64::from(risk) / 10.0)
}

/// The first clause of a rule's summary, capitalised, without its parenthesised details: what
/// an alert list shows.
pub fn short_description(summary: &str) -> String {
    let mut s = String::new();
    let mut depth = 0usize;
    for c in summary.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if depth == 0 => s.push(c),
            _ => {}
        }
    }
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = s.replace(" ,", ",").replace(" .", ".");
    let mut cs = s.chars();
    cs.next().map(|c| c.to_uppercase().collect::<String>() + cs.as_str()).unwrap_or_default()
}

fn properties(tags: Vec<String>, extra: impl IntoIterator<Item = (&'static str, Value)>) -> sarif::PropertyBag {
    sarif::PropertyBag {
        tags: Some(tags),
        additional_properties: extra.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

fn descriptor(rule: &RuleInfo) -> sarif::ReportingDescriptor {
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
    let url = rule.rule.doc_url();
    help_text.push_str(&format!("\n\nRun `mcp-pin explain {}` or read {url}.", rule.id));
    help_md.push_str(&format!("\n\nRun `mcp-pin explain {}` or read [its entry]({url}).", rule.id));
    let mut d = sarif::ReportingDescriptor::builder().id(rule.id).build();
    d.name = Some(pascal(rule.id));
    d.short_description = Some(text(short_description(rule.summary)));
    d.full_description = Some(text(format!("{}. {}", short_description(rule.summary), rule.help)));
    let mut help = text(help_text);
    help.markdown = Some(help_md);
    d.help = Some(help);
    d.help_uri = Some(url);
    d.default_configuration = Some(sarif::ReportingConfiguration {
        level: Some(level_value(Level::of_class(rule.class))),
        rank: Some(f64::from(rule.risk)),
        ..Default::default()
    });
    d.properties = Some(properties(
        vec!["security".into(), "mcp".into(), rule.class.as_str().into(), rule.surface.as_str().into()],
        [("precision", json!(precision(rule))), ("security-severity", json!(security_severity(rule.risk)))],
    ));
    d
}

/// A descriptor for an id the catalogue does not have.
fn fallback_descriptor(id: &str, class: Class) -> sarif::ReportingDescriptor {
    let (text_, tags, extra): (&str, Vec<String>, Vec<(&'static str, Value)>) = match id {
        SERVER_ERROR_RULE => (
            "mcp-pin could not check the server (it failed to start or answer, or is missing from the lockfile)",
            vec!["mcp".into(), "error".into()],
            vec![("precision", json!("very-high"))],
        ),
        PROBE_FAILED_RULE => (
            "A probe call failed",
            vec!["security".into(), "mcp".into(), class.as_str().into(), "probe".into()],
            vec![("precision", json!("high")), ("security-severity", json!(security_severity(PROBE_FAILED_RISK)))],
        ),
        _ => (id, vec!["mcp".into(), class.as_str().into()], vec![]),
    };
    let mut d = sarif::ReportingDescriptor::builder().id(id).build();
    d.name = Some(pascal(id));
    d.short_description = Some(text(text_));
    d.full_description = Some(text(text_));
    d.default_configuration =
        Some(sarif::ReportingConfiguration { level: Some(level_value(Level::of_class(class))), ..Default::default() });
    d.properties = Some(properties(tags, extra));
    d
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

/// The result's message: the subject and the finding's message, and for a changed text the
/// words added and removed (`[-removed-]{+added+}`).
fn message(f: &Finding<'_>) -> String {
    let mut s = format!("{}: {}", f.subject(), escape_for_display(f.message));
    if let Some(cues) = f.change().and_then(|c| c.cues.as_ref()).filter(|c| !c.found.is_empty()) {
        s.push_str(&format!(" (carries {})", escape_for_display(&cues.describe())));
    }
    if let Source::Change(c) = f.source {
        if let Some((b, a)) = shown_texts(c) {
            let (cut, _) = excerpt(&pieces(b, a), ROW);
            s.push('\n');
            s.push_str(&plain(&cut, false));
        }
    }
    s
}

fn result(f: &Finding<'_>, rule_index: usize, fingerprint: String, ctx: &RenderContext) -> sarif::Result {
    let region = ctx
        .lock_text
        .get()
        .and_then(|t| crate::lockfile::line_of(t, f.server, f.tool))
        .map(|line| sarif::Region { start_line: Some(i64::try_from(line).unwrap_or(i64::MAX)), ..Default::default() });
    let logical = match f.tool {
        Some(t) => sarif::LogicalLocation {
            name: Some(t.to_string()),
            fully_qualified_name: Some(f.subject()),
            kind: Some("function".into()),
            ..Default::default()
        },
        None => sarif::LogicalLocation {
            name: Some(f.server.to_string()),
            fully_qualified_name: Some(f.server.to_string()),
            kind: Some("module".into()),
            ..Default::default()
        },
    };
    let mut props: BTreeMap<String, Value> = BTreeMap::new();
    props.insert("server".into(), json!(f.server));
    if let Some(t) = f.tool {
        props.insert("tool".into(), json!(t));
    }
    props.insert("class".into(), json!(f.class.as_str()));
    props.insert("failsGate".into(), json!(f.fails_gate));
    props.insert("risk".into(), json!(f.risk));
    // The finding's own severity: a change whose added words carry a cue ranks above its rule
    // (RULES.md, "Risk within a rule"); the rule's descriptor keeps the rule's.
    props.insert("security-severity".into(), json!(security_severity(f.risk)));
    if let Some(cues) = f.change().and_then(|c| c.cues.as_ref()).filter(|c| !c.found.is_empty()) {
        props.insert("cues".into(), json!(cues.found));
    }
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
    let mut r =
        sarif::Result::builder().message(sarif::Message { text: Some(message(f)), ..Default::default() }).build();
    r.rule_id = Some(f.rule.to_string());
    r.rule_index = Some(i64::try_from(rule_index).unwrap_or(i64::MAX));
    r.level = Some(level(f.level()));
    r.rank = Some(f64::from(f.risk));
    r.locations = Some(vec![sarif::Location {
        physical_location: Some(sarif::PhysicalLocation {
            artifact_location: Some(sarif::ArtifactLocation {
                uri: Some(uri_reference(&ctx.lockfile_display)),
                ..Default::default()
            }),
            region,
            ..Default::default()
        }),
        logical_locations: Some(vec![logical]),
        ..Default::default()
    }]);
    r.partial_fingerprints = Some([(FINGERPRINT_KEY.to_string(), fingerprint)].into());
    r.properties = Some(sarif::PropertyBag { tags: None, additional_properties: props });
    r
}

/// The SARIF log.
pub fn log(report: &Report, ctx: &RenderContext) -> sarif::Sarif {
    let mut found = findings(report, ctx.style.verbose);
    sort_by_severity(&mut found);
    // Descriptors: the whole catalogue in its order, then ids it lacks, sorted.
    let mut rules: Vec<sarif::ReportingDescriptor> = RULES.iter().map(descriptor).collect();
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
    let results: Vec<sarif::Result> =
        found.iter().zip(fingerprints(&found)).map(|(f, fp)| result(f, index[f.rule], fp, ctx)).collect();
    let errors: Vec<sarif::Notification> = report
        .servers
        .iter()
        .filter_map(|s| {
            s.error.as_ref().map(|e| {
                let text = format!("{}: {}", s.name, escape_for_display(e));
                let mut n = sarif::Notification::builder()
                    .message(sarif::Message { text: Some(text), ..Default::default() })
                    .build();
                n.level = Some(level_value(Level::Error));
                n.descriptor = Some(sarif::ReportingDescriptorReference {
                    id: Some(SERVER_ERROR_RULE.into()),
                    ..Default::default()
                });
                n
            })
        })
        .collect();
    let mut invocation = sarif::Invocation::builder().execution_successful(errors.is_empty()).build();
    invocation.tool_execution_notifications = (!errors.is_empty()).then_some(errors);
    let mut driver = sarif::ToolComponent::builder().name("mcp-pin").build();
    driver.version = Some(env!("CARGO_PKG_VERSION").into());
    driver.semantic_version = Some(env!("CARGO_PKG_VERSION").into());
    driver.information_uri = Some(env!("CARGO_PKG_REPOSITORY").into());
    driver.rules = Some(rules);
    let mut run = sarif::Run::builder().tool(sarif::Tool::builder().driver(driver).build()).build();
    run.invocations = Some(vec![invocation]);
    run.column_kind = Some(json!("unicodeCodePoints"));
    run.results = Some(results);
    let mut log = sarif::Sarif::builder().version(json!("2.1.0")).runs(vec![run]).build();
    log.schema = Some(SCHEMA_URI.into());
    log
}

/// The SARIF log as a value (keys sorted, like every report mcp-pin writes).
pub fn to_value(report: &Report, ctx: &RenderContext) -> Value {
    serde_json::to_value(log(report, ctx)).expect("SARIF serialises")
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

    #[test]
    fn short_descriptions_are_plain() {
        assert_eq!(
            short_description("an argument the model was told to send is no longer required (at any depth)"),
            "An argument the model was told to send is no longer required"
        );
        assert_eq!(short_description("a tool disappears (or every tool: one line)"), "A tool disappears");
        for r in RULES {
            let s = short_description(r.summary);
            assert!(!s.is_empty() && !s.contains('(') && !s.contains(')'), "{}: {s}", r.id);
        }
    }
}
