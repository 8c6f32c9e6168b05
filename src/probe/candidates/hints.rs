//! What the words of a tool and its properties say: whether a property names a path (a file, a
//! folder, or a new one), and how risky a tool is to call before the others (the order in which
//! a server's tools are probed). Judgement from words only, written once; no server is named.

use serde_json::Value;

/// The words of a name or a text, lower case: `readTextFile`, `read_text_file` and
/// `read-text file` all give `read text file`. Plurals are reduced (`files` → `file`,
/// `directories` → `directory`), so a tool named for many things matches a property named for
/// one.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_numeric();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|w| singular(&w)).collect()
}

fn singular(w: &str) -> String {
    if w.len() > 4 && w.ends_with("ies") {
        format!("{}y", &w[..w.len() - 3])
    } else if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w[..w.len() - 1].to_string()
    } else {
        w.to_string()
    }
}

/// Words that say a value is a path to an existing file.
const FILE_WORDS: &[&str] = &["file", "filename", "filepath", "document", "image", "media", "attachment"];
/// Words that say a value is a folder.
const DIR_WORDS: &[&str] = &["dir", "directory", "folder", "repo", "repository", "root", "workspace", "cwd", "workdir"];
/// Words that say a property names a path whatever it points at.
const PATH_WORDS: &[&str] = &["path", "pathname"];
/// Property words that may name a path, but only when something else says files are involved
/// (`source_timezone` is not a path; `source` of `move_file` is).
/// (`url`: "Git repository URL: HTTP(S), SSH, file://, or an absolute filesystem path".)
const MAYBE_PATH_WORDS: &[&str] =
    &["source", "src", "destination", "dest", "dst", "target", "from", "to", "output", "url", "uri"];
/// Property words that name something to be made (a path that should not exist yet).
const NEW_PROPERTY_WORDS: &[&str] = &["destination", "dest", "dst", "target", "new", "output", "to"];
/// Tool verbs that make something (their path argument should be new).
const MAKING_VERBS: &[&str] = &["create", "write", "new", "make", "mkdir", "save", "init", "touch", "export"];
/// Words that name a type of file (`export_csv`, `save_pdf`): the object of a making verb, and
/// the extension of the new path it makes.
pub const FILE_TYPE_WORDS: &[&str] = &[
    "csv", "tsv", "pdf", "json", "xlsx", "docx", "pptx", "png", "jpg", "jpeg", "svg", "md", "txt", "html", "xml",
    "yaml", "yml", "toml", "zip",
];

/// What kind of path a property names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Either,
}

/// A property that names a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathHint {
    pub kind: Kind,
    /// The path should not exist yet (a destination, the path of `create_directory`).
    pub fresh: bool,
    /// The words of the tool and the property, to prefer files of the kind they name.
    pub words: Vec<String>,
}

fn kind_of(ws: &[String]) -> Option<Kind> {
    let file = ws.iter().any(|w| FILE_WORDS.contains(&w.as_str()));
    let dir = ws.iter().any(|w| DIR_WORDS.contains(&w.as_str()));
    match (file, dir) {
        (true, false) => Some(Kind::File),
        (false, true) => Some(Kind::Dir),
        (true, true) => Some(Kind::Either),
        (false, false) => None,
    }
}

/// The kind of path the examples of a description (`e.g., 'folder/note.md'`) are, when they
/// are paths and agree: a name with an extension is a file, one that ends in `/` a folder.
fn example_kind(desc: &str) -> Option<Kind> {
    let mut kinds = super::described::examples(desc).into_iter().filter_map(|e| {
        let e = e.trim();
        if e.is_empty() || e.contains(char::is_whitespace) || e.contains("://") {
            return None;
        }
        if e.ends_with('/') && e.len() > 1 {
            return Some(Kind::Dir);
        }
        let last = e.rsplit('/').next().unwrap_or(e);
        let (stem, ext) = last.rsplit_once('.')?;
        let ext_ok = (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic());
        (!stem.is_empty() && ext_ok).then_some(Kind::File)
    });
    let first = kinds.next()?;
    kinds.all(|k| k == first).then_some(first)
}

/// Whether the property `prop` (with its description) of tool `tool` (with its description)
/// names a path, and of which kind. The property's own name decides first, then its
/// description, then the tool's name, then the tool's description.
pub fn path_hint(prop: &str, prop_desc: &str, tool: &str, tool_desc: &str) -> Option<PathHint> {
    let pw = words(prop);
    let dw = words(prop_desc);
    let tw = words(tool);
    let tdw = words(tool_desc);
    let named = |ws: &[String], list: &[&str]| ws.iter().any(|w| list.contains(&w.as_str()));
    let strong = named(&pw, FILE_WORDS) || named(&pw, DIR_WORDS) || named(&pw, PATH_WORDS);
    let maybe = named(&pw, MAYBE_PATH_WORDS)
        && (named(&dw, FILE_WORDS)
            || named(&dw, DIR_WORDS)
            || named(&dw, PATH_WORDS)
            || named(&tw, FILE_WORDS)
            || named(&tw, DIR_WORDS));
    if !strong && !maybe {
        return None;
    }
    // The first source that names one kind decides; one that names both decides only when no
    // later source names one (`file paths within allowed directories` says both). After the
    // property's name, the paths its description gives as examples: `e.g., 'folder/note.md'` is
    // a file, whatever "folder" or "relative to vault root" say around it.
    let kinds: Vec<Kind> = [kind_of(&pw), example_kind(prop_desc), kind_of(&dw), kind_of(&tw), kind_of(&tdw)]
        .into_iter()
        .flatten()
        .collect();
    let kind = kinds.iter().copied().find(|k| *k != Kind::Either).or(kinds.first().copied()).unwrap_or(Kind::Either);
    // A tool that makes a path: a making verb whose object is a file or folder (`write_file`,
    // `create_directory`; not `create_branch`, whose path argument is where it works).
    let makes_path = tw.windows(2).any(|w| {
        MAKING_VERBS.contains(&w[0].as_str())
            && (FILE_WORDS.contains(&w[1].as_str())
                || FILE_TYPE_WORDS.contains(&w[1].as_str())
                || DIR_WORDS.contains(&w[1].as_str())
                || PATH_WORDS.contains(&w[1].as_str()))
    }) || tw.first().is_some_and(|v| v == "mkdir" || v == "touch");
    // New: its name says so, or the first word of its description ("Destination path where the
    // repository should be cloned"; never "Target …", which is as often a file to edit), or the
    // tool makes a path.
    let fresh = named(&pw, NEW_PROPERTY_WORDS)
        || dw.first().is_some_and(|w| matches!(w.as_str(), "destination" | "dest" | "dst" | "output" | "new"))
        || (makes_path && !named(&pw, &["source", "src", "from"]));
    let mut all = pw;
    all.extend(dw);
    all.extend(tw);
    all.extend(tdw);
    Some(PathHint { kind, fresh, words: all })
}

/// Verbs of tools that only read (probed before the others: their results feed later tools).
pub const READING_VERBS: &[&str] = &[
    "get", "list", "read", "show", "describe", "search", "find", "view", "count", "status", "diff", "log", "info",
    "inspect", "lookup", "query", "stat", "tree", "ls", "cat", "fetch", "load", "check", "validate", "explain",
];
/// Verbs of tools that destroy or move things (probed last, so the others see the project as
/// it was).
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "rm",
    "drop",
    "destroy",
    "purge",
    "erase",
    "clear",
    "reset",
    "truncate",
    "kill",
    "terminate",
    "uninstall",
    "revoke",
    "move",
    "mv",
    "rename",
    "overwrite",
    "wipe",
    "unlink",
    "rmdir",
    "restore",
    "revert",
    "protect",
    "encrypt",
];

/// Verbs of tools that make or change things (only to find a tool's verb: the first word of its
/// name that is a verb of any list).
const CHANGING_VERBS: &[&str] = &[
    "create", "write", "new", "make", "mkdir", "save", "init", "touch", "update", "set", "add", "edit", "append",
    "insert", "commit", "push", "send", "post", "run", "execute", "exec", "apply", "upload", "put", "patch",
    "checkout", "merge", "start", "trigger", "toggle", "enable", "disable", "open", "close", "install",
];

/// The verb of a tool's name: its first word that is a known verb.
pub fn verb(ws: &[String]) -> Option<&str> {
    ws.iter()
        .map(String::as_str)
        .find(|w| READING_VERBS.contains(w) || DESTRUCTIVE_VERBS.contains(w) || CHANGING_VERBS.contains(w))
}

/// Words that say a tool lists what exists (names), rather than returning contents.
const LISTING_WORDS: &[&str] = &["list", "ls", "search", "find", "tree", "enumerate", "browse", "index", "catalog"];

/// Whether a tool is a read-only listing tool, whose results are values for other tools'
/// arguments: it only reads ([`rank`] 0 or 1) and its name, or the first word of its
/// description, says it lists (`list_tables`, `search_files`, a `git_branch` described as "List
/// Git branches"). A tool that reads contents (`read_text_file`, `git_show`) is not one: its
/// results are bodies, never arguments.
pub fn lists(tool: &str, def: &Value) -> bool {
    if rank(tool, def) > 1 {
        return false;
    }
    let desc = def.get("description").and_then(Value::as_str).unwrap_or("");
    let first = words(desc).into_iter().next();
    words(tool).iter().any(|w| LISTING_WORDS.contains(&w.as_str()))
        || first.is_some_and(|w| LISTING_WORDS.contains(&w.as_str()))
}

/// When a tool is probed: 0 first (tools that only read and need no argument: their results
/// feed the arguments of later tools), 1 other tools that only read, 2 tools that make or change
/// things, 3 last (tools whose name says they destroy, move or reset). Read-only means the
/// effective hints say so, or, without hints, the verb of its name (`write_query` writes).
pub fn rank(tool: &str, def: &Value) -> u8 {
    let ws = words(tool);
    let v = verb(&ws);
    let hinted = def.pointer("/annotations/readOnlyHint").and_then(Value::as_bool);
    if v.is_some_and(|v| DESTRUCTIVE_VERBS.contains(&v)) && hinted != Some(true) {
        return 3;
    }
    let reads = match hinted {
        Some(h) => h && def.pointer("/annotations/destructiveHint") != Some(&Value::Bool(true)),
        None => v.is_some_and(|v| READING_VERBS.contains(&v)),
    };
    let needs_args = def.pointer("/inputSchema/required").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
    match (reads, needs_args) {
        (true, false) => 0,
        (true, true) => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn words_split_every_spelling_and_drop_plurals() {
        assert_eq!(words("readTextFile"), ["read", "text", "file"]);
        assert_eq!(words("read_text_file"), ["read", "text", "file"]);
        assert_eq!(words("list-directories"), ["list", "directory"]);
        assert_eq!(words("Files, e.g. 'a.txt'"), ["file", "e", "g", "a", "txt"]);
        assert_eq!(words("status"), ["status"]);
        assert_eq!(words("address class"), ["address", "class"]);
    }

    #[test]
    fn a_property_named_for_a_path_is_one_of_its_kind() {
        let h = path_hint("path", "", "read_text_file", "Read a file").unwrap();
        assert_eq!((h.kind, h.fresh), (Kind::File, false));
        let h = path_hint("path", "", "list_directory", "").unwrap();
        assert_eq!(h.kind, Kind::Dir);
        let h = path_hint("repo_path", "", "git_status", "").unwrap();
        assert_eq!(h.kind, Kind::Dir);
        let h = path_hint("files", "", "git_add", "").unwrap();
        assert_eq!(h.kind, Kind::File);
        let h = path_hint("path", "", "get_info", "Metadata of a thing").unwrap();
        assert_eq!(h.kind, Kind::Either);
        // A description that names both leaves it to the tool's name.
        let h = path_hint("paths", "file paths within allowed directories", "read_multiple_files", "").unwrap();
        assert_eq!(h.kind, Kind::File);
    }

    /// A path the description gives as an example says which kind the property takes, before
    /// the words around it: `folder/note.md` is a note, whatever "folder" and "vault root" say.
    #[test]
    fn a_path_example_says_the_kind_before_the_words_around_it() {
        let desc = "Source path of the note relative to vault root (e.g., 'folder/note.md')";
        assert_eq!(path_hint("source", desc, "move-note", "Move/rename a note").unwrap().kind, Kind::File);
        let desc = "Folder relative to vault root (e.g., 'projects/')";
        assert_eq!(path_hint("path", desc, "list-notes", "").unwrap().kind, Kind::Dir);
        // No example, or one that is no path: the words decide, as before.
        assert_eq!(path_hint("path", "Folder relative to the vault root", "x", "").unwrap().kind, Kind::Dir);
        assert_eq!(path_hint("path", "A folder, e.g. 'my notes'", "x", "").unwrap().kind, Kind::Dir);
        assert_eq!(example_kind("e.g. 'notes/' or 'a.md'"), None, "examples that disagree say nothing");
        assert_eq!(example_kind("e.g. 'v1.2'"), None, "a version is no file");
    }

    /// A URL its description says may be a filesystem path is a path (the project's repository
    /// can be cloned); a path described as a destination is a new one.
    #[test]
    fn a_url_that_may_be_a_path_is_one_and_a_destination_is_new() {
        let url = "Git repository URL: HTTP(S), SSH, git://, file://, or an absolute filesystem path.";
        let h = path_hint("url", url, "git_clone", "Clone a repository from a remote URL or local path.").unwrap();
        assert_eq!((h.kind, h.fresh), (Kind::Dir, false));
        assert!(path_hint("url", "The URL to fetch", "fetch", "Fetch a web page").is_none());
        let dest = "Destination path where the repository should be cloned.";
        assert!(path_hint("path", dest, "git_clone", "Clone a repository").unwrap().fresh);
        assert!(!path_hint("path", "Path to the repository", "git_clone", "").unwrap().fresh);
        assert!(!path_hint("path", "Target file to edit", "edit_file", "").unwrap().fresh);
    }

    #[test]
    fn source_and_destination_are_paths_only_among_files() {
        assert!(path_hint("source_timezone", "", "convert_time", "Convert time between timezones").is_none());
        assert!(path_hint("target", "", "git_diff", "").is_none());
        let src = path_hint("source", "", "move_file", "").unwrap();
        assert!(!src.fresh);
        let dst = path_hint("destination", "", "move_file", "").unwrap();
        assert!(dst.fresh);
        assert!(path_hint("query", "SQL to run", "read_query", "").is_none());
    }

    #[test]
    fn tools_that_make_things_want_a_new_path() {
        assert!(path_hint("path", "", "write_file", "").unwrap().fresh);
        assert!(path_hint("path", "", "create_directory", "").unwrap().fresh);
        assert!(!path_hint("path", "", "read_file", "").unwrap().fresh);
        assert!(!path_hint("path", "", "edit_file", "").unwrap().fresh);
        assert!(!path_hint("repo_path", "", "git_create_branch", "").unwrap().fresh, "it makes a branch, not a path");
    }

    #[test]
    fn ranks_put_readers_first_and_destroyers_last() {
        let ro = json!({"annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}});
        assert_eq!(rank("list_allowed", &ro), 0);
        let ro_args = json!({"annotations": {"readOnlyHint": true}, "inputSchema": {"required": ["a"]}});
        assert_eq!(rank("git_show", &ro_args), 1);
        let plain = json!({"inputSchema": {"type": "object"}});
        assert_eq!(rank("list_tables", &plain), 0, "no hints: the verb decides");
        assert_eq!(rank("write_query", &plain), 2);
        assert_eq!(rank("delete_entities", &plain), 3);
        assert_eq!(rank("get_removed_items", &plain), 0, "the first verb decides");
        assert_eq!(rank("append_insight", &plain), 2);
        let rw = json!({"annotations": {"readOnlyHint": false}, "inputSchema": {"type": "object"}});
        assert_eq!(rank("get_env", &rw), 2, "hints win over the verb");
        assert_eq!(rank("git_reset", &rw), 3);
    }

    #[test]
    fn listing_tools_list_and_only_read() {
        let ro = |desc: &str| json!({"annotations": {"readOnlyHint": true}, "description": desc, "inputSchema": {"required": ["x"]}});
        assert!(lists("list_tables", &json!({"inputSchema": {}})));
        assert!(lists("git_branch", &ro("List Git branches")));
        assert!(lists("search_files", &ro("Recursively search for files")));
        assert!(!lists("read_text_file", &ro("Read the complete contents of a file")));
        assert!(!lists("git_show", &ro("Shows the contents of a commit")));
        assert!(!lists("list_and_delete", &json!({"annotations": {"readOnlyHint": false}, "inputSchema": {}})));
    }
}
