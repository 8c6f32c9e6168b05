//! Responders that put the values a rejection offers into the call: the project's files of the
//! extensions it names, the values it lists or gives as examples.

use serde_json::Value;

use super::{Example, Offers, Responder};
use crate::probe::candidates::words::{refused, with_leaf, Leaf, Refusal};
use crate::probe::candidates::{coerce, described, sql};

pub const EXTENSION_FILES: Responder = Responder {
    id: "extension-files",
    doc: "The project's files of the extensions the words name, in each property sent a path.",
    propose: extension_files,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "read_range", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string"}}, "required": ["path", "sheet"]}}"#,
        args: r#"{"path": ".", "sheet": "a"}"#,
        paths: &["/path"],
        files: &["notes.txt", "sales.xlsx"],
        text: "Path '/x' must point to an Excel file (.xlsm, .xlsx)",
    },
};

/// "must point to an Excel file (.xlsx)": the project's files of the extensions it names, in each
/// top-level property that was sent a path (in an array when it was sent one).
fn extension_files(r: &Refusal, out: &mut Offers) {
    if r.extensions.is_empty() {
        return;
    }
    let files = r.known.paths.files_with(&r.extensions);
    for prop in r.rejected.relative.iter().filter_map(|p| p.strip_prefix('/')).filter(|p| !p.contains('/')) {
        for f in &files {
            if out.full() {
                return;
            }
            let many = r.rejected.args.get(prop).is_some_and(Value::is_array);
            let v = Value::String(f.path.clone());
            out.offer(r.rejected.with_value(prop, if many { Value::Array(vec![v]) } else { v }, out.said(), true));
        }
    }
}

pub const QUOTED_PART: Responder = Responder {
    id: "quoted-part",
    doc: "A part of a value sent that the words quote as refused, replaced by each value they offer.",
    propose: quoted_part,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "add_sparklines", "inputSchema": {"type": "object", "properties": {
            "sheet": {"type": "string"}, "source": {"type": "string"}}, "required": ["sheet", "source"]}}"#,
        args: r#"{"sheet": "Sales", "source": "Data!B2:F9"}"#,
        paths: &[],
        files: &[],
        text: "Sheet 'Data' not found. Available sheets: 'Sales'.",
    },
};

/// "Sheet 'Data' not found. Available sheets: 'Sales'" about `source: "Data!B2:F9"`: the part it
/// quotes (and refuses) of a value sent, replaced by each value it offers, in that value (still a
/// path when it was one).
fn quoted_part(r: &Refusal, out: &mut Offers) {
    let word_like = |q: &str| q.chars().count() >= 2 && q.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c));
    for part in described::quoted(r.text).into_iter().filter(|q| word_like(q) && refused(r.text, q)) {
        for (prop, sent) in r.rejected.args.iter().filter_map(|(k, v)| Some((k, v.as_str()?))) {
            if sent == part || !sent.contains(part.as_str()) {
                continue;
            }
            for v in r.values.iter().filter(|v| **v != part && !v.is_empty() && !v.contains(sent) && word_like(v)) {
                if out.full() {
                    return;
                }
                let value = Value::String(sent.replacen(part.as_str(), v, 1));
                out.offer(r.rejected.with_value(prop, value, out.said(), r.sent_as_path(prop)));
            }
        }
    }
}

pub const OFFERED_VALUES: Responder = Responder {
    id: "offered-values",
    doc: "Each value the words offer, in the property (or the leaf of an object argument) they point at.",
    propose: offered_values,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "read_sheet", "inputSchema": {"type": "object", "properties": {
            "file": {"type": "string"}, "sheet": {"type": "string"}, "range": {"type": "string"}},
            "required": ["file", "sheet", "range"]}}"#,
        args: r#"{"file": "budget.xlsx", "sheet": "a", "range": "a"}"#,
        paths: &[],
        files: &[],
        text: "Sheet 'a' not found. Available sheets: 'Items', 'Notes'",
    },
};

/// "Available sheets: 'Items', 'Notes'", "a range such as 'A1:C10'", "must be one of: fast,
/// slow": each value offered goes to each property the words aim at ([`Refusal::aimed`]); when
/// that gives nothing new, to each leaf inside an object argument they are about; then to the
/// properties they name or quote besides, the first that takes it, or, when they name and quote
/// none (nor a leaf, nor an optional property), to each required property.
fn offered_values(r: &Refusal, out: &mut Offers) {
    let fallback: Vec<&str> = if r.named.is_empty() && r.quoted.is_empty() && r.inner.is_empty() && !r.names_optional {
        r.required.clone()
    } else {
        r.then.iter().copied().filter(|q| !r.aimed.contains(q)).collect()
    };
    let every = r.named.is_empty() && r.quoted.is_empty();
    for v in &r.values {
        if out.full() {
            return;
        }
        let mut placed = false;
        for prop in &r.aimed {
            placed |= place(r, out, prop, v);
        }
        if placed {
            continue;
        }
        for leaf in &r.inner {
            placed |= in_leaf(r, out, leaf, v);
        }
        if placed {
            continue;
        }
        for prop in &fallback {
            if place(r, out, prop, v) && !every {
                break;
            }
        }
    }
}

/// Offer `v` to top-level property `prop`, as the first of the JSON values it reads as
/// ([`coerce`]) that the gate admits: whether one was. Never the refused value itself (as
/// pinned or as sent), nor a text that quotes a value sent, nor a statement to a property that
/// takes no SQL.
fn place(r: &Refusal, out: &mut Offers, prop: &str, v: &str) -> bool {
    let schema = r.schema_of(prop);
    let desc = schema.get("description").and_then(Value::as_str).unwrap_or("");
    if r.statements.iter().any(|x| x == v) && !sql::takes_sql(prop, desc) {
        return false;
    }
    for value in coerce(v, schema, r.root) {
        if r.rejected.args.get(prop) == Some(&value) || r.sent.get(prop) == Some(&value) || r.echoes(&value) {
            continue;
        }
        if out.offer(r.rejected.with_value(prop, value, out.said(), false)) {
            return true;
        }
    }
    false
}

/// Offer `v` in `leaf` (and every item beside it that held the same value): whether the gate
/// admitted it.
fn in_leaf(r: &Refusal, out: &mut Offers, leaf: &Leaf, v: &str) -> bool {
    let Some(set) = with_leaf(r.rejected, leaf, v, out.said()) else { return false };
    !r.echoes(&Value::String(v.to_string())) && out.offer(set)
}

#[cfg(test)]
mod tests {
    use super::super::tests::example;
    use serde_json::json;

    #[test]
    fn extension_files_offers_the_projects_workbook() {
        let sets = example("extension-files");
        assert_eq!(sets.len(), 1, "{sets:?}");
        assert_eq!(
            (sets[0].args["path"].clone(), sets[0].relative.clone()),
            (json!("sales.xlsx"), vec!["/path".into()])
        );
    }

    #[test]
    fn quoted_part_replaces_the_sheet_in_the_range() {
        let sets = example("quoted-part");
        assert_eq!(sets[0].args["source"], "Sales!B2:F9", "{sets:?}");
        assert_eq!(sets[0].args["sheet"], "Sales", "{sets:?}");
    }

    #[test]
    fn offered_values_go_to_the_sheet_named() {
        let sets = example("offered-values");
        let sheets: Vec<&serde_json::Value> = sets.iter().map(|s| &s.args["sheet"]).collect();
        assert_eq!(sheets, [&json!("Items"), &json!("Notes")], "{sets:?}");
    }
}
