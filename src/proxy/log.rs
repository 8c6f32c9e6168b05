//! Every decision the proxy makes, one line on stderr (through the sink: masked, no line read as
//! a workflow command) and, with `--log FILE`, one JSON object per line appended to FILE. A
//! decision names the server, the tool, the rule and the action, never an argument or a
//! result value.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use crate::rules::RuleId;

/// Where a decision was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A listing was judged (one decision per tool whose action is not "served").
    List,
    /// A call was refused or passed.
    Call,
    /// A result was blocked or flagged.
    Result,
    /// The handshake (server-level facts).
    Server,
    /// The proxy itself: started, a listing that could not be judged, the server gone.
    Proxy,
}

impl Event {
    fn as_str(self) -> &'static str {
        match self {
            Event::List => "list",
            Event::Call => "call",
            Event::Result => "result",
            Event::Server => "server",
            Event::Proxy => "proxy",
        }
    }
}

/// One decision.
#[derive(Debug, Clone)]
pub struct Decision<'a> {
    pub event: Event,
    pub tool: Option<&'a str>,
    pub rule: Option<RuleId>,
    /// What was done, in words (`quarantined (not listed; calls refused)`).
    pub action: &'a str,
}

pub struct Log {
    server: String,
    file: Option<PathBuf>,
    dry_run: bool,
    /// The last list decision per tool: a listing repeats a decision only when it changes.
    listed: Mutex<BTreeMap<String, String>>,
}

impl Log {
    pub fn new(server: &str, file: Option<PathBuf>, dry_run: bool) -> Log {
        Log { server: server.to_string(), file, dry_run, listed: Mutex::new(BTreeMap::new()) }
    }

    /// Record a decision. A list decision already made for the same tool is not repeated.
    pub fn decide(&self, d: &Decision<'_>) {
        if d.event == Event::List {
            let key = d.tool.unwrap_or("").to_string();
            let text = format!("{:?} {}", d.rule, d.action);
            let mut listed = self.listed.lock().unwrap_or_else(|e| e.into_inner());
            if listed.get(&key) == Some(&text) {
                return;
            }
            listed.insert(key, text);
        }
        let would = if self.dry_run && d.event != Event::Proxy { "dry run, would be: " } else { "" };
        let mut line = format!("mcp-pin proxy: server `{}`", crate::json::escape_line(&self.server));
        if let Some(t) = d.tool {
            line.push_str(&format!(", tool `{}`", crate::json::escape_line(t)));
        }
        if let Some(r) = d.rule {
            line.push_str(&format!(": {r} ({})", r.class()));
        }
        line.push_str(&format!(": {would}{}", crate::json::escape_line(d.action)));
        crate::tell!("{line}");
        if let Some(path) = &self.file {
            let mut json = String::from("{");
            let mut field = |k: &str, v: &str| {
                if json.len() > 1 {
                    json.push(',');
                }
                crate::json::write_string(&mut json, k);
                json.push(':');
                crate::json::write_string(&mut json, v);
            };
            field("time", &now());
            field("server", &self.server);
            field("event", d.event.as_str());
            if let Some(t) = d.tool {
                field("tool", t);
            }
            if let Some(r) = d.rule {
                field("rule", r.as_str());
                field("class", r.class().as_str());
            }
            field("action", d.action);
            json.push_str(&format!(",\"dryRun\":{}}}\n", self.dry_run));
            if let Err(e) = crate::sink::append_file(path, &crate::sink::jsonrpc_own(json)) {
                crate::tell!("mcp-pin proxy: cannot append to the log {}: {e}", path.display());
            }
        }
    }
}

/// UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn now() -> String {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let date = crate::calendar::civil_from_days(days as i64);
    format!("{date}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, (rem % 3600) / 60, rem % 60, since.subsec_millis())
}
