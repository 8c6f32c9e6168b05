//! `--format junit`: JUnit XML for test-report viewers, written by nextest's `quick-junit` (its
//! data model and XML writer), so the document is well formed by construction.
//!
//! One `<testsuite>` per server, one `<testcase>` per tool (name = tool, classname = server, the
//! server-level findings in `(server)`). A test case fails when one of its findings fails the
//! gate: one `<failure>` (type = the highest-risk failing rule, message = it, text = every
//! failing finding, each labelled with its class); the tool's findings that do not fail the
//! gate are its `<system-out>`, each labelled with its class too. A server that could not be
//! checked is one test case with an `<error>`.

use std::collections::BTreeMap;
use std::fmt::Write;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::finding::{findings, Finding, Source};
use super::story::Tally;
use super::{Report, Status};
use crate::json::escape_for_display;
use crate::rules::Class;

/// Name of the test case that holds a server's server-level changes.
pub const SERVER_CASE: &str = "(server)";

/// Text for XML: hidden characters spelled out, and the two non-characters XML 1.0 cannot hold
/// (`quick-junit` drops the control characters itself).
fn xml_text(s: &str) -> String {
    escape_for_display(s).replace('\u{FFFE}', "\\u{FFFE}").replace('\u{FFFF}', "\\u{FFFF}")
}

/// One finding as a line: `[silent] required-removed: message [at /pointer]`, with its before
/// and after for a change.
fn line(f: &Finding<'_>) -> String {
    let mut s = format!("[{}] {}: {}{}", f.class, f.rule, f.message, super::finding::words_note(f));
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

fn test_case(server: &str, tool: Option<&str>, mut fs: Vec<&Finding<'_>>) -> TestCase {
    fs.sort_by_key(|f| std::cmp::Reverse(f.severity()));
    let (failing, other): (Vec<&Finding<'_>>, Vec<&Finding<'_>>) = fs.into_iter().partition(|f| f.fails_gate);
    let status = match failing.first() {
        None => TestCaseStatus::success(),
        Some(worst) => {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(xml_text(&format!(
                "{} {}: {}{}",
                worst.class,
                worst.rule,
                worst.message,
                super::finding::words_note(worst)
            )));
            st.set_type(worst.rule);
            st.set_description(xml_text(&failing.iter().map(|f| line(f)).collect::<Vec<_>>().join("\n")));
            st
        }
    };
    let mut case = TestCase::new(xml_text(tool.unwrap_or(SERVER_CASE)), status);
    case.set_classname(xml_text(server));
    if !other.is_empty() {
        case.set_system_out(xml_text(&other.iter().map(|f| line(f)).collect::<Vec<_>>().join("\n")));
    }
    case
}

pub fn render(report: &Report) -> String {
    let all = findings(report, false);
    let mut out = quick_junit::Report::new("mcp-pin");
    for s in &report.servers {
        let mut suite = TestSuite::new(xml_text(&s.name));
        // The counts by class, as every other format gives them.
        let t = Tally::of_server(s);
        for class in [Class::Silent, Class::Loud, Class::Cosmetic] {
            suite.add_property(Property::new(class.as_str(), t.findings.get(class).to_string()));
        }
        if s.status == Status::Error {
            let message = s.error.as_deref().unwrap_or("the server could not be checked");
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
            st.set_message(xml_text(message.lines().next().unwrap_or("")));
            st.set_type(super::finding::SERVER_ERROR_RULE);
            st.set_description(xml_text(message));
            let mut case = TestCase::new(xml_text(&s.name), st);
            case.set_classname(xml_text(&s.name));
            suite.add_test_case(case);
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
        for (tool, fs) in by_tool {
            suite.add_test_case(test_case(&s.name, tool, fs));
        }
        out.add_test_suite(suite);
    }
    out.to_string().expect("JUnit XML serialises")
}
