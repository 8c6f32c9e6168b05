//! The human report: grouped by server and tool, one line per change, the gate's verdict last.

use std::fmt::Write;

use super::story::{self, Outcome, Tally};
use super::textdiff::{clip_lines, shown_texts, text_diff};
use super::{ProbeOutcome, Report, ServerReport, Status};
use crate::change::Change;
use crate::json::{escape_for_display, escape_line};
use crate::rules::Class;

#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    pub color: bool,
    pub verbose: bool,
    /// The terminal's width in columns: long lines wrap under their message's own indent
    /// ([`wrap`]); 0 (not a terminal) never wraps.
    pub width: usize,
}

/// The width of the terminal stdout is, or 0 when it is not one.
pub fn terminal_width() -> usize {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return 0;
    }
    terminal_size::terminal_size().map_or(0, |(w, _)| usize::from(w.0))
}

/// Where a line's continuation starts: under the message of a finding line (`    silent   RULE
/// message`, the column after the rule), else under the line's own first character.
fn hanging_indent(plain: &str) -> usize {
    let lead = plain.len() - plain.trim_start_matches(' ').len();
    if lead == 4 {
        let label = plain.get(4..12).unwrap_or("").trim();
        if Class::parse(label).is_some() || label == "pass" || label == "skipped" {
            // The rule column is padded to 28 and followed by one space.
            let rest = plain.get(13..).unwrap_or("");
            let rule = rest.split(' ').next().unwrap_or("");
            let column = 13 + rule.len().max(28) + 1;
            if plain.len() > column {
                return column;
            }
        }
    }
    lead
}

/// `text` with every line longer than `width` columns broken at spaces, each continuation
/// under the line's own indent ([`hanging_indent`]), colour codes kept and not counted.
pub fn wrap(text: &str, width: usize) -> String {
    if width < 40 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let plain = strip_ansi(body);
        if plain.chars().count() <= width {
            out.push_str(line);
            continue;
        }
        let mut indent = hanging_indent(&plain);
        if indent + 20 > width {
            indent = 4;
        }
        let lead = body.len() - body.trim_start_matches(' ').len();
        out.push_str(&body[..lead]);
        let mut col = lead;
        let mut first = true;
        for word in body[lead..].trim_end().split(' ') {
            let w = strip_ansi(word).chars().count();
            if !first && col + 1 + w > width {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                col = indent;
            } else if !first {
                out.push(' ');
                col += 1;
            }
            out.push_str(word);
            col += w;
            first = false;
        }
        out.push_str(nl);
    }
    out
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

/// How many lines a server's changes may take at the terminal before they are summed up by
/// rule (the details then move under `--verbose`).
pub const MAX_LINES: usize = 30;

/// How many tool names a grouped line shows before `… (+N)`.
pub const NAMES_SHOWN: usize = 3;

/// One change line with its word diff (and, verbose, its pointer); a change whose added words
/// carry a cue says which under it.
fn change_lines(out: &mut String, style: &Style, c: &Change, message: &str) {
    let _ = writeln!(out, "    {} {:<28} {}", class_label(style, c.class), c.rule, escape_for_display(message));
    if let Some(cues) = c.cues.as_ref().filter(|_| c.cued()) {
        let _ = writeln!(
            out,
            "             {} {}",
            paint(style, "1;31", "read first: carries"),
            escape_line(&cues.describe())
        );
    }
    if let Some((b, a)) = shown_texts(c) {
        let mut diff = text_diff(b, a, style.color);
        if !style.verbose {
            diff = clip_lines(&diff, 20);
        }
        let _ = writeln!(out, "             {}", diff.replace('\n', "\n             "));
    }
    if style.verbose && !c.pointer.is_empty() {
        let _ = writeln!(out, "             at {}", escape_line(&c.pointer));
    }
}

/// One item `review` asks about (a tool's changes, or a server's server-level ones): its rows,
/// highest-ranked first, each with its words, its cue and where it is, wrapped at the width.
pub fn review_item(changes: &[Change], style: &Style) -> String {
    let mut sorted: Vec<&Change> = changes.iter().collect();
    sorted.sort_by_key(|c| std::cmp::Reverse(c.rank()));
    let mut out = String::new();
    for c in sorted {
        change_lines(&mut out, style, c, &c.message);
    }
    if style.width > 0 {
        wrap(&out, style.width)
    } else {
        out
    }
}

/// Changes under their tool's heading, tools by their highest-ranked change (a cue first, then
/// class, then risk: [`Change::rank`]) and then in the diff's order, each tool's changes in
/// that order too.
fn by_tool(out: &mut String, style: &Style, changes: &[&Change]) {
    use std::cmp::Reverse;
    let mut first_seen: std::collections::HashMap<Option<&str>, (Reverse<crate::rules::cues::Rank>, usize)> =
        std::collections::HashMap::new();
    for (i, c) in changes.iter().enumerate() {
        let e = first_seen.entry(c.tool.as_deref()).or_insert((Reverse(c.rank()), i));
        e.0 = e.0.min(Reverse(c.rank()));
    }
    let mut keyed: Vec<((Reverse<crate::rules::cues::Rank>, usize), &Change)> =
        changes.iter().map(|c| (first_seen[&c.tool.as_deref()], *c)).collect();
    keyed.sort_by_key(|(tool, c)| (*tool, Reverse(c.rank())));
    let mut current_tool: Option<Option<&str>> = None;
    for (_, c) in keyed {
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
        let message =
            format!("{} on {} tools: {}", g.headline(), g.len(), super::group::name_list(&g.tools, NAMES_SHOWN));
        change_lines(out, style, g.changes[0], &message);
    }
}

/// Past [`MAX_LINES`]: each change that carries a cue first, with its words and its cue (no
/// view sums one up: RULES.md, "Risk within a rule"); then the rest, one line per rule naming
/// its tools, details under `--verbose`.
fn summed_up(out: &mut String, style: &Style, changes: &[&Change]) {
    let (cued, rest): (Vec<&Change>, Vec<&Change>) = changes.iter().copied().partition(|c| c.cued());
    if !cued.is_empty() {
        grouped(out, style, &cued);
    }
    if rest.is_empty() {
        return;
    }
    let changes = &rest[..];
    if !cued.is_empty() {
        let _ = writeln!(out, "  the other {} changes, by rule", changes.len());
    }
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
            _ => style.verbose && !p.unprobed_by_config(),
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
    if !server.probes.is_empty() && server.probes.iter().all(super::Probe::unprobed_by_config) {
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
        // A finding of a probe call says its class, like a change.
        ProbeOutcome::Fail => class_label(style, p.effective_class()),
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
    let out = render_unwrapped(report, style);
    if style.width > 0 {
        wrap(&out, style.width)
    } else {
        out
    }
}

fn render_unwrapped(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    for server in &report.servers {
        server_line(&mut out, style, server);
        let shown: Vec<&Change> =
            server.changes.iter().filter(|c| style.verbose || c.class != Class::Cosmetic).collect();
        if !shown.is_empty() {
            let _ = writeln!(out, "  {}", super::group::summary_line(&shown));
        }
        if let Some(line) = story::removed_line(server) {
            let _ = writeln!(out, "  {line}");
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
    if let Some(cmd) = story::accept_command(report).filter(|_| Outcome::of(report) != Outcome::Pass) {
        let _ = writeln!(out, "accept after review: {cmd}, then commit the lockfile");
        let hold = story::version_bumps(report)
            .iter()
            .map(|(s, from, to)| {
                format!(" {} at {} (it now serves {})", escape_line(s), escape_line(from), escape_line(to))
            })
            .collect::<Vec<_>>()
            .join(",");
        let _ = writeln!(
            out,
            "not wanted? keep the gate red (do not lock), hold the server{hold} where its launch command names the version, and report the change upstream"
        );
    }
    out.push_str(&verdict_line(report, style));
    out
}

/// The report's last line: `PASS:`, `FAIL:` or `ERROR:` with the headline, the counts by class
/// (probe findings included, and said) and the gate.
fn verdict_line(report: &Report, style: &Style) -> String {
    let t = Tally::of(report);
    let outcome = Outcome::of(report);
    let word = match outcome {
        Outcome::Pass => paint(style, "1;32", "PASS"),
        Outcome::Fail => paint(style, "1;31", "FAIL"),
        Outcome::Error => paint(style, "1;31", "ERROR"),
    };
    format!(
        "{word}: {} · {}, {}, {}{}, {} server error{} ({} server{}; gate: --fail-on {})\n",
        story::headline(report),
        t.class_count(Class::Silent),
        t.class_count(Class::Loud),
        t.class_count(Class::Cosmetic),
        if t.findings.cosmetic > 0 && !style.verbose { " (-v shows)" } else { "" },
        t.errors,
        if t.errors == 1 { "" } else { "s" },
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

/// Whether a line of the human report is its `PASS:` / `FAIL:` / `ERROR:` verdict, coloured or
/// not.
pub fn is_verdict_line(line: &str) -> bool {
    let plain = strip_ansi(line);
    ["PASS:", "FAIL:", "ERROR:"].iter().any(|w| plain.starts_with(w))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_under_their_message_at_the_width() {
        let finding = format!("    silent   {:<28} {}\n", "description-changed", "word ".repeat(30));
        let diff = format!("             {}\n", "{+added+} ".repeat(20));
        let wrapped = wrap(&format!("{finding}{diff}short\n"), 80);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{wrapped}");
        assert!(lines[0].starts_with("    silent   description-changed"), "{wrapped}");
        // Continuations start under the message (column 42), not at column 0.
        assert!(lines[1].starts_with(&format!("{}word", " ".repeat(42))), "{wrapped}");
        let diff_lines: Vec<&&str> = lines.iter().filter(|l| l.contains("{+added+}")).collect();
        assert!(diff_lines.iter().all(|l| l.starts_with(&format!("{}{{+", " ".repeat(13)))), "{wrapped}");
        assert_eq!(lines.last(), Some(&"short"));
        // Colour codes are not counted; no width (not a terminal) never wraps.
        let red = format!("    {} {:<28} {}\n", "\x1b[1;31msilent  \x1b[0m", "x", "w ".repeat(19));
        assert_eq!(wrap(&red, 80).lines().count(), 1);
        assert_eq!(wrap(&finding, 0), finding);
    }
}
