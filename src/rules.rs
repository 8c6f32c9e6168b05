//! The rule catalogue, as data. `explain`, the docs, SARIF and the renderers all read this table.
//! (Diff-engine helper: complete this from ../shared/RULES.md.)

use crate::change::Class;

/// Where a rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    Tool,
    InputSchema,
    OutputSchema,
    Server,
    Probe,
}

#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub id: &'static str,
    pub class: Class,
    pub surface: Surface,
    /// One line.
    pub summary: &'static str,
    /// Why it has this class, in a few sentences.
    pub help: &'static str,
    /// Before/after example (JSON or text).
    pub before: &'static str,
    pub after: &'static str,
}

pub static RULES: &[RuleInfo] = &[];

pub fn lookup(id: &str) -> Option<&'static RuleInfo> {
    RULES.iter().find(|r| r.id == id)
}
