//! Responders about the form of a path or a name sent: a name where a path was sent, a path as
//! written, a name of the tool's own where the one sent is taken.

use serde_json::Value;

use super::{Example, Offers, Responder};
use crate::probe::candidates::words::{
    fresh_name, quotes, Refusal, NAME_ONLY as NAME_WORDS, RELATIVE_ONLY as RELATIVE_WORDS, TAKEN,
};

pub const NAME_ONLY: Responder = Responder {
    id: "name-only",
    doc: "A path sent where the words want a name gets its last part, sent as it is.",
    propose: name_only,
    new_form: true,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "read-note", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"}}, "required": ["filename"]}}"#,
        args: r#"{"filename": "notes/Welcome.md"}"#,
        paths: &["/filename"],
        files: &[],
        text: "Filename cannot contain path separators",
    },
};

/// "Filename cannot contain path separators": a path sent gets its last part, as it is (a name
/// in the folder the server works in, never resolved to a path).
fn name_only(r: &Refusal, out: &mut Offers) {
    if NAME_WORDS.iter().any(|p| r.lower.contains(p)) {
        each_path(r, out, |v| v.rsplit('/').next().unwrap_or(v));
    }
}

pub const RELATIVE_ONLY: Responder = Responder {
    id: "relative-only",
    doc: "A path sent where the words want it relative, sent as written (never resolved).",
    propose: relative_only,
    new_form: true,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "delete-note", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "vault": {"type": "string"}}, "required": ["path", "vault"]}}"#,
        args: r#"{"path": "daily/today.md", "vault": "project"}"#,
        paths: &["/path"],
        files: &[],
        text: "Invalid arguments: Path must be relative to vault root",
    },
};

/// "Path must be relative to vault root": a path sent, as it was written (never resolved). Words
/// that want a name besides are [`name_only`]'s.
fn relative_only(r: &Refusal, out: &mut Offers) {
    let as_name = NAME_WORDS.iter().any(|p| r.lower.contains(p));
    if !as_name && RELATIVE_WORDS.iter().any(|p| r.lower.contains(p)) {
        each_path(r, out, |v| v);
    }
}

/// Each top-level property sent as a path, sent `form` of it, not as a path.
fn each_path(r: &Refusal, out: &mut Offers, form: impl Fn(&str) -> &str) {
    for at in r.rejected.relative.iter().filter(|p| p.matches('/').count() == 1) {
        let prop = &at[1..];
        let Some(Value::String(v)) = r.rejected.args.get(prop) else { continue };
        let name = form(v);
        if name.is_empty() || name == "." {
            continue;
        }
        out.offer(r.rejected.with_value(prop, Value::String(name.to_string()), out.said(), false));
    }
}

pub const TAKEN_NAME: Responder = Responder {
    id: "taken-name",
    doc: "A name the words say is taken gets one of the tool's own (a path keeps its folder and extension).",
    propose: taken_name,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "create_chart", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string", "maxLength": 31}},
            "required": ["path", "sheet"]}}"#,
        args: r#"{"path": "data/sales.xlsx", "sheet": "Sales"}"#,
        paths: &["/path"],
        files: &[],
        text: "A sheet named 'Sales' already exists.",
    },
};

/// "A sheet named 'Sales' already exists", "/…/sales.xlsx already exists": the property that
/// sent the name, quoted or (3 characters or more) named in the text, gets one of its own.
fn taken_name(r: &Refusal, out: &mut Offers) {
    if !TAKEN.iter().any(|p| r.lower.contains(p)) {
        return;
    }
    let tool = r.def.get("name").and_then(Value::as_str).unwrap_or("");
    for (prop, v) in r.rejected.args.iter().filter_map(|(k, v)| Some((k, v.as_str()?))) {
        let resolved = r.sent.get(prop).and_then(Value::as_str).unwrap_or(v);
        let quoted = quotes(r.text, &Value::String(v.to_string()));
        if !(quoted || v.chars().count() >= 3 && (r.text.contains(v) || r.text.contains(resolved))) {
            continue;
        }
        let path = r.sent_as_path(prop);
        out.offer(r.rejected.with_value(prop, Value::String(fresh_name(tool, v, path)), out.said(), path));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::example;

    #[test]
    fn name_only_sends_the_last_part_as_it_is() {
        let sets = example("name-only");
        assert_eq!(sets[0].args["filename"], "Welcome.md", "{sets:?}");
        assert!(sets[0].relative.is_empty(), "{sets:?}");
    }

    /// The same arguments as the set rejected (tried), in another form: a new set.
    #[test]
    fn relative_only_sends_the_path_as_written() {
        let sets = example("relative-only");
        assert_eq!(
            (sets[0].args["path"].as_str(), sets[0].args["vault"].as_str()),
            (Some("daily/today.md"), Some("project"))
        );
        assert!(sets[0].relative.is_empty(), "{sets:?}");
    }

    #[test]
    fn taken_name_gets_the_tools_own() {
        let sets = example("taken-name");
        assert_eq!(sets[0].args["sheet"], "mcp_pin_probe_create_chart", "{sets:?}");
        assert_eq!(sets[0].args["path"], "data/sales.xlsx", "{sets:?}");
    }
}
