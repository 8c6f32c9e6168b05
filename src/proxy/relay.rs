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

/// A client request forwarded to the server and not answered yet: what its answer is judged as.
enum Inflight {
    /// The client's handshake (`initialize` or `server/discover`): its server-level facts.
    Handshake,
    /// A `tools/call` of this tool: its result.
    Call(String),
    /// Any other request: its answer passes as it came.
    Plain,
}

/// Whose an answer from the server is: [`Relay::claim`] decides, by value, once per request.
enum Owner {
    /// One of the proxy's own requests (a listing's page, its subscription), waiting for it.
    /// `None`: its waiter is gone (a timed-out page, the subscription's acknowledgement).
    Own(Option<tokio::sync::oneshot::Sender<Text>>),
    Handshake,
    Call(String),
    Plain,
    /// Nothing in flight has this id: an answer to a request never sent (or answered already).
    Nothing,
}

#[derive(Default)]
struct State {
    inflight: HashMap<String, Inflight>,
    /// Calls waiting for a verdict (a cancel for one drops it).
    held: HashSet<String>,
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
    notify: Notify,
}

/// What the client was told (`notifications/message`), and how it wants to be told.
#[derive(Default)]
struct Notify {
    /// The change last told per tool (`""`: the server's instructions).
    told: Mutex<HashMap<String, RuleId>>,
    /// The notice of the last listing told ([`judge::listing_notice`]).
    listing: Mutex<Option<String>>,
    /// The proxy declared `logging` itself (the server has none): it answers `logging/setLevel`.
    own_logging: std::sync::atomic::AtomicBool,
    /// The client asked for errors only (`logging/setLevel` above `warning`).
    quiet: std::sync::atomic::AtomicBool,
}

impl Relay {
    /// Every line the client gets goes through here: one message per line, exactly the value
    /// that was judged ([`message::frame`]: no CR or LF outside strings, whatever the framing it
    /// came in, a pretty-printed HTTP body, a multi-line SSE `data:` field, a CR in a stdio line).
    async fn send_client(&self, line: Text) {
        let line = message::frame(&line);
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

    /// The one place an answer from the server is matched to a request: by value (every id the
    /// relay holds is [`message::id_key`] text, so `1`, `1.0` and `1e0` are one id, and a string
    /// is compared with its escapes decoded), and each request is claimed once. Every route an
    /// answer can take (a single message, an element of a batch, one too deep to read, a late
    /// one, HTTP's own error for a failed POST) goes through here; what nothing claims is dropped.
    fn claim(&self, id: Option<&str>) -> Owner {
        let Some(id) = id else { return Owner::Nothing };
        if self.req.is_own(id) {
            return Owner::Own(self.req.waiter(id));
        }
        match self.state.lock().unwrap().inflight.remove(id) {
            Some(Inflight::Handshake) => Owner::Handshake,
            Some(Inflight::Call(tool)) => Owner::Call(tool),
            Some(Inflight::Plain) => Owner::Plain,
            None => Owner::Nothing,
        }
    }

    /// A client request the server is to answer, kept until [`Relay::claim`] takes its answer.
    /// `false` when a request with the same id (by value) is still waiting: ids of requests in
    /// flight are unique (JSON-RPC), and a second one would let one answer pass as the other's.
    fn track(&self, id: &str, what: Inflight) -> bool {
        let mut st = self.state.lock().unwrap();
        if st.inflight.contains_key(id) {
            return false;
        }
        st.inflight.insert(id.to_string(), what);
        true
    }

    /// A request whose id is still in flight: refused, not forwarded.
    async fn duplicate(&self, id: &str) {
        let m = "mcp-pin proxy: a request with this id is still waiting for its answer; ids of requests in flight must be unique";
        self.say_client(message::error_line(Some(id), -32600, m)).await;
    }

    /// A message from the server that nothing may pass on: dropped, and said in the log.
    fn dropped(&self, why: &str) {
        self.log.decide(&Logged {
            event: Event::Proxy,
            tool: None,
            rule: None,
            action: &format!("a message from the server was dropped, never relayed: {why}"),
        });
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
        // One notice per listing, for every tool it keeps from the client or serves as reviewed.
        self.tell_listing(judge::listing_notice(&verdict, &self.pin.server.name)).await;
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
        if text.trim_start().starts_with('[') {
            return self.on_client_batch(&text).await;
        }
        self.on_client_message(text).await
    }

    /// One message from the client (alone, or an element of a batch).
    async fn on_client_message(self: &Arc<Self>, text: Text) {
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
                Kind::Batch => {
                    let m = "mcp-pin proxy: a batch inside a batch is not JSON-RPC";
                    self.say_client(message::error_line(None, -32600, m)).await;
                }
            },
            Err(Unreadable::NotJson(e)) => {
                self.say_client(message::error_line(None, -32700, &format!("mcp-pin proxy: not JSON-RPC: {e}"))).await;
            }
            Err(Unreadable::Ambiguous { id }) => {
                let m = "mcp-pin proxy: a message with a `method` and a `result` or `error` is neither a request nor an answer; it was not forwarded";
                self.say_client(message::error_line(id.as_deref(), -32600, m)).await;
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

    /// A batch (2025-03-26 only; batching was removed in 2025-06-18) is taken apart: each
    /// element is handled as if it came alone (a request tracked and judged, a `tools/list`
    /// answered by the proxy), and the answers reach the client one by one.
    async fn on_client_batch(self: &Arc<Self>, text: &str) {
        let items: Vec<&serde_json::value::RawValue> = match serde_json::from_str(text) {
            Ok(items) => items,
            Err(e) => {
                let m = format!("mcp-pin proxy: not JSON-RPC: {}", e);
                return self.say_client(message::error_line(None, -32700, &m)).await;
            }
        };
        if items.is_empty() {
            let m = "mcp-pin proxy: an empty batch is not JSON-RPC";
            return self.say_client(message::error_line(None, -32600, m)).await;
        }
        for item in items {
            self.on_client_message(Text::new(item.get().to_string())).await;
        }
    }

    async fn on_client_request(self: &Arc<Self>, msg: &Message<'_>, text: Text) {
        let id = msg.id.clone().unwrap_or_default();
        self.note_meta(msg);
        match msg.method() {
            "initialize" | "server/discover" => {
                if !self.track(&id, Inflight::Handshake) {
                    return self.duplicate(&id).await;
                }
                self.forward(msg, text).await;
            }
            "logging/setLevel" if self.notify.own_logging.load(std::sync::atomic::Ordering::Relaxed) => {
                // The server has no logging: the level is the proxy's own warnings'.
                let level = msg.param_str("level").unwrap_or_default();
                let quiet = matches!(level.as_str(), "error" | "critical" | "alert" | "emergency");
                self.notify.quiet.store(quiet, std::sync::atomic::Ordering::Relaxed);
                self.say_client(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)).await;
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
                    // Malformed: no tool to judge its result against, so not forwarded.
                    let m = "mcp-pin proxy: tools/call names no tool (`params.name`)";
                    return self.say_client(message::error_line(Some(&id), -32602, m)).await;
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
                if !self.track(&id, Inflight::Plain) {
                    return self.duplicate(&id).await;
                }
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
                if !self.track(&id, Inflight::Call(tool)) {
                    return self.duplicate(&id).await;
                }
                self.forward(msg, text).await;
            }
            Decision::Refuse { rule, message: why, .. } => {
                self.log.decide(&Logged { event: Event::Call, tool: Some(&tool), rule, action: "call refused" });
                if self.dry_run {
                    if !self.track(&id, Inflight::Call(tool)) {
                        return self.duplicate(&id).await;
                    }
                    self.forward(msg, text).await;
                } else {
                    self.say_client(message::tool_error_line(&id, &why)).await;
                }
            }
        }
    }

    // ------------------------------------------------------------------ server -> client

    /// A message from the server. A batch is taken apart and each element routed as if it came
    /// alone (the client gets them one by one): no element reaches the client unjudged.
    async fn on_server_message(self: &Arc<Self>, text: Text) {
        if !text.trim_start().starts_with('[') {
            return self.on_server_one(text).await;
        }
        match serde_json::from_str::<Vec<&serde_json::value::RawValue>>(&text) {
            Ok(items) if !items.is_empty() => {
                for item in items {
                    self.on_server_one(Text::new(item.get().to_string())).await;
                }
            }
            Ok(_) => self.dropped("an empty batch"),
            Err(_) => self.dropped("a batch that cannot be read element by element"),
        }
    }

    /// One message from the server (alone, or an element of a batch).
    async fn on_server_one(self: &Arc<Self>, text: Text) {
        let msg = match message::parse(&text) {
            Ok(m) => m,
            Err(Unreadable::TooDeep { id, has_method: false }) => {
                // Too deep to read: only its id is known (scanned), so it cannot be judged.
                let why = "it nests JSON deeper than 128 levels, which mcp-pin cannot judge";
                match self.claim(id.as_deref()) {
                    Owner::Own(waiter) => {
                        // The proxy's own reader says what is wrong with it.
                        if let Some(tx) = waiter {
                            let _ = tx.send(text);
                        }
                    }
                    Owner::Call(tool) if !self.dry_run => {
                        let id = id.unwrap_or_default();
                        let why = vec![(RuleId::ResultPayloadInvalid, why.to_string())];
                        self.log.decide(&Logged {
                            event: Event::Result,
                            tool: Some(&tool),
                            rule: Some(RuleId::ResultPayloadInvalid),
                            action: "result blocked",
                        });
                        self.say_client(message::tool_error_line(&id, &call::blocked_message(&self.pin, &tool, &why)))
                            .await;
                    }
                    Owner::Call(_) | Owner::Handshake | Owner::Plain => {
                        let id = id.unwrap_or_default();
                        let m = format!("mcp-pin proxy: the server's answer was not relayed: {why}");
                        self.say_client(message::error_line(Some(&id), INTERNAL, &m)).await;
                    }
                    Owner::Nothing => self.dropped(&format!("an answer to no request in flight ({why})")),
                }
                return;
            }
            Err(Unreadable::TooDeep { .. }) => {
                return self
                    .dropped("a request or notification nested deeper than 128 levels, which mcp-pin cannot judge")
            }
            Err(Unreadable::Ambiguous { .. }) => {
                return self
                    .dropped("a message with a `method` and a `result` or `error`, neither a request nor an answer")
            }
            Err(Unreadable::NotJson(_)) => return,
        };
        match msg.kind {
            Kind::Response => match self.claim(msg.id.as_deref()) {
                Owner::Own(waiter) => {
                    if let Some(tx) = waiter {
                        let _ = tx.send(text);
                    }
                }
                Owner::Handshake => {
                    let (line, pinned_instructions) = self.on_handshake(&msg);
                    self.send_client(line.map(Text::new).unwrap_or(text)).await;
                    if pinned_instructions {
                        let what = format!(
                            "the instructions of server `{}` changed since they were reviewed; the reviewed instructions are served",
                            self.pin.server.name
                        );
                        self.tell_client("", RuleId::InstructionsChanged, &what).await;
                    }
                }
                Owner::Call(tool) => {
                    let id = msg.id.clone().unwrap_or_default();
                    match (msg.result, msg.error) {
                        (Some(result), _) => self.on_result(&id, &tool, result, text.clone()).await,
                        (None, None) if !self.dry_run => {
                            self.broken(&id, &tool, "the answer to tools/call has neither a result nor an error").await
                        }
                        _ => self.send_client(text).await,
                    }
                }
                Owner::Plain => self.send_client(text).await,
                Owner::Nothing => self.dropped(&format!(
                    "an answer to no request in flight (id {})",
                    msg.id.as_deref().map_or("null".into(), crate::client::capture::excerpt)
                )),
            },
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
            Kind::Batch => self.dropped("a batch inside a batch"),
        }
    }

    async fn on_result(&self, id: &str, tool: &str, result: &serde_json::value::RawValue, text: Text) {
        let verdict =
            match self.current().or_else(|| self.slot.lock().unwrap().current.as_ref().map(|(_, v)| v.clone())) {
                Some(v) => v,
                None if !self.dry_run => return self.broken(id, tool, "no verdict to judge its result by").await,
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
    /// ones (or removed, when none were pinned). The `logging` capability is declared when the
    /// server has none (the proxy's own warnings to the client are `notifications/message`).
    /// `Some(line)` when the answer was rewritten; and whether the pinned instructions are served.
    fn on_handshake(&self, msg: &Message<'_>) -> (Option<String>, bool) {
        let Some(Ok(mut result)) = msg.result.map(|r| serde_json::from_str::<Value>(r.get())) else {
            return (None, false);
        };
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
        let mut pinned_instructions = false;
        if let Some(entry) = &self.pin.entry {
            let policy = crate::diff::verdict::Policy {
                server: &self.pin.server.name,
                rules: &self.pin.rules,
                ignores: &self.pin.ignores,
                today: &crate::calendar::today(),
            };
            // Settled as `check` settles it: the live facts masked as the lock holds them.
            let settled = crate::settle::settle_server_level(&entry.entry, &crate::surface::Live::mask(live.clone()));
            let judged = crate::diff::verdict::judge(&settled, &policy);
            // Which fields are served as pinned comes from the rule table (`RunTime::PinnedField`).
            let pinned = crate::diff::verdict::pinned_server_fields(&judged.changes);
            for c in judged.changes.iter().filter(|c| c.tool.is_none()) {
                let action =
                    if pinned.contains(&c.rule) { "the pinned instructions are served" } else { "flagged, passed on" };
                self.log.decide(&Logged { event: Event::Server, tool: None, rule: Some(c.rule), action });
            }
            pinned_instructions = pinned.contains(&RuleId::InstructionsChanged);
        }
        if self.dry_run {
            return (None, false);
        }
        let Some(obj) = result.as_object_mut() else { return (None, false) };
        let mut rewritten = false;
        if pinned_instructions {
            match self.pin.pinned_instructions() {
                Some(i) => {
                    obj.insert("instructions".into(), Value::String(i.to_string()));
                }
                None => {
                    obj.remove("instructions");
                }
            }
            rewritten = true;
        }
        if let Some(caps) = obj.get_mut("capabilities").and_then(Value::as_object_mut) {
            if !caps.contains_key("logging") {
                caps.insert("logging".into(), Value::Object(Default::default()));
                self.notify.own_logging.store(true, std::sync::atomic::Ordering::Relaxed);
                rewritten = true;
            }
        }
        let line = rewritten.then(|| {
            format!(r#"{{"jsonrpc":"2.0","id":{},"result":{}}}"#, msg.id.as_deref().unwrap_or("null"), result)
        });
        (line, pinned_instructions)
    }

    /// Tell the client what the proxy keeps from it (a quarantined tool, something served as
    /// pinned): a `notifications/message` (level `warning`, logger `mcp-pin`) naming the tool,
    /// the rule and the command that shows the change; once per change per session (`key`: the
    /// tool, or the empty string for the server; `rule`: the change). Nothing in a dry run, nor
    /// when the client asked for errors only.
    async fn tell_client(&self, key: &str, rule: RuleId, what: &str) {
        if self.dry_run || self.notify.quiet.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        {
            let mut told = self.notify.told.lock().unwrap();
            if told.get(key) == Some(&rule) {
                return;
            }
            told.insert(key.to_string(), rule);
        }
        let name = &self.pin.server.name;
        let text = format!(
            "mcp-pin proxy: {what} ({rule}, {}: `mcp-pin explain {rule}`); `mcp-pin check --server {name}` shows the change, `mcp-pin review` accepts it once reviewed",
            rule.class()
        );
        self.say_client(message::warning_line(&text)).await;
    }

    /// Tell the client a listing's one notice ([`judge::listing_notice`]), unless the last
    /// listing told the same (a listing is told about again only when what it keeps changes).
    /// Nothing in a dry run, nor when the client asked for errors only.
    async fn tell_listing(&self, notice: Option<String>) {
        {
            let mut last = self.notify.listing.lock().unwrap();
            if *last == notice {
                return;
            }
            last.clone_from(&notice);
        }
        let Some(text) = notice else { return };
        if self.dry_run || self.notify.quiet.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        self.say_client(message::warning_line(&text)).await;
    }

    /// The server is gone: every request still waiting gets a clear error.
    async fn server_gone(&self, why: &str) {
        let ids: Vec<String> = {
            let mut st = self.state.lock().unwrap();
            let mut ids: Vec<String> = st.inflight.drain().map(|(k, _)| k).collect();
            ids.extend(st.held.drain());
            ids.sort();
            ids.dedup();
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
        notify: Notify::default(),
    });
    // server -> client
    let me = relay.clone();
    let mut from_server = tokio::spawn(async move {
        while let Some(inc) = incoming.recv().await {
            match inc {
                Incoming::Message(text) => me.on_server_message(text).await,
                Incoming::Failed { id, message } => {
                    let line = Text::new(message::error_line(
                        Some(&id),
                        INTERNAL,
                        &format!("mcp-pin proxy: the request did not reach the server: {message}"),
                    ));
                    match me.claim(Some(&id)) {
                        Owner::Own(waiter) => {
                            if let Some(tx) = waiter {
                                let _ = tx.send(line);
                            }
                        }
                        Owner::Nothing => {}
                        _ => me.send_client(line).await,
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
