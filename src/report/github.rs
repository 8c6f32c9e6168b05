//! `--format github`: GitHub Actions workflow commands, one annotation per tool on its line of
//! the lockfile.
//!
//! `::error` for what fails the gate, `::warning` for the rest of silent and loud; cosmetic
//! changes are left out. One annotation per tool (its highest-ranked finding, `+N more` in the
//! message), most severe first. GitHub shows at most 10 errors and 10 warnings per step, so the
//! slots go by risk: a change whose added words carry a cue first (RULES.md, "Risk within a
//! rule"), then every rule once before any rule twice (a removed tool, a required argument
//! dropped on 20 tools and a removed enum value each get one however many descriptions were
//! reworded); a closing `::notice::` carries the outcome and the counts by class, and how many
//! tools were not annotated. A change of text says what the words now are (the first
//! [`super::finding::WORDS_MAX`] characters added, and the cue), and whatever the server wrote is defanged
//! ([`crate::sink::defang`]): no mention, reference or link.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::finding::{findings, sort_by_severity, words_note, Finding, Level, Source};
use super::story::{self, Tally};
use super::Report;
use crate::json::escape_for_display;
use crate::rules::Class;

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
        .filter(|a| a.worst.level() != Level::Note)
        .collect();
    // Most severe first; ties in server, then tool order (server-level first).
    annotations.sort_by_key(|a| std::cmp::Reverse(a.worst.severity()));
    let chosen = slots(&annotations);

    let mut out = String::new();
    for (a, _) in annotations.iter().zip(&chosen).filter(|(_, c)| **c) {
        let f = &a.worst;
        let command = if f.level() == Level::Error { "error" } else { "warning" };
        let mut props = format!("file={}", escape_property(lock_path));
        if let Some(line) = lock_text.and_then(|t| crate::lockfile::line_of(t, f.server, f.tool)) {
            let _ = write!(props, ",line={line}");
        }
        let what = match f.tool {
            Some(t) => t.to_string(),
            None => format!("server {}", f.server),
        };
        let title = match f.source {
            Source::ServerError => format!("mcp-pin: {} ({})", f.rule, escape_for_display(&what)),
            _ => format!("mcp-pin: {} {} ({})", f.class, f.rule, escape_for_display(&what)),
        };
        let _ = write!(props, ",title={}", escape_property(&title));
        let mut message = format!(
            "{}{}: {}",
            if report.servers.len() > 1 && f.tool.is_some() { format!("{}/", f.server) } else { String::new() },
            what,
            f.message
        );
        message.push_str(&words_note(f));
        if a.more > 0 {
            let _ = write!(message, " (+{} more in the step summary)", a.more);
        }
        let message = crate::sink::defang(&escape_for_display(&message));
        let _ = writeln!(out, "::{command} {props}::{}", escape_data(&message));
    }
    let hidden = chosen.iter().filter(|c| !**c).count();
    let t = Tally::of(report);
    if t.findings.silent + t.findings.loud + t.errors > 0 {
        let mut notice = format!(
            "{}: {} · {}, {}, {}",
            report.outcome().word(),
            story::headline(report),
            t.class_count(Class::Silent),
            t.class_count(Class::Loud),
            t.class_count(Class::Cosmetic)
        );
        if hidden > 0 {
            let _ = write!(
                notice,
                "; {hidden} more tool{} with findings not annotated (GitHub shows {MAX_PER_LEVEL} errors and {MAX_PER_LEVEL} warnings per step): see the step summary or the JSON report",
                if hidden == 1 { "" } else { "s" }
            );
        }
        let _ = writeln!(out, "::notice title=mcp-pin::{}", escape_data(&notice));
    }
    out
}

/// Which annotations (ranked most severe first) get one of the step's slots: per level, in
/// rounds, each round taking the next annotation of every rule in rank order, up to
/// [`MAX_PER_LEVEL`]; so every rule is seen before any rule is seen twice, and within a round
/// the higher risk goes first.
fn slots(ranked: &[Annotation<'_>]) -> Vec<bool> {
    let mut chosen = vec![false; ranked.len()];
    for level in [Level::Error, Level::Warning] {
        // The level's annotations by rule, rules in the order of their first (highest) one.
        let mut by_rule: Vec<(&str, Vec<usize>)> = Vec::new();
        for (i, a) in ranked.iter().enumerate().filter(|(_, a)| a.worst.level() == level) {
            match by_rule.iter_mut().find(|(r, _)| *r == a.worst.rule) {
                Some((_, v)) => v.push(i),
                None => by_rule.push((a.worst.rule, vec![i])),
            }
        }
        let mut left = MAX_PER_LEVEL;
        // A change whose added words carry a cue takes a slot before any round.
        for (i, _) in ranked.iter().enumerate().filter(|(_, a)| a.worst.level() == level && a.worst.cued) {
            if left > 0 {
                chosen[i] = true;
                left -= 1;
            }
        }
        for (_, v) in by_rule.iter_mut() {
            v.retain(|i| !chosen[*i]);
        }
        let rounds = by_rule.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
        for round in 0..rounds {
            for (_, v) in &by_rule {
                if left > 0 {
                    if let Some(&i) = v.get(round) {
                        chosen[i] = true;
                        left -= 1;
                    }
                }
            }
        }
    }
    chosen
}
