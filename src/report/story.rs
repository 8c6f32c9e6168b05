//! The one story every format tells of a report: how the run ends ([`Outcome`]), how many
//! findings of each class there are ([`Tally`]: changes and failing probe calls alike), the
//! headline under which a reviewer meets them, and what to do next. The renderers take their
//! words and numbers from here, so the markdown comment, the terminal, the annotations, SARIF and
//! JUnit cannot tell different stories.

use serde::Serialize;

use super::{FailOn, ProbeOutcome, Report, ServerReport, Status};
use crate::rules::Class;
use crate::rules::RuleId;

/// How a run ends, as every format heads it. An error (a server that could not be checked, exit
/// 2) outranks a failed gate (exit 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Error,
}

impl Outcome {
    pub fn of(report: &Report) -> Outcome {
        if report.servers.iter().any(|s| s.status == Status::Error) {
            Outcome::Error
        } else if report.verdict() == super::Verdict::Fail {
            Outcome::Fail
        } else {
            Outcome::Pass
        }
    }

    /// `PASS`, `FAIL` or `ERROR`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Error => "ERROR",
        }
    }
}

/// Counts by class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ClassCounts {
    pub silent: usize,
    pub loud: usize,
    pub cosmetic: usize,
}

impl ClassCounts {
    pub fn add(&mut self, class: Class) {
        match class {
            Class::Silent => self.silent += 1,
            Class::Loud => self.loud += 1,
            Class::Cosmetic => self.cosmetic += 1,
        }
    }

    pub fn get(&self, class: Class) -> usize {
        match class {
            Class::Silent => self.silent,
            Class::Loud => self.loud,
            Class::Cosmetic => self.cosmetic,
        }
    }

    pub fn plus(self, o: ClassCounts) -> ClassCounts {
        ClassCounts { silent: self.silent + o.silent, loud: self.loud + o.loud, cosmetic: self.cosmetic + o.cosmetic }
    }

    /// Those that fail `fail_on`.
    pub fn failing(&self, fail_on: FailOn) -> usize {
        [Class::Silent, Class::Loud, Class::Cosmetic]
            .into_iter()
            .filter(|c| fail_on.fails(*c))
            .map(|c| self.get(c))
            .sum()
    }
}

/// What a report (or one server) found, by class: every change and every failing probe call is
/// one finding of its class (after policy); `probes` counts the part that came from probe calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub findings: ClassCounts,
    pub probes: ClassCounts,
    /// Servers that could not be checked.
    pub errors: usize,
}

impl Tally {
    pub fn of_server(s: &ServerReport) -> Tally {
        let mut t = Tally { errors: usize::from(s.status == Status::Error), ..Tally::default() };
        for c in &s.changes {
            t.findings.add(c.class);
        }
        for p in s.probes.iter().filter(|p| p.outcome == ProbeOutcome::Fail) {
            t.findings.add(p.effective_class());
            t.probes.add(p.effective_class());
        }
        t
    }

    pub fn of(report: &Report) -> Tally {
        report.servers.iter().map(Tally::of_server).fold(Tally::default(), |a, b| Tally {
            findings: a.findings.plus(b.findings),
            probes: a.probes.plus(b.probes),
            errors: a.errors + b.errors,
        })
    }

    /// `3 silent`, or `3 silent (1 from probes)` when probe calls found some of them.
    pub fn class_count(&self, class: Class) -> String {
        let n = self.findings.get(class);
        match self.probes.get(class) {
            0 => format!("{n} {class}"),
            p => format!("{n} {class} ({p} from probes)"),
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The line a report is headed with, after its outcome's word: what blocks the merge, or why
/// nothing does. `FAIL · 36 silent changes block the merge`.
pub fn headline(report: &Report) -> String {
    let t = Tally::of(report);
    let f = t.findings;
    match Outcome::of(report) {
        Outcome::Error => {
            let mut s = format!("{} could not be checked", plural(t.errors, "server", "servers"));
            let failing = f.failing(report.fail_on);
            if failing > 0 && report.fail_on != FailOn::Never {
                s.push_str(&format!(
                    ", and {} {} the merge",
                    changes(failing, report.fail_on),
                    if failing == 1 { "blocks" } else { "block" }
                ));
            }
            s
        }
        Outcome::Fail => {
            let n = f.failing(report.fail_on);
            format!("{} {} the merge", changes(n, report.fail_on), if n == 1 { "blocks" } else { "block" })
        }
        Outcome::Pass if f.silent + f.loud == 0 => {
            if f.cosmetic > 0 {
                "no change in meaning".into()
            } else {
                "no change".into()
            }
        }
        Outcome::Pass if report.fail_on == FailOn::Never => {
            format!("report only (`--fail-on never`): {} silent, {} loud", f.silent, f.loud)
        }
        Outcome::Pass => format!("nothing silent; {} to review", plural(f.loud, "loud change", "loud changes")),
    }
}

/// `36 silent changes`, or under `--fail-on loud` `3 silent or loud changes`.
fn changes(n: usize, fail_on: FailOn) -> String {
    match fail_on {
        FailOn::Loud => plural(n, "silent or loud change", "silent or loud changes"),
        _ => plural(n, "silent change", "silent changes"),
    }
}

/// What a silent change is, in a sentence a reviewer reads once.
pub const SILENT_MEANS: &str =
    "keeps every call succeeding while what the call means changes: no error will ever report it";
/// What a loud change is.
pub const LOUD_MEANS: &str = "breaks with an error if it breaks anyone";

/// The servers a `mcp-pin lock` would take new pins for: those checked with a finding that is
/// not cosmetic.
pub fn drifted(report: &Report) -> Vec<&str> {
    report
        .servers
        .iter()
        .filter(|s| s.status == Status::Ok)
        .filter(|s| {
            let t = Tally::of_server(s);
            t.findings.silent + t.findings.loud > 0
        })
        .map(|s| s.name.as_str())
        .collect()
}

/// The command that accepts the drift once it is reviewed: `mcp-pin lock --server NAME` for
/// each drifted server (plain `mcp-pin lock` when that is every server of a report of several).
pub fn accept_command(report: &Report) -> Option<String> {
    let names = drifted(report);
    if names.is_empty() {
        return None;
    }
    if names.len() > 1 && names.len() == report.servers.len() {
        return Some("mcp-pin lock".into());
    }
    let mut cmd = "mcp-pin lock".to_string();
    for n in names {
        cmd.push_str(" --server ");
        cmd.push_str(&shell_word(n));
    }
    Some(cmd)
}

/// A server name as one shell word (quoted unless it is plain).
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:/@+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Each server whose `serverInfo.version` changed: (server, reviewed version, version now).
pub fn version_bumps(report: &Report) -> Vec<(&str, String, String)> {
    let shown = |v: &Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => crate::json::to_canonical_string(v),
        None => "(none)".into(),
    };
    report
        .servers
        .iter()
        .flat_map(|s| {
            s.changes
                .iter()
                .filter(|c| c.rule == RuleId::ServerVersionChanged)
                .map(move |c| (s.name.as_str(), shown(&c.before), shown(&c.after)))
        })
        .collect()
}

/// How many tools are gone and how many remain, for a server whose tool counts are known and
/// that lost tools: `37 of 44 tools removed, 7 remain`.
pub fn removed_line(s: &ServerReport) -> Option<String> {
    let counts = s.tools?;
    let every = s.changes.iter().any(|c| c.rule == RuleId::ToolRemoved && c.tool.is_none());
    let removed = if every {
        counts.pinned
    } else {
        s.changes.iter().filter(|c| c.rule == RuleId::ToolRemoved && c.tool.is_some()).count()
    };
    if removed == 0 {
        return None;
    }
    let remain = counts.pinned.saturating_sub(removed);
    Some(format!(
        "{removed} of {} removed, {remain} {}",
        plural(counts.pinned, "tool", "tools"),
        if remain == 1 { "remains" } else { "remain" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("github"), "github");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
