//! The surface file: what the fixture serves, read afresh on every request that needs it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::raw::minify;

/// One tool as written in the surface file.
#[derive(Debug, Clone)]
pub struct RawTool {
    /// The tool object exactly as in the file, with insignificant whitespace removed.
    pub text: String,
}

impl RawTool {
    /// The tool parsed into a `Value` (used for call behaviour, never for the wire).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    pub fn name(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct NameOnly {
            name: Option<Value>,
        }
        let n: NameOnly = serde_json::from_str(&self.text).ok()?;
        match n.name? {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// JSON-RPC error returned by a `{"error": {...}}` behaviour.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorSpec {
    pub code: i32,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub data: Option<Value>,
}

/// Per-tool `tools/call` behaviour (`calls.<tool>`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallBehaviour {
    /// A raw `CallToolResult`, sent verbatim (whitespace removed).
    #[serde(default)]
    pub result: Option<Box<RawValue>>,
    /// Raw results used in turn, one per valid call (a call missing a required argument is
    /// answered as usual and uses none); the last one answers every call after the list ends.
    /// The count survives the process (a file next to the surface file, see
    /// [`next_call_index`]), so `lock` can see the first result and the following `check` the
    /// second. Wins over `result`.
    #[serde(default)]
    pub results: Option<Vec<Box<RawValue>>>,
    /// Answer with this JSON-RPC error.
    #[serde(default)]
    pub error: Option<ErrorSpec>,
    /// Never answer (until the client cancels the request).
    #[serde(default)]
    pub hang: bool,
    /// Sleep this long before answering.
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Do not complain about missing required arguments.
    #[serde(default)]
    pub accept_incomplete: bool,
    /// A call with every required argument succeeds only when each argument named here has one
    /// of the listed values; otherwise `isError` with `not found: VALUE` (the argument unnamed).
    /// A key that starts with `/` is a JSON pointer into the arguments (`/sort_by/0/column`).
    #[serde(default)]
    pub accepts: BTreeMap<String, Vec<Value>>,
    /// The reverse of `accepts`: a call is refused while the argument (or pointer) has one of the
    /// listed values (a name that is taken), with its `refusalTexts` text or `'VALUE' already
    /// exists`.
    #[serde(default)]
    pub taken: BTreeMap<String, Vec<Value>>,
    /// The text of a refusal by `accepts`, per argument, `{value}` standing for the value sent
    /// (`"Sheet '{value}' not found. Available sheets: 'Items', 'Notes'"`); otherwise
    /// `not found: VALUE`.
    #[serde(default)]
    pub refusal_texts: BTreeMap<String, String>,
    /// Answer a refusal by `accepts` / `exists` / `needs` as ordinary text with `isError` false,
    /// as many servers answer their failures.
    #[serde(default)]
    pub quiet_refusal: bool,
    /// Arguments that must name an existing file or folder (relative to the server's working
    /// folder, or absolute); otherwise `isError` with `ENOENT: no such file or directory`.
    #[serde(default)]
    pub exists: Vec<String>,
    /// Ask the client for its roots (`roots/list`) and write the answer (JSON) to this file
    /// (relative to the server's working folder), then answer as usual.
    #[serde(default)]
    pub roots_to: Option<String>,
    /// Try these escapes on every call, before answering as usual ([`crate::escape`]).
    #[serde(default)]
    pub escape: Option<crate::escape::Escape>,
    /// Send these notifications to the client before answering (`"tools/list_changed"`,
    /// `"prompts/list_changed"`, `"resources/list_changed"`): to the session (legacy) and to
    /// every open `subscriptions/listen` stream (2026-07-28).
    #[serde(default)]
    pub notify: Vec<String>,
    /// Send this many `notifications/progress` for the call's `progressToken` (when it has one)
    /// before answering, with `total` set to the same number.
    #[serde(default)]
    pub progress: Option<u32>,
    /// Fail the call (`isError`) when its request carries a `progressToken` in `_meta`, as a real
    /// server's load tool did; the same call without one is answered as usual.
    #[serde(default)]
    pub refuses_progress_token: bool,
    /// Send the client a `sampling/createMessage` request with these params before answering;
    /// the default result's text is then `sampled: <the text of the client's answer>`.
    #[serde(default)]
    pub sample: Option<Value>,
    /// A session's order (per server process, [`crate::state`]): when the call succeeds,
    /// remember KEY = the value of its first required argument (as a string). A new process
    /// starts with nothing set.
    #[serde(default)]
    pub sets: Option<String>,
    /// Any call with every required argument, refused or not, sets KEY in this process (a
    /// call that fails half way and leaves something behind: a cherry-pick in progress).
    #[serde(default)]
    pub leaves: Option<String>,
    /// Keys a `sets` tool must have set in this process first; while one is not, the call is
    /// answered `isError` with `No KEY set. Call SETTER first.` (KEY with spaces for
    /// underscores, SETTER the tool whose `sets` is KEY).
    #[serde(default)]
    pub needs: Vec<String>,
    /// On success, make a fresh id `KIND-HEX` (HEX differs between processes and calls), record
    /// it as made of `kind` in this process, and answer `answer` with `{id}` replaced (plain
    /// text, or JSON text such as `{"id": "{id}"}`).
    #[serde(default)]
    pub makes: Option<Make>,
    /// `{"ARG": "KIND"}`: refuse (`isError`, `KIND 'VALUE' not found`) unless ARG is an id made
    /// of KIND in this process.
    #[serde(default)]
    pub uses: BTreeMap<String, String>,
    /// Like `uses`, and the id is forgotten when the call succeeds.
    #[serde(default)]
    pub removes: BTreeMap<String, String>,
    /// The call makes the whole server process exit (code 1) after `afterMs`, unanswered.
    #[serde(default)]
    pub exit_process: Option<ExitProcess>,
    /// A kill tool: send SIGTERM to the process id in this argument and answer `Sent signal to
    /// PID`, or `isError` with the errno text. Pid 0 is the server's own process group (what a
    /// careless probe takes down). On a shared machine the fixture really signals only its own
    /// group (0, its own pid, a member of its group); any other pid is answered `No such
    /// process` when there is none and refused otherwise, never signalled.
    #[serde(default)]
    pub signal: Option<String>,
    /// A destroyer: on success, delete the file named by this argument (relative to the
    /// process's working folder), or answer `isError` with the OS's words when it cannot.
    #[serde(default)]
    pub deletes: Option<String>,
}

/// `makes`: what a maker makes and how it answers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Make {
    pub kind: String,
    pub answer: String,
}

/// `exitProcess`: a call that takes its server down.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExitProcess {
    #[serde(default)]
    pub after_ms: u64,
    /// Only while this file does not exist; it is created just before exiting, so the next
    /// process answers the call as usual.
    #[serde(default)]
    pub unless_file: Option<std::path::PathBuf>,
    /// The call is answered as usual, and the process exits (code 1) when the next call comes,
    /// unanswered: a server that a failed call takes down a moment after its answer.
    #[serde(default)]
    pub after_answer: bool,
}

impl CallBehaviour {
    /// Why a call with every required argument is refused by `accepts` / `exists`, if it is.
    pub fn refusal(&self, args: &Map<String, Value>) -> Option<String> {
        let all = Value::Object(args.clone());
        let at = |k: &str| if k.starts_with('/') { all.pointer(k) } else { args.get(k) };
        let say = |k: &str, v: &Value, otherwise: &str| {
            let value = v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
            match self.refusal_texts.get(k) {
                Some(t) => t.replace("{value}", &value),
                None => otherwise.replace("{value}", &value),
            }
        };
        for (k, allowed) in &self.accepts {
            if let Some(v) = at(k) {
                if !allowed.contains(v) {
                    return Some(say(k, v, "not found: {value}"));
                }
            }
        }
        for (k, names) in &self.taken {
            if let Some(v) = at(k) {
                if names.contains(v) {
                    return Some(say(k, v, "'{value}' already exists"));
                }
            }
        }
        for k in &self.exists {
            let ok = args.get(k).and_then(Value::as_str).is_some_and(|p| !p.is_empty() && Path::new(p).exists());
            if !ok {
                return Some("ENOENT: no such file or directory".into());
            }
        }
        None
    }
}

/// A hostile process (`hostile` in the surface file), read once at start.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Hostile {
    /// Escapes tried at start, before serving.
    #[serde(default)]
    pub escape: Option<crate::escape::Escape>,
    /// Keep running when stdin closes (a server that ignores EOF).
    #[serde(default)]
    pub ignore_eof: bool,
    /// Ignore SIGTERM, SIGINT and SIGHUP.
    #[serde(default)]
    pub ignore_signals: bool,
    /// On SIGTERM, stop answering at once (stdout becomes `/dev/null`: the client reads its end)
    /// and keep running: the client's calls fail the moment the server is told to end.
    #[serde(default)]
    pub close_stdout_on_term: bool,
}

/// Faults for reliability tests.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Faults {
    pub exit_during_handshake: bool,
    pub never_answer: bool,
    pub junk_stdout: bool,
    /// The junk line's text (`junkStdout: "text"`); `$ENV{NAME}` is replaced by that variable.
    pub junk_text: Option<String>,
    /// Print this on stderr at start (`$ENV{NAME}` expanded likewise).
    pub stderr: Option<String>,
    /// Sleep this long before answering each `tools/list` page (`listDelayMs`).
    pub list_delay_ms: Option<u64>,
    /// Append this many MB (10^6 bytes) of generated tools to the list.
    pub huge_tool_list_mb: Option<f64>,
    /// `refuseCwdUnder: ["/abs/dir", ...]`: at start, a server that takes a folder under these
    /// (or under `$TMPDIR`, when set) for a throwaway: when its canonical working folder is
    /// inside one, print `refusing to work in a temporary folder: PATH` on stderr and exit 1
    /// before the handshake.
    pub refuse_cwd_under: Option<Vec<String>>,
}

impl Faults {
    fn parse(v: &Value) -> Result<Faults, String> {
        let mut f = Faults::default();
        match v {
            Value::Null => {}
            Value::String(s) => f.set(s, &Value::Bool(true))?,
            Value::Array(items) => {
                for item in items {
                    let g = Faults::parse(item)?;
                    f.merge(g);
                }
            }
            Value::Object(map) => {
                for (k, v) in map {
                    f.set(k, v)?;
                }
            }
            other => return Err(format!("fault: expected a string, array or object, got {other}")),
        }
        Ok(f)
    }

    fn merge(&mut self, g: Faults) {
        self.exit_during_handshake |= g.exit_during_handshake;
        self.never_answer |= g.never_answer;
        self.junk_stdout |= g.junk_stdout;
        if g.junk_text.is_some() {
            self.junk_text = g.junk_text;
        }
        if g.stderr.is_some() {
            self.stderr = g.stderr;
        }
        if g.list_delay_ms.is_some() {
            self.list_delay_ms = g.list_delay_ms;
        }
        if g.huge_tool_list_mb.is_some() {
            self.huge_tool_list_mb = g.huge_tool_list_mb;
        }
        if g.refuse_cwd_under.is_some() {
            self.refuse_cwd_under = g.refuse_cwd_under;
        }
    }

    fn set(&mut self, name: &str, v: &Value) -> Result<(), String> {
        let on = !matches!(v, Value::Bool(false) | Value::Null);
        match name {
            "exitDuringHandshake" => self.exit_during_handshake = on,
            "neverAnswer" => self.never_answer = on,
            "junkStdout" => {
                self.junk_stdout = on;
                if let Value::String(t) = v {
                    self.junk_text = Some(t.clone());
                }
            }
            "listDelayMs" => match v {
                Value::Number(n) => self.list_delay_ms = n.as_u64(),
                _ => return Err("fault listDelayMs: expected milliseconds".into()),
            },
            "stderr" => match v {
                Value::String(t) => self.stderr = Some(t.clone()),
                _ => return Err("fault stderr: expected the text to print".into()),
            },
            "refuseCwdUnder" => match v {
                Value::Array(dirs) => {
                    let dirs: Option<Vec<String>> = dirs.iter().map(|d| d.as_str().map(str::to_owned)).collect();
                    self.refuse_cwd_under =
                        Some(dirs.ok_or("fault refuseCwdUnder: expected an array of absolute paths")?);
                }
                _ => return Err("fault refuseCwdUnder: expected an array of absolute paths".into()),
            },
            "duplicateNames" => {} // nothing to do: just list duplicates in `tools`
            "hugeToolList" => {
                self.huge_tool_list_mb = match v {
                    Value::Number(n) => n.as_f64(),
                    Value::Bool(true) => Some(1.0),
                    _ => return Err("fault hugeToolList: expected a number of MB".into()),
                }
            }
            other => return Err(format!("unknown fault {other:?}")),
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Surface {
    pub server_info: Option<Value>,
    /// Raw `capabilities` for the handshake (default: `{"tools": {}}`).
    pub capabilities: Option<Value>,
    pub instructions: Option<String>,
    pub page_size: Option<usize>,
    pub cursor_loop: bool,
    pub tools: Vec<RawTool>,
    pub calls: BTreeMap<String, CallBehaviour>,
    pub fault: Faults,
    pub protocol_versions: Option<Vec<String>>,
    pub discover: bool,
    /// `clientSurfaces`: the tools served instead of `tools` to a client whose
    /// `clientInfo.name` is the key (a server that cloaks: one surface for a gate, another for
    /// the editors).
    pub client_tools: BTreeMap<String, Vec<RawTool>>,
    pub hostile: Hostile,
    /// `listChanged: true`: the `tools` capability declares `listChanged`, and a 2026-07-28
    /// client may open `subscriptions/listen` for it.
    pub list_changed: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SurfaceFile<'a> {
    #[serde(default)]
    server_info: Option<Value>,
    #[serde(default)]
    capabilities: Option<Value>,
    #[serde(default)]
    instructions: Option<String>,
    #[serde(default)]
    page_size: Option<usize>,
    #[serde(default)]
    cursor_loop: bool,
    #[serde(default, borrow)]
    tools: Vec<&'a RawValue>,
    #[serde(default)]
    calls: BTreeMap<String, CallBehaviour>,
    #[serde(default)]
    fault: Option<Value>,
    #[serde(default)]
    protocol_versions: Option<Vec<String>>,
    #[serde(default)]
    discover: Option<bool>,
    #[serde(default, borrow)]
    client_surfaces: BTreeMap<String, Vec<&'a RawValue>>,
    #[serde(default)]
    hostile: Hostile,
    #[serde(default)]
    list_changed: bool,
}

impl Surface {
    pub fn load(path: &Path) -> Result<Surface, String> {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read surface file {}: {e}", path.display()))?;
        Surface::parse(&text).map_err(|e| format!("surface file {}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Surface, String> {
        let file: SurfaceFile<'_> = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let fault = match &file.fault {
            Some(v) => Faults::parse(v)?,
            None => Faults::default(),
        };
        Ok(Surface {
            server_info: file.server_info,
            capabilities: file.capabilities,
            instructions: file.instructions,
            page_size: file.page_size.filter(|n| *n > 0),
            cursor_loop: file.cursor_loop,
            tools: file.tools.iter().map(|raw| RawTool { text: minify(raw.get()) }).collect(),
            calls: file.calls,
            fault,
            protocol_versions: file.protocol_versions,
            discover: file.discover.unwrap_or(true),
            client_tools: file
                .client_surfaces
                .iter()
                .map(|(k, tools)| (k.clone(), tools.iter().map(|raw| RawTool { text: minify(raw.get()) }).collect()))
                .collect(),
            hostile: file.hostile,
            list_changed: file.list_changed,
        })
    }

    /// The surface as the client named `client` (its `clientInfo.name`) is served it.
    pub fn for_client(mut self, client: Option<&str>) -> Surface {
        if let Some(tools) = client.and_then(|c| self.client_tools.get(c)) {
            self.tools = tools.clone();
        }
        self
    }

    /// Every tool to list: the file's tools followed by generated bulk tools (hugeToolList).
    pub fn all_tool_texts(&self) -> Vec<String> {
        let mut out: Vec<String> = self.tools.iter().map(|t| t.text.clone()).collect();
        if let Some(mb) = self.fault.huge_tool_list_mb {
            let target = (mb.max(0.0) * 1_000_000.0) as usize;
            let filler = "lorem ipsum dolor sit amet ".repeat(34);
            let mut size = 0usize;
            let mut i = 0usize;
            while size < target {
                i += 1;
                let t = format!(
                    r#"{{"name":"bulk_tool_{i:06}","description":"Generated tool {i}: {filler}","inputSchema":{{"type":"object","properties":{{"query":{{"type":"string","description":"{filler}"}}}},"required":["query"]}}}}"#
                );
                size += t.len() + 1;
                out.push(t);
            }
        }
        out
    }

    /// The first tool with this name (the file may hold duplicates).
    pub fn find_tool(&self, name: &str) -> Option<&RawTool> {
        self.tools.iter().find(|t| t.name().as_deref() == Some(name))
    }
}

/// One page of `tools/list`: the JSON text of the result's fields `"tools":[...]` and
/// maybe `"nextCursor":"..."`, without the surrounding braces.
pub fn page_fields(surface: &Surface, cursor: Option<&str>) -> Result<String, String> {
    let tools = surface.all_tool_texts();
    let offset = match cursor {
        None => 0,
        Some(c) => {
            let off = decode_cursor(c).ok_or_else(|| format!("invalid cursor {c:?}"))?;
            if off > tools.len() || (off == tools.len() && off != 0) {
                return Err(format!("invalid cursor {c:?}"));
            }
            off
        }
    };
    let end = match surface.page_size {
        Some(n) => (offset + n).min(tools.len()),
        None => tools.len(),
    };
    let mut out = String::with_capacity(tools[offset..end].iter().map(|t| t.len() + 1).sum::<usize>() + 64);
    out.push_str("\"tools\":[");
    for (i, t) in tools[offset..end].iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(t);
    }
    out.push(']');
    let next = if end < tools.len() {
        Some(encode_cursor(end))
    } else if surface.cursor_loop && surface.page_size.is_some() {
        Some(encode_cursor(0))
    } else {
        None
    };
    if let Some(next) = next {
        out.push_str(",\"nextCursor\":");
        out.push_str(&serde_json::to_string(&next).expect("string"));
    }
    Ok(out)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Cursors are opaque to clients: hex of `offset:N`, behind a prefix.
pub fn encode_cursor(offset: usize) -> String {
    let plain = format!("offset:{offset}");
    let mut s = String::from("fxc1-");
    for b in plain.bytes() {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

pub fn decode_cursor(cursor: &str) -> Option<usize> {
    let hex = cursor.strip_prefix("fxc1-")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect();
    let plain = String::from_utf8(bytes?).ok()?;
    plain.strip_prefix("offset:")?.parse().ok()
}

/// The names of top-level `required` arguments absent from `args`, in schema order.
pub fn missing_required(tool: &Value, args: &Map<String, Value>) -> Vec<String> {
    tool.get("inputSchema")
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|req| {
            req.iter().filter_map(Value::as_str).filter(|name| !args.contains_key(*name)).map(str::to_owned).collect()
        })
        .unwrap_or_default()
}

/// A minimal instance of a JSON Schema: objects with their required properties, strings
/// "x", numbers 0 (or the minimum), booleans false, arrays [] (or minItems items), the
/// first `enum` value or the `const`, the first branch of anyOf/oneOf, local `$ref`s.
pub fn minimal_instance(schema: &Value) -> Value {
    instance(schema, schema, 0)
}

fn resolve_ref<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    root.pointer(pointer)
}

fn instance(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > 32 {
        return Value::Null;
    }
    let Some(obj) = schema.as_object() else {
        // `true` / `{}` accept anything; `false` accepts nothing: null is as good as any.
        return Value::Null;
    };
    if let Some(c) = obj.get("const") {
        return c.clone();
    }
    if let Some(e) = obj.get("enum").and_then(Value::as_array).and_then(|a| a.first()) {
        return e.clone();
    }
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        if let Some(target) = resolve_ref(root, r) {
            return instance(target, root, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(first) = obj
            .get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.iter().find(|s| s.get("type").and_then(Value::as_str) != Some("null")).or(a.first()))
        {
            return instance(first, root, depth + 1);
        }
    }
    if let Some(all) = obj.get("allOf").and_then(Value::as_array) {
        // Merge object instances of every branch.
        let mut merged = Map::new();
        let mut last = Value::Null;
        for s in all {
            match instance(s, root, depth + 1) {
                Value::Object(m) => merged.extend(m),
                v => last = v,
            }
        }
        if !merged.is_empty() || last.is_null() {
            return Value::Object(merged);
        }
        return last;
    }
    let ty = match obj.get("type") {
        Some(Value::String(s)) => Some(s.as_str()),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or_else(|| a.iter().filter_map(Value::as_str).next()),
        _ => None,
    };
    let ty = ty.or_else(|| {
        if obj.contains_key("properties") || obj.contains_key("required") {
            Some("object")
        } else if obj.contains_key("items") {
            Some("array")
        } else {
            None
        }
    });
    match ty {
        Some("object") => {
            let mut out = Map::new();
            let props = obj.get("properties").and_then(Value::as_object);
            if let Some(req) = obj.get("required").and_then(Value::as_array) {
                for name in req.iter().filter_map(Value::as_str) {
                    let sub = props.and_then(|p| p.get(name)).unwrap_or(&Value::Bool(true));
                    let v = if sub.is_object() { instance(sub, root, depth + 1) } else { Value::String("x".into()) };
                    out.insert(name.to_owned(), v);
                }
            }
            Value::Object(out)
        }
        Some("array") => {
            let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = obj.get("items").cloned().unwrap_or(Value::Bool(true));
            Value::Array((0..min).map(|_| instance(&item, root, depth + 1)).collect())
        }
        Some("string") => {
            let s = match obj.get("format").and_then(Value::as_str) {
                Some("date-time") => "1970-01-01T00:00:00Z".to_owned(),
                Some("date") => "1970-01-01".to_owned(),
                Some("time") => "00:00:00Z".to_owned(),
                Some("email") => "x@example.com".to_owned(),
                Some("uri") | Some("url") => "https://example.com/x".to_owned(),
                Some("uuid") => "00000000-0000-0000-0000-000000000000".to_owned(),
                _ => {
                    let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(1).max(1);
                    "x".repeat(min as usize)
                }
            };
            Value::String(s)
        }
        Some("integer") | Some("number") => {
            let lo = obj.get("minimum").or_else(|| obj.get("exclusiveMinimum")).and_then(Value::as_f64);
            match lo {
                Some(m) if m > 0.0 => {
                    let exclusive = obj.contains_key("exclusiveMinimum") && !obj.contains_key("minimum");
                    let v = if exclusive { m.floor() as i64 + 1 } else { m.ceil() as i64 };
                    Value::from(v)
                }
                _ => Value::from(0),
            }
        }
        Some("boolean") => Value::Bool(false),
        Some("null") => Value::Null,
        _ => Value::Null,
    }
}

/// The folder a `refuseCwdUnder` server refuses to work in, when its working folder is one:
/// inside one of `dirs` or inside `$TMPDIR` (when set), all compared canonical.
pub fn refused_cwd(dirs: &[String]) -> Option<std::path::PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let tmp = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()).map(std::path::PathBuf::from);
    let under = dirs.iter().map(std::path::PathBuf::from).chain(tmp).any(|d| {
        let d = std::fs::canonicalize(&d).unwrap_or(d);
        cwd.starts_with(d)
    });
    under.then_some(cwd)
}

/// `text` with every `$ENV{NAME}` replaced by that environment variable (empty when unset).
pub fn expand_env(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("$ENV{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        match after.find('}') {
            Some(j) => {
                out.push_str(&std::env::var(&after[..j]).unwrap_or_default());
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Which entry of `results` this call of `tool` gets: the number of earlier valid calls of it,
/// counted in `<surface file>.calls-<tool>` (created on first use; delete it to start over).
pub fn next_call_index(surface: &Path, tool: &str) -> usize {
    let safe: String = tool.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    let mut name = surface.as_os_str().to_owned();
    name.push(format!(".calls-{safe}"));
    let counter = std::path::PathBuf::from(name);
    let n = std::fs::read_to_string(&counter).ok().and_then(|t| t.trim().parse::<usize>().ok()).unwrap_or(0);
    if let Err(e) = std::fs::write(&counter, (n + 1).to_string()) {
        eprintln!("mcp-pin-fixture: cannot write {}: {e}", counter.display());
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_round_trip() {
        for n in [0, 1, 2, 17, 123456] {
            assert_eq!(decode_cursor(&encode_cursor(n)), Some(n));
        }
        assert_eq!(decode_cursor("nope"), None);
    }

    #[test]
    fn instance_of_object() {
        let s: Value = serde_json::from_str(
            r#"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"enum":["q","r"]},"d":{"type":"array"},"e":{"type":"boolean"}},"required":["a","b","c","d","e"]}"#,
        )
        .unwrap();
        let v = minimal_instance(&s);
        assert_eq!(v.to_string(), r#"{"a":"x","b":0,"c":"q","d":[],"e":false}"#);
    }
}
