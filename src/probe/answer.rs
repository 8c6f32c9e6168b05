//! How an answer reads (RULES.md, "An answer that says it failed has failed"). Many servers
//! report a failure as ordinary content with `isError` absent or false: "Document report.docx
//! does not exist", `{"error": "No presentation is currently loaded"}`, "Error: Only SELECT
//! queries are allowed", `"success": false`. Such an answer reached the tool's code and proves
//! nothing about its result contract, so the argument search goes on past it, and a call pinned
//! with one is counted apart from the calls that succeeded.
//!
//! Judged once, here, from the answer's head (the first text block's first line) and its
//! structure (`structuredContent`, or a first text block that is a JSON object); the wording
//! is taken from real servers' failures (the unit tests quote them). A declared `isError: true`
//! is not this module's business: it is an error whatever it says.

use serde_json::Value;

use super::shape;

/// How many characters of an answer a probe carries (`answered`).
pub const HEAD: usize = 200;

/// What a call answered, for a reader: the head of the result's first text block, or, with
/// none, its `structuredContent` as compact JSON. Unmasked: the caller masks it
/// ([`super::excerpt`]).
pub fn head(result: &Value) -> Option<String> {
    if let Some(t) = shape::texts(result).first() {
        return Some(t.chars().take(4 * HEAD).collect());
    }
    shape::structured(result).map(|v| {
        let s = v.to_string();
        s.chars().take(4 * HEAD).collect()
    })
}

/// Why an answer not flagged as an error reads as a failure: the words or the key that say so
/// (`"does not exist"`, `error`), or `None` when it reads as an answer.
pub fn failure(result: &Value) -> Option<String> {
    if let Some(why) = shape::structured(result).and_then(structure_says_failed) {
        return Some(why);
    }
    let text = shape::texts(result).first().map(|t| t.trim()).unwrap_or("");
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
        return structure_says_failed(&v);
    }
    words_say_failed(text)
}

/// Keys under which an answer wraps its payload: a failure inside one is the answer's
/// (`{"result": {"error": "…"}}`, `{"data": {"success": false}}`).
const WRAPPERS: &[&str] = &["result", "data", "response", "output", "payload", "body"];

/// Words a `status` says a call failed with (lowercased, `-` and spaces as `_`); a status that
/// describes a thing (`invalid`, `cancelled`, `rejected`) is an answer about it.
const FAILED_STATUS: &[&str] =
    &["error", "failed", "failure", "fail", "not_found", "notfound", "denied", "forbidden", "unauthorized"];

/// A JSON object that says it failed: an `error` that holds something, `success`/`ok` false,
/// a `status` of error, `isError: true` inside, or `errors` with no `data` beside them; or
/// one object it wraps (under [`WRAPPERS`], or its only key) that says so.
fn structure_says_failed(v: &Value) -> Option<String> {
    structure_says_failed_at(v, 0)
}

fn structure_says_failed_at(v: &Value, depth: usize) -> Option<String> {
    let m = v.as_object()?;
    // A count is a value: `"errors": 0` says there were none.
    let holds = |v: &Value| match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::Bool(true) => true,
    };
    for key in ["error", "Error", "errorMessage", "error_message"] {
        if m.get(key).is_some_and(holds) {
            return Some(format!("`{key}` is set"));
        }
    }
    for key in ["success", "ok", "succeeded"] {
        if m.get(key) == Some(&Value::Bool(false)) {
            return Some(format!("`{key}` is false"));
        }
    }
    if m.get("isError") == Some(&Value::Bool(true)) {
        return Some("`isError` is true inside the answer".into());
    }
    if let Some(s) = m.get("status").and_then(Value::as_str) {
        let word = s.trim().to_lowercase().replace(['-', ' '], "_");
        if FAILED_STATUS.contains(&word.as_str()) {
            return Some(format!("`status` is \"{s}\""));
        }
    }
    if m.get("errors").is_some_and(holds) && !m.get("data").is_some_and(holds) {
        return Some("`errors` is set".into());
    }
    if depth < 2 {
        let only = (m.len() == 1).then(|| m.values().next()).flatten();
        let wrapped = WRAPPERS.iter().filter_map(|k| m.get(*k)).chain(only);
        for inner in wrapped.filter(|w| w.is_object()) {
            if let Some(why) = structure_says_failed_at(inner, depth + 1) {
                return Some(why);
            }
        }
    }
    None
}

/// How a failure's first line starts (lowercased, after leading marks such as `❌` or `[`).
const STARTS: &[&str] = &[
    "error",
    "err:",
    "fatal",
    "failed",
    "failure",
    "fail:",
    "exception",
    "traceback",
    "cannot ",
    "can't ",
    "can not ",
    "could not",
    "couldn't",
    "unable to",
    "invalid ",
    "unknown ",
    "no such ",
    "not found",
    "permission denied",
    "access denied",
    "forbidden",
    "unauthorized",
    "missing ",
    "refused",
    "denied",
];

/// How a failure's first line starts in other languages (lowercased): the server's words are
/// read in whatever language they come (RULES.md).
const STARTS_ELSEWHERE: &[&str] = &[
    "erreur",     // fr
    "échec",      // fr
    "impossible", // fr
    "fehler",     // de
    "kann nicht", // de
    "konnte nicht",
    "no se pudo", // es
    "no se puede",
    "no existe",
    "erro",   // pt, it (errore)
    "falha",  // pt
    "falló",  // es
    "ошибка", // ru
    "не удалось",
    "невозможно",
    "hata",     // tr
    "błąd",     // pl
    "fout",     // nl
    "virhe",    // fi
    "lỗi",      // vi
    "ข้อผิดพลาด", // th
];

/// Words anywhere in a failure's first line, in other languages (scripts without spaces
/// between words are read anywhere).
const ANYWHERE_ELSEWHERE: &[&str] = &[
    "introuvable",
    "n'existe pas",
    "nicht gefunden",
    "existiert nicht",
    "fehlgeschlagen",
    "no encontrado",
    "no se encontró",
    "não encontrado",
    "não existe",
    "non trovato",
    "non esiste",
    "не найден",
    "не существует",
    "错误",
    "失败",
    "未找到",
    "找不到",
    "不存在",
    "无法",
    "錯誤",
    "失敗",
    "找不到",
    "エラー",
    "見つかりません",
    "存在しません",
    "できません",
    "오류",
    "실패",
    "찾을 수 없",
    "존재하지 않",
    "خطأ",
    "त्रुटि",
];

/// Words anywhere in a failure's first line.
const ANYWHERE: &[&str] = &[
    "does not exist",
    "doesn't exist",
    "do not exist",
    "not found",
    "no such file",
    "failed to ",
    "syntax error",
    "permission denied",
    "access denied",
    "not permitted",
    "is not allowed",
    "are not allowed",
    "queries are allowed",
    "is required",
    "are required",
    "must be provided",
    "must provide",
    "must specify",
    "must be specified",
    "please provide",
    "please specify",
    "must be one of",
    "is currently loaded",
    "is currently open",
    "not currently",
    "is not set",
    "has not been set",
    "not initialized",
    "not initialised",
    "outside the allowed",
    "outside allowed",
    "an error occurred",
    "error occurred",
    "exception occurred",
];

/// The first line of a text that says it failed. Only the first line counts: a document's
/// body that mentions an error somewhere further down is an answer.
fn words_say_failed(text: &str) -> Option<String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = lines.next()?;
    let line: String = line.chars().take(HEAD).collect::<String>().to_lowercase();
    let bare = line.trim_start_matches(|c: char| !c.is_alphanumeric());
    // A heading that lists failures ("Errors:", then the items): the answer is its errors.
    if matches!(bare, "errors:" | "error:" | "failures:" | "failed:" | "error(s):") && lines.next().is_some() {
        return Some(format!("it lists {}", bare.trim_end_matches(':')));
    }
    // Whole words: "erro" starts "erro: …", not "error rate".
    let word_at_start =
        |w: &str| bare.strip_prefix(w).is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()));
    if let Some(w) = STARTS_ELSEWHERE.iter().find(|w| word_at_start(w)) {
        return Some(format!("it starts \"{w}\""));
    }
    if let Some(w) = ANYWHERE_ELSEWHERE.iter().find(|w| line.contains(**w)) {
        return Some(format!("it says \"{w}\""));
    }
    // "No presentation is currently loaded" says it failed; "No results found" is an answer.
    if let Some(w) = STARTS.iter().find(|w| bare.starts_with(**w)) {
        if !w.starts_with("error") || error_heads_a_failure(&bare[w.len()..]) {
            return Some(format!("it starts \"{}\"", w.trim_end()));
        }
    }
    if let Some(w) = ANYWHERE.iter().find(|w| line.contains(**w)) {
        return Some(format!("it says \"{w}\""));
    }
    if let Some(kind) = failure_heading(bare) {
        return Some(format!("it starts \"{kind}:\""));
    }
    asks_for_a_step_first(&line).map(|s| format!("it asks for a step first (\"{s}\")"))
}

/// A first line headed by a kind of failure and a colon ("Database error: attempt to write a
/// readonly database", "Validation Exception: …", "Query failed: …"): the heading (at most four
/// words) ends in a failure word. "Error rate: 0.1%" and "Errors: 0" are headed by something else.
fn failure_heading(line: &str) -> Option<&str> {
    let (head, rest) = line.split_once(':')?;
    let words: Vec<&str> = head.split_whitespace().collect();
    let last = words.last()?.trim_matches(|c: char| !c.is_alphanumeric());
    // An exception's name is one word: `OSError`, `ValueError`, `RuntimeException`.
    let named = words.len() == 1 && last.len() > 5 && (last.ends_with("error") || last.ends_with("exception"));
    let failed = named || matches!(last, "error" | "exception" | "failure" | "failed" | "errno" | "fault");
    // "Last error: none" says there was none.
    let rest = rest.trim().trim_end_matches('.');
    let nothing = rest.is_empty() || matches!(rest, "none" | "null" | "nil" | "0" | "n/a" | "-" | "no" | "false");
    (failed && words.len() <= 4 && !nothing).then_some(head.trim())
}

/// Verbs of a step an answer asks the caller to take before the call can work ("Call
/// build_index first", "Please load a dataset first", "You must open a document first").
const STEP_VERBS: &[&str] = &[
    "call",
    "run",
    "use",
    "invoke",
    "execute",
    "load",
    "open",
    "create",
    "index",
    "build",
    "initialize",
    "initialise",
    "init",
    "set",
    "select",
    "connect",
    "start",
    "add",
    "import",
    "upload",
    "register",
    "configure",
    "activate",
    "launch",
    "scan",
    "sync",
    "fetch",
    "clone",
    "login",
    "authenticate",
];

/// A sentence of the (lowercased) first line that asks for a step first: it ends in "first"
/// and starts with a step verb, or with "please", "you must", "you need to", "you have to",
/// "make sure to" and then one. The step it names is returned.
fn asks_for_a_step_first(line: &str) -> Option<String> {
    const LEADS: &[&[&str]] = &[
        &["please"],
        &["you", "must"],
        &["you", "need", "to"],
        &["you", "have", "to"],
        &["make", "sure", "to"],
        &["first"],
    ];
    for sentence in line.split(['.', '!', ';', '?', ':', '\n']) {
        let words: Vec<&str> = sentence
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != '-'))
            .filter(|w| !w.is_empty())
            .collect();
        let Some((last, rest)) = words.split_last() else { continue };
        let lead = LEADS.iter().find(|l| rest.starts_with(l)).map_or(0, |l| l.len());
        let verb = rest.get(lead).copied().unwrap_or("");
        let ends_first = *last == "first" || lead > 0 && words[0] == "first";
        if ends_first && rest.len() > lead && STEP_VERBS.contains(&verb) {
            return Some(sentence.trim().to_string());
        }
    }
    None
}

/// What follows a leading `error` in a failure: `:`, `!`, nothing, or a word that says what
/// was being done (`Error reading file: ...`, `Error in query`, `Error 404`); "Error rate: 0.1%"
/// and "errors: 0" are answers about errors.
fn error_heads_a_failure(rest: &str) -> bool {
    let Some(c) = rest.chars().next() else { return true };
    if matches!(c, ':' | '!' | '-' | '.' | ',' | '(' | '[') {
        return true;
    }
    if c != ' ' {
        return false;
    }
    let word = rest.split_whitespace().next().unwrap_or("");
    let word = word.trim_end_matches(|c: char| !c.is_alphanumeric());
    word.ends_with("ing")
        || word.chars().all(|c| c.is_ascii_digit()) && !word.is_empty()
        || matches!(word, "in" | "while" | "during" | "occurred" | "code" | "-" | "—" | "on" | "at" | "when")
        || rest.trim_start().starts_with(['-', '—', ':'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(t: &str) -> Value {
        json!({"content": [{"type": "text", "text": t}]})
    }

    /// Failures as real servers word them, with `isError` absent.
    #[test]
    fn real_servers_failure_wording_reads_as_failure() {
        for t in [
            "Document docs/n1.txt.docx does not exist",
            "Error: Only SELECT queries are allowed for read_query",
            "Error: near \"SELEC\": syntax error",
            "Error reading file: ENOENT: no such file or directory, open '/x'",
            "Failed to open workbook: File is not a zip file",
            "No presentation is currently loaded. Use open_presentation first.",
            "Sheet 'Sheet1' not found. Available sheets: 'Items', 'Notes'",
            "Cannot read properties of undefined (reading 'length')",
            "Invalid range 'a'. Use a range such as 'A1:C10'",
            "Unknown chart id: 1",
            "❌ Working directory is not set. Call set_working_dir first.",
            "Path outside the allowed directories: /",
            "Access denied - path outside allowed directories: /etc",
            "Traceback (most recent call last):",
            "Process with pid 0 not found",
            "Must provide either search_text or paragraph_index",
            "Please specify a footnote id",
            "Errors:\n- docs/x.md: File not found",
            "错误：文件不存在",
            "查询失败：表 items 未找到",
            "エラー: ファイルが見つかりません",
            "오류: 파일을 찾을 수 없습니다",
            "Erreur : le fichier est introuvable",
            "Fehler: Datei nicht gefunden",
            "No se pudo abrir el archivo",
            "Ошибка: файл не найден",
            "Database error: attempt to write a readonly database",
            "Validation Exception: field x",
            "Query failed: no such column y",
            "OSError: [Errno 30] Read-only file system",
        ] {
            assert!(failure(&text(t)).is_some(), "{t}");
        }
        for v in [
            json!({"error": "No presentation is currently loaded"}),
            json!({"success": false, "message": "no table"}),
            json!({"ok": false}),
            json!({"status": "error", "detail": "x"}),
            json!({"errors": [{"message": "x"}], "data": null}),
            json!({"status": "not_found", "id": "a"}),
            json!({"status": "Not Found"}),
            json!({"result": {"error": "No document is open"}}),
            json!({"data": {"success": false, "message": "no such table"}}),
            json!({"response": {"status": "error"}}),
        ] {
            assert!(failure(&json!({"structuredContent": v.clone(), "content": []})).is_some(), "{v}");
            assert!(failure(&text(&v.to_string())).is_some(), "text {v}");
        }
    }

    /// Answers that mention errors, are empty, or say there is nothing: not failures.
    #[test]
    fn answers_are_not_failures() {
        for t in [
            "",
            "No results found",
            "No matches for 'a'",
            "[]",
            "Error rate over the last hour: 0.1%",
            "errors: 0",
            "Errors and warnings are listed below\n...",
            "Created note 1",
            "# Notes\n\nThe build failed to start yesterday",
            "Current time in UTC: 2026-12-06T01:00:00Z",
            "Found 3 files:\nerror.log\nnot found.txt",
            "Errors:",
            "找到 3 个文件",
            "Fichier enregistré",
            "Error rate: 0.1%",
            "Last error: none",
            "The three kinds of error are described below: syntax, type and runtime error",
        ] {
            assert_eq!(failure(&text(t)), None, "{t}");
        }
        for v in [
            json!({"error": null, "rows": []}),
            json!({"error": "", "rows": []}),
            json!({"success": true}),
            json!({"errors": [], "data": {"x": 1}}),
            json!({"errors": [{"message": "partial"}], "data": {"x": 1}}),
            json!({"status": "ok"}),
            json!([{"error": "a value, not a failure"}]),
            json!({"errors": 0, "warnings": 2}),
            json!({"status": "invalid", "errors": ["line 3: unexpected token"], "data": {"line": 3}}),
            json!({"result": {"rows": [], "error": null}}),
            json!({"items": {"error": "a value inside an item"}, "count": 1}),
        ] {
            assert_eq!(failure(&json!({"structuredContent": v.clone(), "content": []})), None, "{v}");
        }
    }

    /// An answer that asks for another step before the call can work has not done the call's
    /// work (RULES.md, "A tool reads the world the other tools made"): the wording of servers
    /// whose query tools need an index, a loaded dataset or an open document.
    #[test]
    fn an_answer_that_asks_for_a_step_first_is_a_failure() {
        for t in [
            "No index set. Call build_index first.",
            "Project not indexed. Please run index_project first.",
            "No dataset loaded; load a dataset first",
            "Nothing to show. You must open a document first!",
            "Repository not set: use git_set_working_dir first",
            "Knowledge base is empty. You need to add documents first.",
            "First, call `connect` with a database path.",
        ] {
            assert!(failure(&text(t)).is_some(), "{t}");
        }
        for t in [
            "Indexed 3 files; call search to query them",
            "Run completed in 2 s",
            "Sorted by date, newest first",
            "The first call returned 3 rows",
            "Call log:\n- first",
            "Steps: open the file, then save it",
        ] {
            assert_eq!(failure(&text(t)), None, "{t}");
        }
    }

    #[test]
    fn head_is_the_first_text_block_or_the_structure() {
        let r = json!({"content": [{"type": "image", "data": "", "mimeType": "image/png"}, {"type": "text", "text": "hi"}]});
        assert_eq!(head(&r).as_deref(), Some("hi"));
        let r = json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(head(&r).as_deref(), Some("{\"a\":1}"));
        assert_eq!(head(&json!({"content": []})), None);
    }
}
