//! A change between a pinned and a live surface, as the diff engine reports it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rules::RuleId;

/// The class of a change (see RULES.md): what it means for a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// No change in meaning worth a line by default.
    Cosmetic,
    /// Breaks with an error if it breaks anyone.
    Loud,
    /// The call keeps succeeding while its meaning changes: gate fails by default.
    Silent,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Cosmetic => "cosmetic",
            Class::Loud => "loud",
            Class::Silent => "silent",
        }
    }

    pub fn parse(s: &str) -> Option<Class> {
        match s {
            "cosmetic" => Some(Class::Cosmetic),
            "loud" => Some(Class::Loud),
            "silent" => Some(Class::Silent),
            _ => None,
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

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
