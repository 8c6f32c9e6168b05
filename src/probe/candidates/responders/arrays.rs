//! Responders that give an array the items the words ask for.

use serde_json::Value;

use super::{Example, Offers, Responder};
use crate::probe::candidates::one_value;
use crate::probe::candidates::words::{counted_arrays, counts, Refusal, NON_EMPTY};

pub const NON_EMPTY_ARRAY: Responder = Responder {
    id: "non-empty-array",
    doc: "An empty array the words name and say must not be empty gets one item.",
    propose: non_empty_array,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "write_range", "inputSchema": {"type": "object", "properties": {
            "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
            "at": {"type": "string"}}, "required": ["rows", "at"]}}"#,
        args: r#"{"rows": [], "at": "B2"}"#,
        paths: &[],
        files: &[],
        text: "rows must contain at least one value.",
    },
};

/// "rows must contain at least one value": an empty array the text names gets one item (and one
/// in that item when it is an array too: `[[""]]`).
fn non_empty_array(r: &Refusal, out: &mut Offers) {
    if !NON_EMPTY.iter().any(|p| r.lower.contains(p)) {
        return;
    }
    for prop in &r.named {
        if !r.rejected.args.get(*prop).and_then(Value::as_array).is_some_and(Vec::is_empty) {
            continue;
        }
        let Some(item) = one_value(r.schema_of(prop), r.root) else { continue };
        out.offer(r.rejected.with_value(prop, item, out.said(), false));
    }
}

pub const COUNTED_ARRAY: Responder = Responder {
    id: "counted-array",
    doc: "An array the words count (\"needs 2 or 3 colors\"), at any depth, gets that many items.",
    propose: counted_array,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "add_conditional_format", "inputSchema": {"type": "object", "properties": {
            "range": {"type": "string"},
            "rule": {"type": "object", "properties": {"type": {"type": "string"},
                "colors": {"type": "array", "items": {"type": "string"}}}, "required": ["type"]}},
            "required": ["range", "rule"]}}"#,
        args: r#"{"range": "A1:C10", "rule": {"type": "color_scale", "colors": [""]}}"#,
        paths: &[],
        files: &[],
        text: "color_scale needs 2 or 3 colors.",
    },
};

/// "color_scale needs 2 or 3 colors": each array the words count, at any depth (`rule.colors`),
/// gets the fewest items they name, its first repeated.
fn counted_array(r: &Refusal, out: &mut Offers) {
    for (n, noun) in counts(r.text) {
        for (top, v) in &r.rejected.args {
            if out.full() {
                return;
            }
            let hits = counted_arrays(top, v, &noun, n);
            if hits.is_empty() {
                continue;
            }
            let mut set = r.rejected.clone();
            for at in &hits {
                if let Some(Value::Array(a)) = set.args.get_mut(top).and_then(|x| x.pointer_mut(at)) {
                    let first = a[0].clone();
                    a.resize(n, first);
                }
            }
            set.from.insert(top.clone(), out.said());
            out.offer(set);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::example;
    use serde_json::json;

    #[test]
    fn non_empty_array_gets_one_item_of_one_item() {
        let sets = example("non-empty-array");
        assert_eq!(sets[0].args["rows"], json!([[""]]), "{sets:?}");
    }

    #[test]
    fn counted_array_gets_the_fewest_items_named() {
        let sets = example("counted-array");
        assert_eq!(sets[0].args["rule"], json!({"type": "color_scale", "colors": ["", ""]}), "{sets:?}");
    }
}
