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

/// Why a call was skipped: data every report counts and filters by, never read back from the
/// message (whose words may change).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// `probe = "none"` in the config.
    ProbeNone,
    /// Not annotated read-only, and there is no sandbox for it here.
    NoSandbox,
    /// Not annotated read-only under `probe = "read-only"`.
    NotReadOnly,
    /// The tool or the server requires task augmentation.
    RequiresTasks,
    /// No valid arguments could be made (or the fixture is not a table): a fixture is needed.
    NeedsFixture,
    /// The server answered `resultType` other than `complete`.
    NeedsInput,
    /// An invalid `x-mcp-header` declaration: a client must not call the tool.
    InvalidHeader,
    /// It failed at lock with every argument set tried and fails again: not drift.
    FailsAsAtLock,
    /// The lock holds no probe for it yet.
    NothingPinned,
    /// The incomplete call was not sent: the valid call timed out or its connection failed.
    NotSent,
    /// The incomplete call failed, but not on the missing argument, while the valid call failed too.
    NotJudged,
}

impl SkipReason {
    /// The short reason of the probe summary line.
    pub fn label(self) -> &'static str {
        match self {
            SkipReason::ProbeNone => "probe = \"none\"",
            SkipReason::NoSandbox => "no sandbox",
            SkipReason::NotReadOnly => "not annotated read-only",
            SkipReason::RequiresTasks => "require tasks",
            SkipReason::NeedsFixture => "need an args fixture",
            SkipReason::NeedsInput => "need more input",
            SkipReason::InvalidHeader => "invalid x-mcp-header",
            SkipReason::FailsAsAtLock => "failed at lock with every argument set tried",
            SkipReason::NothingPinned => "nothing pinned yet",
            SkipReason::NotSent => "not sent",
            SkipReason::NotJudged => "not judged",
        }
    }

    /// Whether the call was never made (so it was made nowhere).
    pub fn not_made(self) -> bool {
        !matches!(self, SkipReason::FailsAsAtLock | SkipReason::NotJudged)
    }
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
    /// Why it was skipped (only for `skipped`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<SkipReason>,
    /// What the call answered: the head of the result's first text block (or of its structured
    /// content as compact JSON, or of its error), masked; absent when the call got no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<String>,
    /// The answer reads as a failure although it was not flagged as one (`isError` absent or
    /// false): counted apart from the calls that succeeded.
    #[serde(default, rename = "answeredFailure", skip_serializing_if = "std::ops::Not::not")]
    pub answered_failure: bool,
}

impl Probe {
    /// A probe with nothing but its kind, outcome, rule and message.
    pub fn new(
        tool: &str,
        kind: ProbeKind,
        outcome: ProbeOutcome,
        rule: Option<crate::rules::RuleId>,
        message: String,
    ) -> Probe {
        Probe {
            tool: tool.to_string(),
            kind,
            outcome,
            rule,
            message,
            class: None,
            place: None,
            reason: None,
            answered: None,
            answered_failure: false,
        }
    }

    /// Skipped because the config says `probe = "none"` (nothing about it is worth a line).
    pub fn unprobed_by_config(&self) -> bool {
        self.reason == Some(SkipReason::ProbeNone)
    }

    /// A skipped call and why.
    pub fn skipped(tool: &str, kind: ProbeKind, reason: SkipReason, message: String) -> Probe {
        Probe { reason: Some(reason), ..Probe::new(tool, kind, ProbeOutcome::Skipped, None, message) }
    }

    /// The class a failing probe counts as (probe rules are silent by default, so they fail the
    /// default gate; `result-shape-reduced` is loud).
    pub fn effective_class(&self) -> Class {
        self.class.unwrap_or_else(|| self.rule.map_or(Class::Silent, crate::rules::RuleId::class))
    }
}
