//! `--format junit`: JUnit XML for test-report viewers. One `<testsuite>` per server, one
//! `<testcase>` per tool (name = tool, classname = server) with a `<failure>` for each finding
//! of that tool that fails the gate; changes that do not fail it go to `<system-out>`. A server
//! that could not be checked is one `<testcase>` with an `<error>`.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::finding::{findings, Finding, Source};
use super::{Report, Status};
use crate::json::escape_for_display;

/// XML text or attribute value: the five special characters, newlines and tabs as character
/// references (so attributes keep them), and any other control or hidden character spelled out
/// (XML 1.0 cannot hold most control characters at all).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape_for_display(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\u{FFFE}' | '\u{FFFF}' => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Name of the test case that holds a server's server-level changes.
pub const SERVER_CASE: &str = "(server)";

fn line(f: &Finding<'_>) -> String {
    let mut s = format!("{} ({}): {}", f.rule, f.class, f.message);
    if !f.pointer.is_empty() {
        let _ = write!(s, " [at {}]", f.pointer);
    }
    if let Source::Change(c) = f.source {
        for (label, v) in [("before", &c.before), ("after", &c.after)] {
            if let Some(v) = v {
                let _ = write!(
                    s,
                    "\n  {label}: {}",
                    crate::json::to_canonical_string(v).trim_end().replace('\n', "\n    ")
                );
            }
        }
    }
    s
}

pub fn render(report: &Report) -> String {
    let all = findings(report, false);
    let mut suites = String::new();
    let (mut tests_total, mut failures_total, mut errors_total) = (0usize, 0usize, 0usize);
    for s in &report.servers {
        let (mut tests, mut failures, mut errors) = (0usize, 0usize, 0usize);
        let mut cases = String::new();
        if s.status == Status::Error {
            tests += 1;
            errors += 1;
            let message = s.error.as_deref().unwrap_or("the server could not be checked");
            let first = message.lines().next().unwrap_or("");
            let _ = writeln!(
                cases,
                "    <testcase name=\"{}\" classname=\"{}\">\n      <error message=\"{}\" type=\"server-error\">{}</error>\n    </testcase>",
                escape(&s.name),
                escape(&s.name),
                escape(first),
                escape(message)
            );
        }
        // Tools in name order, the server-level case first; every tool a change or probe names.
        let mut by_tool: BTreeMap<Option<&str>, Vec<&Finding<'_>>> = BTreeMap::new();
        for f in all.iter().filter(|f| f.server == s.name && !matches!(f.source, Source::ServerError)) {
            by_tool.entry(f.tool).or_default().push(f);
        }
        for p in &s.probes {
            by_tool.entry(Some(p.tool.as_str())).or_default();
        }
        if s.status == Status::Ok {
            by_tool.entry(None).or_default();
        }
        for (tool, fs) in &by_tool {
            tests += 1;
            let name = tool.unwrap_or(SERVER_CASE);
            let _ = write!(cases, "    <testcase name=\"{}\" classname=\"{}\"", escape(name), escape(&s.name));
            if fs.is_empty() {
                cases.push_str("/>\n");
                continue;
            }
            cases.push_str(">\n");
            if fs.iter().any(|f| f.fails_gate) {
                // JUnit counts failed test cases, not failure elements.
                failures += 1;
            }
            let mut other = Vec::new();
            for f in fs {
                if f.fails_gate {
                    let _ = writeln!(
                        cases,
                        "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                        escape(&format!("{}: {}", f.rule, f.message)),
                        escape(f.rule),
                        escape(&line(f))
                    );
                } else {
                    other.push(line(f));
                }
            }
            if !other.is_empty() {
                let _ = writeln!(cases, "      <system-out>{}</system-out>", escape(&other.join("\n")));
            }
            cases.push_str("    </testcase>\n");
        }
        tests_total += tests;
        failures_total += failures;
        errors_total += errors;
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\">\n{cases}  </testsuite>\n",
            escape(&s.name)
        );
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcp-pin\" tests=\"{tests_total}\" failures=\"{failures_total}\" errors=\"{errors_total}\">\n{suites}</testsuites>\n"
    )
}
