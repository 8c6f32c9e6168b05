//! `tools/list`: the proxy takes every page itself, through the one listing loop
//! ([`crate::client::listing::list_all`], which `check` runs too: the same bounds, the same
//! refusals) over its own requests, and serves the judged list to the client in one page, each
//! tool's text as the server sent it.

use super::judge::{Action, JudgeError, Listing, Pin, Verdict};
use super::requests::Requester;
use crate::client::listing::{self, Bounds};

/// Take every page of `tools/list` from the server.
pub async fn fetch(req: &Requester, server: &crate::config::ServerConfig) -> Result<Listing, JudgeError> {
    let bounds = Bounds {
        allowance: crate::client::Allowance::of(server),
        timeout: server.timeout,
        max_bytes: Some(server.max_listing_bytes),
        keep_raw: true,
    };
    let listed = listing::list_all(bounds, |cursor, left, _| async move {
        let mut params = String::from("{");
        if let Some(c) = &cursor {
            params.push_str("\"cursor\":");
            crate::json::write_string(&mut params, c);
        }
        params.push('}');
        let page = req.request("tools/list", &params, left).await;
        page.map(std::sync::Arc::unwrap_or_clone).map_err(crate::client::ClientError::Transport)
    })
    .await
    .map_err(|e| JudgeError::Upstream(e.to_string()))?;
    Ok(Listing { tools: listed.tools, raw: listed.raw, extra: listed.extra })
}

/// The response to a client's `tools/list` (request id `id`): every tool whose action lists it,
/// in the server's order, as the server sent it (a tool with pinned hints re-written with them, a
/// tool served as reviewed replaced by its pinned definition).
pub fn serve(verdict: &Verdict, pin: &Pin, id: &str, dry_run: bool) -> String {
    let mut body = String::with_capacity(verdict.listing.raw.iter().map(|(_, t)| t.len() + 1).sum::<usize>() + 128);
    body.push_str(r#"{"jsonrpc":"2.0","id":"#);
    body.push_str(id);
    body.push_str(r#","result":{"tools":["#);
    let mut first = true;
    for (name, text) in &verdict.listing.raw {
        let action = verdict.action(name).unwrap_or(Action::Serve);
        if !dry_run && !action.listed() {
            continue;
        }
        if !first {
            body.push(',');
        }
        first = false;
        match (action, verdict.def(name)) {
            // The reviewed definition, whole: its words and its call contract as pinned.
            (Action::Reviewed(_), _) if !dry_run => match pin.pinned_tool(name) {
                Some(pinned) => body.push_str(&pinned.to_string()),
                None => body.push_str(text),
            },
            (Action::PinnedHints, Some(def)) if !dry_run => {
                let served = super::judge::with_pinned_hints(def, pin.pinned_tool(name).as_ref());
                body.push_str(&served.to_string());
            }
            _ => body.push_str(text),
        }
    }
    body.push(']');
    body.push_str(&verdict.listing.extra);
    body.push_str("}}");
    body
}
