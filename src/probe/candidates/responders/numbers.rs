//! Responders that move a whole number the words point at.

use serde_json::Value;

use super::{Example, Offers, Responder};
use crate::probe::candidates::hints;
use crate::probe::candidates::words::{ranges, Refusal};

pub const EMPTY_RANGE: Responder = Responder {
    id: "empty-range",
    doc: "A range of two whole numbers sent empty (start = end) gets its end one past its start.",
    propose: empty_range,
    new_form: false,
    own_sources: false,
    // Any rejection: "Invalid text positions", "cannot merge a single cell with itself", or
    // words that say nothing of the range (a range sent empty is wrong in every call).
    any_words: true,
    example: Example {
        def: r#"{"name": "merge_table_cells", "inputSchema": {"type": "object", "properties": {
            "start_row": {"type": "integer"}, "end_row": {"type": "integer"}},
            "required": ["start_row", "end_row"]}}"#,
        args: r#"{"start_row": 0, "end_row": 0}"#,
        paths: &[],
        files: &[],
        text: "Invalid merge range: cannot merge a single cell with itself",
    },
};

/// A range of two numbers sent empty (`start_pos: 0, end_pos: 0`: "Invalid text positions",
/// "cannot merge a single cell with itself"): its end one past its start. Asked before
/// [`next_index`]: an empty range is wrong in every paragraph or row, so walking the index first
/// (each step one rejection) spends the tool's budget on the wrong argument.
fn empty_range(r: &Refusal, out: &mut Offers) {
    for (end, n) in ranges(&r.rejected.args) {
        out.offer(r.rejected.with_value(&end, Value::from(n + 1), out.said(), false));
    }
}

pub const NEXT_INDEX: Responder = Responder {
    id: "next-index",
    doc: "An index the words point at, that nothing offered a value for, gets the next one.",
    propose: next_index,
    new_form: false,
    own_sources: false,
    any_words: false,
    example: Example {
        def: r#"{"name": "format_table_cell", "inputSchema": {"type": "object", "properties": {
            "slide_index": {"type": "integer"}, "shape_index": {"type": "integer"}, "row": {"type": "integer"}},
            "required": ["slide_index", "shape_index", "row"]}}"#,
        args: r#"{"slide_index": 0, "shape_index": 3, "row": 0}"#,
        paths: &[],
        files: &[],
        text: "Shape at index 3 is not a table",
    },
};

/// "Shape at index 0 is not a table": an index the words point at (by the words of its name
/// besides "index": "Shape is not a chart" is about `shape_index`), that no responder asked
/// before offered a value for, gets the next one (what a maker added is further on), one step
/// per rejection.
fn next_index(r: &Refusal, out: &mut Offers) {
    let text_words = hints::words(r.text);
    for (prop, n) in r.rejected.args.iter().filter_map(|(k, v)| Some((k, v.as_i64()?))) {
        let ws = hints::words(prop);
        let (index, what): (Vec<&String>, Vec<&String>) = ws.iter().partition(|w| *w == "index" || *w == "idx");
        let offered_to = out.sets().iter().any(|s| s.args.get(prop) != r.rejected.args.get(prop));
        if index.is_empty() || what.is_empty() || !what.iter().all(|w| text_words.contains(w)) || offered_to {
            continue;
        }
        out.offer(r.rejected.with_value(prop, Value::from(n + 1), out.said(), false));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::example;
    use serde_json::json;

    #[test]
    fn empty_range_moves_its_end() {
        let sets = example("empty-range");
        assert_eq!((sets[0].args["start_row"].clone(), sets[0].args["end_row"].clone()), (json!(0), json!(1)));
    }

    #[test]
    fn next_index_steps_the_shape_it_points_at() {
        let sets = example("next-index");
        assert_eq!(sets.len(), 1, "{sets:?}");
        assert_eq!((sets[0].args["shape_index"].clone(), sets[0].args["slide_index"].clone()), (json!(4), json!(0)));
    }
}
