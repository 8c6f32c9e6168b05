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
    /// The id by value ([`id_key`]): its canonical JSON text (`3` for `3`, `3.0` and `3e0`;
    /// `"abc"` for `"\u0061bc"`), so two ids are the same id exactly when these texts are equal.
    /// The key requests and answers are matched by.
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
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A member that is there, even as `null` (serde reads a `null` `Option` as absent).
fn present<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'a RawValue>, D::Error> {
    <&'a RawValue>::deserialize(d).map(Some)
}

/// Why a line is not a message the relay can route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Not JSON, or not a JSON-RPC object.
    NotJson(String),
    /// Nested deeper than serde_json reads (128 levels): only the top-level `id` (by value, as
    /// [`id_key`]), and whether there is a `method`, are known (found by scanning bytes).
    TooDeep { id: Option<String>, has_method: bool },
    /// A `method` beside a `result` or an `error`: a request to one peer and an answer to another
    /// (SDKs that check the answer's members first take it for an answer), so neither.
    Ambiguous { id: Option<String> },
}

/// JSON's whitespace (RFC 8259): the only bytes allowed around a message. Unicode's other
/// blanks (`\u{2028}`, `\u{85}`, a form feed) are not trimmed: a message they surround is not
/// JSON, and is not read (so never relayed).
const JSON_WS: [char; 4] = [' ', '\t', '\n', '\r'];

/// Read the envelope of `text` (one message, no line break).
pub fn parse(text: &str) -> Result<Message<'_>, Unreadable> {
    let trimmed = text.trim_matches(JSON_WS);
    if trimmed.starts_with('[') {
        return match serde_json::from_str::<Vec<&RawValue>>(trimmed) {
            Ok(_) => Ok(Message { kind: Kind::Batch, id: None, method: None, params: None, result: None, error: None }),
            Err(e) => Err(Unreadable::NotJson(e.to_string())),
        };
    }
    match serde_json::from_str::<Envelope<'_>>(trimmed) {
        Ok(e) => {
            let id = match e.id.map(|r| id_key(r.get())) {
                None | Some(Ok(None)) => None,
                Some(Ok(Some(k))) => Some(k),
                Some(Err(why)) => return Err(Unreadable::NotJson(why)),
            };
            if e.method.is_some() && (e.result.is_some() || e.error.is_some()) {
                return Err(Unreadable::Ambiguous { id });
            }
            let kind = match (&e.method, &id) {
                (Some(_), Some(_)) => Kind::Request,
                (Some(_), None) => Kind::Notification,
                (None, _) => Kind::Response,
            };
            Ok(Message { kind, id, method: e.method, params: e.params, result: e.result, error: e.error })
        }
        Err(e) if trimmed.starts_with('{') && e.to_string().contains("recursion limit") => {
            let (id, has_method) = crate::client::capture::scan_envelope(trimmed);
            Err(Unreadable::TooDeep { id: id.and_then(|i| id_key(&i).ok().flatten()), has_method })
        }
        Err(e) => Err(Unreadable::NotJson(e.to_string())),
    }
}

/// A message as it is written to a peer that reads lines: exactly the value the judge read, on
/// one line. A line reader ends a line at LF, and many (Java's `BufferedReader.readLine`, .NET's
/// `ReadLine`, Node's `readline`) at CR too; JSON reads both as whitespace, so one judged value
/// holding either could carry a second, unjudged message on the next "line". Text without a CR,
/// an LF or whitespace at its ends (nearly every message) is relayed byte for byte; other text is
/// written again without the whitespace between its tokens (every other byte kept: numbers,
/// escapes and key order as they came). Never a raw CR or LF comes out, even of text that is not
/// JSON (one inside a string, where JSON forbids it, is escaped).
pub fn frame(text: &str) -> Cow<'_, str> {
    let b = text.as_bytes();
    let edge = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t'));
    if !b.contains(&b'\n') && !b.contains(&b'\r') && !edge(b.first()) && !edge(b.last()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            match c {
                '\n' | '\r' => {
                    escaped = false;
                    out.push_str(if c == '\n' { "\\n" } else { "\\r" });
                    continue;
                }
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            out.push(c);
        } else if !JSON_WS.contains(&c) {
            in_string = c == '"';
            out.push(c);
        }
    }
    Cow::Owned(out)
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

    /// A string member of `params` (`level` of `logging/setLevel`).
    pub fn param_str(&self, key: &str) -> Option<String> {
        let p: serde_json::Map<String, serde_json::Value> = serde_json::from_str(self.params?.get()).ok()?;
        p.get(key)?.as_str().map(str::to_string)
    }

    /// `params.requestId` of a `notifications/cancelled`, as id text.
    pub fn cancelled_id(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct P<'a> {
            #[serde(borrow, rename = "requestId", default)]
            request_id: Option<&'a RawValue>,
        }
        let p: P<'_> = serde_json::from_str(self.params?.get()).ok()?;
        id_key(p.request_id?.get()).ok().flatten()
    }

    /// The subscription id a notification carries in `params._meta`
    /// (`io.modelcontextprotocol/subscriptionId`, 2026-07-28), as id text.
    pub fn subscription_id(&self) -> Option<String> {
        let meta: serde_json::Map<String, serde_json::Value> = serde_json::from_str(self.meta()?.get()).ok()?;
        id_key(&meta.get(SUBSCRIPTION_ID)?.to_string()).ok().flatten()
    }
}

/// A JSON-RPC id by value, as every SDK compares ids (TypeScript's `Number(id)`, Python's
/// `1 == 1.0`, string escapes decoded): its canonical JSON text, the one key every map of the
/// relay is keyed by. A number is written by its exact decimal value (`3`, `3.0`, `3e0` and
/// `0.3e1` are all `3`; no rounding, so two ids that differ in any digit stay two ids); a string
/// is written as serde_json writes it (escapes decoded, then only what JSON requires escaped).
/// `Ok(None)` for `null`; an error for an id that is neither a string nor a number.
pub fn id_key(raw: &str) -> Result<Option<String>, String> {
    let raw = raw.trim();
    match raw.as_bytes().first() {
        Some(b'"') => {
            let s: String = serde_json::from_str(raw).map_err(|e| format!("the id is not a JSON string: {e}"))?;
            let mut out = String::with_capacity(s.len() + 2);
            crate::json::write_string(&mut out, &s);
            Ok(Some(out))
        }
        Some(b'-' | b'0'..=b'9') => number_key(raw).map(Some).ok_or_else(|| "the id is not a JSON number".to_string()),
        _ if raw == "null" => Ok(None),
        _ => Err("the id is neither a string nor a number".to_string()),
    }
}

/// A JSON number's exact value, written canonically: an integer as its digits, anything else as
/// `DIGITSe-N` (digits without leading or trailing zeros). `None` when `raw` is not a JSON number.
fn number_key(raw: &str) -> Option<String> {
    let (negative, body) = match raw.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, raw),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => (i, f),
        Some(_) => return None,
        None => (mantissa, ""),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || (int.len() > 1 && int.starts_with('0')) {
        return None;
    }
    // value = digits * 10^(exp - frac.len())
    let digits = format!("{int}{frac}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some("0".into());
    }
    let trimmed = digits.trim_end_matches('0');
    let mut exp = exp.checked_sub(frac.len() as i64)?.checked_add((digits.len() - trimmed.len()) as i64)?;
    let sign = if negative { "-" } else { "" };
    // An integer of a sane size is written out, as a client writes it.
    if (0..=40).contains(&exp) {
        let mut out = format!("{sign}{trimmed}");
        while exp > 0 {
            out.push('0');
            exp -= 1;
        }
        return Some(out);
    }
    Some(format!("{sign}{trimmed}e{exp}"))
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

/// A `notifications/message` line (level `warning`, logger `mcp-pin`) with mcp-pin's own text:
/// what the proxy keeps from the client, said to the client.
pub fn warning_line(message: &str) -> String {
    let mut text = String::new();
    crate::json::write_string(&mut text, message);
    crate::sink::jsonrpc_own(format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"warning","logger":"mcp-pin","data":{text}}}}}"#
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
    fn ids_are_keyed_by_value() {
        let key = |raw: &str| id_key(raw).unwrap();
        for same in ["3", "3.0", "3e0", "0.3e1", "30e-1", "3.000E+0"] {
            assert_eq!(key(same).as_deref(), Some("3"), "{same}");
        }
        assert_eq!(key("-0.0").as_deref(), Some("0"));
        assert_eq!(key("1.5").as_deref(), Some("15e-1"));
        assert_eq!(key("1e50").as_deref(), Some("1e50"));
        // Exact: a big id is not rounded onto another.
        assert_ne!(key("9007199254740993"), key("9007199254740992"));
        assert_eq!(key(r#""\u0072eq-3""#).as_deref(), Some(r#""req-3""#));
        assert_ne!(key(r#""3""#), key("3"));
        assert_eq!(key("null"), None);
        assert!(id_key("true").is_err() && id_key("{}").is_err() && id_key("01").is_err());
        // A method beside a result is neither a request nor an answer.
        let both = r#"{"jsonrpc":"2.0","id":1,"method":"m","result":null}"#;
        assert!(matches!(parse(both), Err(Unreadable::Ambiguous { .. })));
        assert_eq!(parse(r#"{"jsonrpc":"2.0","id":1.0,"result":{}}"#).unwrap().id.as_deref(), Some("1"));
    }

    #[test]
    fn frames_are_one_line_of_the_judged_value() {
        // Nearly every message: byte for byte, no copy.
        let plain = r#"{"jsonrpc":"2.0","id":1,"result":{"a":"x y","n":1.50e3}}"#;
        assert!(matches!(frame(plain), Cow::Borrowed(_)));
        // A second message riding in a member after a CR, an LF or both: one line, same value.
        for sep in ["\n", "\r", "\r\n"] {
            let smuggled = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"t\":\"a b\\n\"}},\"x\":{sep}\t{{\"id\":1,\"result\":{{\"evil\":1.0}}}}{sep}}}"
            );
            let framed = frame(&smuggled);
            assert!(!framed.contains(['\n', '\r']), "{framed:?}");
            assert_eq!(framed, r#"{"jsonrpc":"2.0","id":1,"result":{"t":"a b\n"},"x":{"id":1,"result":{"evil":1.0}}}"#);
            let a: serde_json::Value = serde_json::from_str(&smuggled).unwrap();
            assert_eq!(a, serde_json::from_str::<serde_json::Value>(&framed).unwrap());
        }
        assert_eq!(frame(" {\"a\" : \"b \\\" c\"}\t"), r#"{"a":"b \" c"}"#);
        // Not JSON (a raw LF inside a string): still never a raw line break out.
        assert_eq!(frame("{\"a\":\"x\ny\r\"}"), r#"{"a":"x\ny\r"}"#);
        // Only JSON's whitespace is trimmed: a message behind another blank is not read.
        assert!(matches!(parse("\u{2028}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"), Err(Unreadable::NotJson(_))));
        assert!(matches!(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\u{c}"), Err(Unreadable::NotJson(_))));
        assert!(parse(" \t{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n").is_ok());
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
