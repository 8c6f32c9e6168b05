//! The rmcp `ServerHandler`: rmcp runs the protocol, this answers from the surface file.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[allow(deprecated)] // sampling: deprecated by SEP-2577, still what a legacy client answers
use rmcp::model::CreateMessageRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult, ErrorCode, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProgressNotificationParam, ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter, ToolsCapability,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::raw::{Parked, RawStore, TOKEN_KEY};
use crate::surface::{self, Surface};

#[derive(Clone)]
pub struct Fixture {
    pub path: Arc<PathBuf>,
    pub store: Arc<RawStore>,
    /// The last surface that parsed, for `get_info` when the file is mid-edit.
    last_good: Arc<Mutex<Option<Surface>>>,
    /// Open `subscriptions/listen` streams (2026-07-28), by id.
    subscriptions: Arc<Mutex<Vec<(u64, SubscriptionSink)>>>,
}

impl Fixture {
    pub fn new(path: PathBuf, store: Arc<RawStore>) -> Fixture {
        let f = Fixture {
            path: Arc::new(path),
            store,
            last_good: Arc::new(Mutex::new(None)),
            subscriptions: Arc::new(Mutex::new(Vec::new())),
        };
        // So that supported_protocol_versions() is right before the first request loads it.
        let _ = f.load();
        f
    }

    pub fn load(&self) -> Result<Surface, String> {
        let s = Surface::load(&self.path)?;
        *self.last_good.lock().unwrap() = Some(s.clone());
        Ok(s)
    }

    fn load_or_last(&self) -> Option<Surface> {
        match self.load() {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("mcp-pin-fixture: {e}");
                self.last_good.lock().unwrap().clone()
            }
        }
    }

    fn load_mcp(&self) -> Result<Surface, McpError> {
        self.load().map_err(|e| {
            eprintln!("mcp-pin-fixture: {e}");
            McpError::internal_error(e, None)
        })
    }

    fn token_meta(token: String) -> MetaObject {
        let mut m = Map::new();
        m.insert(TOKEN_KEY.to_owned(), Value::String(token));
        MetaObject(m)
    }
}

/// The connected client's `clientInfo.name`, as its `initialize` said.
fn client_name(context: &RequestContext<RoleServer>) -> Option<String> {
    context.peer.peer_info().map(|i| i.client_info.name.clone())
}

impl Fixture {
    /// A call's scripted side effects before its answer: notifications, progress, sampling.
    /// Returns the text of the client's answer to a sampling request.
    #[allow(deprecated)]
    async fn side_effects(&self, b: &surface::CallBehaviour, context: &RequestContext<RoleServer>) -> Option<String> {
        // 2026-07-28 sends list changes only on subscription streams; a legacy session gets them
        // on the session.
        let stateless = context.meta.protocol_version().is_some_and(|v| v.as_str() >= "2026-07-28");
        for n in &b.notify {
            let subs: Vec<SubscriptionSink> =
                self.subscriptions.lock().unwrap().iter().map(|(_, s)| s.clone()).collect();
            if stateless {
                for s in &subs {
                    let sent = match n.as_str() {
                        "tools/list_changed" => s.notify_tool_list_changed().await,
                        "prompts/list_changed" => s.notify_prompt_list_changed().await,
                        "resources/list_changed" => s.notify_resource_list_changed().await,
                        _ => Ok(()),
                    };
                    if let Err(e) = sent {
                        eprintln!("mcp-pin-fixture: notify {n}: {e}");
                    }
                }
                continue;
            }
            let sent = match n.as_str() {
                "tools/list_changed" => context.peer.notify_tool_list_changed().await,
                "prompts/list_changed" => context.peer.notify_prompt_list_changed().await,
                "resources/list_changed" => context.peer.notify_resource_list_changed().await,
                other => {
                    eprintln!("mcp-pin-fixture: notify {other:?}: not a notification the fixture sends");
                    Ok(())
                }
            };
            if let Err(e) = sent {
                eprintln!("mcp-pin-fixture: notify {n}: {e}");
            }
        }
        if let (Some(n), Some(token)) = (b.progress, context.meta.get_progress_token()) {
            for i in 1..=n {
                let mut p = ProgressNotificationParam::new(token.clone(), f64::from(i));
                p.total = Some(f64::from(n));
                if let Err(e) = context.peer.notify_progress(p).await {
                    eprintln!("mcp-pin-fixture: progress: {e}");
                }
            }
        }
        let params = b.sample.clone()?;
        let params: CreateMessageRequestParams = match serde_json::from_value(params) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("mcp-pin-fixture: sample: not sampling/createMessage params: {e}");
                return None;
            }
        };
        #[allow(deprecated)]
        match context.peer.create_message(params).await {
            Ok(answer) => {
                let v = serde_json::to_value(&answer).unwrap_or(Value::Null);
                Some(v.pointer("/content/text").and_then(Value::as_str).unwrap_or("").to_string())
            }
            Err(e) => Some(format!("(sampling failed: {e})")),
        }
    }
}

async fn never() -> ! {
    std::future::pending::<()>().await;
    unreachable!()
}

/// Set by an `exitProcess` with `afterAnswer`: the next call takes the process down.
static DYING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `exitProcess`: unless its file exists, exit the process (code 1) after `afterMs`, creating
/// the file just before. Whether the process is on its way out. With `afterAnswer` the call is
/// answered and the next one finds the process gone.
fn exit_soon(e: &surface::ExitProcess) -> bool {
    if e.unless_file.as_ref().is_some_and(|f| f.exists()) {
        return false;
    }
    if e.after_answer {
        DYING.store(true, std::sync::atomic::Ordering::SeqCst);
        return false;
    }
    let (after, file) = (Duration::from_millis(e.after_ms), e.unless_file.clone());
    std::thread::spawn(move || {
        std::thread::sleep(after);
        if let Some(f) = file {
            let _ = std::fs::write(f, "exited\n");
        }
        std::process::exit(1);
    });
    true
}

/// `signal`: SIGTERM to the process id `value`, really sent only within the fixture's own
/// process group (0, its own pid, a member of its group): the answer, or the failure's text.
fn signal(value: Option<&Value>) -> Result<String, String> {
    let pid = value.and_then(Value::as_i64).ok_or("pid: expected an integer")?;
    let pid = libc::pid_t::try_from(pid).map_err(|_| format!("invalid pid {pid}"))?;
    if pid < 0 {
        return Err(format!("refusing pid {pid}: the fixture never signals a group by its id, nor every process"));
    }
    // SAFETY: getpgrp/getpgid/kill take and return plain integers.
    let ours = unsafe { pid == 0 || pid == libc::getpid() || libc::getpgid(pid) == libc::getpgrp() };
    if !ours {
        // SAFETY: signal 0 sends nothing: it only asks whether the process exists.
        if unsafe { libc::kill(pid, 0) } != 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        return Err(format!("mcp-pin-fixture signals only its own process group; refusing pid {pid}"));
    }
    eprintln!("mcp-pin-fixture: signal: SIGTERM to pid {pid} (0: this process's group)");
    // SAFETY: as above; the target is this process or its own group.
    if unsafe { libc::kill(pid, libc::SIGTERM) } != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    Ok(format!("Sent signal to {pid}"))
}

fn text_result(text: String, is_error: bool) -> CallToolResult {
    let mut r = CallToolResult::default();
    r.content = vec![ContentBlock::text(text)];
    if is_error {
        r.is_error = Some(true);
    }
    r
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        let surface = self.load_or_last();
        let mut caps = ServerCapabilities::default();
        let mut tools = ToolsCapability::default();
        if surface.as_ref().is_some_and(|s| s.list_changed) {
            tools.list_changed = Some(true);
        }
        caps.tools = Some(tools);
        let mut info = InitializeResult::new(caps);
        info.server_info = Implementation::new("mcp-pin-fixture", env!("CARGO_PKG_VERSION"));
        if let Some(s) = surface {
            if let Some(si) = &s.server_info {
                match serde_json::from_value::<Implementation>(si.clone()) {
                    Ok(imp) => info.server_info = imp,
                    Err(e) => eprintln!("mcp-pin-fixture: serverInfo ignored: {e}"),
                }
            }
            info.instructions = s.instructions.clone();
            // Raw capabilities / serverInfo (fields rmcp's types do not know) go on the wire
            // through the raw store; the token rides in `capabilities.experimental`.
            if s.capabilities.is_some() || s.server_info.is_some() {
                let mut fields = std::collections::BTreeMap::new();
                let caps = s.capabilities.clone().unwrap_or_else(|| serde_json::json!({"tools": {}}));
                fields.insert("capabilities".to_string(), caps.to_string());
                if let Some(si) = &s.server_info {
                    fields.insert("serverInfo".to_string(), si.to_string());
                }
                let token = self.store.park(Parked::Handshake(fields));
                let mut exp = std::collections::BTreeMap::new();
                exp.insert(
                    TOKEN_KEY.to_string(),
                    serde_json::Map::from_iter([(TOKEN_KEY.to_string(), Value::String(token))]),
                );
                info.capabilities.experimental = Some(exp);
            }
        }
        info
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let on = self.last_good.lock().unwrap().as_ref().is_some_and(|s| s.list_changed);
        on.then(|| requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.subscriptions.lock().unwrap().push((id, context.sink().clone()));
        context.cancelled().await;
        self.subscriptions.lock().unwrap().retain(|(i, _)| *i != id);
        Ok(())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        let listed = self.last_good.lock().unwrap().as_ref().and_then(|s| s.protocol_versions.clone());
        match listed {
            Some(v) => {
                Cow::Owned(v.into_iter().filter_map(|s| serde_json::from_value(Value::String(s)).ok()).collect())
            }
            None => Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        let surface = self.load_or_last();
        if let Some(s) = &surface {
            if s.fault.exit_during_handshake {
                eprintln!("mcp-pin-fixture: fault exitDuringHandshake: exiting on initialize");
                std::process::exit(3);
            }
            if s.fault.never_answer {
                eprintln!("mcp-pin-fixture: fault neverAnswer: not answering initialize");
                never().await;
            }
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn discover(&self, _context: RequestContext<RoleServer>) -> Result<DiscoverResult, McpError> {
        let s = self.load_mcp()?;
        if s.fault.exit_during_handshake {
            eprintln!("mcp-pin-fixture: fault exitDuringHandshake: exiting on server/discover");
            std::process::exit(3);
        }
        if s.fault.never_answer {
            never().await;
        }
        if !s.discover {
            return Err(McpError::new(ErrorCode::METHOD_NOT_FOUND, "server/discover", None));
        }
        Ok(DiscoverResult::from_server_info(self.supported_protocol_versions().into_owned(), self.get_info()))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let s = self.load_mcp()?.for_client(client_name(&context).as_deref());
        if s.fault.never_answer {
            never().await;
        }
        if let Some(ms) = s.fault.list_delay_ms {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        }
        let cursor = request.as_ref().and_then(|r| r.cursor.as_deref());
        let fields = surface::page_fields(&s, cursor).map_err(|e| McpError::invalid_params(e, None))?;
        let token = self.store.park(Parked::ListFields(fields));
        Ok(ListToolsResult { meta: Some(Self::token_meta(token)), ..Default::default() })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if DYING.load(std::sync::atomic::Ordering::SeqCst) {
            eprintln!("mcp-pin-fixture: tools/call: exitProcess afterAnswer: the process is gone");
            std::process::exit(1);
        }
        let s = self.load_mcp()?.for_client(client_name(&context).as_deref());
        if s.fault.never_answer {
            never().await;
        }
        let name = request.name.as_ref();
        let Some(tool) = s.find_tool(name) else {
            return Err(McpError::invalid_params(format!("unknown tool: {name}"), None));
        };
        let tool = tool.value();
        let behaviour = s.calls.get(name).cloned().unwrap_or_default();
        if let Some(e) = &behaviour.escape {
            let lines = crate::escape::attempt(e);
            if let Some(read) = crate::escape::read_something(&lines) {
                return Ok(text_result(format!("escape: {read}"), true).into());
            }
        }
        if behaviour.refuses_progress_token && context.meta.get_progress_token().is_some() {
            return Ok(text_result("cannot load: unexpected progressToken in _meta".into(), true).into());
        }
        if behaviour.hang {
            eprintln!("mcp-pin-fixture: tools/call {name}: hanging");
            context.ct.cancelled().await;
            eprintln!("mcp-pin-fixture: tools/call {name}: cancelled by the client");
            return Err(McpError::new(ErrorCode(-32800), "request cancelled", None));
        }
        if let Some(ms) = behaviour.delay_ms {
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
                _ = context.ct.cancelled() => {
                    return Err(McpError::new(ErrorCode(-32800), "request cancelled", None));
                }
            }
        }
        let sampled = self.side_effects(&behaviour, &context).await;
        if let Some(e) = behaviour.error {
            return Err(McpError::new(ErrorCode(e.code), e.message, e.data));
        }
        let args = request.arguments.unwrap_or_default();
        if surface::missing_required(&tool, &args).is_empty() {
            // Answered as usual, and the next call finds the process gone.
            if let Some(e) = behaviour.exit_process.as_ref().filter(|e| e.after_answer) {
                exit_soon(e);
            }
            // What it leaves behind is left before it is judged (`needs` of the same tool sees
            // only what earlier calls left).
            let needs_now = crate::state::refusal(&s, &behaviour, &args);
            crate::state::attempted(&behaviour);
            if let Some(why) = behaviour.refusal(&args) {
                return Ok(text_result(why, !behaviour.quiet_refusal).into());
            }
            if let Some(why) = needs_now {
                return Ok(text_result(why, !behaviour.quiet_refusal).into());
            }
            if let Some(file) = &behaviour.roots_to {
                // Roots are deprecated for a future revision (SEP-2577); 2025-11-25 has them.
                #[allow(deprecated)]
                let asked = context.peer.list_roots().await;
                let text = match asked {
                    Ok(r) => serde_json::to_string(&r).unwrap_or_default(),
                    Err(e) => format!("roots/list failed: {e}"),
                };
                let _ = std::fs::write(file, text);
            }
            if behaviour.exit_process.as_ref().filter(|e| !e.after_answer).is_some_and(exit_soon) {
                eprintln!("mcp-pin-fixture: tools/call {name}: exitProcess: exiting without answering");
                context.ct.cancelled().await;
                return Err(McpError::new(ErrorCode(-32800), "request cancelled", None));
            }
            let signalled = match &behaviour.signal {
                Some(arg) => match signal(args.get(arg)) {
                    Ok(text) => Some(text),
                    Err(text) => return Ok(text_result(text, true).into()),
                },
                None => None,
            };
            if let Some(arg) = &behaviour.deletes {
                let path = args.get(arg).and_then(Value::as_str).unwrap_or("");
                if let Err(e) = std::fs::remove_file(path) {
                    return Ok(text_result(format!("cannot delete {path}: {e}"), true).into());
                }
                return Ok(text_result(format!("Deleted {path}"), false).into());
            }
            if let Some(text) = crate::state::succeeded(&tool, &behaviour, &args).or(signalled) {
                return Ok(text_result(text, false).into());
            }
        }
        let scripted = match behaviour.results.as_deref() {
            Some([]) | None => behaviour.result,
            Some(list) => {
                if !behaviour.accept_incomplete && !surface::missing_required(&tool, &args).is_empty() {
                    None
                } else {
                    let n = surface::next_call_index(&self.path, name);
                    Some(list[n.min(list.len() - 1)].clone())
                }
            }
        };
        if let Some(raw) = scripted {
            let token = self.store.park(Parked::Whole(crate::raw::minify(raw.get())));
            let mut r = CallToolResult::default();
            r.meta = Some(Self::token_meta(token));
            return Ok(r.into());
        }
        if !behaviour.accept_incomplete {
            if let Some(first) = surface::missing_required(&tool, &args).into_iter().next() {
                return Ok(text_result(format!("missing required argument: {first}"), true).into());
            }
        }
        if let Some(text) = sampled {
            return Ok(text_result(format!("sampled: {text}"), false).into());
        }
        match tool.get("outputSchema") {
            Some(schema) if !schema.is_null() => {
                let instance = surface::minimal_instance(schema);
                let mut r = text_result(instance.to_string(), false);
                r.structured_content = Some(instance);
                Ok(r.into())
            }
            _ => Ok(text_result("ok".into(), false).into()),
        }
    }
}
