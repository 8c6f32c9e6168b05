//! `--format github`: GitHub Actions workflow commands, one annotation per tool on its line of
//! the lockfile.
//!
//! `::error` for what fails the gate, `::warning` for the rest of silent and loud; cosmetic
//! changes are left out. One annotation per tool (its worst finding, `+N more` in the message),
//! most severe first. GitHub shows at most 10 errors and 10 warnings per step, so the rest are
//! counted in a closing `::notice::` that points to the step summary.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::finding::{findings, sort_by_severity, Finding, Level};
use super::Report;
use crate::json::escape_for_display;

/// GitHub's per-step limit for each of errors and warnings.
pub const MAX_PER_LEVEL: usize = 10;

/// Escape the data part of a workflow command.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escape a property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One annotation: a tool's (or a server's) worst finding and how many others it hides.
struct Annotation<'a> {
    worst: Finding<'a>,
    more: usize,
}

/// Render the annotations. `lock_path` names the lockfile as GitHub should (relative to the
/// repository root); `lock_text` gives the line numbers (none without it).
pub fn render(report: &Report, lock_path: &str, lock_text: Option<&str>) -> String {
    // Group by (server, tool) keeping the first-seen order, then pick each group's worst.
    let mut groups: BTreeMap<(usize, Option<&str>), Vec<Finding<'_>>> = BTreeMap::new();
    let server_index: BTreeMap<&str, usize> =
        report.servers.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
    for f in findings(report, false) {
        groups.entry((server_index[f.server], f.tool)).or_default().push(f);
    }
    let mut annotations: Vec<Annotation<'_>> = groups
        .into_values()
        .map(|mut fs| {
            sort_by_severity(&mut fs);
            let more = fs.len() - 1;
            Annotation { worst: fs.swap_remove(0), more }
        })
        .collect();
    // Most severe first; ties in server, then tool order (server-level first).
    annotations.sort_by_key(|a| std::cmp::Reverse(a.worst.severity()));

    let mut out = String::new();
    let mut shown = [0usize; 2];
    let mut hidden = 0usize;
    for a in &annotations {
        let f = &a.worst;
        let (command, slot) = match f.gate_level() {
            Level::Error => ("error", 0),
            Level::Warning => ("warning", 1),
            Level::Note => continue,
        };
        if shown[slot] == MAX_PER_LEVEL {
            hidden += 1;
            continue;
        }
        shown[slot] += 1;
        let mut props = format!("file={}", escape_property(lock_path));
        if let Some(line) = lock_text.and_then(|t| crate::lockfile::line_of(t, f.server, f.tool)) {
            let _ = write!(props, ",line={line}");
        }
        let what = match f.tool {
            Some(t) => t.to_string(),
            None => format!("server {}", f.server),
        };
        let title = format!("mcp-pin: {} ({})", f.rule, escape_for_display(&what));
        let _ = write!(props, ",title={}", escape_property(&title));
        let mut message = format!(
            "{}{}: {}",
            if report.servers.len() > 1 && f.tool.is_some() { format!("{}/", f.server) } else { String::new() },
            what,
            f.message
        );
        if a.more > 0 {
            let _ = write!(message, " (+{} more in the step summary)", a.more);
        }
        let _ = writeln!(out, "::{command} {props}::{}", escape_data(&escape_for_display(&message)));
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "::notice title=mcp-pin::{}",
            escape_data(&format!(
                "{hidden} more tool{} with findings not annotated (GitHub shows {MAX_PER_LEVEL} errors and {MAX_PER_LEVEL} warnings per step); see the step summary or the JSON report",
                if hidden == 1 { "" } else { "s" }
            ))
        );
    }
    out
}
