//! Arguments that reach the tool (RULES.md, "Probes"): a call that a schema accepts but the tool
//! rejects (`path: ""`, a timezone `""`) tests nothing, so `lock` looks for arguments that make
//! the valid call succeed.
//!
//! For each top-level required property, candidate values come from, in order:
//! 1. the schema ([`schema`]: `const`, `default`, `examples`, `enum`);
//! 2. examples written in the property's description ([`described`]);
//! 3. the server's own context: paths on its command line, the roots mcp-pin declares, the
//!    project folder ([`context`]), values its read-only tools returned ([`listing`]);
//! 4. the smallest valid value (`args::synthesize_args`, and for a string the smallest
//!    non-empty one after `""`).
//!
//! Each candidate must validate against its property's schema and may hold no secret.
//! [`argument_sets`] combines them into at most [`MAX_CANDIDATES`] argument sets, best first,
//! each valid against the whole `inputSchema`. The judgement is words and schemas only: no
//! server is named anywhere.

pub mod command;
pub mod context;
pub mod described;
pub mod formats;
pub mod gate;
pub mod guard;
pub mod hints;
pub mod listing;
pub mod responders;
pub mod schema;
pub mod sql;
pub mod words;

use crate::json::pointer_token;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::validate::{self, Formats};
use crate::config::{ServerConfig, Transport};

/// Most argument sets tried for one tool at `lock` (the first included).
pub const MAX_CANDIDATES: usize = 6;
/// Time one server's probes may spend on further candidates once each tool had its first call.
/// A safety net, not the search's measure: what bounds a tool's search is its count of sets
/// ([`MAX_CANDIDATES`], [`words::MAX_FROM_WORDS`]), the same on every machine, so the same server
/// and project pin the same arguments on every `lock` (RULES.md, "Steady"). Only a server whose
/// calls are slow reaches it, and its lock then says the search was cut short by time.
pub const SEARCH_BUDGET: Duration = Duration::from_secs(120);
/// What each tool adds to [`SEARCH_BUDGET`]: a server of many tools gets time for each (a fixed
/// budget spent by the first tools left a 46-tool server's last tools one candidate each).
pub const SEARCH_BUDGET_PER_TOOL: Duration = Duration::from_secs(10);
/// The most a server's search may take, however many tools it has.
pub const SEARCH_BUDGET_MAX: Duration = Duration::from_secs(600);
/// Most candidates kept per property.
const PER_PROPERTY: usize = 8;
/// Most required properties given candidates (the others keep their smallest valid value).
const MAX_PROPERTIES: usize = 32;
/// Environment values shorter than this are not looked for in listed values (`1`, `en`, `C`).
const MIN_ENV_VALUE: usize = 8;

/// Where a value came from, in the order sources are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// `const`, `default`, `examples`, `enum` of its schema.
    Schema,
    /// An example written in its description.
    Description,
    /// A well-formed example of a format its words name ([`formats`]: a cron line, a color).
    Format,
    /// A path named on the server's command line.
    CommandLine,
    /// A root mcp-pin declares (the working folder).
    Roots,
    /// An entry of the project folder, or a new path in it.
    ProjectFolder,
    /// A value a read-only tool of the server returned.
    Listing,
    /// A value a setup tool or a maker returned in this session (an id, a handle): `check`
    /// takes the value the same tool returns this time ([`refresh_made`]).
    Result,
    /// A value the server named when it rejected a call ([`words`]), with the id of the
    /// responder that proposed it ([`responders::TABLE`]): `None` in a pin from before
    /// responders had ids, or of a responder this mcp-pin does not have.
    Rejection(Option<&'static str>),
    /// The value another tool of the server was called with, for a property of the same name,
    /// in a call that succeeded ([`Known::worked_for`]).
    Sibling,
    /// A file of a kind the project has none of, written into the sandbox's copy of it
    /// ([`crate::sandbox::samples`]).
    Sample,
    /// A line of the project file the call names, as text the tool must find in it
    /// ([`file_line`]): `check` reads the file again ([`refresh_made`]).
    FileText,
    /// The smallest valid value.
    Smallest,
    /// An `args` fixture in the config.
    Fixture,
}

impl Source {
    /// How the lock and the reports name it: `rejection: offered-values` for a value a
    /// responder proposed ([`REJECTION_LABEL`] and its id).
    pub fn label(self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Source::Schema => "schema",
            Source::Description => "description",
            Source::Format => "well-known format",
            Source::CommandLine => "command line",
            Source::Roots => "roots",
            Source::ProjectFolder => "project folder",
            Source::Listing => "listing",
            Source::Result => "result",
            Source::Rejection(Some(id)) => return Cow::Owned(format!("{REJECTION_LABEL}{id}")),
            Source::Rejection(None) => "server's words",
            Source::Sibling => "another tool's call",
            Source::Sample => "sample file",
            Source::FileText => "file text",
            Source::Smallest => "smallest valid",
            Source::Fixture => "fixture",
        })
    }

    /// The source `label` names. Every label an older lock holds reads back: `server's words`
    /// (before responders had ids) is a rejection's value, and so is a responder id this mcp-pin
    /// does not know (a lock from a newer one).
    pub fn from_label(s: &str) -> Option<Source> {
        if let Some(id) = s.strip_prefix(REJECTION_LABEL) {
            return Some(Source::Rejection(responders::known_id(id)));
        }
        [
            Source::Schema,
            Source::Description,
            Source::Format,
            Source::CommandLine,
            Source::Roots,
            Source::ProjectFolder,
            Source::Listing,
            Source::Result,
            Source::Rejection(None),
            Source::Sibling,
            Source::Sample,
            Source::FileText,
            Source::Smallest,
            Source::Fixture,
        ]
        .into_iter()
        .find(|x| x.label() == s)
    }
}

/// How a responder's value is labelled, before its id: `rejection: offered-values`.
pub const REJECTION_LABEL: &str = "rejection: ";

/// One candidate value of a property.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    value: Value,
    source: Source,
    /// The value (a string, or an array of strings) is a path relative to the working folder.
    relative: bool,
}

/// What the server's context offers, gathered once per server.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub paths: context::Paths,
    /// Values its read-only tools returned so far.
    pub listed: Vec<listing::Listed>,
    /// Values never to send or pin: the server's secrets, and (for listed values) the values of
    /// mcp-pin's own environment.
    pub secrets: Vec<String>,
    pub env_values: Vec<String>,
    /// The home folder, never a candidate ([`guard`]).
    pub home: Option<PathBuf>,
    /// Values other tools' calls that succeeded were sent ([`Known::worked_for`]).
    pub worked: Vec<Worked>,
    /// The calls are made in the sandbox: a tool that changes things acts on a scratch copy.
    pub sandboxed: bool,
    /// The files a sandbox withholds ([`gate::withheld_files`]): never a candidate, nor read.
    pub withheld_files: Vec<PathBuf>,
    /// What they hold ([`gate::withheld_values`]): never sent, never pinned.
    pub withheld: Vec<String>,
}

/// A value a call that succeeded was sent, for the property `prop`.
#[derive(Debug, Clone, PartialEq)]
pub struct Worked {
    pub tool: String,
    pub prop: String,
    pub value: Value,
    /// JSON pointers (into the value) of strings that are paths relative to the working folder.
    pub relative: Vec<String>,
}

/// Most values kept from calls that succeeded, per server.
const MAX_WORKED: usize = 128;

impl Known {
    /// The context of one server: for a stdio server, its command line and working folder (the
    /// project folder); a remote server has none.
    pub fn of_server(server: &ServerConfig) -> Known {
        let paths = match &server.transport {
            Transport::Stdio(s) => {
                let base = s.cwd.clone().or_else(|| std::env::current_dir().ok());
                let args: Vec<(String, String)> = s.args.iter().cloned().zip(s.args_template.iter().cloned()).collect();
                let env = crate::client::stdio::child_env(s);
                let path_env = env.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_str());
                base.map(|b| context::Paths::scan_server(&b, &s.command, path_env, &args)).unwrap_or_default()
            }
            Transport::Http(_) => context::Paths::default(),
        };
        let env_values = std::env::vars_os()
            .filter_map(|(_, v)| v.into_string().ok())
            .filter(|v| v.len() >= MIN_ENV_VALUE)
            .collect();
        let home = crate::env_vars::get(crate::env_vars::HOME).map(PathBuf::from);
        let withheld_files = gate::withheld_files(paths.base.as_deref(), home.as_deref());
        let withheld = gate::withheld_values(&withheld_files);
        Known {
            paths,
            listed: Vec::new(),
            secrets: server.secrets(),
            env_values,
            home,
            worked: Vec::new(),
            sandboxed: false,
            withheld_files,
            withheld,
        }
    }

    /// Add the values of one successful read-only call.
    ///
    /// Nothing of this machine is kept: an absolute path (or `file:` URI) inside the project
    /// folder becomes relative to it, one outside it is dropped, and so is the project folder's
    /// own name (a root's `name`), so a lock taken in another checkout pins the same values.
    pub fn listed_by(&mut self, tool: &str, result: &Value) {
        self.take_values(tool, result, false);
    }

    /// Add the values a setup tool or a maker returned: they exist in the session that made them
    /// ([`Source::Result`]).
    pub fn made_by(&mut self, tool: &str, result: &Value) {
        self.take_values(tool, result, true);
    }

    /// [`Known::made_by`] for a call sent `sent`: a value that only echoes one of the strings it
    /// was sent (`Added sheet 'a'` for `name: "a"`) is no handle the call made, and is not kept.
    pub fn made_by_call(&mut self, tool: &str, result: &Value, sent: &Map<String, Value>) {
        let before = self.listed.len();
        self.take_values(tool, result, true);
        let echoes: Vec<String> = strings_in(&Value::Object(sent.clone()));
        let mut i = before;
        while i < self.listed.len() {
            if echoes.iter().any(|e| *e == self.listed[i].value) {
                self.listed.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Add the values any other successful answer of `tool` holds under a key that is the name
    /// of a property of another tool (`names`): `{"session_id": "s-1"}` from a `load_*` tool is
    /// what every tool taking `session_id` takes, whatever the verb of the tool that returned it
    /// (RULES.md, "A session has an order"). They exist in the session that made them
    /// ([`Source::Result`]); a value that only echoes what the call was sent is not kept.
    pub fn keyed_by(
        &mut self,
        tool: &str,
        result: &Value,
        sent: &Map<String, Value>,
        names: &std::collections::BTreeSet<String>,
    ) {
        let before = self.listed.len();
        self.made_by_call(tool, result, sent);
        let mut i = before;
        while i < self.listed.len() {
            if self.listed[i].key.as_ref().is_some_and(|k| names.contains(k)) {
                i += 1;
            } else {
                self.listed.remove(i);
            }
        }
    }

    /// Keep the values of a call of `tool` that succeeded with `set`, for the tools called after
    /// it: what a tool of the server accepted for `filename` (`report.docx`) is what its other
    /// tools' `filename` most likely takes, whatever their words say (`insert_header_near_text`
    /// reads as a text file). Only values found in the project, the server's words, a listing or
    /// a description: not a schema's own values or the smallest valid one (they say nothing of
    /// the project), not a handle made in a session, not a name made for the tool itself.
    pub fn worked_for(&mut self, tool: &str, set: &ArgSet) {
        for (prop, value) in &set.args {
            let kept = matches!(
                set.from.get(prop),
                Some(
                    Source::ProjectFolder
                        | Source::CommandLine
                        | Source::Roots
                        | Source::Listing
                        | Source::Description
                        | Source::Rejection(_)
                        | Source::Sibling
                        | Source::Sample
                )
            );
            // A new path a tool made (`mcp-pin-probe-export_csv.csv`) is there for the tools after
            // it (`import_csv`), at `check` as at `lock`; a name made for one tool is its own.
            let at = format!("/{}", pointer_token(prop));
            let path = set.relative.iter().any(|r| *r == at || r.starts_with(&format!("{at}/")));
            let own_name = !path
                && strings_in(value)
                    .iter()
                    .any(|s| s.contains(context::FRESH_NAME) || s.contains(&context::FRESH_NAME.replace('-', "_")));
            if !kept || own_name || self.worked.len() >= MAX_WORKED {
                continue;
            }
            if self.worked.iter().any(|w| w.prop == *prop && validate::json_eq(&w.value, value)) {
                continue;
            }
            let relative = set
                .relative
                .iter()
                .filter_map(|r| {
                    if *r == at {
                        Some(String::new())
                    } else {
                        r.strip_prefix(&format!("{at}/")).map(|x| format!("/{x}"))
                    }
                })
                .collect();
            self.worked.push(Worked { tool: tool.to_string(), prop: prop.clone(), value: value.clone(), relative });
        }
    }

    /// The tools that made the handles `set` was sent ([`Source::Result`] values): a call that
    /// removes or ends them leaves them gone for every tool after it.
    pub fn makers_of(&self, set: &ArgSet) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (prop, from) in &set.from {
            if *from != Source::Result {
                continue;
            }
            let sent = set.args.get(prop).map(strings_in).unwrap_or_default();
            for l in self.listed.iter().filter(|l| l.made && sent.contains(&l.value)) {
                if !out.contains(&l.tool) {
                    out.push(l.tool.clone());
                }
            }
        }
        out
    }

    /// Forget what `tool` made (it is gone: [`Known::makers_of`]).
    pub fn forget_made_by(&mut self, tool: &str) {
        self.listed.retain(|l| !(l.made && l.tool == tool));
    }

    /// The same without what setup tools and makers returned.
    pub fn without_made(&self) -> Known {
        let mut k = self.clone();
        k.listed.retain(|l| !l.made);
        k
    }

    fn take_values(&mut self, tool: &str, result: &Value, made: bool) {
        let base = self.paths.base.clone();
        for mut l in listing::extract(tool, result) {
            l.made = made;
            if self.env_values.iter().any(|e| l.value.contains(e.as_str())) || self.listed.len() >= listing::MAX_LISTED
            {
                continue;
            }
            let path = match reqwest::Url::parse(&l.value) {
                Ok(u) if u.scheme() == "file" => u.to_file_path().ok(),
                _ if l.value.starts_with('/') => Some(PathBuf::from(&l.value)),
                _ => None,
            };
            if let Some(p) = path {
                match base.as_deref().and_then(|b| context::relative_to(b, &p)) {
                    Some(r) => {
                        l.value = r;
                        l.relative = true;
                    }
                    None => continue,
                }
            }
            let folder_name = base.as_deref().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
            if folder_name.as_deref() == Some(l.value.as_str()) {
                continue;
            }
            self.listed.push(l);
        }
    }

    /// Whether `v` holds a secret anywhere (never pinned, never a candidate): a configured one,
    /// what a file the sandbox withholds holds (or a good part of it), or anything that looks
    /// like a credential ([`gate::looks_like_credential`]).
    pub fn holds_secret(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => {
                self.secrets.iter().any(|x| !x.is_empty() && s.contains(x.as_str()))
                    || self.withheld.iter().any(|w| s.contains(w.as_str()) || s.len() >= 12 && w.contains(s.as_str()))
                    || gate::looks_like_credential(s)
            }
            Value::Array(a) => a.iter().any(|x| self.holds_secret(x)),
            Value::Object(m) => m.values().any(|x| self.holds_secret(x)),
            _ => false,
        }
    }
}

/// Every string leaf of `v`.
fn strings_in(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Number(n) => vec![n.to_string()],
        Value::Array(a) => a.iter().flat_map(strings_in).collect(),
        Value::Object(m) => m.values().flat_map(strings_in).collect(),
        _ => vec![],
    }
}

/// One set of arguments for the valid call, and where each top-level value came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgSet {
    /// As pinned: paths relative to the working folder where `relative` says so.
    pub args: Map<String, Value>,
    pub from: BTreeMap<String, Source>,
    /// JSON pointers (into `args`) of strings that are paths relative to the working folder.
    pub relative: Vec<String>,
    /// Those paths are sent absolute (resolved against the folder the server works in), not in
    /// the relative form that is tried first (RULES.md, "What a probe may send and pin"): the
    /// words or the schema ask for an absolute path, or the relative form was refused.
    pub absolute: bool,
}

impl ArgSet {
    /// This set with `prop` set to `value`, found by `from`: the property's old path pointers
    /// dropped, and the value's strings marked as paths relative to the working folder when
    /// `paths` says so ([`relative_pointers`]). Every other argument kept.
    pub fn with_value(&self, prop: &str, value: Value, from: Source, paths: bool) -> ArgSet {
        let mut set = self.clone();
        let at = format!("/{}", pointer_token(prop));
        set.relative.retain(|r| *r != at && !r.starts_with(&format!("{at}/")));
        if paths {
            set.relative.extend(relative_pointers(prop, &value));
        }
        set.args.insert(prop.to_string(), value);
        set.from.insert(prop.to_string(), from);
        set
    }

    /// Arguments the user wrote: sent as they are.
    pub fn fixture(args: Map<String, Value>) -> ArgSet {
        let from = args.keys().map(|k| (k.clone(), Source::Fixture)).collect();
        ArgSet { args, from, relative: vec![], absolute: false }
    }

    /// Every value the smallest valid one.
    pub fn smallest(args: Map<String, Value>) -> ArgSet {
        let from = args.keys().map(|k| (k.clone(), Source::Smallest)).collect();
        ArgSet { args, from, relative: vec![], absolute: false }
    }

    /// What is sent to a server working in `dir`: the paths relative to it as pinned, or
    /// absolute there when this set sends them so ([`Self::absolute`]).
    pub fn send(&self, dir: Option<&Path>) -> Map<String, Value> {
        if self.absolute {
            self.resolve(dir)
        } else {
            self.args.clone()
        }
    }

    /// This set sending its paths absolute, when it has any sent relative.
    pub fn absolute_twin(&self) -> Option<ArgSet> {
        (!self.relative.is_empty() && !self.absolute).then(|| ArgSet { absolute: true, ..self.clone() })
    }

    /// The arguments to send from a session working in `dir`: relative paths made absolute
    /// there (left relative when the session has no folder of its own).
    pub fn resolve(&self, dir: Option<&Path>) -> Map<String, Value> {
        let mut v = Value::Object(self.args.clone());
        if let Some(dir) = dir {
            for p in &self.relative {
                if let Some(Value::String(s)) = v.pointer_mut(p) {
                    *s = absolute(dir, s);
                }
            }
        }
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// `path from the project folder, content: smallest valid`: where each value came from,
    /// never a value.
    pub fn describe(&self) -> String {
        if self.from.is_empty() {
            return "none needed".into();
        }
        if self.from.values().all(|s| *s == Source::Fixture) {
            return "your args fixture".into();
        }
        if self.from.values().all(|s| *s == Source::Smallest) {
            return "the smallest valid values".into();
        }
        let parts: Vec<String> =
            self.from.iter().map(|(k, s)| format!("{} from {}", crate::json::escape_line(k), s.label())).collect();
        parts.join(", ")
    }

    /// The pin `lock` writes for it: `{"args": ..., "from": {...}, "relative": [...]}`
    /// (`relative` only when there is one), plus how many sets were tried.
    pub fn to_pin(&self, tried: usize) -> Value {
        let mut m = Map::new();
        m.insert("args".into(), Value::Object(self.args.clone()));
        m.insert(
            "from".into(),
            Value::Object(self.from.iter().map(|(k, s)| (k.clone(), Value::String(s.label().into_owned()))).collect()),
        );
        if !self.relative.is_empty() {
            m.insert("relative".into(), self.relative.iter().cloned().map(Value::String).collect());
            if !self.absolute {
                m.insert(SENT_KEY.into(), Value::String(SENT_RELATIVE.into()));
            }
        }
        if tried > 1 {
            m.insert("tried".into(), Value::from(tried));
        }
        Value::Object(m)
    }

    /// Read a pin back; `None` when it is not one (a lock from before pinned arguments, or a
    /// hand-edited one that is not an object of arguments).
    pub fn from_pin(pin: &Value) -> Option<ArgSet> {
        let args = pin.get("args")?.as_object()?.clone();
        let from = pin
            .get("from")
            .and_then(Value::as_object)
            .map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), Source::from_label(v.as_str()?)?))).collect())
            .unwrap_or_default();
        let relative = pin
            .get("relative")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        // A pin from before the relative form was sent sent its paths absolute.
        let absolute = pin.get(SENT_KEY).and_then(Value::as_str) != Some(SENT_RELATIVE);
        Some(ArgSet { args, from, relative, absolute })
    }
}

/// The key of a pin that says in which form its paths were sent, and its one value: relative to
/// the folder the server works in. Absent: absolute there (every pin before the relative form).
pub const SENT_KEY: &str = "sent";
pub const SENT_RELATIVE: &str = "relative";

/// Whether the tool's words or the schema of the property at `prop` ask for an absolute path.
fn asks_absolute(def: &Value, schema: &Value) -> bool {
    let says = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(words::asks_absolute_path);
    says(schema.get("description"))
        || says(schema.get("title"))
        || schema.get("pattern").and_then(Value::as_str).is_some_and(|p| p.starts_with("^/"))
        || def.get("description").and_then(Value::as_str).is_some_and(|t| t.to_lowercase().contains("absolute path"))
}

/// `rel` inside `dir`, as one absolute path string (`.` is `dir` itself). A relative path that
/// climbs out (`..`) is never made: it stays inside `dir`.
fn absolute(dir: &Path, rel: &str) -> String {
    let mut out = PathBuf::from(dir);
    for part in rel.split('/') {
        match part {
            "" | "." | ".." => {}
            p => out.push(p),
        }
    }
    out.to_string_lossy().into_owned()
}

/// The argument sets to try for tool `name` (definition `def`), best first: every required
/// property at its best candidate, then one property at a time at its next one, the smallest
/// valid arguments (`smallest`) always among them. At most [`MAX_CANDIDATES`]; each validates
/// against the whole `inputSchema`.
pub fn argument_sets(name: &str, def: &Value, known: &Known, smallest: &Map<String, Value>) -> Vec<ArgSet> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let base = ArgSet::smallest(smallest.clone());
    let Ok(whole) = validate::compile_as(root, validate::draft_of(root), Formats::Assert) else {
        return vec![base];
    };
    let props = root.get("properties").and_then(Value::as_object);
    if let Some(sets) = shown_call_sets(name, def, known, &base) {
        return sets;
    }
    let mut required: Vec<&str> = Vec::new();
    for r in root.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
        if !required.contains(&r) && smallest.contains_key(r) && required.len() < MAX_PROPERTIES {
            required.push(r);
        }
    }
    let tool = Tool::of(name, def);
    let per_prop: Vec<(&str, Vec<Candidate>)> = required
        .iter()
        .map(|p| {
            let schema = props.and_then(|m| m.get(*p)).unwrap_or(&empty);
            (*p, property_candidates(p, schema, root, &tool, known, &smallest[*p]))
        })
        .collect();
    // A property with no candidate (every value it may take would be aimed at the machine: a
    // process id the schema fixes at 1) makes no set at all.
    if per_prop.iter().any(|(_, cands)| cands.is_empty()) {
        return Vec::new();
    }
    combine(def, known, &whole, base, &per_prop)
}

/// A schema that declares no argument, of a tool whose description shows a call with some
/// (`{ "vault": "vault1", "operation": "append" }`): after the call with none, the shown
/// arguments, each searched as a declared one of its type. `None` for any other tool.
fn shown_call_sets(name: &str, def: &Value, known: &Known, base: &ArgSet) -> Option<Vec<ArgSet>> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let props = root.get("properties").and_then(Value::as_object);
    let open = root.get("additionalProperties") != Some(&Value::Bool(false));
    if !(props.is_none_or(Map::is_empty) && open) {
        return None;
    }
    let shown = def.get("description").and_then(Value::as_str).and_then(described::shown_call)?;
    let properties: Map<String, Value> = shown
        .iter()
        .map(|(k, v)| {
            let kind = match v {
                Value::String(_) => "string",
                Value::Bool(_) => "boolean",
                _ => "number",
            };
            (k.clone(), serde_json::json!({ "type": kind }))
        })
        .collect();
    let mut declared = def.clone();
    declared["inputSchema"] = serde_json::json!({
        "type": "object", "properties": properties, "required": shown.keys().collect::<Vec<_>>(),
    });
    let mut sets = vec![base.clone()];
    if let Ok(least) = crate::probe::synthesize_args(&declared["inputSchema"]) {
        sets.extend(argument_sets(name, &declared, known, &least));
    }
    Some(sets)
}

/// The sets of the properties' candidates (`per_prop`): every first one, then each property's
/// next one with the others at their first, then `base` (the smallest valid values); each valid
/// against the whole schema (`whole`), holding no secret and not aimed at the machine, at most
/// [`MAX_CANDIDATES`].
fn combine(
    def: &Value,
    known: &Known,
    whole: &jsonschema::Validator,
    base: ArgSet,
    per_prop: &[(&str, Vec<Candidate>)],
) -> Vec<ArgSet> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let props = root.get("properties").and_then(Value::as_object);
    let base_dir = known.paths.base.as_deref();
    let build = |choice: &[usize]| -> ArgSet {
        let mut set = base.clone();
        for ((p, cands), &i) in per_prop.iter().zip(choice) {
            let c = &cands[i];
            set.args.insert((*p).to_string(), c.value.clone());
            set.from.insert((*p).to_string(), c.source);
            if c.relative {
                set.relative.extend(relative_pointers(p, &c.value));
                let schema = props.and_then(|m| m.get(*p)).unwrap_or(&empty);
                set.absolute |= asks_absolute(def, schema);
            }
        }
        // The relative form is sent first where the schema takes it.
        set.absolute |= !set.relative.is_empty() && !whole.is_valid(&Value::Object(set.args.clone()));
        set
    };
    let mut sets: Vec<ArgSet> = Vec::new();
    let consider = |set: ArgSet, sets: &mut Vec<ArgSet>| {
        let sent = Value::Object(set.resolve(base_dir));
        if !sets.iter().any(|s| s.args == set.args)
            && whole.is_valid(&sent)
            && !known.holds_secret(&sent)
            && aimed_at_machine(root, &sent, known).is_none()
        {
            sets.push(set);
        }
    };
    let first = vec![0usize; per_prop.len()];
    consider(build(&first), &mut sets);
    let longest = per_prop.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    'outer: for d in 1..longest {
        for (i, (_, cands)) in per_prop.iter().enumerate() {
            if sets.len() >= MAX_CANDIDATES - 1 {
                break 'outer;
            }
            if cands.len() > d {
                let mut choice = first.clone();
                choice[i] = d;
                consider(build(&choice), &mut sets);
            }
        }
    }
    consider(base.clone(), &mut sets);
    if sets.is_empty() && aimed_at_machine(root, &Value::Object(base.resolve(base_dir)), known).is_none() {
        sets.push(base);
    }
    sets.truncate(MAX_CANDIDATES);
    sets
}

/// Argument sets that give each property in `props` (those whose value a rejection quotes: "Note
/// \"my-note.md\" not found") its next candidates not sent yet, every other argument kept: the
/// other values of the set were right, and the server says which one was not.
pub fn with_next_candidates(
    def: &Value,
    known: &Known,
    rejected: &ArgSet,
    props: &[&str],
    tried: &[ArgSet],
) -> Vec<ArgSet> {
    let picks: Vec<(String, Value)> =
        props.iter().filter_map(|p| Some((p.to_string(), rejected.args.get(*p)?.clone()))).collect();
    sets_with(def, known, rejected, &picks, None, tried)
}

/// Most candidates tried for one property a rejection points at.
const PER_NAMED_OPTIONAL: usize = 2;

/// Argument sets that add to `rejected` an optional property the rejection `text` names ("Must
/// provide either search_text or paragraph_index", "Either paths must be provided, or all must
/// be true"), or any, for a tool that requires nothing and words that name no property: each
/// such property not sent yet, at its best candidates (from the same sources as a
/// required one), every other argument kept; labelled `source` (a line of a file stays one).
pub fn with_named_optional(
    def: &Value,
    known: &Known,
    rejected: &ArgSet,
    text: &str,
    tried: &[ArgSet],
    source: Source,
) -> Vec<ArgSet> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let Some(props) = root.get("properties").and_then(Value::as_object) else { return vec![] };
    // A tool that requires nothing, refused with words that name none of its properties ("Path
    // must be a non-empty file system path" for `list_workbooks {}`): its optional properties are
    // the only ones that can be wrong.
    let requires_nothing = root.get("required").and_then(Value::as_array).is_none_or(Vec::is_empty);
    let every = requires_nothing && !props.keys().any(|p| crate::probe::names_argument(text, p));
    let mut picks: Vec<(String, Value)> = Vec::new();
    let mut out: Vec<ArgSet> = Vec::new();
    for p in props.keys().take(MAX_PROPERTIES) {
        if rejected.args.contains_key(p) || !(every || names_property(text, p)) {
            continue;
        }
        // The property's smallest valid value: the whole schema synthesised with it required.
        let mut alone = root.clone();
        alone["required"] = Value::Array(vec![Value::String(p.clone())]);
        if let Some(smallest) = crate::probe::synthesize_args(&alone).ok().and_then(|mut m| m.remove(p)) {
            // A flag the words give as a command-line option ("use 'git cherry-pick --abort'"
            // about `abort`): set, before any other value.
            if smallest.is_boolean() && gives_option(text, p) {
                let set = rejected.with_value(p, Value::Bool(true), source, false);
                if let Ok(whole) = validate::compile_as(root, validate::draft_of(root), Formats::Assert) {
                    words::push_new(&mut out, set, &whole, known.paths.base.as_deref(), tried);
                }
            }
            picks.push((p.clone(), smallest));
        }
    }
    let rest = sets_with(def, known, rejected, &picks, Some(source), &[tried, &out].concat());
    out.extend(rest);
    out
}

/// Argument sets that grant what a refusal's words refused: each optional boolean named
/// `allow…` (`allowEmpty`, `allow_overwrite`) not sent `true`, whose name or description shares
/// a word of four letters or more with the rejection ("nothing added to commit" and "Allow
/// creating a commit with no changes."), set `true` (labelled `source`), every other argument
/// kept. A fixture's flag is the user's word and stays.
pub fn with_permission(
    def: &Value,
    known: &Known,
    rejected: &ArgSet,
    text: &str,
    tried: &[ArgSet],
    source: Source,
) -> Vec<ArgSet> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let Some(props) = root.get("properties").and_then(Value::as_object) else { return vec![] };
    let Ok(whole) = validate::compile_as(root, validate::draft_of(root), Formats::Assert) else { return vec![] };
    let said: Vec<String> = hints::words(text).into_iter().filter(|w| w.len() >= 4).collect();
    let mut out = Vec::new();
    for (p, schema) in props.iter().take(MAX_PROPERTIES) {
        let schema = local_ref(schema, root);
        let name = hints::words(p);
        if name.first().map(String::as_str) != Some("allow")
            || schema.get("type").and_then(Value::as_str) != Some("boolean")
            || rejected.args.get(p) == Some(&Value::Bool(true))
            || rejected.from.get(p) == Some(&Source::Fixture)
        {
            continue;
        }
        let desc = schema.get("description").and_then(Value::as_str).unwrap_or("");
        let about = name.into_iter().chain(hints::words(desc)).filter(|w| w != "allow");
        if about.into_iter().any(|w| said.contains(&w)) {
            let set = rejected.with_value(p, Value::Bool(true), source, false);
            words::push_new(&mut out, set, &whole, known.paths.base.as_deref(), tried);
        }
    }
    out
}

/// Whether `text` gives property `prop` as a command-line option: `--abort` for `abort`,
/// `--no-commit` for `noCommit` (the same words, whatever the spelling).
fn gives_option(text: &str, prop: &str) -> bool {
    let want = hints::words(prop);
    text.split(|c: char| c.is_whitespace() || "'\"`,;()[]".contains(c))
        .filter_map(|t| t.strip_prefix("--"))
        .any(|o| !o.starts_with('-') && hints::words(o.split('=').next().unwrap_or(o)) == want)
}

/// The smallest valid value of `schema` (a property's, in the tool's `root`) that holds
/// something: an array gets one item, all the way down (`rows: [[""]]`, never `[[]]`).
pub(crate) fn one_value(schema: &Value, root: &Value) -> Option<Value> {
    let mut one = schema::standalone(local_ref(schema, root), root);
    let mut at = Some(&mut one);
    while let Some(Value::Object(p)) = at {
        if p.get("type").and_then(Value::as_str) != Some("array") {
            break;
        }
        p.insert("minItems".into(), Value::from(1));
        at = p.get_mut("items");
    }
    let mut alone = serde_json::json!({"type": "object", "properties": {"v": one}, "required": ["v"]});
    for key in ["$defs", "definitions"] {
        if let Some(defs) = root.get(key) {
            alone[key] = defs.clone();
        }
    }
    crate::probe::synthesize_args(&alone).ok().and_then(|mut m| m.remove("v"))
}

/// Whether the words `text` name the property `p`: as it is, or by every word of its name when
/// it has two or more ("Target paragraph not found (by index or text)" names
/// `target_paragraph_index` and `target_text`).
pub(crate) fn names_property(text: &str, p: &str) -> bool {
    let ws = hints::words(p);
    crate::probe::names_argument(text, p)
        || ws.len() >= 2 && {
            let text_words = hints::words(text);
            ws.iter().all(|w| text_words.contains(w))
        }
}

/// Whether property `p` is text a tool must find in a file: `old_string`, `oldText`,
/// `search_text`, `find_str`, `start_anchor_text`.
pub(crate) fn finds_text(p: &str) -> bool {
    let ws = hints::words(p);
    let has = |list: &[&str]| ws.iter().any(|w| list.contains(&w.as_str()));
    has(&["old"]) && has(&["string", "str", "text"])
        || has(&["search", "find", "anchor"]) && has(&["text", "string", "str"])
}

/// Longest line taken from a file as text to find.
const MAX_LINE: usize = 120;
/// Most bytes read from a file for it.
const MAX_FILE_READ: u64 = 64 * 1024;

/// The first line of three characters or more of the project file that `set` names (its first
/// path argument that is a text file inside the project folder), trimmed: text the file holds,
/// so a tool that must find it there does. Never a line of a file the sandbox withholds, nor one
/// holding a secret.
pub(crate) fn file_line(set: &ArgSet, known: &Known) -> Option<String> {
    let base = known.paths.base.as_deref()?;
    let sent = Value::Object(set.resolve(Some(base)));
    for at in &set.relative {
        let Some(path) = sent.pointer(at).and_then(Value::as_str).map(PathBuf::from) else { continue };
        if !path.starts_with(base) || !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        // A file the sandbox withholds (`.env`, a key) is never read for a value.
        if gate::is_withheld(known, &path) || known.paths.is_own(&path) {
            return None;
        }
        let bytes = crate::files::read_head(&path, MAX_FILE_READ).ok()?;
        if bytes.contains(&0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let line = text.lines().map(str::trim).find(|l| l.chars().filter(|c| !c.is_whitespace()).count() >= 3)?;
        let line: String = line.chars().take(MAX_LINE).collect();
        if known.holds_secret(&Value::String(line.clone())) || line.chars().any(char::is_control) {
            return None;
        }
        return Some(line);
    }
    None
}

/// Argument sets that add to an object argument of `rejected` a property of it that the
/// rejection `text` names and the call did not send ("list validation needs either options or
/// source" about `rule: {type: "list"}`): each such property at the examples its description
/// gives, then its smallest valid value that holds something ([`one_value`]), at most
/// [`PER_NAMED_OPTIONAL`] each (labelled `source`), every other argument kept.
pub fn with_named_inner_optional(
    def: &Value,
    known: &Known,
    rejected: &ArgSet,
    text: &str,
    tried: &[ArgSet],
    source: Source,
) -> Vec<ArgSet> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let Some(props) = root.get("properties").and_then(Value::as_object) else { return vec![] };
    let Ok(whole) = validate::compile_as(root, validate::draft_of(root), Formats::Assert) else { return vec![] };
    let dir = known.paths.base.as_deref();
    let mut out: Vec<ArgSet> = Vec::new();
    for (k, v) in &rejected.args {
        let (Value::Object(sent), Some(schema)) = (v, props.get(k)) else { continue };
        if rejected.from.get(k) == Some(&Source::Fixture) {
            continue;
        }
        let inner = local_ref(schema, root).get("properties").and_then(Value::as_object);
        for (np, ns) in inner.into_iter().flatten().take(MAX_PROPERTIES) {
            if sent.contains_key(np) || !names_property(text, np) {
                continue;
            }
            let desc = ns.get("description").and_then(Value::as_str).unwrap_or("");
            let mut values: Vec<Value> = described::examples(desc).iter().flat_map(|t| coerce(t, ns, root)).collect();
            values.extend(one_value(ns, root));
            let mut added = 0;
            for value in values {
                let mut set = rejected.clone();
                if let Some(Value::Object(m)) = set.args.get_mut(k) {
                    m.insert(np.clone(), value);
                }
                set.from.insert(k.clone(), source);
                let now = Value::Object(set.resolve(dir));
                if added < PER_NAMED_OPTIONAL
                    && whole.is_valid(&now)
                    && !known.holds_secret(&now)
                    && !tried.iter().chain(&out).any(|s| s.args == set.args)
                {
                    out.push(set);
                    added += 1;
                }
            }
        }
    }
    out
}

/// For each `(property, smallest valid value)` of `picks`, `rejected` with that property at each
/// of its best [`PER_NAMED_OPTIONAL`] candidates other than the value it was sent (from the same
/// sources as any property; `from` names the source, or `None` for the candidate's own), every
/// other argument kept. Each set valid against the whole `inputSchema`, holding no secret, not
/// aimed at the machine, none already in `tried`; never a property of a fixture.
fn sets_with(
    def: &Value,
    known: &Known,
    rejected: &ArgSet,
    picks: &[(String, Value)],
    from: Option<Source>,
    tried: &[ArgSet],
) -> Vec<ArgSet> {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let Some(schemas) = root.get("properties").and_then(Value::as_object) else { return vec![] };
    let Ok(whole) = validate::compile_as(root, validate::draft_of(root), Formats::Assert) else {
        return vec![];
    };
    let tool = Tool::of(def.get("name").and_then(Value::as_str).unwrap_or(""), def);
    let dir = known.paths.base.as_deref();
    let mut out: Vec<ArgSet> = Vec::new();
    for (p, smallest) in picks {
        let Some(schema) = schemas.get(p) else { continue };
        if rejected.from.get(p) == Some(&Source::Fixture) {
            continue;
        }
        let sent_now = rejected.args.get(p);
        let mut cands = property_candidates(p, schema, root, &tool, known, smallest);
        // Text the tool must find in the file the call names (`old_string`, `search_text`): a
        // line of that file, first.
        if let Some(line) = finds_text(p).then(|| file_line(rejected, known)).flatten() {
            cands.insert(0, Candidate { value: Value::String(line), source: Source::FileText, relative: false });
        }
        for c in cands
            .into_iter()
            .filter(|c| sent_now.is_none_or(|v| !validate::json_eq(&c.value, v)))
            .take(PER_NAMED_OPTIONAL)
        {
            // (A line of a file stays one: `check` reads it again.)
            let source = if c.source == Source::FileText { c.source } else { from.unwrap_or(c.source) };
            let set = rejected.with_value(p, c.value, source, c.relative);
            let sent = Value::Object(set.resolve(dir));
            if whole.is_valid(&sent)
                && !known.holds_secret(&sent)
                && aimed_at_machine(root, &sent, known).is_none()
                && !tried.iter().chain(&out).any(|s| s.args == set.args)
            {
                out.push(set);
            }
        }
    }
    out
}

/// Why arguments `sent` (against the tool's `inputSchema` `root`) would aim the call at the
/// machine ([`guard`]), or `None`.
pub fn aimed_at_machine(root: &Value, sent: &Value, known: &Known) -> Option<&'static str> {
    let props = root.get("properties").and_then(Value::as_object);
    sent.as_object()?.iter().find_map(|(k, v)| {
        let schema = props.and_then(|m| m.get(k)).unwrap_or(&Value::Null);
        guard::aimed_at_machine(k, schema, v, known.home.as_deref())
    })
}

/// The pinned arguments with each value that a setup tool or a maker returned at `lock`
/// ([`Source::Result`]: an id made then, gone now) replaced by the value the same kind of result
/// returned in this session, taken as `lock` took it ([`listing::for_property`]), in the pinned
/// value's JSON type. A value nothing returned this time stays as pinned. A line of a file
/// ([`Source::FileText`]) is read again from the file as it is now: an edit of the project is
/// no drift of the server.
pub fn refresh_made(mut pin: ArgSet, known: &Known) -> ArgSet {
    let texts: Vec<String> = pin.from.iter().filter(|(_, f)| **f == Source::FileText).map(|(k, _)| k.clone()).collect();
    if let Some(line) = (!texts.is_empty()).then(|| file_line(&pin, known)).flatten() {
        for k in texts {
            pin.args.insert(k, Value::String(line.clone()));
        }
    }
    let made: Vec<listing::Listed> = known.listed.iter().filter(|l| l.made).cloned().collect();
    for (k, from) in &pin.from {
        if *from != Source::Result {
            continue;
        }
        let Some(l) = listing::for_property(k, &made).into_iter().next() else { continue };
        let fresh = match pin.args.get(k) {
            Some(Value::Number(_)) => l.value.parse::<serde_json::Number>().ok().map(Value::Number),
            Some(Value::Array(_)) => Some(Value::Array(vec![Value::String(l.value.clone())])),
            Some(Value::String(_)) => Some(Value::String(l.value.clone())),
            _ => None,
        };
        if let Some(v) = fresh {
            pin.args.insert(k.clone(), v);
        }
    }
    pin
}

/// The pinned arguments to replay against the live tool `def`: as pinned while they validate
/// against its `inputSchema`; otherwise (the schema changed since `lock`) each pinned value kept
/// where its property still accepts it and the rest the smallest valid, or the smallest valid
/// arguments when even that does not validate. `true` when they were adapted.
pub fn replay(pin: ArgSet, def: &Value, known: &Known, smallest: &Map<String, Value>) -> (ArgSet, bool) {
    let empty = Value::Object(Map::new());
    let root = def.get("inputSchema").unwrap_or(&empty);
    let Ok(whole) = validate::compile_as(root, validate::draft_of(root), Formats::Assert) else {
        return (pin, false);
    };
    let dir = known.paths.base.as_deref();
    if whole.is_valid(&Value::Object(pin.resolve(dir))) {
        return (pin, false);
    }
    let props = root.get("properties").and_then(Value::as_object);
    let mut set = ArgSet::smallest(smallest.clone());
    for (k, v) in &pin.args {
        let Some(schema) = props.and_then(|m| m.get(k)) else { continue };
        let at = format!("/{}", pointer_token(k));
        let relative: Vec<String> =
            pin.relative.iter().filter(|p| **p == at || p.starts_with(&format!("{at}/"))).cloned().collect();
        let mut one = ArgSet {
            args: Map::from_iter([(k.clone(), v.clone())]),
            from: BTreeMap::new(),
            relative,
            absolute: pin.absolute,
        };
        let sent = one.resolve(dir).remove(k).unwrap_or(Value::Null);
        let standalone = schema::standalone(schema, root);
        let fits = validate::compile_as(&standalone, validate::draft_of(root), Formats::Assert)
            .map(|val| val.is_valid(&sent))
            .unwrap_or(false);
        if fits {
            set.args.insert(k.clone(), v.clone());
            set.from.insert(k.clone(), pin.from.get(k).copied().unwrap_or(Source::Smallest));
            set.relative.append(&mut one.relative);
        }
    }
    set.absolute = pin.absolute;
    if whole.is_valid(&Value::Object(set.resolve(dir))) {
        (set, true)
    } else {
        (ArgSet::smallest(smallest.clone()), true)
    }
}

/// The tool a property belongs to.
struct Tool<'a> {
    name: &'a str,
    desc: &'a str,
    /// It only reads ([`hints::rank`] 0 or 1).
    reads: bool,
}

impl<'a> Tool<'a> {
    fn of(name: &'a str, def: &'a Value) -> Tool<'a> {
        Tool {
            name,
            desc: def.get("description").and_then(Value::as_str).unwrap_or(""),
            reads: hints::rank(name, def) <= 1,
        }
    }
}

/// The candidates of one property, best first, each valid against its schema; the smallest
/// valid value last.
fn property_candidates(
    prop: &str,
    schema: &Value,
    root: &Value,
    tool: &Tool<'_>,
    known: &Known,
    smallest: &Value,
) -> Vec<Candidate> {
    let mut pool = Pool::new(prop, schema, root, known);
    // A property the schema does not describe is described by the line its tool's argument list
    // gives it (a docstring's `Args:`: `connector_type: Type of connector ("straight", …)`).
    let listed_line;
    let desc = match schema.get("description").and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => d,
        _ => {
            listed_line = described::argument_line(tool.desc, prop).unwrap_or_default();
            listed_line.as_str()
        }
    };
    pool.gather_words(tool, desc);
    pool.gather_paths(tool, desc);
    let untied = pool.gather_listings(tool);
    pool.smallest_last(smallest);
    for l in untied {
        for value in coerce(&l.value, schema, root) {
            pool.add(Candidate { value, source: l.source(), relative: l.relative });
        }
    }
    if pool.out.is_empty() && guard::aimed_at_machine(prop, schema, smallest, known.home.as_deref()).is_none() {
        pool.out.push(Candidate { value: smallest.clone(), source: Source::Smallest, relative: false });
    }
    pool.out
}

/// The candidates of one property as they are gathered: at most [`PER_PROPERTY`], none twice,
/// each valid against the property's schema, holding no secret and not aimed at the machine.
struct Pool<'a> {
    prop: &'a str,
    schema: &'a Value,
    root: &'a Value,
    known: &'a Known,
    validator: Option<jsonschema::Validator>,
    out: Vec<Candidate>,
}

impl<'a> Pool<'a> {
    fn new(prop: &'a str, schema: &'a Value, root: &'a Value, known: &'a Known) -> Pool<'a> {
        let standalone = schema::standalone(schema, root);
        let validator = validate::compile_as(&standalone, validate::draft_of(root), Formats::Assert).ok();
        Pool { prop, schema, root, known, validator, out: Vec::new() }
    }

    fn fits(&self, c: &Candidate) -> bool {
        let v = if c.relative { resolve_value(&c.value, self.known.paths.base.as_deref()) } else { c.value.clone() };
        self.validator.as_ref().is_none_or(|val| val.is_valid(&v))
            && !self.known.holds_secret(&v)
            && guard::aimed_at_machine(self.prop, self.schema, &v, self.known.home.as_deref()).is_none()
    }

    fn holds(&self, c: &Candidate) -> bool {
        self.out.iter().any(|o| validate::json_eq(&o.value, &c.value))
    }

    fn add(&mut self, c: Candidate) {
        if self.out.len() < PER_PROPERTY && !self.holds(&c) && self.fits(&c) {
            self.out.push(c);
        }
    }

    /// What another tool was sent, the schema, the words (the description's examples and the
    /// values it gives by name, a well-known format, a lasting process, a SQL statement).
    fn gather_words(&mut self, tool: &Tool<'_>, desc: &str) {
        let (prop, schema, root) = (self.prop, self.schema, self.root);
        // What another tool of the server accepted for a property of this name, first: the
        // project's document is the one its sibling opened, whatever this tool's words say. Never
        // for a path that must not exist yet (`create_document` would write over the project's
        // document).
        let fresh = hints::path_hint(prop, desc, tool.name, tool.desc).is_some_and(|h| h.fresh);
        for w in self.known.worked.iter().filter(|w| w.prop == prop && w.tool != tool.name && !fresh) {
            self.add(Candidate { value: w.value.clone(), source: Source::Sibling, relative: !w.relative.is_empty() });
        }
        for v in schema::values(schema, root) {
            self.add(Candidate { value: v, source: Source::Schema, relative: false });
        }
        // Then the values the tool's description gives it by name, as it shows a call
        // (`get_prompts(action='get_prompt', promptId='onb2_01')`).
        for text in described::examples(desc).into_iter().chain(described::given(tool.desc, prop)) {
            for v in coerce(&text, schema, root) {
                self.add(Candidate { value: v, source: Source::Description, relative: false });
            }
        }
        // A well-known format the words name with no literal (a cron line, a color, a date).
        for v in formats::examples(prop, desc) {
            self.add(Candidate { value: v, source: Source::Format, relative: false });
        }
        // A process a tool starts and leaves running, for the tools that use it after.
        if command::starts_process(tool.name, prop) {
            let value = Value::String(command::LASTING.into());
            self.add(Candidate { value, source: Source::Description, relative: false });
        }
        // SQL: the smallest statement of the kind the property's or the tool's words name.
        if sql::takes_sql(prop, desc) {
            for text in sql::candidates(&format!("{desc} {} {}", tool.desc, tool.name.replace('_', " "))) {
                self.add(Candidate { value: Value::String(text), source: Source::Description, relative: false });
            }
        }
    }

    /// Paths of the project of the kind the words ask for, also as the one object of an array of
    /// objects one of whose properties names a path (`sources: [{path, url, pages}]`: searched
    /// together with the array, not apart).
    fn gather_paths(&mut self, tool: &Tool<'_>, desc: &str) {
        let (prop, schema, root, known) = (self.prop, self.schema, self.root, self.known);
        if let Some(h) = hints::path_hint(prop, desc, tool.name, tool.desc) {
            let many = is_array(schema, root);
            for e in known.paths.for_hint(tool.name, &h) {
                let s = Value::String(e.path.clone());
                let value = if many { Value::Array(vec![s]) } else { s };
                self.add(Candidate { value, source: e.origin, relative: e.relative });
            }
        }
        if let Some(items) = object_items(schema, root) {
            for (k, inner) in items.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let d = inner.get("description").and_then(Value::as_str).unwrap_or("");
                let Some(h) = hints::path_hint(k, d, tool.name, tool.desc) else { continue };
                for e in known.paths.for_hint(tool.name, &h).into_iter().take(3) {
                    let value = Value::Array(vec![serde_json::json!({ k.as_str(): e.path })]);
                    self.add(Candidate { value, source: e.origin, relative: e.relative });
                }
                break;
            }
        }
    }

    /// What the server listed for this property; the untied values a tool that changes things
    /// gets after the smallest valid values (returned, added last).
    fn gather_listings(&mut self, tool: &Tool<'_>) -> Vec<&'a listing::Listed> {
        let (prop, schema, root, known) = (self.prop, self.schema, self.root, self.known);
        // A process id the server listed is a process of the machine (`list_processes` lists
        // them all): only one a tool of this session made (`start_process`) is offered, and the
        // listed ones are left out before the values are chosen, never after.
        let pid = guard::takes_process_id(prop, schema);
        let offered = || known.listed.iter().filter(move |l| l.made || !pid);
        let mut listed = listing::for_property(prop, offered());
        // Nothing else known about it, for a tool that only reads: what the server listed, tied
        // to it or not (`target` of a diff and a branch listed by another tool). For a tool that
        // changes things only in the sandbox: outside it, a listed name is a real thing it would
        // act on. (A real commit cherry-picked there can leave a cherry-pick in progress that a
        // later candidate, `--abort`, needs: the calls before the pinned one are pinned with it,
        // and `check` makes them again when it fails alone: `search::BEFORE_KEY`.) For a tool
        // that changes things they come after the smallest valid values: its first sets stay
        // what they were without them.
        let mut untied = Vec::new();
        if self.out.is_empty() && listed.is_empty() && tool.reads {
            listed = listing::unmatched(offered());
        } else if self.out.is_empty() && listed.is_empty() && known.sandboxed {
            untied = listing::unmatched(offered());
        }
        // A time, a date, a status word or a count is never a name or an id.
        let names = names_a_thing(prop);
        for l in listed.into_iter().filter(|l| !(names && listing::time_or_state(l))) {
            if l.relative {
                let s = Value::String(l.value.clone());
                let value = if is_array(schema, root) { Value::Array(vec![s]) } else { s };
                self.add(Candidate { value, source: l.source(), relative: true });
                continue;
            }
            for value in coerce(&l.value, schema, root) {
                self.add(Candidate { value, source: l.source(), relative: false });
            }
        }
        untied
    }

    /// The smallest valid value always stays (it replaces the last when the list is full), with
    /// its neighbours: `"a"` and `"1"` for a free string (the empty string last for a name or an
    /// id), the other value of a flag, a process id no process has before the smallest one.
    fn smallest_last(&mut self, smallest: &Value) {
        let mut tail = vec![Candidate { value: smallest.clone(), source: Source::Smallest, relative: false }];
        if smallest.as_str() == Some("") {
            // A free string: `"1"` reaches tools that refuse `""` and `"a"` (an id, a number as text).
            for s in ["a", "1"] {
                tail.push(Candidate { value: Value::String(s.into()), source: Source::Smallest, relative: false });
            }
            // An empty string is the last candidate for a name or an id, never the first.
            if names_a_thing(self.prop) {
                tail.rotate_left(1);
            }
        }
        // A flag: both values ("force flag must be set to true").
        if let Some(b) = smallest.as_bool() {
            tail.push(Candidate { value: Value::Bool(!b), source: Source::Smallest, relative: false });
        }
        // A process id no process has, before the smallest valid one (0, the caller's own group).
        if guard::takes_process_id(self.prop, self.schema) {
            let value = Value::from(guard::NO_PROCESS);
            tail.insert(0, Candidate { value, source: Source::Smallest, relative: false });
        }
        for c in tail {
            if self.holds(&c) || !self.fits(&c) {
                continue;
            }
            if self.out.len() >= PER_PROPERTY {
                self.out.pop();
            }
            self.out.push(c);
        }
    }
}

/// Whether property `prop` takes a name or an id (`name`, `branch_name`, `taskId`, `ids`,
/// `identifier`, `slug`, `uuid`).
fn names_a_thing(prop: &str) -> bool {
    hints::words(prop)
        .last()
        .is_some_and(|w| ["name", "names", "id", "ids", "identifier", "uuid", "slug", "handle"].contains(&w.as_str()))
}

fn resolve_value(v: &Value, dir: Option<&Path>) -> Value {
    match (v, dir) {
        (Value::String(s), Some(d)) => Value::String(absolute(d, s)),
        (Value::Array(a), Some(_)) => Value::Array(a.iter().map(|x| resolve_value(x, dir)).collect()),
        (Value::Object(m), Some(_)) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), resolve_value(x, dir))).collect())
        }
        _ => v.clone(),
    }
}

/// The JSON pointers (into the arguments) of every string of a path candidate `v` of property
/// `p`: the value itself, each element of an array, each string of an array's objects.
fn relative_pointers(p: &str, v: &Value) -> Vec<String> {
    fn walk(at: String, v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(_) => out.push(at),
            Value::Array(a) => a.iter().enumerate().for_each(|(j, x)| walk(format!("{at}/{j}"), x, out)),
            Value::Object(m) => m.iter().for_each(|(k, x)| walk(format!("{at}/{}", pointer_token(k)), x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(format!("/{}", pointer_token(p)), v, &mut out);
    out
}

/// The schema of an array's items when they are objects (through a local `$ref`).
fn object_items<'a>(schema: &'a Value, root: &'a Value) -> Option<&'a Value> {
    let items = local_ref(local_ref(schema, root).get("items")?, root);
    items.get("properties").and_then(Value::as_object).map(|_| items)
}

/// The schema a local `$ref` (`#/$defs/Rule`) points at, or `schema` itself.
pub(crate) fn local_ref<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(p) => root.pointer(p).unwrap_or(schema),
        None => schema,
    }
}

fn is_array(schema: &Value, root: &Value) -> bool {
    let s = local_ref(schema, root);
    match s.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array") && !ts.iter().any(|t| t == "string"),
        _ => s.get("items").is_some(),
    }
}

/// A text read as the types the schema allows: itself as a string, a number, a boolean, or a
/// one-item array of it. Invalid readings are dropped by the caller's validation.
pub(crate) fn coerce(text: &str, schema: &Value, root: &Value) -> Vec<Value> {
    let mut out = vec![Value::String(text.to_string())];
    if let Ok(n) = text.parse::<i64>() {
        out.push(Value::from(n));
    } else if let Some(n) = text.parse::<f64>().ok().filter(|f| f.is_finite()).and_then(serde_json::Number::from_f64) {
        out.push(Value::Number(n));
    }
    match text {
        "true" => out.push(Value::Bool(true)),
        "false" => out.push(Value::Bool(false)),
        _ => {}
    }
    if is_array(schema, root) {
        out = out.into_iter().map(|v| Value::Array(vec![v])).collect();
    }
    out
}

#[cfg(test)]
mod tests;
