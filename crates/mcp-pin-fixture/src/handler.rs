//! The rmcp `ServerHandler`: rmcp runs the protocol, this answers from the surface file.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult, ErrorCode, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, ToolsCapability,
};
use rmcp::service::RequestContext;
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
}

impl Fixture {
    pub fn new(path: PathBuf, store: Arc<RawStore>) -> Fixture {
        let f = Fixture { path: Arc::new(path), store, last_good: Arc::new(Mutex::new(None)) };
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

async fn never() -> ! {
    std::future::pending::<()>().await;
    unreachable!()
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
        caps.tools = Some(ToolsCapability::default());
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
            crate::escape::attempt(e);
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
        if let Some(e) = behaviour.error {
            return Err(McpError::new(ErrorCode(e.code), e.message, e.data));
        }
        let args = request.arguments.unwrap_or_default();
        if surface::missing_required(&tool, &args).is_empty() {
            if let Some(why) = behaviour.refusal(&args) {
                return Ok(text_result(why, true).into());
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
