//! The report of a check (or an offline diff): the data model, the gate verdict, and one
//! renderer per format.

pub mod human;
pub mod json;

use serde::Serialize;

use crate::change::{Change, Class};

/// Which changes fail the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Silent changes and probe failures (default).
    Silent,
    /// Loud or silent changes and probe failures.
    Loud,
    /// Report only.
    Never,
}

impl FailOn {
    pub fn fails(self, class: Class) -> bool {
        match self {
            FailOn::Silent => class == Class::Silent,
            FailOn::Loud => class >= Class::Loud,
            FailOn::Never => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeKind {
    Call,
    Incomplete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeOutcome {
    Pass,
    Fail,
    Skipped,
}

/// One probe call's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    pub tool: String,
    pub kind: ProbeKind,
    pub outcome: ProbeOutcome,
    /// Rule id for a failure (`call-failed`, ...).
    pub rule: Option<String>,
    pub message: String,
}

/// One server's part of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerReport {
    pub name: String,
    pub status: Status,
    pub error: Option<String>,
    pub changes: Vec<Change>,
    pub probes: Vec<Probe>,
    /// Notes that are not changes: expired ignores, a changed configuration, warnings.
    pub notes: Vec<String>,
}

impl ServerReport {
    pub fn ok(name: &str) -> ServerReport {
        ServerReport {
            name: name.to_string(),
            status: Status::Ok,
            error: None,
            changes: vec![],
            probes: vec![],
            notes: vec![],
        }
    }

    pub fn error(name: &str, message: String) -> ServerReport {
        ServerReport { status: Status::Error, error: Some(message), ..ServerReport::ok(name) }
    }

    pub fn failing_changes(&self, fail_on: FailOn) -> usize {
        self.changes.iter().filter(|c| fail_on.fails(c.class)).count()
    }

    pub fn probe_failures(&self) -> usize {
        self.probes.iter().filter(|p| p.outcome == ProbeOutcome::Fail).count()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub fail_on: FailOn,
    pub servers: Vec<ServerReport>,
}

/// Counts for the summary line and the action's outputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub silent: usize,
    pub loud: usize,
    pub cosmetic: usize,
    pub probe_failures: usize,
    pub errors: usize,
}

impl Report {
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for s in &self.servers {
            if s.status == Status::Error {
                c.errors += 1;
            }
            for ch in &s.changes {
                match ch.class {
                    Class::Silent => c.silent += 1,
                    Class::Loud => c.loud += 1,
                    Class::Cosmetic => c.cosmetic += 1,
                }
            }
            c.probe_failures += s.probe_failures();
        }
        c
    }

    /// `fail` when a change at or above the gate's class, a probe failure (unless `never`), or an
    /// error: a server that could not be checked cannot pass the gate.
    pub fn verdict(&self) -> Verdict {
        let gate = self.servers.iter().any(|s| {
            s.status == Status::Error
                || (self.fail_on != FailOn::Never
                    && (s.failing_changes(self.fail_on) > 0 || s.probe_failures() > 0))
        });
        if gate {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }

    /// 0 pass, 1 the gate fails, 2 an error (after every server was tried).
    pub fn exit_code(&self) -> i32 {
        if self.servers.iter().any(|s| s.status == Status::Error) {
            2
        } else if self.verdict() == Verdict::Fail {
            1
        } else {
            0
        }
    }
}
