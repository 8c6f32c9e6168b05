//! Values the server's read-only tools returned: the table names of `list_tables`, the branches
//! of a branch listing, the names in a structured result. Each value keeps the key it was found
//! under and the tool that listed it; a property takes the values whose words it shares.

use serde_json::Value;

use super::hints::words;

/// Most values kept per server.
pub const MAX_LISTED: usize = 256;
/// Longest value kept.
const MAX_VALUE_LEN: usize = 200;
/// Most words in a value: more is a sentence, not a name.
const MAX_WORDS: usize = 4;
/// Most JSON nodes read from one result.
const MAX_NODES: usize = 10_000;
/// Most lines read from one text block.
const MAX_LINES: usize = 64;
/// Most values offered to one property.
const MAX_FOR_PROPERTY: usize = 8;
/// Words too common to tie a value to a property on their own.
const GENERIC: &[&str] = &[
    "name",
    "id",
    "identifier",
    "key",
    "value",
    "the",
    "a",
    "an",
    "of",
    "to",
    "for",
    "in",
    "list",
    "get",
    "item",
    "string",
    "text",
    "type",
    "data",
    "result",
];

/// Words that name one kind of thing: a property named by one takes what a listing named by
/// another listed, after what a listing of its own words listed (the `upstream` or `onto` of a
/// rebase is a branch of a branch listing; a `revision` is one of its commits).
const KIN: &[&[&str]] = &[&["branch", "upstream", "onto", "revision", "rev", "commit", "sha"]];

/// The first word of `w`'s kin ([`KIN`]), or `w` itself.
fn kin_of(w: &str) -> &str {
    KIN.iter().find(|g| g.contains(&w)).map_or(w, |g| g[0])
}

/// Keys whose values are bodies (a file's text, a message), not names: never taken. A listing's
/// names are what a later call needs; a body could carry anything the project holds.
const BODY_KEYS: &[&str] = &[
    "content",
    "contents",
    "text",
    "body",
    "data",
    "blob",
    "message",
    "description",
    "diff",
    "output",
    "stdout",
    "stderr",
];
/// The last word of a phrase that names a handle (`Created note with ID: …`).
const HANDLE_WORDS: &[&str] = &["id", "uuid", "pid", "handle", "identifier", "key", "name", "path", "file", "session"];
/// Words after which a token is an id (`with PID 5599`): the token must hold a digit.
const ID_WORDS: &[&str] = &["id", "pid", "uuid", "handle", "identifier"];
/// Most values offered to a property that shares no word with any.
const MAX_UNMATCHED: usize = 3;

/// One value a tool returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub tool: String,
    /// The object key it was found under (`None` for a line of text).
    pub key: Option<String>,
    pub value: String,
    /// The value is a path relative to the project folder (the server listed it absolute).
    pub relative: bool,
    /// A setup tool or a maker returned it: it exists in the session that made it.
    pub made: bool,
}

impl Listed {
    /// The source a candidate taken from it has.
    pub fn source(&self) -> super::Source {
        if self.made {
            super::Source::Result
        } else {
            super::Source::Listing
        }
    }
}

/// The values in one successful result: string leaves of `structuredContent` and of text blocks
/// that are JSON (or a Python literal, as some servers print lists), the lines of other text
/// (bullets, numbers and `[TAG]` prefixes dropped; a Markdown table's cells under their column's
/// header), the URIs and names of resource links.
pub fn extract(tool: &str, result: &Value) -> Vec<Listed> {
    let mut out = Vec::new();
    let mut nodes = 0usize;
    if let Some(sc) = result.get("structuredContent").filter(|v| !v.is_null()) {
        walk(tool, sc, None, &mut out, &mut nodes);
    }
    for block in result.get("content").and_then(Value::as_array).into_iter().flatten() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                match parse_structured(text) {
                    Some(v) => walk(tool, &v, None, &mut out, &mut nodes),
                    None => lines(tool, text, &mut out),
                }
            }
            Some("resource_link") => {
                for key in ["uri", "name"] {
                    if let Some(s) = block.get(key).and_then(Value::as_str) {
                        keep(tool, Some(key), s, &mut out);
                    }
                }
            }
            _ => {}
        }
        if out.len() >= MAX_LISTED {
            break;
        }
    }
    out.truncate(MAX_LISTED);
    out
}

/// A text that is a JSON object or array, or a Python literal of one.
fn parse_structured(text: &str) -> Option<Value> {
    let t = text.trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    if let Ok(v) = serde_json::from_str::<Value>(t) {
        return Some(v);
    }
    if t.contains('"') {
        return None;
    }
    let py = t.replace('\'', "\"").replace("None", "null").replace("True", "true").replace("False", "false");
    serde_json::from_str(&py).ok()
}

fn walk(tool: &str, v: &Value, key: Option<&str>, out: &mut Vec<Listed>, nodes: &mut usize) {
    *nodes += 1;
    if *nodes > MAX_NODES || out.len() >= MAX_LISTED {
        return;
    }
    match v {
        Value::String(s) => keep(tool, key, s, out),
        Value::Array(a) => {
            for x in a {
                walk(tool, x, key, out, nodes);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                if !BODY_KEYS.contains(&k.to_ascii_lowercase().as_str()) {
                    walk(tool, x, Some(k), out, nodes);
                }
            }
        }
        _ => {}
    }
}

fn lines(tool: &str, text: &str, out: &mut Vec<Listed>) {
    // The header of the Markdown table the lines are in (`| ID | Title |`).
    let mut header: Option<Vec<&str>> = None;
    for line in text.lines().take(MAX_LINES) {
        // A row of a Markdown table: each cell under its column's header (`| 3 | Buy milk |`
        // gives `ID: 3` and `Title: Buy milk`); the separator row (`|---|:--:|`) gives nothing.
        if let Some(cells) = table_row(line) {
            let rule = cells.iter().all(|c| !c.is_empty() && c.chars().all(|x| "-: ".contains(x)));
            match &header {
                None => header = Some(cells),
                Some(_) if rule => {}
                Some(h) => {
                    for (k, v) in h.iter().zip(cells) {
                        if !k.is_empty() && !BODY_KEYS.contains(&k.to_ascii_lowercase().as_str()) {
                            keep(tool, Some(k), v, out);
                        }
                    }
                }
            }
            continue;
        }
        header = None;
        let mut l = line.trim();
        // `[FILE] a.txt`, `- a`, `* main`, `1. a`, `2) a`
        loop {
            let before = l;
            if l.starts_with('[') {
                if let Some(end) = l.find(']') {
                    l = l[end + 1..].trim_start();
                }
            }
            l = l.trim_start_matches(['-', '*', '•', '+', '>']).trim_start();
            let digits = l.chars().take_while(char::is_ascii_digit).count();
            if digits > 0 && l[digits..].starts_with(['.', ')']) {
                l = l[digits + 1..].trim_start();
            }
            if l == before {
                break;
            }
        }
        // `Process started with PID 5599 (shell: …)`, `with ID n-7f3a`: the token after a word
        // that names a handle.
        let tokens: Vec<&str> = l.split_whitespace().collect();
        // (Also in brackets: `Added footnote (ID: 2) to …`.)
        for w in tokens.windows(2) {
            let word = w[0].trim_start_matches(['(', '[', '{']).trim_end_matches(':');
            let value = w[1].trim_end_matches(['.', ',', ';', ')', ']', '}']);
            if ID_WORDS.contains(&word.to_ascii_lowercase().as_str())
                && !value.is_empty()
                && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
                && value.chars().any(|c| c.is_ascii_digit())
            {
                keep(tool, Some(word), value, out);
            }
        }
        match l.split_once(": ") {
            Some((k, v)) if !k.contains(' ') && !v.trim().is_empty() => {
                if !BODY_KEYS.contains(&k.to_ascii_lowercase().as_str()) {
                    keep(tool, Some(k), v.trim(), out)
                }
            }
            // `Created note with ID: n-7f3a`, `Started process with PID: 4242`: the value named by
            // the phrase's last word when that word names a handle.
            Some((k, v)) if !v.trim().is_empty() => match k.rsplit(' ').next() {
                Some(last) if HANDLE_WORDS.contains(&last.to_ascii_lowercase().as_str()) => {
                    let first = v.split_whitespace().next().unwrap_or("").trim_end_matches(['.', ',', ';']);
                    keep(tool, Some(last), first, out)
                }
                _ => keep(tool, None, l, out),
            },
            _ => keep(tool, None, l, out),
        }
    }
}

/// The cells of a Markdown table row (`| a | b |`), trimmed; `None` for any other line.
fn table_row(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
    (cells.len() >= 2).then_some(cells)
}

fn keep(tool: &str, key: Option<&str>, value: &str, out: &mut Vec<Listed>) {
    let v = value.trim_matches(|c: char| c == '\'' || c == '"' || c.is_whitespace());
    // A line that ends in a colon is a heading (`Available vaults:`), not a name.
    // Nor is a short sentence (`No matches found.`).
    if v.is_empty()
        || (key.is_none() && v.ends_with(':'))
        || (key.is_none() && v.ends_with('.') && v.contains(' '))
        || v.chars().count() > MAX_VALUE_LEN
        || v.chars().any(char::is_control)
        || v.split_whitespace().count() > MAX_WORDS
        || out.len() >= MAX_LISTED
    {
        return;
    }
    if !out.iter().any(|o| o.value == v && o.key.as_deref() == key) {
        out.push(Listed {
            tool: tool.to_string(),
            key: key.map(str::to_string),
            value: v.to_string(),
            relative: false,
            made: false,
        });
    }
}

/// The listed values for property `prop`, best first: those of a tool or key that shares a
/// significant word with the property (`table_name` and `list_tables`; `branch_name` and a
/// branch listing), then, among them, those under a key the property's words include; then
/// those that share only a word of its kind ([`KIN`]: `upstream` and a branch listing).
pub fn for_property<'a>(prop: &str, listed: impl IntoIterator<Item = &'a Listed>) -> Vec<&'a Listed> {
    let pw = words(prop);
    let significant: Vec<&String> = pw.iter().filter(|w| !GENERIC.contains(&w.as_str())).collect();
    let mut scored: Vec<(usize, usize, &Listed)> = Vec::new();
    for (i, l) in listed.into_iter().enumerate() {
        let tw = words(&l.tool);
        let kw = l.key.as_deref().map(words).unwrap_or_default();
        let shared = significant.iter().filter(|w| tw.contains(w) || kw.contains(w)).count();
        let kin =
            significant.iter().filter(|w| tw.iter().chain(&kw).any(|x| x != **w && kin_of(x) == kin_of(w))).count();
        if shared + kin == 0 {
            continue;
        }
        let key_fits = !kw.is_empty() && kw.iter().all(|w| pw.contains(w));
        scored.push((4 * shared + 2 * usize::from(shared > 0 && key_fits) + usize::from(kin > 0), i, l));
    }
    // Equal words: what a tool of this session made (`PID 5599` from `start_process`) before
    // what a listing named (every process of the machine).
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.2.made.cmp(&a.2.made)).then(a.1.cmp(&b.1)));
    let mut out: Vec<&Listed> = Vec::new();
    for (_, _, l) in scored {
        if !out.iter().any(|o| o.value == l.value) {
            out.push(l);
        }
        if out.len() >= MAX_FOR_PROPERTY {
            break;
        }
    }
    out
}

/// The first values listed, whatever their words, for a property nothing else is known about.
pub fn unmatched<'a>(listed: impl IntoIterator<Item = &'a Listed>) -> Vec<&'a Listed> {
    let mut out: Vec<&Listed> = Vec::new();
    // A time or a state says nothing of what a tool takes: never offered tied to nothing.
    for l in listed.into_iter().filter(|l| !time_or_state(l)) {
        if !out.iter().any(|o| o.value == l.value) {
            out.push(l);
        }
        if out.len() >= MAX_UNMATCHED {
            break;
        }
    }
    out
}

/// Status words a listing gives a thing's state in: no name or id of anything.
const STATE_WORDS: &[&str] = &[
    "open",
    "closed",
    "active",
    "inactive",
    "pending",
    "done",
    "completed",
    "complete",
    "todo",
    "in_progress",
    "in progress",
    "running",
    "stopped",
    "success",
    "succeeded",
    "failed",
    "failure",
    "error",
    "ok",
    "enabled",
    "disabled",
    "draft",
    "archived",
    "published",
    "true",
    "false",
    "null",
    "none",
    "merged",
    "queued",
    "cancelled",
    "canceled",
    "started",
    "finished",
    "paused",
    "ready",
    "unknown",
    "yes",
    "no",
];
/// Words of a key whose value is a time, a state or a count.
const TIME_STATE_KEYS: &[&str] = &[
    "created",
    "updated",
    "modified",
    "deleted",
    "time",
    "timestamp",
    "date",
    "at",
    "since",
    "until",
    "status",
    "state",
    "count",
    "total",
    "size",
    "length",
    "num",
    "number",
    "duration",
    "age",
    "expires",
    "expiry",
];

/// Whether a listed value is a time, a date, a status word or a count (RULES.md: never offered
/// as a name or an id): by its key (`createdAt`, `status`, `count`) or by its form
/// (`2026-12-07T17:31:18Z`, `2026-12-07`, `17:31`, `open`, a Unix time).
pub fn time_or_state(l: &Listed) -> bool {
    let kw = l.key.as_deref().map(words).unwrap_or_default();
    if kw.last().is_some_and(|w| TIME_STATE_KEYS.contains(&w.as_str())) {
        return true;
    }
    looks_like_time_or_state(&l.value)
}

/// [`time_or_state`] by the form of the value alone.
pub fn looks_like_time_or_state(v: &str) -> bool {
    let t = v.trim();
    if STATE_WORDS.contains(&t.to_ascii_lowercase().as_str()) {
        return true;
    }
    let b = t.as_bytes();
    // `YYYY-MM-DD…`, `YYYY/MM/DD`
    let date = b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && (b[4] == b'-' || b[4] == b'/')
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b[4]
        && b[8..10].iter().all(u8::is_ascii_digit)
        && (b.len() == 10 || matches!(b[10], b'T' | b' ' | b't'));
    // `HH:MM` or `HH:MM:SS`
    let clock = (b.len() == 5 || b.len() == 8)
        && b.iter().enumerate().all(|(i, c)| if i % 3 == 2 { *c == b':' } else { c.is_ascii_digit() });
    // A Unix time in seconds or milliseconds (2001 onwards).
    let unix = (10..=13).contains(&b.len())
        && b.iter().all(u8::is_ascii_digit)
        && t.parse::<u64>().is_ok_and(|n| (1_000_000_000..=9_999_999_999).contains(&n) || n >= 1_000_000_000_000);
    date || clock || unix
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_dates_states_and_counts_are_seen() {
        for v in [
            "2026-12-07T17:31:18Z",
            "2026-12-07",
            "2026/12/07 10:00",
            "17:31",
            "17:31:18",
            "open",
            "Done",
            "1765128678",
            "1765128678123",
        ] {
            assert!(looks_like_time_or_state(v), "{v}");
        }
        for v in ["items", "task-1", "42", "2026-report", "users", "a1b2c3"] {
            assert!(!looks_like_time_or_state(v), "{v}");
        }
        let l = |k: &str| Listed {
            tool: "list".into(),
            key: Some(k.into()),
            value: "x".into(),
            relative: false,
            made: false,
        };
        assert!(time_or_state(&l("createdAt")) && time_or_state(&l("status")) && time_or_state(&l("item_count")));
        assert!(!time_or_state(&l("name")) && !time_or_state(&l("id")));
    }

    fn text(t: &str) -> Value {
        json!({"content": [{"type": "text", "text": t}]})
    }

    #[test]
    fn values_from_structured_content_and_json_text() {
        let r = json!({"structuredContent": {"tables": [{"name": "items"}, {"name": "users"}], "count": 2}});
        let l = extract("list_tables", &r);
        assert_eq!(l.iter().map(|x| x.value.as_str()).collect::<Vec<_>>(), ["items", "users"]);
        assert_eq!(l[0].key.as_deref(), Some("name"));
        let l = extract("list_tables", &text("[{\"name\": \"items\"}]"));
        assert_eq!(l[0].value, "items");
    }

    #[test]
    fn cells_of_a_markdown_table_under_their_headers() {
        let t = "Tasks:\n\n| ID | Title | Description |\n|----|:------|---|\n| t-3 | Buy milk | a long body of text |\n| t-4 | Call Bo | x |\n2 tasks listed.";
        let l = extract("list_tasks", &text(t));
        let got: Vec<(Option<&str>, &str)> = l.iter().map(|x| (x.key.as_deref(), x.value.as_str())).collect();
        assert_eq!(
            got,
            [(Some("ID"), "t-3"), (Some("Title"), "Buy milk"), (Some("ID"), "t-4"), (Some("Title"), "Call Bo")]
        );
        let task = for_property("task_id", &l);
        assert_eq!(task.first().map(|x| x.value.as_str()), Some("t-3"), "{task:?}");
    }

    #[test]
    fn values_from_a_python_literal_and_from_lines() {
        let l = extract("list_tables", &text("[{'name': 'items'}, {'name': 'users'}]"));
        assert_eq!(l.iter().map(|x| x.value.as_str()).collect::<Vec<_>>(), ["items", "users"]);
        let l = extract("git_branch", &text("* main\n  feature/x\n"));
        assert_eq!(l.iter().map(|x| x.value.as_str()).collect::<Vec<_>>(), ["main", "feature/x"]);
        let l = extract("list_directory", &text("[FILE] notes.txt\n[DIR] docs\n1. first\nStatus: clean"));
        let vals: Vec<_> = l.iter().map(|x| (x.key.as_deref(), x.value.as_str())).collect();
        assert_eq!(vals, [(None, "notes.txt"), (None, "docs"), (None, "first"), (Some("Status"), "clean")]);
    }

    #[test]
    fn bodies_are_never_values() {
        let r = json!({"structuredContent": {"content": "API_KEY=abc", "name": "a.env"}});
        assert_eq!(extract("read_text_file", &r).iter().map(|l| l.value.as_str()).collect::<Vec<_>>(), ["a.env"]);
        let l = extract("git_log", &text("Commit: 'abc123'\nMessage: 'secret plans'"));
        assert_eq!(l.iter().map(|l| l.value.as_str()).collect::<Vec<_>>(), ["abc123"]);
        assert_eq!(unmatched(&l)[0].value, "abc123");
    }

    #[test]
    fn a_phrase_ending_in_a_handle_word_gives_its_value() {
        let l = extract("create_note", &text("Created note with ID: note-1a2b.\nIt is empty."));
        let vals: Vec<_> = l.iter().map(|x| (x.key.as_deref(), x.value.as_str())).collect();
        assert_eq!(vals, [(Some("ID"), "note-1a2b")], "a sentence is no name");
        let l = extract("start_process", &text("Started process with PID: 4242 (running)"));
        assert_eq!(l[0].value, "4242");
        let l = extract("start_process", &text("Process started with PID 5599 (shell: /bin/bash) Initial output: x"));
        assert_eq!((l[0].key.as_deref(), l[0].value.as_str()), (Some("PID"), "5599"));
        assert!(extract("x", &text("The reason it failed: nothing at all here")).is_empty());
        let l = extract("list_vaults", &text("Available vaults:\n- project"));
        assert_eq!(l.iter().map(|x| x.value.as_str()).collect::<Vec<_>>(), ["project"]);
        assert!(extract("search", &text("No matches found.")).is_empty());
    }

    #[test]
    fn resource_links_give_their_uri_and_name() {
        let r = json!({"content": [{"type": "resource_link", "uri": "file:///a.md", "name": "a.md"}]});
        let l = extract("list_docs", &r);
        assert_eq!(l.len(), 2);
    }

    #[test]
    fn bounded_and_clean() {
        let many: Vec<String> = (0..1000).map(|i| format!("v{i}")).collect();
        let l = extract("list", &json!({"structuredContent": {"names": many}}));
        assert_eq!(l.len(), MAX_LISTED);
        let long = "x".repeat(500);
        let prose = "Here are 3 resource links to resources";
        assert!(extract("list", &json!({"structuredContent": {"a": long, "b": "a\u{7}b", "c": prose}})).is_empty());
        assert!(extract("list", &text(prose)).is_empty(), "a sentence is not a name");
    }

    #[test]
    fn a_property_takes_the_values_it_shares_words_with() {
        let mut listed = extract("list_tables", &text("[{'name': 'items'}]"));
        listed.extend(extract("git_branch", &text("* main")));
        listed.extend(extract("list_directory", &text("[FILE] notes.txt")));
        let values = |prop: &str| for_property(prop, &listed).iter().map(|l| l.value.clone()).collect::<Vec<_>>();
        assert_eq!(values("table_name"), ["items"]);
        assert_eq!(values("branch_name"), ["main"]);
        assert!(for_property("query", &listed).is_empty());
        assert!(for_property("name", &listed).is_empty(), "a generic word alone ties nothing");
    }

    /// A property named by a word of a listing's kind takes its values, after those of a listing
    /// of its own words: a rebase's `upstream` and `onto` take the branches; a `revision`, the
    /// commits first, then the branches.
    #[test]
    fn a_property_takes_the_values_of_a_listing_of_its_kind_after_its_own() {
        let mut listed = extract("git_branch", &text("* main\n  feature"));
        listed.extend(extract("git_log", &json!({"structuredContent": {"commits": [{"commit": "c3a422d"}]}})));
        listed.extend(extract("list_tags", &text("v1.0")));
        let values = |prop: &str| for_property(prop, &listed).iter().map(|l| l.value.clone()).collect::<Vec<_>>();
        assert_eq!(values("upstream"), ["main", "feature", "c3a422d"]);
        assert_eq!(values("onto"), ["main", "feature", "c3a422d"]);
        assert_eq!(values("revision"), ["main", "feature", "c3a422d"]);
        assert_eq!(values("commit"), ["c3a422d", "main", "feature"]);
        assert_eq!(values("branch"), ["main", "feature", "c3a422d"]);
        assert!(values("tag_name").iter().all(|v| v == "v1.0"), "{:?}", values("tag_name"));
        assert!(values("query").is_empty());
    }

    /// A handle in brackets is a handle: `Successfully added footnote (ID: 2) to …/report.docx`.
    #[test]
    fn a_handle_in_brackets_is_taken() {
        let l = extract("add_footnote_after_text", &text("Successfully added footnote (ID: 2) to /p/report.docx"));
        assert!(l.iter().any(|x| x.value == "2" && x.key.as_deref() == Some("ID")), "{l:?}");
        let l = extract("start", &text("Started [pid 4242]"));
        assert!(l.iter().any(|x| x.value == "4242"), "{l:?}");
    }

    /// Among values that share as many words with the property, one a tool of this session made
    /// comes first: a long listing must not push it past what one property is offered.
    #[test]
    fn a_made_value_comes_before_listed_ones_of_equal_words() {
        let lines: Vec<String> = (1..=20).map(|i| format!("ID: n{i}")).collect();
        let mut listed = extract("list_notes", &text(&lines.join("\n")));
        let mut made = extract("create_note", &text("Created note with ID: fresh1"));
        made.iter_mut().for_each(|l| l.made = true);
        listed.extend(made);
        let values: Vec<&str> = for_property("note_id", &listed).iter().map(|l| l.value.as_str()).collect();
        assert_eq!(values.first(), Some(&"fresh1"), "{values:?}");
        assert_eq!(values.len(), MAX_FOR_PROPERTY);
    }
}
