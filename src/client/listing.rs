//! `tools/list` taken page by page: the one loop both front ends run (the commands over rmcp's
//! session, [`super::Session::list_tools`]; the proxy over its own requests). One deadline for
//! the whole listing, at most [`super::MAX_PAGES`] pages, `max_tools` tools and a JSON value per
//! 16 bytes counted before a page's tools are parsed ([`super::Allowance`]), a page or a cursor
//! that leads back refused. What a page is fetched with is the caller's.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::Value;

use super::{capture, page_digest, parse_tools_page, Allowance, ClientError, MAX_PAGES};

/// Every tool of one listing.
#[derive(Debug, Default)]
pub struct Listed {
    /// Parsed, by name.
    pub tools: BTreeMap<String, Value>,
    /// With `keep_raw`: each tool's text exactly as sent, in the server's order.
    pub raw: Vec<(String, String)>,
    /// With `keep_raw`: the first page's other result fields (`ttlMs`, `cacheScope`, `_meta`,
    /// ...), as `,"key":value` text.
    pub extra: String,
}

/// The bounds of one listing.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub allowance: Allowance,
    /// For the whole listing.
    pub timeout: Duration,
    /// Bytes of every page together, when the caller does not count them as they arrive.
    pub max_bytes: Option<usize>,
    /// Keep each tool's text and the first page's other fields (the proxy serves them).
    pub keep_raw: bool,
}

/// Take every page: `page(cursor, time_left, page_number)` fetches one (the whole JSON-RPC
/// response's text) and says why it could not.
pub async fn list_all<R, F, Fut>(bounds: Bounds, mut page: F) -> Result<Listed, ClientError>
where
    R: AsRef<str>,
    F: FnMut(Option<String>, Duration, usize) -> Fut,
    Fut: Future<Output = Result<R, ClientError>>,
{
    let mut allowance = bounds.allowance;
    let mut listed = Listed::default();
    let mut cursor: Option<String> = None;
    let mut cursors = HashSet::new();
    let mut pages_seen: HashMap<u64, usize> = HashMap::new();
    let mut bytes = 0usize;
    let deadline = tokio::time::Instant::now() + bounds.timeout;
    for n in 0..MAX_PAGES {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            return Err(ClientError::Timeout {
                what: format!("tools/list (the whole listing; {n} pages read so far)"),
                after: bounds.timeout,
            });
        }
        let answer = page(cursor.clone(), left, n + 1).await?;
        let raw = answer.as_ref();
        if let Some(cap) = bounds.max_bytes {
            bytes = bytes.saturating_add(raw.len());
            if bytes > cap {
                return Err(ClientError::ListingTooLarge { cap });
            }
        }
        // A page identical to an earlier one means the cursor led back: pagination loops.
        if let Some(earlier) = pages_seen.insert(page_digest(raw), n + 1) {
            return Err(ClientError::Protocol(format!(
                "tools/list pagination loops: page {} repeats page {earlier}; the server's nextCursor leads back to a page already read",
                n + 1
            )));
        }
        let raw_tools = bounds.keep_raw.then_some(&mut listed.raw);
        let next = parse_tools_page(raw, n + 1, &mut listed.tools, &mut allowance, raw_tools)?;
        if n == 0 && bounds.keep_raw {
            listed.extra = extra_fields(raw);
        }
        match next {
            Some(next) => {
                if !cursors.insert(next.clone()) {
                    return Err(ClientError::Protocol(format!(
                        "tools/list pagination loops: cursor {} came back on page {}; the server's pagination is broken",
                        capture::excerpt(&next),
                        n + 1
                    )));
                }
                cursor = Some(next);
            }
            None => return Ok(listed),
        }
    }
    Err(ClientError::Protocol(format!("tools/list returned more than {MAX_PAGES} pages")))
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

#[cfg(test)]
mod tests {
    #[test]
    fn extra_fields_keep_their_text() {
        let raw =
            r#"{"jsonrpc":"2.0","id":"x","result":{"tools":[],"nextCursor":"c","ttlMs":6e4,"cacheScope":"user"}}"#;
        assert_eq!(super::extra_fields(raw), r#","cacheScope":"user","ttlMs":6e4"#);
    }
}
