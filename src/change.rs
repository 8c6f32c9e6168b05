//! A change between a pinned and a live surface, as the diff engine reports it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rules::{Class, RuleId};

/// One classified change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// Rule from the catalogue (serialised as its id, `required-removed`).
    pub rule: RuleId,
    /// Class after policy (config may move a rule to another class).
    pub class: Class,
    /// Tool name; `None` for a server-level change.
    pub tool: Option<String>,
    /// JSON pointer into the tool definition (or into the server entry for server changes).
    pub pointer: String,
    /// One line a person understands without the schema open.
    pub message: String,
    /// The value before, where one applies.
    pub before: Option<Value>,
    /// The value after, where one applies.
    pub after: Option<Value>,
}
