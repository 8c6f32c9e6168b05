//! The verdict on a live surface against its pin: the one function `mcp-pin check` gates on and
//! `mcp-pin proxy` acts on, so the two cannot disagree about a change.
//!
//! [`judge`] is the engine's diff followed by the config's `[rules]` and `[[ignore]]`; `check`
//! reports what it returns. [`tool_verdicts`] reads those same changes per tool as the proxy needs
//! them: a tool whose silent changes are all to the words the model reads is served as pinned, a
//! tool with any other silent change is quarantined, a relaxed safety hint is served as pinned, a
//! new tool is new, a gone one is removed, anything else is served as it is now.

use std::collections::{BTreeMap, BTreeSet};

use crate::change::Change;
use crate::config::Ignore;
use crate::rules::Class;
use crate::rules::{RuleId, RunTime};
use crate::settle::Settled;

use super::policy::{self, PolicyOutcome};

/// The config's policy for one server on one day.
#[derive(Debug, Clone, Copy)]
pub struct Policy<'a> {
    pub server: &'a str,
    /// `[rules]`: class overrides.
    pub rules: &'a BTreeMap<RuleId, Class>,
    /// `[[ignore]]` entries.
    pub ignores: &'a [Ignore],
    /// `YYYY-MM-DD`: ignores apply through their `until` day.
    pub today: &'a str,
}

/// Every change between a settled pin and live surface ([`crate::settle`]: the live side masked,
/// the equal tools dropped from both sides) after `policy`.
pub fn judge(settled: &Settled, policy: &Policy<'_>) -> PolicyOutcome {
    judge_beside(settled, Vec::new(), policy)
}

/// [`judge`] with `beside`: changes found outside the surfaces (`server-launch-changed`, the
/// config against the pin), judged under the same policy and in the same order.
pub fn judge_beside(settled: &Settled, beside: Vec<Change>, policy: &Policy<'_>) -> PolicyOutcome {
    // Every tool the server serves, not only the changed ones the settled surfaces hold: a
    // description naming an unchanged tool of its own server is no cue.
    let served: Vec<&str> = settled.pinned_names.iter().chain(&settled.live_names).map(String::as_str).collect();
    let mut changes = super::diff_surfaces_served(settled.pinned(), &settled.live, &served);
    let (pinned, live) = settled.counts();
    super::every_tool_gone(&mut changes, pinned, live);
    if !beside.is_empty() {
        changes.extend(beside);
        super::sort_changes(&mut changes);
    }
    policy::apply(changes, policy.server, policy.rules, policy.ignores, policy.today)
}

/// What one tool's changes mean for a caller at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolVerdict {
    /// No change, or only loud and cosmetic ones: the tool as the server sends it now.
    Serve,
    /// A safety hint moved toward safety (`annotation-relaxed`) and nothing silent: the tool as
    /// sent now, with the hints that were reviewed, so no host starts auto-approving it unseen.
    PinnedHints,
    /// A new tool (`tool-added`), with nothing silent about it.
    New,
    /// Every silent change is to words the model reads ([`RunTime::PinnedWords`]: a description,
    /// a title, the words inside a schema): the tool as it was pinned, the reviewed words and the
    /// same call contract. The rule: the first such silent change.
    PinnedWords(RuleId),
    /// A silent change: the first silent rule on the tool (in the engine's order).
    Quarantine(RuleId),
    /// Pinned, and no longer listed (`tool-removed`, or renamed away: `tool-renamed`).
    Removed(RuleId),
}

impl ToolVerdict {
    /// Whether a call to the tool may reach the server.
    pub fn callable(self) -> bool {
        matches!(self, ToolVerdict::Serve | ToolVerdict::PinnedHints | ToolVerdict::New | ToolVerdict::PinnedWords(_))
    }
}

/// The verdict for every tool that has a change, from `changes` after policy (what [`judge`]
/// returns for `settled`), whose every tool name of each side says which tool is gone by rename
/// or with every other tool ("every tool is gone"). A tool in neither map entry is unchanged:
/// [`ToolVerdict::Serve`].
pub fn tool_verdicts(changes: &[Change], settled: &Settled) -> BTreeMap<String, ToolVerdict> {
    let (pinned, live) = (&settled.pinned_names, &settled.live_names);
    let mut out: BTreeMap<String, ToolVerdict> = BTreeMap::new();
    // A rename's change names the new tool; the old name is its `before`.
    let renamed_from: BTreeSet<&str> = changes
        .iter()
        .filter(|c| c.rule == RuleId::ToolRenamed)
        .filter_map(|c| c.before.as_ref().and_then(serde_json::Value::as_str))
        .collect();
    for c in changes {
        let Some(tool) = c.tool.as_deref() else { continue };
        let now = out.get(tool).copied().unwrap_or(ToolVerdict::Serve);
        // The rule table says what each rule's change does at run time ([`RunTime`]).
        let next = match (c.rule.info().runtime, c.class) {
            // Gone is gone, whatever class policy gave it.
            (RunTime::Gone, _) => ToolVerdict::Removed(c.rule),
            _ if matches!(now, ToolVerdict::Removed(_) | ToolVerdict::Quarantine(_)) => now,
            // Words the model reads: the pinned ones are served, unless something else is silent
            // (a pin to serve them from is the proxy's to find: a new tool has none).
            (RunTime::PinnedWords, Class::Silent) if now != ToolVerdict::New => match now {
                ToolVerdict::PinnedWords(_) => now,
                _ => ToolVerdict::PinnedWords(c.rule),
            },
            (_, Class::Silent) => ToolVerdict::Quarantine(c.rule),
            (RunTime::New, _) => ToolVerdict::New,
            // The pinned definition served for its words carries the pinned hints too.
            (RunTime::PinnedHints, _) if matches!(now, ToolVerdict::PinnedWords(_)) => now,
            (RunTime::PinnedHints, _) if now != ToolVerdict::New => ToolVerdict::PinnedHints,
            _ => now,
        };
        out.insert(tool.to_string(), next);
    }
    // Served as pinned needs a pinned definition under the name: a tool renamed has none.
    for (name, v) in out.iter_mut() {
        if let ToolVerdict::PinnedWords(r) = *v {
            if !pinned.contains(name) {
                *v = ToolVerdict::Quarantine(r);
            }
        }
    }
    // Pinned names not listed now and without a line of their own: renamed away, gone with every
    // other tool (one line for the server), or gone under an `[[ignore]]`.
    for name in pinned {
        if !live.contains(name) && !out.contains_key(name) {
            let rule = if renamed_from.contains(name.as_str()) { RuleId::ToolRenamed } else { RuleId::ToolRemoved };
            out.insert(name.clone(), ToolVerdict::Removed(rule));
        }
    }
    out
}

/// Server-level changes (no tool) that are silent after policy and whose rule serves the
/// pinned field instead ([`RunTime::PinnedField`]: `instructions-changed`). The proxy serves the
/// pinned value of what they name.
pub fn pinned_server_fields(changes: &[Change]) -> Vec<RuleId> {
    changes
        .iter()
        .filter(|c| c.tool.is_none() && c.class == Class::Silent && c.rule.info().runtime == RunTime::PinnedField)
        .map(|c| c.rule)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::ServerSurface;
    use serde_json::json;

    fn surface(tools: serde_json::Value) -> ServerSurface {
        super::super::surface_from_json(&json!({ "tools": tools }))
    }

    fn verdicts(
        before: &ServerSurface,
        after: &ServerSurface,
        rules: &BTreeMap<RuleId, Class>,
    ) -> BTreeMap<String, ToolVerdict> {
        let policy = Policy { server: "s", rules, ignores: &[], today: "2026-12-02" };
        let pinned = crate::lockfile::ServerEntry { surface: before.clone(), ..Default::default() };
        let settled = crate::settle::settle_whole(pinned, crate::surface::Live::mask(after.clone()));
        let judged = judge(&settled, &policy);
        tool_verdicts(&judged.changes, &settled)
    }

    #[test]
    fn each_class_gets_its_action() {
        let before = surface(json!([
            {"name": "a", "inputSchema": {"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}}}},
            {"name": "b", "title": "B", "inputSchema": {"type": "object"}},
            {"name": "c", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": true}},
            {"name": "d", "inputSchema": {"type": "object"}},
            {"name": "e", "inputSchema": {"type": "object"}}
        ]));
        let after = surface(json!([
            {"name": "a", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
            {"name": "b", "title": "Bee", "inputSchema": {"type": "object"}},
            {"name": "c", "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": false}},
            {"name": "e", "inputSchema": {"type": "object"}},
            {"name": "n", "inputSchema": {"type": "object", "properties": {"z": {"type": "integer"}}}}
        ]));
        let v = verdicts(&before, &after, &BTreeMap::new());
        assert_eq!(v["a"], ToolVerdict::Quarantine(RuleId::RequiredRemoved));
        assert_eq!(v["b"], ToolVerdict::Serve);
        assert_eq!(v["c"], ToolVerdict::PinnedHints);
        assert_eq!(v["d"], ToolVerdict::Removed(RuleId::ToolRemoved));
        assert!(!v.contains_key("e"));
        assert_eq!(v["n"], ToolVerdict::New);
        // `[rules]` moves a rule for the proxy exactly as for `check`.
        let relaxed = BTreeMap::from([(RuleId::RequiredRemoved, Class::Loud)]);
        assert_eq!(
            verdicts(&before, &after, &relaxed).get("a").copied().unwrap_or(ToolVerdict::Serve),
            ToolVerdict::Serve
        );
    }

    /// A tool whose silent changes are all to the words the model reads is served as pinned;
    /// one more silent change of another kind, in either order, holds it back.
    #[test]
    fn rewordings_alone_are_served_as_pinned() {
        let t = |name: &str, desc: &str, prop: &str, required: bool| {
            let mut t = json!({"name": name, "description": desc, "annotations": {"destructiveHint": true},
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": prop}}}});
            if required {
                t["inputSchema"]["required"] = json!(["q"]);
            }
            t
        };
        let before = surface(json!([t("a", "A.", "Q.", true), t("b", "B.", "Q.", true), t("c", "C.", "Q.", true)]));
        let mut relaxed = t("c", "C, reworded.", "Q.", true);
        relaxed["annotations"]["destructiveHint"] = json!(false);
        let after = surface(json!([
            t("a", "A, reworded.", "The query, reworded.", true),
            t("b", "B, reworded.", "Q.", false),
            relaxed
        ]));
        let v = verdicts(&before, &after, &BTreeMap::new());
        assert_eq!(v["a"], ToolVerdict::PinnedWords(RuleId::DescriptionChanged));
        assert_eq!(v["b"], ToolVerdict::Quarantine(RuleId::RequiredRemoved));
        assert_eq!(v["c"], ToolVerdict::PinnedWords(RuleId::DescriptionChanged));
        assert!(v["a"].callable());
    }

    #[test]
    fn a_rename_serves_the_new_name_and_removes_the_old() {
        let before = surface(json!([{"name": "get_x", "inputSchema": {"type": "object"}}]));
        let after = surface(json!([{"name": "getX", "inputSchema": {"type": "object"}}]));
        let v = verdicts(&before, &after, &BTreeMap::new());
        assert_eq!(v.get("getX").copied().unwrap_or(ToolVerdict::Serve), ToolVerdict::Serve);
        assert_eq!(v["get_x"], ToolVerdict::Removed(RuleId::ToolRenamed));
    }

    #[test]
    fn every_tool_gone_removes_every_pinned_tool() {
        let before = surface(
            json!([{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]),
        );
        let v = verdicts(&before, &surface(json!([])), &BTreeMap::new());
        assert_eq!(v["a"], ToolVerdict::Removed(RuleId::ToolRemoved));
        assert_eq!(v["b"], ToolVerdict::Removed(RuleId::ToolRemoved));
    }
}
