//! The relay: one task per direction and one place ([`Relay`]) that owns request ids, the
//! verdict and cancellation. A message it does not judge passes byte for byte, both ways; it
//! judges `tools/list` (answered from its own listing), `tools/call` (refused, or passed and its
//! result judged), the handshake's instructions, and `notifications/tools/list_changed` (a new
//! verdict at once).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, FutureExt, Shared};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use super::call::{self, Decision, ResultVerdict};
use super::judge::{self, Action, JudgeError, Pin, Verdict};
use super::log::{Decision as Logged, Event, Log};
use super::message::{self, Kind, Message, Unreadable};
use super::requests::Requester;
use super::upstream::{self, Incoming, Outgoing, Text};
use crate::client::stdio::MAX_LINE;
use crate::exit::ExitStatus;
use crate::rules::RuleId;
use crate::surface::ServerSurface;

/// JSON-RPC "internal error": what the proxy answers when it cannot judge.
const INTERNAL: i64 = -32603;
/// The client's stdout, buffered (a line is flushed as soon as it is written).
type ClientOut = tokio::io::BufWriter<std::pin::Pin<Box<dyn tokio::io::AsyncWrite + Send>>>;

/// A client request forwarded to the server and not answered yet.
struct Inflight {
    /// `Some(tool)` for a `tools/call` whose result is judged.
    call: Option<String>,
}

#[derive(Default)]
struct State {
    inflight: HashMap<String, Inflight>,
    /// Calls waiting for a verdict (a cancel for one drops it).
    held: HashSet<String>,
    /// The id of the client's handshake request (`initialize` or `server/discover`).
    handshake_id: Option<String>,
    /// Server-level facts from that handshake's answer.
    handshake: Option<ServerSurface>,
    /// The server can be asked for tools (legacy: `notifications/initialized` was sent;
    /// 2026-07-28: a request carried the protocol `_meta`).
    ready: bool,
    /// The proxy's own `subscriptions/listen` id.
    subscription: Option<String>,
}

type Judging = Shared<BoxFuture<'static, Result<Arc<Verdict>, JudgeError>>>;

/// The verdict and the listing under way. `epoch` moves on every `list_changed`: a verdict of an
/// older epoch is stale, and a call waits for a fresh one.
#[derive(Default)]
struct Slot {
    epoch: u64,
    current: Option<(u64, Arc<Verdict>)>,
    running: Option<(u64, Judging)>,
}

pub struct Relay {
    pin: Arc<Pin>,
    log: Log,
    dry_run: bool,
    req: Requester,
    /// The client's stdout, written by the task that has a line for it (no hand-over).
    client: tokio::sync::Mutex<Option<ClientOut>>,
    state: Mutex<State>,
    slot: Mutex<Slot>,
}

impl Relay {
    async fn send_client(&self, line: Text) {
        let mut slot = self.client.lock().await;
        let Some(out) = slot.as_mut() else { return };
        let sent = async {
            out.write_all(line.as_bytes()).await?;
            out.write_all(b"\n").await?;
            out.flush().await
        };
        if sent.await.is_err() {
            // The client is gone; stdin's end says so to the relay.
            *slot = None;
        }
    }

    /// A line mcp-pin wrote itself, to the client.
    async fn say_client(&self, line: String) {
        self.send_client(Text::new(line)).await;
    }

    async fn forward(&self, msg: &Message<'_>, text: Text) {
        let id = msg.id.clone().filter(|_| msg.kind == Kind::Request);
        if !self.req.up.http {
            // A stdio server takes the line as it is: nothing else to work out.
            let out = Outgoing { text, id, version: None, headers: vec![] };
            self.req.up.send(out).await;
            return;
        }
        let method = msg.method().to_string();
        // The revision the client used on this request, else the negotiated one.
        let version = msg.meta().and_then(|m| {
            let v: serde_json::Map<String, Value> = serde_json::from_str(m.get()).ok()?;
            v.get(message::PROTOCOL_VERSION).and_then(Value::as_str).map(str::to_string)
        });
        let mut out = self.req.outgoing(id, &method, text, None);
        if version.is_some() {
            out.version = version;
        }
        if self.req.up.http
            && msg.kind != Kind::Response
            && out.version.as_deref().is_some_and(|v| v >= upstream::http::STATELESS)
        {
            let params: Option<Value> = msg.params.and_then(|p| serde_json::from_str(p.get()).ok());
            let def = msg.param_name().and_then(|t| self.current().and_then(|v| v.def(&t).cloned()));
            out.headers = upstream::http::mirror_headers(&method, params.as_ref(), def.as_ref());
        }
        self.req.up.send(out).await;
    }

    /// The verdict if it is current (no `list_changed` since it was made).
    fn current(&self) -> Option<Arc<Verdict>> {
        let slot = self.slot.lock().unwrap();
        slot.current.as_ref().filter(|(e, _)| *e == slot.epoch).map(|(_, v)| v.clone())
    }

    /// A listing judged from now on: the one under way if it started in this epoch, else a new one.
    fn fresh(self: &Arc<Self>) -> Judging {
        let mut slot = self.slot.lock().unwrap();
        if let Some((e, fut)) = &slot.running {
            if *e == slot.epoch {
                return fut.clone();
            }
        }
        let epoch = slot.epoch;
        let me = self.clone();
        let fut = async move { me.judge_now(epoch).await }.boxed().shared();
        slot.running = Some((epoch, fut.clone()));
        fut
    }

    /// The verdict a call is decided by: the current one, or a fresh one.
    async fn for_call(self: &Arc<Self>) -> Result<Arc<Verdict>, JudgeError> {
        if let Some(v) = self.current() {
            return Ok(v);
        }
        self.fresh().await
    }

    /// The tools changed (or may have): every verdict so far is stale; judge again at once.
    fn invalidate(self: &Arc<Self>) {
        let ready = {
            let mut slot = self.slot.lock().unwrap();
            slot.epoch += 1;
            self.state.lock().unwrap().ready
        };
        if ready {
            let fut = self.fresh();
            tokio::spawn(fut);
        }
    }

    async fn judge_now(self: Arc<Self>, epoch: u64) -> Result<Arc<Verdict>, JudgeError> {
        let result = self.fetch_and_judge().await;
        let mut slot = self.slot.lock().unwrap();
        if slot.running.as_ref().is_some_and(|(e, _)| *e == epoch) {
            slot.running = None;
        }
        match &result {
            Ok(v) => {
                if slot.current.as_ref().is_none_or(|(e, _)| *e <= epoch) {
                    slot.current = Some((epoch, v.clone()));
                }
            }
            Err(e) => {
                drop(slot);
                self.log.decide(&Logged {
                    event: Event::Proxy,
                    tool: None,
                    rule: None,
                    action: &format!("the server's tools could not be judged, nothing is served unjudged: {e}"),
                });
            }
        }
        result
    }

    async fn fetch_and_judge(&self) -> Result<Arc<Verdict>, JudgeError> {
        let listing = super::list::fetch(&self.req, &self.pin.server).await?;
        let handshake = self.state.lock().unwrap().handshake.clone().unwrap_or_else(|| self.pinned_handshake());
        let pin = self.pin.clone();
        // The diff of a big changed surface is CPU work: off the relay's threads.
        let verdict =
            tokio::task::spawn_blocking(move || judge::judge(&pin, listing, &handshake, &crate::calendar::today()))
                .await
                .map_err(|e| JudgeError::Upstream(format!("judging failed inside mcp-pin: {e}")))??;
        for (tool, action) in &verdict.actions {
            if *action != Action::Serve {
                self.log.decide(&Logged {
                    event: Event::List,
                    tool: Some(tool),
                    rule: action.rule(),
                    action: action.word(),
                });
            }
        }
        Ok(Arc::new(verdict))
    }

    /// Without a handshake seen (a 2026-07-28 client need not discover), the server-level facts
    /// are the pinned ones: only the tools are judged.
    fn pinned_handshake(&self) -> ServerSurface {
        match &self.pin.entry {
            Some(e) => ServerSurface { tools: Default::default(), ..e.entry.surface.clone() },
            None => ServerSurface::default(),
        }
    }

    // ------------------------------------------------------------------ client -> server

    async fn on_client_line(self: &Arc<Self>, text: Text) {
        match message::parse(&text) {
            Ok(msg) => match msg.kind {
                Kind::Request => self.on_client_request(&msg, text.clone()).await,
                Kind::Notification => {
                    if msg.method() == "notifications/initialized" {
                        self.state.lock().unwrap().ready = true;
                        self.forward(&msg, text.clone()).await;
                        // Judge before the client asks: the first list or call finds it ready.
                        let fut = self.fresh();
                        tokio::spawn(fut);
                        return;
                    }
                    if msg.method() == "notifications/cancelled" {
                        if let Some(id) = msg.cancelled_id() {
                            self.state.lock().unwrap().held.remove(&id);
                        }
                    }
                    self.forward(&msg, text.clone()).await;
                }
                Kind::Response => self.forward(&msg, text.clone()).await,
                Kind::Batch => self.on_client_batch(&text).await,
            },
            Err(Unreadable::NotJson(e)) => {
                self.say_client(message::error_line(None, -32700, &format!("mcp-pin proxy: not JSON-RPC: {e}"))).await;
            }
            Err(Unreadable::TooDeep { id, has_method }) => match (id, has_method) {
                (Some(id), true) => {
                    let m = "mcp-pin proxy: the request nests JSON deeper than 128 levels; mcp-pin cannot judge it, so it was not forwarded";
                    self.say_client(message::error_line(Some(&id), -32600, m)).await;
                }
                // An answer to the server's own request: not judged, passed on.
                _ => {
                    let out = Outgoing { text, id: None, version: None, headers: vec![] };
                    self.req.up.send(out).await;
                }
            },
        }
    }

    /// A batch (2025-03-26 only) is passed on unless it holds a request the proxy judges; such
    /// a batch is refused whole (batching was removed from the protocol in 2025-06-18).
    async fn on_client_batch(&self, text: &str) {
        let items: Vec<&serde_json::value::RawValue> = serde_json::from_str(text).unwrap_or_default();
        let parsed: Vec<Message<'_>> = items.iter().filter_map(|i| message::parse(i.get()).ok()).collect();
        if parsed.iter().any(|m| matches!(m.method(), "tools/list" | "tools/call")) {
            let errors: Vec<String> = parsed
                .iter()
                .filter(|m| m.kind == Kind::Request)
                .map(|m| message::error_line(m.id.as_deref(), -32600, "mcp-pin proxy: a JSON-RPC batch holding tools/list or tools/call is not relayed (batching was removed in protocol revision 2025-06-18); send the requests one by one"))
                .collect();
            if !errors.is_empty() {
                self.say_client(format!("[{}]", errors.join(","))).await;
            }
            return;
        }
        let out = Outgoing {
            text: Text::new(text.to_string()),
            id: None,
            version: self.req.version.lock().unwrap().clone(),
            headers: vec![],
        };
        self.req.up.send(out).await;
    }

    async fn on_client_request(self: &Arc<Self>, msg: &Message<'_>, text: Text) {
        let id = msg.id.clone().unwrap_or_default();
        self.note_meta(msg);
        match msg.method() {
            "initialize" | "server/discover" => {
                self.state.lock().unwrap().handshake_id = Some(id.clone());
                self.forward(msg, text).await;
            }
            "tools/list" if !self.dry_run => {
                let me = self.clone();
                tokio::spawn(async move {
                    let line = match me.fresh().await {
                        Ok(v) => super::list::serve(&v, &me.pin, &id, false),
                        Err(e) => message::error_line(Some(&id), INTERNAL, &format!("mcp-pin proxy: the server's tools could not be judged, and nothing is served unjudged: {e}")),
                    };
                    me.say_client(line).await;
                });
            }
            "tools/call" => {
                let Some(tool) = msg.param_name() else {
                    // Malformed: the server says what is wrong with it.
                    self.forward(msg, text).await;
                    return;
                };
                match self.current() {
                    Some(v) => self.dispatch_call(Ok(v), msg, id, tool, text).await,
                    None => {
                        self.state.lock().unwrap().held.insert(id.clone());
                        let me = self.clone();
                        // The envelope is read again in the task (it borrows the line).
                        tokio::spawn(async move {
                            let v = me.for_call().await;
                            if !me.state.lock().unwrap().held.remove(&id) {
                                return; // cancelled by the client meanwhile
                            }
                            let Ok(msg) = message::parse(&text) else { return };
                            me.dispatch_call(v, &msg, id, tool, text.clone()).await;
                        });
                    }
                }
            }
            _ => {
                if msg.method() == "tools/list" {
                    // Dry run: the client's own listing passes; the proxy judges one of its own.
                    let fut = self.fresh();
                    tokio::spawn(fut);
                }
                self.state.lock().unwrap().inflight.insert(id, Inflight { call: None });
                self.forward(msg, text).await;
            }
        }
    }

    /// A 2026-07-28 request's protocol `_meta`: kept for the proxy's own requests; the first one
    /// also opens the proxy's subscription to tool list changes.
    fn note_meta(self: &Arc<Self>, msg: &Message<'_>) {
        let Some(meta) = msg.meta().filter(|m| m.get().contains(message::PROTOCOL_VERSION)) else { return };
        let Ok(map) = serde_json::from_str::<serde_json::Map<String, Value>>(meta.get()) else { return };
        let Some(version) = map.get(message::PROTOCOL_VERSION).and_then(Value::as_str) else { return };
        let protocol: serde_json::Map<String, Value> = map
            .iter()
            .filter(|(k, _)| k.starts_with("io.modelcontextprotocol/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        *self.req.meta.lock().unwrap() = Some(Value::Object(protocol).to_string());
        *self.req.version.lock().unwrap() = Some(version.to_string());
        let open = {
            let mut st = self.state.lock().unwrap();
            st.ready = true;
            if st.subscription.is_none() && version >= upstream::http::STATELESS {
                // Its id is known before it is sent: its acknowledgement is never the client's.
                let (id, out) = self.req.subscription();
                st.subscription = Some(id);
                Some(out)
            } else {
                None
            }
        };
        if let Some(out) = open {
            let me = self.clone();
            tokio::spawn(async move {
                me.req.up.send(out).await;
            });
        }
    }

    async fn dispatch_call(
        &self,
        verdict: Result<Arc<Verdict>, JudgeError>,
        msg: &Message<'_>,
        id: String,
        tool: String,
        text: Text,
    ) {
        let decision = match &verdict {
            Ok(v) => call::decide(v, &self.pin, &tool),
            Err(e) => {
                if !self.dry_run {
                    let m = format!(
                        "mcp-pin proxy: the server's tools could not be judged, so the call was not forwarded: {e}"
                    );
                    self.say_client(message::error_line(Some(&id), INTERNAL, &m)).await;
                    return;
                }
                Decision::Pass(Action::Serve)
            }
        };
        match decision {
            Decision::Pass(action) => {
                if action != Action::Serve {
                    self.log.decide(&Logged {
                        event: Event::Call,
                        tool: Some(&tool),
                        rule: action.rule(),
                        action: "call passed",
                    });
                }
                self.state.lock().unwrap().inflight.insert(id, Inflight { call: Some(tool) });
                self.forward(msg, text).await;
            }
            Decision::Refuse { rule, message: why, .. } => {
                self.log.decide(&Logged { event: Event::Call, tool: Some(&tool), rule, action: "call refused" });
                if self.dry_run {
                    self.state.lock().unwrap().inflight.insert(id, Inflight { call: Some(tool) });
                    self.forward(msg, text).await;
                } else {
                    self.say_client(message::tool_error_line(&id, &why)).await;
                }
            }
        }
    }

    // ------------------------------------------------------------------ server -> client

    async fn on_server_message(self: &Arc<Self>, text: Text) {
        let msg = match message::parse(&text) {
            Ok(m) => m,
            Err(Unreadable::TooDeep { id: Some(id), has_method: false }) => {
                let judged = self.state.lock().unwrap().inflight.remove(&id).and_then(|i| i.call);
                if self.req.is_own(&id) {
                    let _ = self.req.deliver(&id, text);
                } else if let (Some(tool), false) = (judged, self.dry_run) {
                    let why = vec![(
                        RuleId::ResultPayloadInvalid,
                        "it nests JSON deeper than 128 levels, which mcp-pin cannot judge".to_string(),
                    )];
                    self.log.decide(&Logged {
                        event: Event::Result,
                        tool: Some(&tool),
                        rule: Some(RuleId::ResultPayloadInvalid),
                        action: "result blocked",
                    });
                    self.say_client(message::tool_error_line(&id, &call::blocked_message(&self.pin, &tool, &why)))
                        .await;
                } else {
                    self.send_client(text).await;
                }
                return;
            }
            // Too deep to read and not an answer: not judged, passed on.
            Err(Unreadable::TooDeep { .. }) => return self.send_client(text).await,
            Err(Unreadable::NotJson(_)) => return,
        };
        match msg.kind {
            Kind::Response => {
                let id = msg.id.clone().unwrap_or_default();
                if self.req.is_own(&id) {
                    let _ = self.req.deliver(&id, text);
                    return;
                }
                let handshake = self.state.lock().unwrap().handshake_id.as_deref() == Some(id.as_str());
                if handshake {
                    let line = self.on_handshake(&msg);
                    self.send_client(line.map(Text::new).unwrap_or(text)).await;
                    return;
                }
                let call = self.state.lock().unwrap().inflight.remove(&id).and_then(|i| i.call);
                match (call, msg.result, msg.error) {
                    (Some(tool), Some(result), _) => self.on_result(&id, &tool, result, text.clone()).await,
                    (Some(tool), None, None) if !self.dry_run => {
                        self.broken(&id, &tool, "the answer to tools/call has neither a result nor an error").await
                    }
                    _ => self.send_client(text).await,
                }
            }
            Kind::Notification => {
                if msg.method() == "notifications/tools/list_changed" {
                    self.invalidate();
                }
                let own = self.state.lock().unwrap().subscription.clone();
                let ours = own.is_some() && msg.subscription_id() == own;
                if !ours {
                    self.send_client(text).await;
                }
            }
            Kind::Request => self.send_client(text).await,
            Kind::Batch => {
                if text.contains("notifications/tools/list_changed") {
                    self.invalidate();
                }
                self.send_client(text).await;
            }
        }
    }

    async fn on_result(&self, id: &str, tool: &str, result: &serde_json::value::RawValue, text: Text) {
        let verdict =
            match self.current().or_else(|| self.slot.lock().unwrap().current.as_ref().map(|(_, v)| v.clone())) {
                Some(v) => v,
                None => return self.send_client(text).await,
            };
        let pin = self.pin.clone();
        let judged = call::judge_result(&verdict, &pin, tool, result, &crate::calendar::today());
        match judged {
            ResultVerdict::Pass { flagged } => {
                for rule in flagged {
                    self.log.decide(&Logged {
                        event: Event::Result,
                        tool: Some(tool),
                        rule: Some(rule),
                        action: "result flagged, passed on",
                    });
                }
                self.send_client(text).await;
            }
            ResultVerdict::Broken(why) if !self.dry_run => self.broken(id, tool, &why).await,
            ResultVerdict::Broken(_) => self.send_client(text).await,
            ResultVerdict::Block(findings) => {
                for (rule, _) in &findings {
                    self.log.decide(&Logged {
                        event: Event::Result,
                        tool: Some(tool),
                        rule: Some(*rule),
                        action: "result blocked",
                    });
                }
                if self.dry_run {
                    self.send_client(text).await;
                } else {
                    self.say_client(message::tool_error_line(id, &call::blocked_message(&self.pin, tool, &findings)))
                        .await;
                }
            }
        }
    }

    /// An answer to a call that breaks the protocol: a JSON-RPC error to the client instead.
    async fn broken(&self, id: &str, tool: &str, why: &str) {
        self.log.decide(&Logged {
            event: Event::Result,
            tool: Some(tool),
            rule: None,
            action: &format!("answer refused: {why}"),
        });
        let m = format!("mcp-pin proxy: server `{}` broke the protocol: {why}", self.pin.server.name);
        self.say_client(message::error_line(Some(id), INTERNAL, &m)).await;
    }

    /// The answer to the client's handshake: its server-level facts are kept for the verdict,
    /// and when its instructions changed silently (after policy) they are replaced by the pinned
    /// ones (or removed, when none were pinned). `Some(line)` when the answer was rewritten.
    fn on_handshake(&self, msg: &Message<'_>) -> Option<String> {
        let result: Value = serde_json::from_str(msg.result?.get()).ok()?;
        let version = result.get("protocolVersion").and_then(Value::as_str).map(str::to_string);
        let pinned = self.pinned_handshake();
        let live = ServerSurface {
            // The revision is the client's choice among the server's, not the server's drift.
            protocol_version: pinned.protocol_version.clone(),
            server_info: result.get("serverInfo").cloned().unwrap_or(Value::Null),
            instructions: result.get("instructions").and_then(Value::as_str).map(str::to_string),
            capabilities: result.get("capabilities").cloned().unwrap_or(Value::Null),
            tools: Default::default(),
        };
        if let Some(v) = &version {
            let mut slot = self.req.version.lock().unwrap();
            if slot.is_none() {
                *slot = Some(v.clone());
            }
        }
        self.state.lock().unwrap().handshake = Some(live.clone());
        self.pin.entry.as_ref()?;
        let policy = crate::diff::verdict::Policy {
            server: &self.pin.server.name,
            rules: &self.pin.rules,
            ignores: &self.pin.ignores,
            today: &crate::calendar::today(),
        };
        let judged = crate::diff::verdict::judge(&pinned, &live, (0, 0), &policy);
        let silent = crate::diff::verdict::silent_server_rules(&judged.changes);
        for c in judged.changes.iter().filter(|c| c.tool.is_none()) {
            let action = if c.rule == RuleId::InstructionsChanged && silent.contains(&c.rule) {
                "the pinned instructions are served"
            } else {
                "flagged, passed on"
            };
            self.log.decide(&Logged { event: Event::Server, tool: None, rule: Some(c.rule), action });
        }
        if self.dry_run || !silent.contains(&RuleId::InstructionsChanged) {
            return None;
        }
        let mut result = result;
        let obj = result.as_object_mut()?;
        match self.pin.pinned_instructions() {
            Some(i) => {
                obj.insert("instructions".into(), Value::String(i.to_string()));
            }
            None => {
                obj.remove("instructions");
            }
        }
        Some(format!(r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#, msg.id.as_deref().unwrap_or("null"), result))
    }

    /// The server is gone: every request still waiting gets a clear error.
    async fn server_gone(&self, why: &str) {
        let ids: Vec<String> = {
            let mut st = self.state.lock().unwrap();
            let mut ids: Vec<String> = st.inflight.drain().map(|(k, _)| k).collect();
            ids.extend(st.held.drain());
            ids
        };
        self.req.own.lock().unwrap().clear();
        for id in ids {
            let m = format!("mcp-pin proxy: the server `{}` ended before it answered: {why}", self.pin.server.name);
            self.say_client(message::error_line(Some(&id), INTERNAL, &m)).await;
        }
    }
}

/// Run the relay until the client closes stdin (the server is then stopped) or the server ends.
pub async fn run(pin: Pin, log: Log, dry_run: bool) -> ExitStatus {
    let (up, mut incoming, closer) = match upstream::connect(&pin.server).await {
        Ok(x) => x,
        Err(e) => {
            let why = crate::client::plain_error(&e.to_string());
            return refuse_all(&format!("server `{}`: {why}", pin.server.name), None).await;
        }
    };
    let relay = Arc::new(Relay {
        pin: Arc::new(pin),
        log,
        dry_run,
        req: Requester::new(up),
        client: tokio::sync::Mutex::new(Some(tokio::io::BufWriter::with_capacity(1 << 16, super::client_io::output()))),
        state: Mutex::new(State::default()),
        slot: Mutex::new(Slot::default()),
    });
    // server -> client
    let me = relay.clone();
    let mut from_server = tokio::spawn(async move {
        while let Some(inc) = incoming.recv().await {
            match inc {
                Incoming::Message(text) => me.on_server_message(text).await,
                Incoming::Failed { id, message } => {
                    let line = message::error_line(
                        Some(&id),
                        INTERNAL,
                        &format!("mcp-pin proxy: the request did not reach the server: {message}"),
                    );
                    if let Err(line) = me.req.deliver(&id, Text::new(line)) {
                        me.state.lock().unwrap().inflight.remove(&id);
                        me.send_client(line).await;
                    }
                }
                Incoming::Closed(why) => return why,
            }
        }
        "the connection to the server closed".to_string()
    });
    // client -> server
    let me = relay.clone();
    let mut from_client = tokio::spawn(async move {
        let mut stdin = BufReader::with_capacity(1 << 16, super::client_io::input());
        loop {
            let mut line = Vec::new();
            match (&mut stdin).take(MAX_LINE as u64).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            while matches!(line.last(), Some(b'\n' | b'\r')) {
                line.pop();
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match String::from_utf8(line) {
                Ok(text) => me.on_client_line(Text::new(text)).await,
                Err(_) => {
                    me.say_client(message::error_line(None, -32700, "mcp-pin proxy: the message is not UTF-8")).await
                }
            }
        }
    });
    let status = tokio::select! {
        _ = &mut from_client => {
            // The client is gone: what it was waiting for is cancelled on the server, then the
            // server is stopped.
            let ids: Vec<String> = relay.state.lock().unwrap().inflight.drain().map(|(k, _)| k).collect();
            for id in ids {
                let cancel = format!(r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"the client closed the connection"}}}}"#);
                let out = relay.req.outgoing(None, "notifications/cancelled", Text::new(cancel), None);
                relay.req.up.send(out).await;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            from_server.abort();
            ExitStatus::Success
        }
        why = &mut from_server => {
            let why = why.unwrap_or_else(|e| format!("the relay failed inside mcp-pin: {e}"));
            let tail = closer.stderr().filter(|t| !t.is_empty()).map(|t| format!("; its stderr ended with: {}", crate::client::capture::excerpt(&t))).unwrap_or_default();
            let why = format!("{why}{tail}");
            relay.server_gone(&why).await;
            relay.log.decide(&Logged { event: Event::Proxy, tool: None, rule: None, action: &format!("the server ended: {why}") });
            from_client.abort();
            ExitStatus::Error
        }
    };
    closer.close().await;
    if let Some(mut out) = relay.client.lock().await.take() {
        let _ = tokio::time::timeout(Duration::from_secs(2), out.shutdown()).await;
    }
    status
}

/// When the proxy cannot judge at all (no config, an unreadable lock, a server missing from the
/// lock, a server that cannot be started): `message` on stderr, and every request the client
/// sends answered with it as a JSON-RPC error, until the client closes stdin. Nothing is relayed.
pub async fn refuse_all(message: &str, hint: Option<&str>) -> ExitStatus {
    crate::tell!("error: {message}");
    if let Some(h) = hint {
        crate::tell!("hint: {h}");
    }
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        return ExitStatus::Error;
    }
    let full = match hint {
        Some(h) => format!("mcp-pin proxy: {message} ({h})"),
        None => format!("mcp-pin proxy: {message}"),
    };
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut stdout = tokio::io::stdout();
    loop {
        let mut line = Vec::new();
        match (&mut stdin).take(MAX_LINE as u64).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        if let Ok(m) = message::parse(&text) {
            if m.kind == Kind::Request {
                let mut l = message::error_line(m.id.as_deref(), INTERNAL, &full);
                l.push('\n');
                if stdout.write_all(l.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                    break;
                }
            }
        }
    }
    ExitStatus::Error
}
