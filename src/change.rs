//! A change between a pinned and a live surface, as the diff engine reports it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rules::cues::{self, Cues, Rank};
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
    /// The cues the words it adds for the model carry (a URL, a path outside the project, an
    /// instruction, another tool's name, hidden characters): they rank it above every change
    /// without one, never move its class (RULES.md, "Risk within a rule").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cues: Option<Cues>,
}

impl Change {
    /// Its risk: the rule's own, or a cued change's ([`cues::risk`]).
    pub fn risk(&self) -> u8 {
        cues::risk(self.rule, self.cues.as_ref())
    }

    /// Whether it carries a cue: a pattern in the words it adds, or that it adds much more than
    /// the release's other changes of its rule. No view sums up such a change: each shows it
    /// with its words.
    pub fn cued(&self) -> bool {
        self.cues.as_ref().is_some_and(|c| !c.found.is_empty())
    }

    /// Whether the words it adds match a pattern ([`Cues::pattern`]): it ranks above every change
    /// that does not.
    pub fn matches_pattern(&self) -> bool {
        self.cues.as_ref().is_some_and(Cues::pattern)
    }

    /// Its place in every report's order, highest first ([`Rank`]): a pattern first; a change
    /// that only adds much ranks by its risk, first among its rule's.
    pub fn rank(&self) -> Rank {
        Rank { cued: self.matches_pattern(), class: self.class, risk: self.risk() }
    }
}
