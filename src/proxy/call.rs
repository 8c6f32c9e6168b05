//! `tools/call`: whether a call may reach the server (decided on every call, not only when the
//! client lists: clients cache lists), and what its result is worth, judged as `check` judges a
//! probe ([`crate::probe::judge_call`]).

use serde_json::value::RawValue;
use serde_json::Value;

use super::judge::{Action, Pin, Verdict};
use crate::client::CallOutcome;
use crate::rules::RuleId;

/// What happens to one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Forwarded.
    Pass(Action),
    /// Answered by the proxy with an `isError` result naming the tool, the rule and what to run.
    Refuse { rule: Option<RuleId>, action: Option<Action>, message: String },
}

/// Decide a call to `tool` under `verdict`.
pub fn decide(verdict: &Verdict, pin: &Pin, tool: &str) -> Decision {
    let server = &pin.server.name;
    let action = verdict.action(tool);
    if let Some(a @ (Action::Serve | Action::PinnedHints | Action::New | Action::Reviewed(_))) = action {
        return Decision::Pass(a);
    }
    let review = format!(
        "`mcp-pin check --server {server}` shows the change; `mcp-pin review` (or `mcp-pin lock --server {server} --tool {}`) accepts it once reviewed, in a pull request",
        crate::probe::toml_key(tool)
    );
    let shown = crate::json::escape_line(tool);
    match action {
        Some(a @ (Action::Serve | Action::PinnedHints | Action::New | Action::Reviewed(_))) => Decision::Pass(a),
        Some(a @ Action::Quarantined(rule)) => Decision::Refuse {
            rule: Some(rule),
            action: Some(a),
            message: format!(
                "mcp-pin proxy refused this call: tool `{shown}` of server `{server}` changed since its contract was reviewed, in a way calls do not notice ({rule}, silent: `mcp-pin explain {rule}`), so it is quarantined. {review}."
            ),
        },
        Some(a @ Action::Removed(rule)) => Decision::Refuse {
            rule: Some(rule),
            action: Some(a),
            message: format!(
                "mcp-pin proxy refused this call: tool `{shown}` of server `{server}` is pinned in the lock but the server no longer lists it ({rule}). {review}."
            ),
        },
        Some(a @ Action::Hidden) => Decision::Refuse {
            rule: Some(RuleId::ToolAdded),
            action: Some(a),
            message: format!(
                "mcp-pin proxy refused this call: tool `{shown}` of server `{server}` is new (tool-added) and `[proxy] new_tools = \"hide\"` keeps new tools out until they are pinned: `mcp-pin lock --server {server} --tool {}`.",
                crate::probe::toml_key(tool)
            ),
        },
        None => Decision::Refuse {
            rule: None,
            action: None,
            message: format!(
                "mcp-pin proxy refused this call: server `{server}` does not list a tool `{shown}` and the lock does not pin one; a tool nobody reviewed is not called."
            ),
        },
    }
}

/// What a result is worth.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultVerdict {
    /// Passed on as sent; findings that are flagged, not blocked (rule ids only).
    Pass { flagged: Vec<RuleId> },
    /// Replaced by an `isError` result: the findings that block it (rule, explanation).
    Block(Vec<(RuleId, String)>),
    /// Not a `tools/call` result at all: the server broke the protocol (answered with a
    /// JSON-RPC error, never passed on).
    Broken(String),
}

/// Judge the `result` of a call to `tool` (its text, as sent), as `check` judges a probe's
/// answer: a result that contradicts its own declaration (`structured-content-invalid`,
/// `structured-content-missing`, `result-payload-invalid`) is blocked unless a `[[proxy.allow]]`
/// entry names it; other result-contract findings are flagged. A tool error (`isError: true`) is
/// an answer, not drift: passed on.
pub fn judge_result(verdict: &Verdict, pin: &Pin, tool: &str, result: &RawValue, today: &str) -> ResultVerdict {
    let Some(def) = verdict.def(tool) else { return ResultVerdict::Pass { flagged: vec![] } };
    let value: Value = match serde_json::from_str(result.get()) {
        Ok(v) => v,
        Err(e) => {
            return ResultVerdict::Block(vec![(
                RuleId::ResultPayloadInvalid,
                format!("the result cannot be read ({e}), so it cannot be judged"),
            )])
        }
    };
    if !value.is_object() {
        return ResultVerdict::Broken("the tools/call result is not an object".into());
    }
    if value.get("content").is_some_and(|c| !c.is_array()) {
        return ResultVerdict::Broken("the tools/call result's `content` is not a list".into());
    }
    if crate::probe::shape::is_error(&value) {
        return ResultVerdict::Pass { flagged: vec![] };
    }
    let outcome = Ok(CallOutcome::Result(value));
    let (probes, _) =
        crate::probe::judge_call(tool, def, &outcome, pin.result_contract(tool), pin.server.timeout, &pin.secrets);
    let mut blocked = Vec::new();
    let mut flagged = Vec::new();
    for p in probes.into_iter().filter(|p| p.outcome == crate::probe::ProbeOutcome::Fail) {
        let Some(rule) = p.rule else { continue };
        let allowed = pin.proxy.allow.iter().any(|a| a.matches(rule, &pin.server.name, Some(tool), "", today));
        let class = pin.rules.get(&rule).copied().unwrap_or(rule.class());
        // Which findings block a result comes from the rule table (`RunTime::BlockResult`).
        if rule.info().runtime == crate::rules::RunTime::BlockResult && !allowed && class == crate::rules::Class::Silent
        {
            blocked.push((rule, p.message));
        } else if !flagged.contains(&rule) {
            flagged.push(rule);
        }
    }
    if blocked.is_empty() {
        ResultVerdict::Pass { flagged }
    } else {
        ResultVerdict::Block(blocked)
    }
}

/// The text of a blocked result.
pub fn blocked_message(pin: &Pin, tool: &str, findings: &[(RuleId, String)]) -> String {
    let server = &pin.server.name;
    let mut text = format!(
        "mcp-pin proxy blocked the result of tool `{}` of server `{server}`: it contradicts its own declaration.",
        crate::json::escape_line(tool)
    );
    for (rule, why) in findings {
        text.push_str(&format!(" {rule}: {}.", crate::probe::excerpt(why, &pin.secrets)));
    }
    text.push_str(&format!(
        " The call itself ran on the server. If this is expected, add a `[[proxy.allow]]` entry with rule, server = \"{server}\", tool and a reason to mcp-pin.toml (docs/proxy.md)."
    ));
    text
}
