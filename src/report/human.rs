//! The human report: grouped by server and tool, one line per change, the gate's verdict last.

use std::fmt::Write;

use super::{ProbeOutcome, Report, ServerReport, Status, Verdict};
use crate::change::{Change, Class};
use crate::json::{escape_for_display, escape_line};

#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub color: bool,
    pub verbose: bool,
}

fn paint(style: &Style, code: &str, text: &str) -> String {
    if style.color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

fn class_label(style: &Style, class: Class) -> String {
    match class {
        Class::Silent => paint(style, "1;31", "silent  "),
        Class::Loud => paint(style, "33", "loud    "),
        Class::Cosmetic => paint(style, "2", "cosmetic"),
    }
}

/// The most time one text diff may take: Myers' diff is quadratic on texts that share
/// little, so past this it settles for a coarser (still correct) diff.
pub const DIFF_TIME: std::time::Duration = std::time::Duration::from_millis(100);

/// Whether a word diff says more than the change's message: for text with several words (a
/// description), or with a hidden character; not for one-word values like versions.
pub fn worth_word_diff(before: &str, after: &str) -> bool {
    let telling = |s: &str| s.trim().contains(char::is_whitespace) || s.chars().any(crate::json::is_hidden_char);
    telling(before) || telling(after)
}

/// A word-level diff of two texts: removed words as `[-word-]` and added ones as `{+word+}`, or
/// red and green with `color`. Hidden characters are always spelled out (`\u{200B}`).
///
/// Whitespace between two changed words joins the change, so a rewritten sentence reads as one
/// `[-old sentence-]{+new sentence+}`, not as a word-by-word interleaving.
pub fn word_diff(before: &str, after: &str, color: bool) -> String {
    use similar::{ChangeTag, TextDiff};
    let diff = TextDiff::configure().timeout(DIFF_TIME).diff_words(before, after);
    let mut out = String::new();
    let (mut del, mut ins, mut gap) = (String::new(), String::new(), String::new());
    let flush = |out: &mut String, del: &mut String, ins: &mut String| {
        if del.trim().is_empty() && ins.trim().is_empty() {
            // only whitespace changed here (a reflow inside a larger change): shown as it is now
            out.push_str(&escape_for_display(ins));
            del.clear();
            ins.clear();
            return;
        }
        for (text, tag) in [(&mut *del, ChangeTag::Delete), (&mut *ins, ChangeTag::Insert)] {
            if text.is_empty() {
                continue;
            }
            let t = escape_for_display(text);
            match (tag, color) {
                (ChangeTag::Delete, false) => out.push_str(&format!("[-{t}-]")),
                (ChangeTag::Delete, true) => out.push_str(&format!("\x1b[31m{t}\x1b[0m")),
                (_, false) => out.push_str(&format!("{{+{t}+}}")),
                (_, true) => out.push_str(&format!("\x1b[32m{t}\x1b[0m")),
            }
            text.clear();
        }
    };
    for change in diff.iter_all_changes() {
        let v = change.value();
        match change.tag() {
            ChangeTag::Equal if (!del.is_empty() || !ins.is_empty()) && v.trim().is_empty() => gap.push_str(v),
            ChangeTag::Equal => {
                flush(&mut out, &mut del, &mut ins);
                out.push_str(&escape_for_display(&gap));
                gap.clear();
                out.push_str(&escape_for_display(v));
            }
            tag => {
                if !gap.is_empty() {
                    for buf in [&mut del, &mut ins] {
                        if !buf.is_empty() {
                            buf.push_str(&gap);
                        }
                    }
                    gap.clear();
                }
                if tag == ChangeTag::Delete {
                    del.push_str(v)
                } else {
                    ins.push_str(v)
                }
            }
        }
    }
    flush(&mut out, &mut del, &mut ins);
    out.push_str(&escape_for_display(&gap));
    out
}

/// The before and after text of a change worth a word diff: both strings, or, for a description
/// or instructions appearing or disappearing (whose message does not quote them), one string and
/// nothing.
/// A change to text the model reads as prose (a description, the instructions), whose message
/// does not quote it: its text is always worth showing, even one word.
pub fn is_prose(c: &Change) -> bool {
    c.rule.as_str().contains("description") || c.rule.as_str().contains("instructions")
}

pub fn texts(c: &Change) -> Option<(&str, &str)> {
    use serde_json::Value;
    let prose = is_prose(c);
    match (&c.before, &c.after) {
        (Some(Value::String(b)), Some(Value::String(a))) => Some((b, a)),
        (Some(Value::String(b)), None | Some(Value::Null)) if prose => Some((b, "")),
        (None | Some(Value::Null), Some(Value::String(a))) if prose => Some(("", a)),
        _ => None,
    }
}

/// The diff of two texts as shown under a change: a word diff, and for long texts (over 12 lines)
/// only the changed lines with two lines of context around each change, each part headed by
/// its line number in the new text.
pub fn text_diff(before: &str, after: &str, color: bool) -> String {
    if before.lines().count() <= 12 && after.lines().count() <= 12 {
        return word_diff(before, after, color);
    }
    let diff = similar::TextDiff::configure().timeout(DIFF_TIME).diff_lines(before, after);
    let (old_lines, new_lines): (Vec<&str>, Vec<&str>) =
        (before.split_inclusive('\n').collect(), after.split_inclusive('\n').collect());
    let mut parts = Vec::new();
    for group in diff.grouped_ops(2) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        let o: String = old_lines.get(old).map(|l| l.concat()).unwrap_or_default();
        let n: String = new_lines.get(new.clone()).map(|l| l.concat()).unwrap_or_default();
        parts.push(format!("(line {})\n{}", new.start + 1, word_diff(&o, &n, color).trim_end_matches('\n')));
    }
    if parts.is_empty() {
        return word_diff(before, after, color);
    }
    parts.join("\n...\n")
}

/// At most `max` lines of `text`, then how many were left out.
pub fn clip_lines(text: &str, max: usize) -> String {
    let total = text.lines().count();
    if total <= max {
        return text.to_string();
    }
    let mut out: Vec<&str> = text.lines().take(max).collect();
    let more = format!("... ({} more lines; --verbose shows all)", total - max);
    out.push(&more);
    out.join("\n")
}

/// How many lines a server's changes may take at the terminal before they are summed up by
/// rule (the details then move under `--verbose`).
pub const MAX_LINES: usize = 30;

/// How many tool names a grouped line shows before `… (+N)`.
pub const NAMES_SHOWN: usize = 3;

/// One change line with its word diff (and, verbose, its pointer).
fn change_lines(out: &mut String, style: &Style, c: &Change, message: &str) {
    let _ = writeln!(out, "    {} {:<28} {}", class_label(style, c.class), c.rule, escape_for_display(message));
    if let Some((b, a)) = texts(c) {
        if worth_word_diff(b, a) || is_prose(c) {
            let mut diff = text_diff(b, a, style.color);
            if !style.verbose {
                diff = clip_lines(&diff, 20);
            }
            let _ = writeln!(out, "             {}", diff.replace('\n', "\n             "));
        }
    }
    if style.verbose && !c.pointer.is_empty() {
        let _ = writeln!(out, "             at {}", escape_line(&c.pointer));
    }
}

/// Changes under their tool's heading (server-level ones first), in the diff's order.
fn by_tool(out: &mut String, style: &Style, changes: &[&Change]) {
    let mut current_tool: Option<Option<&str>> = None;
    for c in changes {
        let tool = c.tool.as_deref();
        if current_tool != Some(tool) {
            match tool {
                Some(t) => {
                    let _ = writeln!(out, "  tool {}", paint(style, "1", &escape_line(t)));
                }
                None => {
                    let _ = writeln!(out, "  server-level");
                }
            }
            current_tool = Some(tool);
        }
        change_lines(out, style, c, &c.message);
    }
}

/// The changes as a reviewer reads them: a change alone under its tool, as it always read;
/// the same change on several tools as one line naming the tools.
fn grouped(out: &mut String, style: &Style, changes: &[&Change]) {
    let groups = super::group::groups(changes);
    let mut singles: Vec<&Change> = groups.iter().filter(|g| g.len() == 1).map(|g| g.changes[0]).collect();
    // Back in the diff's order (tool, pointer, rule), as the report read before grouping.
    singles.sort_by_key(|c| changes.iter().position(|x| std::ptr::eq(*x, *c)));
    by_tool(out, style, &singles);
    let many: Vec<&super::group::Group<'_>> = groups.iter().filter(|g| g.len() > 1).collect();
    if many.is_empty() {
        return;
    }
    let _ = writeln!(out, "  across tools");
    for g in many {
        let message = format!("{} on {} tools: {}", g.message, g.len(), super::group::name_list(&g.tools, NAMES_SHOWN));
        change_lines(out, style, g.changes[0], &message);
    }
}

/// Past [`MAX_LINES`]: one line per rule naming its tools, details under `--verbose`.
fn summed_up(out: &mut String, style: &Style, changes: &[&Change]) {
    for (class, rule, tools) in super::group::by_rule(changes) {
        let server = tools.contains(&"the server");
        let tools: Vec<&str> = tools.into_iter().filter(|t| *t != "the server").collect();
        let mut what = Vec::new();
        if server {
            what.push("the server".to_string());
        }
        if !tools.is_empty() {
            what.push(format!(
                "{} {}: {}",
                tools.len(),
                if tools.len() == 1 { "tool" } else { "tools" },
                super::group::name_list(&tools, NAMES_SHOWN)
            ));
        }
        let _ = writeln!(out, "    {} {:<28} {}", class_label(style, class), rule, what.join("; "));
    }
    let _ = writeln!(
        out,
        "    ({} changes summed up by rule; --verbose shows each, and the markdown and JSON reports keep them all)",
        changes.len()
    );
}

/// The probes: each failure on its own line; the rest in one line (each line with -v).
fn probes(out: &mut String, style: &Style, server: &super::ServerReport) {
    let mut heading = false;
    let mut head = |out: &mut String| {
        if !heading {
            let _ = writeln!(out, "  probes");
            heading = true;
        }
    };
    for p in &server.probes {
        let shown = match p.outcome {
            ProbeOutcome::Fail => true,
            _ => style.verbose && !p.message.contains("probe = \"none\""),
        };
        if !shown {
            continue;
        }
        head(out);
        out.push_str(&probe_line(style, p));
    }
    // One line for the server: how many tools were called, passed, failed, skipped and why (the
    // probe run's own summary when the report has it).
    // `probe = "none"` for every tool: nothing about probes is worth a line.
    if !server.probes.is_empty() && server.probes.iter().all(|p| p.message.contains("probe = \"none\"")) {
        return;
    }
    if server.probes.is_empty() {
        return;
    }
    // A report read back from JSON without its summary gets the same line from its probes.
    let line = server.probe_summary.clone().unwrap_or_else(|| crate::probe::probe_summary(&server.probes));
    let hint = if !style.verbose && line.contains("skipped") { "; -v shows each line" } else { "" };
    let _ = writeln!(out, "  probes: {}{hint}", escape_for_display(&line));
}

/// One probe as a report line (`    pass    RULE  tool (incomplete call) in the sandbox: message`),
/// saying where its call was made when it was made.
pub fn probe_line(style: &Style, p: &super::Probe) -> String {
    use super::ProbeKind;
    let label = match p.outcome {
        ProbeOutcome::Pass => paint(style, "32", "pass    "),
        // A failure of a class that passes the default gate says its class.
        ProbeOutcome::Fail if p.effective_class() != Class::Silent => class_label(style, p.effective_class()),
        ProbeOutcome::Fail => paint(style, "1;31", "probe   "),
        ProbeOutcome::Skipped => paint(style, "2", "skipped "),
    };
    let what = match p.kind {
        ProbeKind::Call => "",
        ProbeKind::Incomplete => " (incomplete call)",
    };
    let at = p.place.map(|place| format!(" in the {}", place.as_str())).unwrap_or_default();
    format!(
        "    {} {:<28} {}{what}{at}: {}\n",
        label,
        p.rule.map_or("", |r| r.as_str()),
        escape_line(&p.tool),
        escape_for_display(&p.message)
    )
}

/// `server NAME`, the line each server's part of the report opens with.
fn server_line(out: &mut String, style: &Style, server: &ServerReport) {
    let _ = writeln!(out, "{}", paint(style, "1", &format!("server {}", escape_line(&server.name))));
}

/// `  error: ...`, a server's error, its further lines indented under it.
fn error_lines(out: &mut String, style: &Style, server: &ServerReport) {
    let _ = writeln!(
        out,
        "  {} {}",
        paint(style, "1;31", "error:"),
        escape_for_display(server.error.as_deref().unwrap_or("")).replace('\n', "\n  ")
    );
}

pub fn render(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    for server in &report.servers {
        server_line(&mut out, style, server);
        let shown: Vec<&Change> =
            server.changes.iter().filter(|c| style.verbose || c.class != Class::Cosmetic).collect();
        if !shown.is_empty() {
            let _ = writeln!(out, "  {}", super::group::summary_line(&shown));
        }
        if server.status == Status::Error {
            error_lines(&mut out, style, server);
        }
        for note in &server.notes {
            let _ = writeln!(out, "  note: {}", escape_for_display(note));
        }
        if style.verbose {
            by_tool(&mut out, style, &shown);
        } else {
            let mut body = String::new();
            grouped(&mut body, style, &shown);
            if body.lines().count() > MAX_LINES {
                body.clear();
                summed_up(&mut body, style, &shown);
            }
            out.push_str(&body);
        }
        probes(&mut out, style, server);
        if server.status == Status::Ok && shown.is_empty() && server.probe_failures() == 0 {
            let hidden = server.changes.len();
            if hidden > 0 {
                let _ = writeln!(out, "  no change in meaning ({hidden} cosmetic; --verbose shows them)");
            } else {
                let _ = writeln!(out, "  no change");
            }
        }
    }
    out.push_str(&verdict_line(report, style));
    out
}

/// The report's last line: `PASS:` or `FAIL:` with the counts and the gate.
fn verdict_line(report: &Report, style: &Style) -> String {
    let c = report.counts();
    let verdict = match report.verdict() {
        Verdict::Pass => paint(style, "1;32", "PASS"),
        Verdict::Fail => paint(style, "1;31", "FAIL"),
    };
    format!(
        "{verdict}: {} silent, {} loud, {} cosmetic{}, {} probe failure{}, {} server error{} ({} server{}; gate: --fail-on {})\n",
        c.silent,
        c.loud,
        c.cosmetic,
        if c.cosmetic > 0 && !style.verbose { " (-v shows)" } else { "" },
        c.probe_failures,
        if c.probe_failures == 1 { "" } else { "s" },
        c.errors,
        if c.errors == 1 { "" } else { "s" },
        report.servers.len(),
        if report.servers.len() == 1 { "" } else { "s" },
        match report.fail_on {
            super::FailOn::Silent => "silent",
            super::FailOn::Loud => "loud",
            super::FailOn::Never => "never",
        }
    )
}

/// `--quiet`: only each server error, under its server's name, and the verdict line.
pub fn render_quiet(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    for server in report.servers.iter().filter(|s| s.status == Status::Error) {
        server_line(&mut out, style, server);
        error_lines(&mut out, style, server);
    }
    out.push_str(&verdict_line(report, style));
    out
}

/// A rendered human report without its verdict line (whatever colour codes lead it).
pub fn without_verdict(rendered: &str) -> String {
    rendered.lines().filter(|l| !is_verdict_line(l)).map(|l| format!("{l}\n")).collect()
}

/// Whether a line of the human report is its `PASS:` / `FAIL:` verdict, coloured or not.
pub fn is_verdict_line(line: &str) -> bool {
    let plain = strip_ansi(line);
    plain.starts_with("PASS:") || plain.starts_with("FAIL:")
}

/// `s` without ANSI escape sequences (`ESC [ ... letter`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
