//! `tools/list`: the proxy takes every page itself (its own requests, bounded like `check`'s:
//! one deadline for the whole listing, at most [`crate::client::MAX_PAGES`] pages,
//! `max_listing_bytes` bytes across them, `max_tools` tools and a JSON value per 16 bytes counted
//! before a page's tools are parsed ([`crate::client::Allowance`]), a cursor that leads back
//! refused), and serves the judged list to the client
//! in one page, each tool's text as the server sent it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::value::RawValue;

use super::judge::{Action, JudgeError, Listing, Pin, Verdict};
use super::requests::Requester;

/// Take every page of `tools/list` from the server.
pub async fn fetch(req: &Requester, server: &crate::config::ServerConfig) -> Result<Listing, JudgeError> {
    let timeout: Duration = server.timeout;
    let mut allowance = crate::client::Allowance::of(server);
    let mut bytes = 0usize;
    let mut listing = Listing::default();
    let mut cursor: Option<String> = None;
    let mut cursors = std::collections::HashSet::new();
    let mut pages_seen = std::collections::HashMap::new();
    let deadline = tokio::time::Instant::now() + timeout;
    for page in 0..crate::client::MAX_PAGES {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Err(JudgeError::Upstream(format!(
                "tools/list got no complete answer within {} ({page} pages read)",
                crate::client::humanize(timeout)
            )));
        }
        let mut params = String::from("{");
        if let Some(c) = &cursor {
            params.push_str("\"cursor\":");
            crate::json::write_string(&mut params, c);
        }
        params.push('}');
        let answer = req.request("tools/list", &params, left).await.map_err(JudgeError::Upstream)?;
        let raw: &str = &answer;
        bytes = bytes.saturating_add(raw.len());
        if bytes > server.max_listing_bytes {
            return Err(JudgeError::Upstream(
                crate::client::ClientError::ListingTooLarge { cap: server.max_listing_bytes }.to_string(),
            ));
        }
        let digest = crate::client::page_digest(raw);
        if let Some(earlier) = pages_seen.insert(digest, page + 1) {
            return Err(JudgeError::Upstream(format!(
                "tools/list pagination loops: page {} repeats page {earlier}",
                page + 1
            )));
        }
        let next =
            crate::client::parse_tools_page(raw, page + 1, &mut listing.tools, &mut allowance, Some(&mut listing.raw))
                .map_err(|e| JudgeError::Upstream(e.to_string()))?;
        if page == 0 {
            listing.extra = extra_fields(raw);
        }
        match next {
            Some(n) => {
                if !cursors.insert(n.clone()) {
                    return Err(JudgeError::Upstream("tools/list pagination loops: a cursor came back".into()));
                }
                cursor = Some(n);
            }
            None => return Ok(listing),
        }
    }
    Err(JudgeError::Upstream(format!("tools/list returned more than {} pages", crate::client::MAX_PAGES)))
}

/// The result fields of a page besides `tools` and `nextCursor`, as `,"key":value` text.
fn extra_fields(raw: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Resp<'a> {
        #[serde(borrow)]
        result: BTreeMap<String, &'a RawValue>,
    }
    let Ok(resp) = serde_json::from_str::<Resp<'_>>(raw) else { return String::new() };
    let mut out = String::new();
    for (k, v) in resp.result {
        if k == "tools" || k == "nextCursor" {
            continue;
        }
        out.push(',');
        crate::json::write_string(&mut out, &k);
        out.push(':');
        out.push_str(v.get());
    }
    out
}

/// The response to a client's `tools/list` (request id `id`): every tool whose action lists it,
/// in the server's order, as the server sent it (a tool with pinned hints re-written with them).
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

#[cfg(test)]
mod tests {
    #[test]
    fn extra_fields_keep_their_text() {
        let raw =
            r#"{"jsonrpc":"2.0","id":"x","result":{"tools":[],"nextCursor":"c","ttlMs":6e4,"cacheScope":"user"}}"#;
        assert_eq!(super::extra_fields(raw), r#","cacheScope":"user","ttlMs":6e4"#);
    }
}
