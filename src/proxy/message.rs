//! One JSON-RPC message as the relay sees it: its envelope (id, method) read in place, every
//! other byte left as it came. Nothing here builds a tree of a message the proxy passes on.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// What a message is, from its envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `method` and `id`.
    Request,
    /// `method`, no `id`.
    Notification,
    /// `id`, no `method` (`result` or `error`).
    Response,
    /// A JSON-RPC batch (an array; 2025-03-26 only).
    Batch,
}

/// The envelope of one message; `params`, `result` and `error` stay raw text borrowed from it.
#[derive(Debug)]
pub struct Message<'a> {
    pub kind: Kind,
    /// The id's JSON text (`3`, `"abc"`), the key requests and responses are matched by.
    pub id: Option<String>,
    pub method: Option<Cow<'a, str>>,
    pub params: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    pub error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// Why a line is not a message the relay can route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Not JSON, or not a JSON-RPC object.
    NotJson(String),
    /// Nested deeper than serde_json reads (128 levels): only the top-level `id`, and whether
    /// there is a `method`, are known (found by scanning bytes).
    TooDeep { id: Option<String>, has_method: bool },
}

/// Read the envelope of `text` (one message, no line break).
pub fn parse(text: &str) -> Result<Message<'_>, Unreadable> {
    let trimmed = text.trim();
    if trimmed.starts_with('[') {
        return match serde_json::from_str::<Vec<&RawValue>>(trimmed) {
            Ok(_) => Ok(Message { kind: Kind::Batch, id: None, method: None, params: None, result: None, error: None }),
            Err(e) => Err(Unreadable::NotJson(e.to_string())),
        };
    }
    match serde_json::from_str::<Envelope<'_>>(trimmed) {
        Ok(e) => {
            let id = e.id.map(|r| r.get().trim().to_string()).filter(|i| i != "null");
            let kind = match (&e.method, &id) {
                (Some(_), Some(_)) => Kind::Request,
                (Some(_), None) => Kind::Notification,
                (None, _) => Kind::Response,
            };
            Ok(Message { kind, id, method: e.method, params: e.params, result: e.result, error: e.error })
        }
        Err(e) if trimmed.starts_with('{') && e.to_string().contains("recursion limit") => {
            let (id, has_method) = crate::client::capture::scan_envelope(trimmed);
            Err(Unreadable::TooDeep { id: id.map(|i| i.trim().to_string()), has_method })
        }
        Err(e) => Err(Unreadable::NotJson(e.to_string())),
    }
}

impl Message<'_> {
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or("")
    }

    /// The params' `_meta` object, raw.
    pub fn meta(&self) -> Option<&RawValue> {
        #[derive(Deserialize)]
        struct P<'a> {
            #[serde(borrow, rename = "_meta", default)]
            meta: Option<&'a RawValue>,
        }
        let p: P<'_> = serde_json::from_str(self.params?.get()).ok()?;
        p.meta
    }

    /// `params.name` (the tool of a `tools/call`).
    pub fn param_name(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct P<'a> {
            #[serde(borrow, default)]
            name: Option<Cow<'a, str>>,
        }
        let p: P<'_> = serde_json::from_str(self.params?.get()).ok()?;
        p.name.map(Cow::into_owned)
    }

    /// `params.requestId` of a `notifications/cancelled`, as id text.
    pub fn cancelled_id(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct P<'a> {
            #[serde(borrow, rename = "requestId", default)]
            request_id: Option<&'a RawValue>,
        }
        let p: P<'_> = serde_json::from_str(self.params?.get()).ok()?;
        p.request_id.map(|r| r.get().trim().to_string())
    }

    /// The subscription id a notification carries in `params._meta`
    /// (`io.modelcontextprotocol/subscriptionId`, 2026-07-28), as id text.
    pub fn subscription_id(&self) -> Option<String> {
        let meta: serde_json::Map<String, serde_json::Value> = serde_json::from_str(self.meta()?.get()).ok()?;
        meta.get(SUBSCRIPTION_ID).map(|v| v.to_string())
    }
}

/// The `_meta` key a 2026-07-28 notification names its subscription with.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The `_meta` key of the protocol revision on a 2026-07-28 request.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// A JSON-RPC error response line for `id` (its JSON text; `null` when unknown). `message` is
/// mcp-pin's own text: masked and kept from forming a workflow command where it is shown.
pub fn error_line(id: Option<&str>, code: i64, message: &str) -> String {
    let mut text = String::new();
    crate::json::write_string(&mut text, message);
    crate::sink::jsonrpc_own(format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":{text}}}}}"#,
        id.unwrap_or("null")
    ))
}

/// A `tools/call` result line for `id` that is an error the model reads (`isError: true`),
/// written by mcp-pin.
pub fn tool_error_line(id: &str, message: &str) -> String {
    let mut text = String::new();
    crate::json::write_string(&mut text, message);
    crate::sink::jsonrpc_own(format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":{text}}}],"isError":true}}}}"#
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_are_read_in_place() {
        let m = parse(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":1},"_meta":{"progressToken":"p"}}}"#).unwrap();
        assert_eq!((m.kind, m.id.as_deref(), m.method()), (Kind::Request, Some("7"), "tools/call"));
        assert_eq!(m.param_name().as_deref(), Some("t"));
        assert_eq!(m.meta().unwrap().get(), r#"{"progressToken":"p"}"#);
        let r = parse(r#"{"jsonrpc":"2.0","id":"a","result":{"x":1e3}}"#).unwrap();
        assert_eq!((r.kind, r.id.as_deref()), (Kind::Response, Some(r#""a""#)));
        assert_eq!(r.result.unwrap().get(), r#"{"x":1e3}"#);
        let n = parse(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#).unwrap();
        assert_eq!((n.kind, n.cancelled_id().as_deref()), (Kind::Notification, Some("7")));
        assert_eq!(parse("[1]").unwrap().kind, Kind::Batch);
        assert!(matches!(parse("Server starting"), Err(Unreadable::NotJson(_))));
        // A value nested past serde_json's limit is kept raw, unread: the envelope still routes.
        let deep = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        let d = parse(&deep).unwrap();
        assert_eq!((d.kind, d.id.as_deref()), (Kind::Response, Some("9")));
    }

    #[test]
    fn own_lines_are_json_and_escaped() {
        let l = error_line(Some("3"), -32603, "bad \"x\"\n::error::y ##[z]");
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        assert_eq!(v["id"], 3);
        assert!(!l.contains("##["), "{l}");
        assert!(!l.contains('\n'));
        let t = tool_error_line(r#""q""#, "refused");
        let v: serde_json::Value = serde_json::from_str(&t).unwrap();
        assert_eq!(v["result"]["isError"], true);
    }
}
