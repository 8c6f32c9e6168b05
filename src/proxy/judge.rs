//! The proxy's verdict on one listing: the pin, the config's policy and the live tools go into
//! [`crate::diff::verdict::judge`] (the function `check` gates on), and each tool gets an
//! [`Action`]: what the client is shown and whether a call may pass.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::change::Change;
use crate::config::{Config, ProxyPolicy, ServerConfig};
use crate::diff::verdict::{self, Policy, ToolVerdict};
use crate::lockfile::PendingEntry;
use crate::rules::Class;
use crate::rules::RuleId;
use crate::surface::ServerSurface;

/// Every tool of one listing.
#[derive(Debug, Default)]
pub struct Listing {
    /// Parsed, by name (judged, and read for a result's `outputSchema`).
    pub tools: BTreeMap<String, Value>,
    /// Each tool's text exactly as sent, in the server's order (what the client is served).
    pub raw: Vec<(String, String)>,
    /// The first page's other result fields (`ttlMs`, `cacheScope`, `_meta`, ...), as
    /// `,"key":value` text, passed on to the client.
    pub extra: String,
}

/// What the proxy does with one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Listed as the server sends it; calls pass.
    Serve,
    /// Listed with its pinned safety hints (`annotation-relaxed`); calls pass.
    PinnedHints,
    /// Every silent change is to words the model reads (the rule table's `PinnedWords`): listed
    /// as it was pinned, the reviewed words and the same call contract; calls pass.
    Reviewed(RuleId),
    /// A new tool, listed (`tool-added`, loud); calls pass.
    New,
    /// A new tool, not listed and refused (`[proxy] new_tools = "hide"`).
    Hidden,
    /// A silent change: not listed, calls refused.
    Quarantined(RuleId),
    /// Pinned and not listed by the server any more: calls refused.
    Removed(RuleId),
}

impl Action {
    pub fn listed(self) -> bool {
        matches!(self, Action::Serve | Action::PinnedHints | Action::New | Action::Reviewed(_))
    }

    /// The rule behind the action, if one.
    pub fn rule(self) -> Option<RuleId> {
        match self {
            Action::Serve => None,
            Action::PinnedHints => Some(RuleId::AnnotationRelaxed),
            Action::New | Action::Hidden => Some(RuleId::ToolAdded),
            Action::Quarantined(r) | Action::Removed(r) | Action::Reviewed(r) => Some(r),
        }
    }

    /// How the decision reads in a log line.
    pub fn word(self) -> &'static str {
        match self {
            Action::Serve => "served",
            Action::PinnedHints => "served with its pinned hints",
            Action::Reviewed(_) => "served as reviewed (its pinned words and call contract)",
            Action::New => "served (new)",
            Action::Hidden => "hidden (new; [proxy] new_tools = \"hide\")",
            Action::Quarantined(_) => "quarantined (not listed; calls refused)",
            Action::Removed(_) => "removed (calls refused)",
        }
    }
}

/// The lock entry of the relayed server and the policy it is judged under, fixed for the run.
pub struct Pin {
    pub server: ServerConfig,
    /// `None`: the server is not in the lock and `[proxy] unpinned = "serve"` relays it.
    pub entry: Option<PendingEntry>,
    pub rules: BTreeMap<RuleId, Class>,
    pub ignores: Vec<crate::config::Ignore>,
    pub proxy: ProxyPolicy,
    pub secrets: Vec<String>,
}

impl Pin {
    pub fn new(server: ServerConfig, entry: Option<PendingEntry>, config: &Config, proxy: ProxyPolicy) -> Pin {
        let secrets = server.secrets();
        Pin { server, entry, rules: config.rules.clone(), ignores: config.ignores.clone(), proxy, secrets }
    }

    /// The pinned result contract of `tool` (from `lock`'s probe), if any.
    pub fn result_contract(&self, tool: &str) -> Option<&Value> {
        self.entry.as_ref().and_then(|e| e.entry.probes.get(tool))
    }

    /// The pinned definition of `tool`, parsed (for its hints, or served whole as reviewed).
    pub fn pinned_tool(&self, tool: &str) -> Option<Value> {
        serde_json::from_str(self.entry.as_ref()?.tools.get(tool)?).ok()
    }

    /// The pinned instructions (served when live instructions changed silently).
    pub fn pinned_instructions(&self) -> Option<&str> {
        self.entry.as_ref().and_then(|e| e.entry.surface.instructions.as_deref())
    }
}

/// Why a listing could not be judged: the proxy then serves nothing unjudged.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JudgeError {
    #[error("{0}")]
    Upstream(String),
    #[error("the lockfile entry cannot be read: {0}")]
    Lock(String),
}

/// One judged listing: what the client is shown and what calls may pass.
#[derive(Debug)]
pub struct Verdict {
    pub listing: Listing,
    /// The action of every tool listed now or pinned.
    pub actions: BTreeMap<String, Action>,
    /// The changes after policy, as `check` reports them.
    pub changes: Vec<Change>,
    /// Silent server-level changes whose pinned field is served instead (the rule table's
    /// `PinnedField`: the instructions).
    pub pinned_fields: Vec<RuleId>,
}

impl Verdict {
    /// The action for a call to `tool`; a name neither listed nor pinned is `None`.
    pub fn action(&self, tool: &str) -> Option<Action> {
        self.actions.get(tool).copied()
    }

    /// The live definition of a listed tool.
    pub fn def(&self, tool: &str) -> Option<&Value> {
        self.listing.tools.get(tool)
    }
}

/// Judge a listing against the pin. `handshake`: the live server-level facts (protocol
/// revision, serverInfo, instructions, capabilities) from the handshake the client made. The
/// listing is settled as `check` settles it ([`crate::settle`]: masked, the pinned tools read
/// with the duplicate-key-checking reader) and judged by the function `check` gates on.
pub fn judge(pin: &Pin, listing: Listing, handshake: &ServerSurface, today: &str) -> Result<Verdict, JudgeError> {
    let live = crate::surface::Live::mask(ServerSurface { tools: listing.tools.clone(), ..handshake.clone() });
    let settled = match &pin.entry {
        Some(e) => crate::settle::settle(e.clone(), live).map_err(|e| JudgeError::Lock(e.to_string()))?,
        None => crate::settle::settle_unpinned(live),
    };
    let policy = Policy { server: &pin.server.name, rules: &pin.rules, ignores: &pin.ignores, today };
    let judged = verdict::judge(&settled, &policy);
    let per_tool = verdict::tool_verdicts(&judged.changes, &settled);
    let mut actions = BTreeMap::new();
    for name in settled.live_names.iter().chain(settled.pinned_names.iter()) {
        let v = per_tool.get(name).copied().unwrap_or(ToolVerdict::Serve);
        let action = match v {
            ToolVerdict::Serve => Action::Serve,
            ToolVerdict::PinnedHints => Action::PinnedHints,
            // Served as pinned only where the pin has the tool (a tool renamed has none).
            ToolVerdict::PinnedWords(r) if pin.pinned_tool(name).is_some() => Action::Reviewed(r),
            ToolVerdict::PinnedWords(r) => Action::Quarantined(r),
            ToolVerdict::New if pin.proxy.hide_new_tools => Action::Hidden,
            ToolVerdict::New => Action::New,
            ToolVerdict::Quarantine(r) => Action::Quarantined(r),
            ToolVerdict::Removed(r) => Action::Removed(r),
        };
        actions.insert(name.clone(), action);
    }
    let pinned_fields = verdict::pinned_server_fields(&judged.changes);
    Ok(Verdict { listing, actions, changes: judged.changes, pinned_fields })
}

/// The one notice of a listing (RULES.md, "At run time"): what is served as reviewed and what is
/// held back, and how to review it; `None` when the listing keeps nothing from the client. Each
/// part names its tools with their rule, in name order.
pub fn listing_notice(verdict: &Verdict, server: &str) -> Option<String> {
    let (mut reviewed, mut hints, mut held) = (Vec::new(), Vec::new(), Vec::new());
    for (tool, action) in &verdict.actions {
        let named = |r: RuleId| format!("`{}` ({r})", crate::json::escape_line(tool));
        match *action {
            Action::Reviewed(r) => reviewed.push(named(r)),
            Action::PinnedHints => hints.push(named(RuleId::AnnotationRelaxed)),
            Action::Quarantined(r) => held.push(named(r)),
            _ => {}
        }
    }
    if reviewed.is_empty() && hints.is_empty() && held.is_empty() {
        return None;
    }
    let count = |n: usize| if n == 1 { "1 tool".to_string() } else { format!("{n} tools") };
    let mut parts = Vec::new();
    if !reviewed.is_empty() {
        parts.push(format!(
            "{} served as reviewed, with the words and call contract that were pinned (their text the model reads changed since): {}",
            count(reviewed.len()),
            reviewed.join(", ")
        ));
    }
    if !hints.is_empty() {
        parts.push(format!(
            "{} served with the safety hints that were reviewed (a hint moved toward safety): {}",
            count(hints.len()),
            hints.join(", ")
        ));
    }
    if !held.is_empty() {
        parts.push(format!(
            "{} held back, changed in a way calls do not notice: not listed, and calls to them are refused: {}",
            count(held.len()),
            held.join(", ")
        ));
    }
    let server = crate::json::escape_line(server);
    Some(format!(
        "mcp-pin proxy: tools of server `{server}` changed since they were reviewed. {}. `mcp-pin check --server {server}` shows the changes (`mcp-pin explain RULE` what a rule means); `mcp-pin review` accepts them once reviewed, in a pull request",
        parts.join(". ")
    ))
}

/// The tool as served with its pinned safety hints: the live definition, with each of the four
/// hints set as pinned (removed where the pin had none, which means its default).
pub fn with_pinned_hints(live: &Value, pinned: Option<&Value>) -> Value {
    const HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
    let mut out = live.clone();
    let pinned_ann = pinned.and_then(|p| p.get("annotations")).and_then(Value::as_object);
    if let Some(obj) = out.as_object_mut() {
        let ann = obj.entry("annotations").or_insert_with(|| Value::Object(Default::default()));
        if !ann.is_object() {
            *ann = Value::Object(Default::default());
        }
        if let Some(a) = ann.as_object_mut() {
            for h in HINTS {
                match pinned_ann.and_then(|p| p.get(h)) {
                    Some(v) => {
                        a.insert(h.to_string(), v.clone());
                    }
                    None => {
                        a.remove(h);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pinned_hints_replace_only_the_hints() {
        let live = json!({"name": "t", "annotations": {"destructiveHint": false, "title": "T2", "x": 1}});
        let pinned = json!({"name": "t", "annotations": {"destructiveHint": true, "title": "T"}});
        let served = with_pinned_hints(&live, Some(&pinned));
        assert_eq!(served["annotations"], json!({"destructiveHint": true, "title": "T2", "x": 1}));
        let relaxed = json!({"name": "t", "annotations": {"readOnlyHint": true}});
        assert_eq!(with_pinned_hints(&relaxed, Some(&json!({"name": "t"})))["annotations"], json!({}));
    }
}
