//! One flat list of what a report found (changes, failing probe calls, server errors), each with
//! its class and whether it fails the gate, for the formats that list findings one by one
//! (GitHub, SARIF, JUnit). Every format takes a finding's class and gate from here, so a loud
//! probe finding is loud everywhere.

use std::cmp::Reverse;
use std::fmt::Write;

use sha2::Digest;

use super::{ProbeKind, ProbeOutcome, Report, Status};
use crate::change::Change;
use crate::rules::Class;

pub use crate::rules::{PROBE_FAILED_RULE, SERVER_ERROR_RULE};

/// Risk rank of a server that could not be checked: above every rule (nothing was checked).
pub const SERVER_ERROR_RISK: u8 = 100;
/// Risk rank of a failing probe call that names no rule.
pub const PROBE_FAILED_RISK: u8 = 70;

/// Characters of the added words an annotation (and JUnit's message) quotes.
pub const WORDS_MAX: usize = 120;

/// The words a finding's change adds and its cue, for a headline: ` — now adds "…" (carries an
/// instruction to the model ("before any other call"))`; empty for a finding that adds none.
pub fn words_note(f: &Finding<'_>) -> String {
    let Some(c) = f.change() else { return String::new() };
    let mut s = match super::textdiff::added_words(c, WORDS_MAX) {
        Some(w) => format!(" — now adds \"{w}\""),
        None => String::new(),
    };
    if let Some(cues) = c.cues.as_ref().filter(|_| c.cued()) {
        let _ = write!(s, " (carries {})", crate::json::escape_for_display(&cues.describe()));
    }
    s
}

/// Where a finding comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Change(&'a Change),
    Probe(ProbeKind),
    ServerError,
}

#[derive(Debug, Clone)]
pub struct Finding<'a> {
    pub server: &'a str,
    /// `None`: server-level (a server change or a server error).
    pub tool: Option<&'a str>,
    pub rule: &'a str,
    /// Class after policy: a change's, a failing probe's effective class; a server that could not
    /// be checked counts as silent (it fails the gate whatever the gate).
    pub class: Class,
    /// Whether this finding alone fails the gate.
    pub fails_gate: bool,
    /// Its risk: the rule's rank ([`crate::rules::RuleInfo::risk`]), or a change's whose added
    /// words carry a cue ([`Change::risk`]).
    pub risk: u8,
    /// Whether it carries a cue (a pattern in the words it adds, or that it adds much more than
    /// the release's rewordings): it takes an annotation slot before any round.
    pub cued: bool,
    /// Whether the words it adds match a pattern ([`Change::matches_pattern`]): it ranks above
    /// every finding that does not.
    pub pattern: bool,
    pub message: &'a str,
    /// JSON pointer of a change (empty otherwise).
    pub pointer: &'a str,
    pub source: Source<'a>,
}

/// GitHub/SARIF severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// A class's own level: silent is an error, loud a warning, cosmetic a note.
    pub fn of_class(class: Class) -> Level {
        match class {
            Class::Silent => Level::Error,
            Class::Loud => Level::Warning,
            Class::Cosmetic => Level::Note,
        }
    }
}

impl Finding<'_> {
    /// Sort key, most severe last: a server that could not be checked first, then a change whose
    /// added words carry a cue (whatever its class: RULES.md, "Risk within a rule"), then what
    /// fails the gate, then by class, then by risk.
    pub fn severity(&self) -> (bool, bool, bool, Class, u8) {
        (matches!(self.source, Source::ServerError), self.pattern, self.fails_gate, self.class, self.risk)
    }

    /// The change behind it, if it is one.
    pub fn change(&self) -> Option<&Change> {
        match self.source {
            Source::Change(c) => Some(c),
            _ => None,
        }
    }

    /// Level as the gate sees it: error when it fails the gate, warning for the rest of silent
    /// and loud, note for cosmetic.
    pub fn level(&self) -> Level {
        if self.fails_gate {
            Level::Error
        } else if self.class == Class::Cosmetic {
            Level::Note
        } else {
            Level::Warning
        }
    }

    /// `server/tool`, or `server` for a server-level finding.
    pub fn subject(&self) -> String {
        match self.tool {
            Some(t) => format!("{}/{}", self.server, t),
            None => self.server.to_string(),
        }
    }

    /// What the finding is, as an identity: its kind, server, tool, rule, pointer and, for a
    /// change, its before and after (two values at one pointer are two findings).
    fn identity(&self) -> Vec<String> {
        let kind = match self.source {
            Source::Change(_) => "change",
            Source::Probe(ProbeKind::Call) => "probe-call",
            Source::Probe(ProbeKind::Incomplete) => "probe-incomplete",
            Source::ServerError => "server-error",
        };
        let mut parts =
            vec![kind.to_string(), self.server.to_string(), self.tool.unwrap_or("").to_string(), self.rule.to_string()];
        parts.push(self.pointer.to_string());
        if let Source::Change(c) = self.source {
            for v in [&c.before, &c.after] {
                parts.push(v.as_ref().map(crate::json::to_canonical_string).unwrap_or_default());
            }
        }
        parts
    }
}

/// Every finding of the report in report order (servers, then each server's error, changes and
/// failing probe calls). Cosmetic ones only with `include_cosmetic`.
pub fn findings(report: &Report, include_cosmetic: bool) -> Vec<Finding<'_>> {
    let mut out = vec![];
    for s in &report.servers {
        if s.status == Status::Error {
            out.push(Finding {
                server: &s.name,
                tool: None,
                rule: SERVER_ERROR_RULE,
                class: Class::Silent,
                fails_gate: true,
                risk: SERVER_ERROR_RISK,
                cued: false,
                pattern: false,
                message: s.error.as_deref().unwrap_or("the server could not be checked"),
                pointer: "",
                source: Source::ServerError,
            });
        }
        for c in &s.changes {
            if c.class == Class::Cosmetic && !include_cosmetic {
                continue;
            }
            out.push(Finding {
                server: &s.name,
                tool: c.tool.as_deref(),
                rule: c.rule.as_str(),
                class: c.class,
                fails_gate: report.fail_on.fails(c.class),
                risk: c.risk(),
                cued: c.cued(),
                pattern: c.matches_pattern(),
                message: &c.message,
                pointer: &c.pointer,
                source: Source::Change(c),
            });
        }
        for p in &s.probes {
            let class = p.effective_class();
            if p.outcome != ProbeOutcome::Fail || (class == Class::Cosmetic && !include_cosmetic) {
                continue;
            }
            out.push(Finding {
                server: &s.name,
                tool: Some(&p.tool),
                rule: p.rule.map_or(PROBE_FAILED_RULE, |r| r.as_str()),
                class,
                fails_gate: report.fail_on.fails(class),
                risk: p.rule.map_or(PROBE_FAILED_RISK, crate::rules::RuleId::risk),
                cued: false,
                pattern: false,
                message: &p.message,
                pointer: "",
                source: Source::Probe(p.kind),
            });
        }
    }
    out
}

/// Sort most severe first; ties keep report order.
pub fn sort_by_severity(findings: &mut [Finding<'_>]) {
    findings.sort_by_key(|f| Reverse(f.severity()));
}

/// A fingerprint for each finding, in order: SHA-256 of its identity (kind, server, tool, rule,
/// pointer, before and after), stable across runs, platforms and versions and independent of
/// line numbers. Two findings that are the same in every part (which the diff never emits)
/// still get two fingerprints: a repeat counts its occurrence into the hash.
pub fn fingerprints(findings: &[Finding<'_>]) -> Vec<String> {
    let mut seen: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
    findings
        .iter()
        .map(|f| {
            let mut parts = f.identity();
            let n = seen.entry(parts.clone()).or_insert(0);
            if *n > 0 {
                parts.push(format!("#{n}"));
            }
            *n += 1;
            let mut h = sha2::Sha256::new();
            for p in &parts {
                // Length-prefixed, so ("a", "bc") and ("ab", "c") differ.
                h.update((p.len() as u64).to_be_bytes());
                h.update(p.as_bytes());
            }
            h.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect()
        })
        .collect()
}
