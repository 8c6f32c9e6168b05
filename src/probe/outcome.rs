//! What one probe call found: the probe's own result type (its kind, outcome, rule, class and
//! where it was made), which every report renders.

use serde::{Deserialize, Serialize};

use crate::rules::Class;

/// Which of a tool's two calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeKind {
    /// The valid end-to-end call.
    Call,
    /// The call with one required argument left out, which must be rejected.
    Incomplete,
}

/// How a call came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeOutcome {
    Pass,
    Fail,
    Skipped,
}

/// One probe call's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub tool: String,
    pub kind: ProbeKind,
    pub outcome: ProbeOutcome,
    /// Rule id for a failure (`call-failed`, ...).
    pub rule: Option<crate::rules::RuleId>,
    pub message: String,
    /// Class of a failure after policy; `None` means the rule's default class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<Class>,
    /// Where the call was made (`session` or `sandbox`); absent when it was not made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<crate::sandbox::Place>,
}

impl Probe {
    /// The class a failing probe counts as (probe rules are silent by default, so they fail the
    /// default gate; `result-shape-reduced` is loud).
    pub fn effective_class(&self) -> Class {
        self.class.unwrap_or_else(|| self.rule.map_or(Class::Silent, crate::rules::RuleId::class))
    }
}
