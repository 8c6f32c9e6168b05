//! One flat list of what a report found (changes, failing probes, server errors), ordered most
//! severe first, for the formats that annotate (GitHub, SARIF, JUnit).

use std::cmp::Reverse;

use super::{FailOn, ProbeKind, ProbeOutcome, Report, Status};
use crate::change::{Change, Class};

pub use crate::rules::{PROBE_FAILED_RULE, SERVER_ERROR_RULE};

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
    /// Class of a change; probe failures and server errors count as silent (they fail the gate).
    pub class: Class,
    /// Whether this finding alone fails the gate.
    pub fails_gate: bool,
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
    /// Sort key: gate-failing first, a server that could not be checked first among those,
    /// then by class.
    pub fn severity(&self) -> (bool, bool, Class) {
        (self.fails_gate, matches!(self.source, Source::ServerError), self.class)
    }

    /// Level as the gate sees it: error when it fails the gate, warning for the rest of silent
    /// and loud, note for cosmetic (GitHub annotations).
    pub fn gate_level(&self) -> Level {
        if self.fails_gate {
            Level::Error
        } else if self.class == Class::Cosmetic {
            Level::Note
        } else {
            Level::Warning
        }
    }

    /// Level by severity: the class's own level, raised to error when it fails the gate (SARIF).
    pub fn level(&self) -> Level {
        Level::of_class(self.class).max(self.gate_level())
    }

    /// `server/tool`, or `server` for a server-level finding.
    pub fn subject(&self) -> String {
        match self.tool {
            Some(t) => format!("{}/{}", self.server, t),
            None => self.server.to_string(),
        }
    }
}

/// Every finding of the report in report order (servers, then each server's error, changes and
/// failing probes). Cosmetic changes only with `include_cosmetic`.
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
                message: &c.message,
                pointer: &c.pointer,
                source: Source::Change(c),
            });
        }
        for p in &s.probes {
            if p.outcome != ProbeOutcome::Fail {
                continue;
            }
            out.push(Finding {
                server: &s.name,
                tool: Some(&p.tool),
                rule: p.rule.map_or(PROBE_FAILED_RULE, |r| r.as_str()),
                class: Class::Silent,
                fails_gate: report.fail_on != FailOn::Never,
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

/// 64-bit FNV-1a as 16 hex digits: stable across runs, platforms and versions (fingerprints).
pub fn fnv1a_hex(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            // A separator that cannot occur in the parts' UTF-8, so ("a","bc") != ("ab","c").
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        for b in part.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_stable_and_separates_parts() {
        assert_eq!(fnv1a_hex(&[""]), "cbf29ce484222325");
        assert_eq!(fnv1a_hex(&["a"]), "af63dc4c8601ec8c");
        assert_ne!(fnv1a_hex(&["a", "bc"]), fnv1a_hex(&["ab", "c"]));
    }
}
