//! The class of a rule and of each change it finds (RULES.md): what the change means for a caller.

use serde::{Deserialize, Serialize};

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
