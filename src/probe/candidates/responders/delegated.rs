//! Responders that search a property the words point at as the first sets search every
//! property (`candidates/mod.rs`): its next candidates, an optional property they name, a flag
//! they grant.

use super::{Example, Offers, Responder};
use crate::probe::candidates::words::Refusal;
use crate::probe::candidates::{
    names_property, with_named_inner_optional, with_named_optional, with_next_candidates, with_permission, ArgSet,
    Source,
};

/// Offer each set `more` makes given every set tried or admitted so far, while there is room.
fn offer_all(out: &mut Offers, more: impl FnOnce(&[ArgSet]) -> Vec<ArgSet>) {
    if out.full() {
        return;
    }
    for set in more(&out.seen()) {
        out.offer(set);
    }
}

pub const QUOTED_NEXT_CANDIDATES: Responder = Responder {
    id: "quoted-next-candidates",
    doc: "A property whose value the words quote and no responder offered a value for gets its next candidates.",
    propose: quoted_next_candidates,
    new_form: false,
    own_sources: true,
    any_words: false,
    example: Example {
        def: r#"{"name": "read-note", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string", "description": "Just the note name, e.g. 'my-note.md'"},
            "vault": {"type": "string"}}, "required": ["vault", "filename"]}}"#,
        args: r#"{"filename": "my-note.md", "vault": "project"}"#,
        paths: &[],
        files: &["Welcome.md"],
        text: "Note \"my-note.md\" not found in vault",
    },
};

/// Nothing offered for a property whose value the rejection quotes ("Note \"a.md\" not
/// found"): its next candidates, the others kept.
fn quoted_next_candidates(r: &Refusal, out: &mut Offers) {
    if r.quoted.is_empty() {
        return;
    }
    let offered_to = |q: &str| out.sets().iter().any(|s| s.args.get(q) != r.rejected.args.get(q));
    let props: Vec<&str> = r.quoted.iter().copied().filter(|q| !offered_to(q)).collect();
    offer_all(out, |seen| with_next_candidates(r.def, r.known, r.rejected, &props, seen));
}

pub const NAMED_OPTIONAL: Responder = Responder {
    id: "named-optional",
    doc: "An optional property the words ask for and the call did not send, at its best candidates.",
    propose: named_optional,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "add_footnote", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"}, "text": {"type": "string"},
            "search_text": {"type": "string", "description": "Text to find, e.g. 'Sales'"},
            "paragraph_index": {"type": "integer", "minimum": 0}}, "required": ["filename", "text"]}}"#,
        args: r#"{"filename": "report.docx", "text": "a"}"#,
        paths: &[],
        files: &[],
        text: "Must provide either search_text or paragraph_index",
    },
};

/// An optional argument the rejection asks for ("Must provide either search_text or …"), or any
/// of a tool that requires nothing, when the words name no property of it.
fn named_optional(r: &Refusal, out: &mut Offers) {
    let said = out.said();
    offer_all(out, |seen| with_named_optional(r.def, r.known, r.rejected, r.text, seen, said));
}

pub const SENT_EMPTY: Responder = Responder {
    id: "sent-empty",
    doc: "A property the words ask for although it was sent empty gets its next candidate.",
    propose: sent_empty,
    new_form: false,
    own_sources: true,
    any_words: false,
    example: Example {
        def: r#"{"name": "edit_block", "inputSchema": {"type": "object", "properties": {
            "file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}},
            "required": ["file_path"]}}"#,
        args: r#"{"file_path": "notes.txt", "old_string": "hello", "new_string": ""}"#,
        paths: &[],
        files: &[],
        text: "Must provide either (old_string + new_string) or (range + content)",
    },
};

/// A value the words still ask for although it was sent empty ("Must provide either
/// (old_string + new_string)" with `new_string: ""`): the server takes an empty value as none;
/// the property's next candidate.
fn sent_empty(r: &Refusal, out: &mut Offers) {
    let empty: Vec<&str> = r
        .rejected
        .args
        .iter()
        .filter(|(k, v)| {
            v.as_str() == Some("") && r.rejected.from.get(*k) != Some(&Source::Fixture) && names_property(r.text, k)
        })
        .map(|(k, _)| k.as_str())
        .collect();
    offer_all(out, |seen| with_next_candidates(r.def, r.known, r.rejected, &empty, seen));
}

pub const INNER_OPTIONAL: Responder = Responder {
    id: "inner-optional",
    doc: "A property of an object argument the words ask for and the call did not send.",
    propose: inner_optional,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r##"{"name": "add_data_validation", "inputSchema": {"type": "object",
            "$defs": {"Rule": {"type": "object", "properties": {
                "type": {"enum": ["list", "whole"], "type": "string"},
                "options": {"type": "array", "items": {"type": "string"}},
                "source": {"type": "string", "description": "e.g. '=$A$2:$A$20'"},
                "prompt": {"type": "string"}}, "required": ["type"]}},
            "properties": {"range": {"type": "string"}, "rule": {"$ref": "#/$defs/Rule"}},
            "required": ["range", "rule"]}}"##,
        args: r#"{"range": "B2", "rule": {"type": "list"}}"#,
        paths: &[],
        files: &[],
        text: "list validation needs either options or source.",
    },
};

/// A property of an object argument it asks for ("list validation needs either options or
/// source" about `rule`).
fn inner_optional(r: &Refusal, out: &mut Offers) {
    let said = out.said();
    offer_all(out, |seen| with_named_inner_optional(r.def, r.known, r.rejected, r.text, seen, said));
}

pub const PERMISSION: Responder = Responder {
    id: "permission",
    doc: "An optional `allow…` flag whose words the refusal shares, set.",
    propose: permission,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "git_commit", "inputSchema": {"type": "object", "properties": {
            "message": {"type": "string"},
            "allowEmpty": {"type": "boolean", "default": false, "description": "Allow creating a commit with no changes."}},
            "required": ["message"]}}"#,
        args: r#"{"message": "a"}"#,
        paths: &[],
        files: &[],
        text: "Git commit failed: nothing added to commit but untracked files present",
    },
};

/// A permission the refusal's words point at ("nothing added to commit" and `allowEmpty`).
fn permission(r: &Refusal, out: &mut Offers) {
    let said = out.said();
    offer_all(out, |seen| with_permission(r.def, r.known, r.rejected, r.text, seen, said));
}

#[cfg(test)]
mod tests {
    use super::super::tests::example;
    use crate::probe::candidates::Source;
    use serde_json::json;

    #[test]
    fn quoted_next_candidates_takes_the_projects_note() {
        let sets = example("quoted-next-candidates");
        let found = sets.iter().find(|s| s.args["filename"] == "Welcome.md").expect("the project's note");
        assert_eq!((found.args["vault"].clone(), found.from["filename"]), (json!("project"), Source::ProjectFolder));
    }

    #[test]
    fn named_optional_adds_what_the_words_ask_for() {
        let sets = example("named-optional");
        assert!(sets.iter().any(|s| s.args.get("search_text") == Some(&json!("Sales"))), "{sets:?}");
        assert!(sets.iter().any(|s| s.args.get("paragraph_index") == Some(&json!(0))), "{sets:?}");
    }

    #[test]
    fn sent_empty_gets_a_value() {
        let sets = example("sent-empty");
        assert!(sets.iter().any(|s| s.args["new_string"] == "a" && s.args["old_string"] == "hello"), "{sets:?}");
    }

    #[test]
    fn inner_optional_adds_to_the_rule() {
        let rules: Vec<serde_json::Value> =
            example("inner-optional").into_iter().map(|s| s.args["rule"].clone()).collect();
        assert!(rules.contains(&json!({"type": "list", "source": "=$A$2:$A$20"})), "{rules:?}");
    }

    #[test]
    fn permission_sets_allow_empty() {
        let sets = example("permission");
        assert_eq!((sets.len(), sets[0].args["allowEmpty"].clone()), (1, json!(true)), "{sets:?}");
    }
}
