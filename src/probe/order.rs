//! A session's order (RULES.md, "A session has an order"): in which wave of its place each tool
//! is called. Tools that set up the session first, one at a time; then the readers that need no
//! argument, the other readers, the makers, the other tools that change things, the tools that
//! only a maker's values reach (at `lock`, readers of the server's own session whose every
//! candidate failed are tried again there: [`Wave::Use`]), and the removers and closers last.
//! Values each wave returns feed the arguments of the later ones (`candidates::Known`).
//!
//! Judgement from the words of a tool's name and description and its hints only, written once;
//! no server is named.

use serde_json::Value;

use super::candidates::hints::{self, words};

/// The waves of one place, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wave {
    /// Tools that set up the session (its working folder, an open document): each alone.
    Setup,
    /// Tools that only read and need no argument: their results feed every later tool.
    Survey,
    /// Tools that only read and start something a later reader uses (a search session).
    Begin,
    /// Other tools that only read.
    Read,
    /// Tools that make something (a note, a process, a table): their results name it.
    Make,
    /// Other tools that change things.
    Change,
    /// Tools called here because only a maker's values reach them (see the module doc).
    Use,
    /// Tools that destroy, move, reset or close things.
    Remove,
    /// Tools that undo the session's setup (`clear_working_dir`, `close_document`,
    /// `disconnect_db`): after everything else, one at a time, so no tool finds it undone.
    Teardown,
    /// Tools called once more after every other wave of their place, because what the later
    /// waves returned or were sent gives them other arguments (the probe run gives it, and the
    /// lock says so, so `check` calls them at the same point).
    Late,
}

impl Wave {
    /// Whether the tools of this wave only read (their calls may run side by side).
    pub fn reads(self) -> bool {
        matches!(self, Wave::Survey | Wave::Begin | Wave::Read)
    }
}

/// Verbs of a tool that sets up its session, when their object is one of [`SETUP_OBJECTS`].
const SETUP_VERBS: &[&str] =
    &["set", "use", "select", "switch", "change", "cd", "chdir", "open", "load", "connect", "activate", "start"];
/// What a setup tool sets up.
const SETUP_OBJECTS: &[&str] = &[
    "working",
    "workdir",
    "cwd",
    "dir",
    "directory",
    "folder",
    "workspace",
    "project",
    "session",
    "repository",
    "repo",
    "root",
    "document",
    "workbook",
    "presentation",
    "database",
    "db",
    "connection",
    "context",
];
/// Words of a description that say a tool must be called before the others.
const SETUP_PHRASES: &[&str] = &[
    "must be called first",
    "call this first",
    "call this tool first",
    "must be called before",
    "before using other tools",
    "before using any other tool",
    "before any other tool",
    "before calling other tools",
    "before calling any other tool",
    "before using the other tools",
];
/// Verbs of tools that make something whose name or id they return.
const MAKER_VERBS: &[&str] = &[
    "create",
    "new",
    "make",
    "add",
    "insert",
    "start",
    "open",
    "generate",
    "register",
    "spawn",
    "launch",
    "init",
    "initialize",
    "upload",
    "save",
    "write",
    "clone",
    "copy",
    "duplicate",
];
/// Verbs of tools that close or stop what another tool started (called last, like removers).
const CLOSER_VERBS: &[&str] =
    &["close", "stop", "end", "disconnect", "exit", "quit", "shutdown", "cancel", "abort", "unload", "detach"];

/// Verbs of a tool that undoes what a setup tool set up, when their object is one of
/// [`SETUP_OBJECTS`].
const TEARDOWN_VERBS: &[&str] = &[
    "clear",
    "unset",
    "reset",
    "close",
    "end",
    "stop",
    "disconnect",
    "unload",
    "exit",
    "quit",
    "detach",
    "deactivate",
];

/// Whether a tool undoes the session's setup: its name's verb undoes, and its object is something
/// a session works in (`git_clear_working_dir`, `close_presentation`, `disconnect_database`).
pub fn tears_down(tool: &str) -> bool {
    let ws = words(tool);
    ws.iter()
        .position(|w| TEARDOWN_VERBS.contains(&w.as_str()))
        .is_some_and(|i| ws[i + 1..].iter().any(|w| SETUP_OBJECTS.contains(&w.as_str())))
}

/// The first word of a tool's name that is a verb of any list here or of [`hints`].
fn verb_of(ws: &[String]) -> Option<&str> {
    ws.iter().map(String::as_str).find(|w| {
        SETUP_VERBS.contains(w)
            || MAKER_VERBS.contains(w)
            || CLOSER_VERBS.contains(w)
            || hints::READING_VERBS.contains(w)
            || hints::DESTRUCTIVE_VERBS.contains(w)
    })
}

/// Whether a tool sets up its session: its name's verb is a setup verb whose object (a later
/// word of the name) is something a session works in (`set_working_dir`, `open_project`,
/// `use_database`), or its description says it must be called before the other tools. Never a
/// tool that destroys things.
pub fn sets_up(tool: &str, def: &Value) -> bool {
    let ws = words(tool);
    if hints::rank(tool, def) == 3 {
        return false;
    }
    let named = match ws.iter().position(|w| Some(w.as_str()) == verb_of(&ws)) {
        Some(i) if SETUP_VERBS.contains(&ws[i].as_str()) => {
            ws[i + 1..].iter().any(|w| SETUP_OBJECTS.contains(&w.as_str()))
        }
        _ => false,
    };
    let desc = def.get("description").and_then(Value::as_str).unwrap_or("").to_lowercase();
    named || SETUP_PHRASES.iter().any(|p| desc.contains(p))
}

/// The wave a tool is called in, from its definition alone ([`Wave::Use`] and [`Wave::Late`]
/// are never given here: the probe run gives them).
pub fn wave(tool: &str, def: &Value) -> Wave {
    if sets_up(tool, def) {
        return Wave::Setup;
    }
    if tears_down(tool) && def.pointer("/annotations/readOnlyHint") != Some(&Value::Bool(true)) {
        return Wave::Teardown;
    }
    let ws = words(tool);
    let starts = verb_of(&ws).is_some_and(|v| MAKER_VERBS.contains(&v));
    match hints::rank(tool, def) {
        0 => Wave::Survey,
        1 if starts => Wave::Begin,
        1 => Wave::Read,
        3 => Wave::Remove,
        _ => match verb_of(&ws) {
            Some(v) if CLOSER_VERBS.contains(&v) => Wave::Remove,
            Some(v) if MAKER_VERBS.contains(&v) => Wave::Make,
            _ => Wave::Change,
        },
    }
}

/// Whether the values a tool's result returns are offered to the later tools: a listing reader's
/// names ([`hints::lists`]), and what a setup tool or a maker returned (an id, a handle, a path).
pub fn feeds(tool: &str, def: &Value) -> bool {
    hints::lists(tool, def) || makes(tool, def)
}

/// Whether the values a tool returned exist only in the session it was called in (what a setup
/// tool or a maker returned: `Known` keeps them apart, see `Source::Result`).
pub fn makes(tool: &str, def: &Value) -> bool {
    matches!(wave(tool, def), Wave::Setup | Wave::Begin | Wave::Make)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plain(desc: &str) -> Value {
        json!({"description": desc, "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}})
    }

    #[test]
    fn setup_tools_are_named_for_what_a_session_works_in_or_say_they_come_first() {
        for t in [
            "set_working_dir",
            "git_set_working_dir",
            "open_project",
            "use_database",
            "activate_project",
            "change_directory",
            "load_workbook",
            "startSession",
            "select_db",
        ] {
            assert!(sets_up(t, &plain("")), "{t}");
            assert_eq!(wave(t, &plain("")), Wave::Setup, "{t}");
        }
        assert!(sets_up("init", &plain("Initialise the server. This must be called first.")));
        // Not setup: the object is not what a session works in, or the verb is not a setup verb.
        for t in ["set_alarm", "switch_branch", "open_issue", "read_project", "create_project", "reset_session"] {
            assert!(!sets_up(t, &plain("")), "{t}");
        }
        // A prohibition that mentions the word is no setup phrase.
        assert!(!sets_up("echo", &plain("Echo the text back.")));
    }

    #[test]
    fn makers_before_changers_and_removers_and_closers_last() {
        let ro = json!({"annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}});
        assert_eq!(wave("list_notes", &ro), Wave::Survey);
        assert_eq!(wave("get_note", &plain("")), Wave::Read);
        assert_eq!(wave("create_note", &plain("")), Wave::Make);
        assert_eq!(wave("start_process", &plain("")), Wave::Make);
        assert_eq!(wave("add_observations", &plain("")), Wave::Make);
        assert_eq!(wave("update_note", &plain("")), Wave::Change);
        assert_eq!(wave("delete_note", &plain("")), Wave::Remove);
        assert_eq!(wave("kill_process", &plain("")), Wave::Remove);
        assert_eq!(wave("close_document", &plain("")), Wave::Teardown);
        assert_eq!(wave("stop_recording", &plain("")), Wave::Remove);
        assert_eq!(wave("git_clear_working_dir", &plain("")), Wave::Teardown);
        assert_eq!(wave("close_presentation", &plain("")), Wave::Teardown);
        assert_eq!(wave("git_reset", &plain("")), Wave::Remove);
        let search =
            json!({"annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object", "required": ["path"]}});
        assert_eq!(wave("start_search", &search), Wave::Begin, "a reader that starts something");
        assert!(makes("start_search", &search));
        let mut waves = [
            Wave::Teardown,
            Wave::Remove,
            Wave::Use,
            Wave::Setup,
            Wave::Make,
            Wave::Read,
            Wave::Change,
            Wave::Begin,
            Wave::Survey,
        ];
        waves.sort();
        assert_eq!(
            waves,
            [
                Wave::Setup,
                Wave::Survey,
                Wave::Begin,
                Wave::Read,
                Wave::Make,
                Wave::Change,
                Wave::Use,
                Wave::Remove,
                Wave::Teardown
            ]
        );
    }

    #[test]
    fn what_setup_tools_and_makers_return_is_offered_to_later_tools() {
        assert!(feeds("create_note", &plain("")));
        assert!(makes("create_note", &plain("")));
        assert!(feeds("set_working_dir", &plain("")));
        assert!(!feeds("update_note", &plain("")));
        assert!(feeds("list_tables", &json!({"inputSchema": {}})));
        assert!(!makes("list_tables", &json!({"inputSchema": {}})));
    }
}
