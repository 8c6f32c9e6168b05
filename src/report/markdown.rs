//! `--format markdown`: GitHub-flavoured Markdown for `$GITHUB_STEP_SUMMARY` or a pull-request
//! comment. A heading with the verdict and counts, then per server a table of changes (tool,
//! rule, class, message), the before/after of each change folded in `<details>`, and the probes
//! in their own table.
//!
//! Everything the server wrote (names, descriptions, messages) is escaped: hidden characters are
//! spelled out and Markdown/HTML cannot be injected into a comment. The output can be capped
//! ([`render_capped`]) to stay under GitHub's 1 MiB step-summary limit.

use std::fmt::Write;

use super::{FailOn, ProbeKind, ProbeOutcome, Report, ServerReport, Status, Verdict};
use crate::change::{Change, Class};
use crate::json::escape_for_display;

/// What a capped report may take of a step summary (GitHub's limit is 1 MiB per step).
pub const STEP_SUMMARY_MAX: usize = 1_000_000;

/// The whole report, uncapped.
pub fn render(report: &Report, verbose: bool) -> String {
    render_limited(report, verbose, None).0
}

/// The report in at most `max_bytes` bytes (cosmetic changes left out).
pub fn render_capped(report: &Report, max_bytes: usize) -> String {
    render_capped_with(report, false, max_bytes)
}

/// The report in at most `max_bytes` bytes: as many changes and probes as fit, then one line
/// saying how many more were left out.
pub fn render_capped_with(report: &Report, verbose: bool, max_bytes: usize) -> String {
    let (full, items) = render_limited(report, verbose, None);
    if full.len() <= max_bytes {
        return full;
    }
    // The largest number of items whose rendering fits (rendering grows with the limit).
    let (mut lo, mut hi) = (0usize, items);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if render_limited(report, verbose, Some(mid)).0.len() <= max_bytes {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let out = render_limited(report, verbose, Some(lo)).0;
    if out.len() <= max_bytes {
        return out;
    }
    // Even the heading does not fit (huge error texts): cut it hard.
    let note = "\n\n**Report cut to fit the size limit**; see the JSON report.\n";
    let mut cut = max_bytes.saturating_sub(note.len());
    while cut > 0 && !out.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut s = out[..cut].to_string();
    if s.len() + note.len() <= max_bytes {
        s.push_str(note);
    }
    s
}

/// Text for a table cell or a paragraph: hidden characters spelled out, Markdown and HTML
/// punctuation escaped, newlines as `<br>`.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape_for_display(s).chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '#' | '@' | '!' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("<br>"),
            '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A code span safe in a table cell.
pub fn code(s: &str) -> String {
    let inner = escape_for_display(s).replace(['\n', '\r', '\t'], " ").replace('|', "\\|");
    let longest = longest_run(&inner, '`');
    let fence = "`".repeat(longest + 1);
    if longest > 0 || inner.starts_with(' ') || inner.ends_with(' ') {
        format!("{fence} {inner} {fence}")
    } else {
        format!("{fence}{inner}{fence}")
    }
}

/// HTML text (inside `<summary>`).
pub fn html(s: &str) -> String {
    escape_for_display(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\n', " ")
}

fn longest_run(s: &str, ch: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for c in s.chars() {
        if c == ch {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// A fenced code block that no backtick run in `body` can close.
pub fn fenced(body: &str, lang: &str) -> String {
    let fence = "`".repeat(longest_run(body, '`').max(2) + 1);
    let mut s = format!("{fence}{lang}\n{body}");
    if !body.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&fence);
    s.push('\n');
    s
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn fail_on_name(f: FailOn) -> &'static str {
    match f {
        FailOn::Silent => "silent",
        FailOn::Loud => "loud",
        FailOn::Never => "never",
    }
}

fn server_failed(report: &Report, s: &ServerReport) -> bool {
    s.status == Status::Error
        || (report.fail_on != FailOn::Never
            && (s.failing_changes(report.fail_on) > 0 || s.failing_probes(report.fail_on) > 0))
}

fn shown_changes(s: &ServerReport, verbose: bool) -> Vec<&Change> {
    s.changes.iter().filter(|c| verbose || c.class != Class::Cosmetic).collect()
}

fn shown_probes(s: &ServerReport, verbose: bool) -> Vec<&super::Probe> {
    s.probes.iter().filter(|p| verbose || p.outcome != ProbeOutcome::Pass).collect()
}

/// Render with at most `limit` changes and probes; returns the text and how many items the
/// uncapped report has.
fn render_limited(report: &Report, verbose: bool, limit: Option<usize>) -> (String, usize) {
    let total: usize =
        report.servers.iter().map(|s| shown_changes(s, verbose).len() + shown_probes(s, verbose).len()).sum();
    let mut budget = limit.unwrap_or(usize::MAX);
    let c = report.counts();
    let mut out = String::new();
    let verdict = match report.verdict() {
        Verdict::Pass => "✅ mcp-pin: PASS",
        Verdict::Fail => "❌ mcp-pin: FAIL",
    };
    let _ = writeln!(out, "## {verdict}\n");
    let _ = writeln!(
        out,
        "{}{}{} · {} · {} · {} · {} — {}, gate `--fail-on {}`\n",
        if c.silent > 0 { "**" } else { "" },
        plural(c.silent, "silent change", "silent changes"),
        if c.silent > 0 { "**" } else { "" },
        plural(c.loud, "loud", "loud"),
        plural(c.cosmetic, "cosmetic", "cosmetic"),
        plural(c.probe_failures, "probe failure", "probe failures"),
        plural(c.errors, "server error", "server errors"),
        plural(report.servers.len(), "server", "servers"),
        fail_on_name(report.fail_on)
    );
    if report.servers.len() > 1 {
        out.push_str(
            "| server | result | silent | loud | cosmetic | probe failures |\n|---|---|---:|---:|---:|---:|\n",
        );
        for s in &report.servers {
            let result = if s.status == Status::Error {
                "❌ error"
            } else if server_failed(report, s) {
                "❌ fail"
            } else {
                "✅ pass"
            };
            let count = |k: Class| s.changes.iter().filter(|c| c.class == k).count();
            let _ = writeln!(
                out,
                "| {} | {result} | {} | {} | {} | {} |",
                code(&s.name),
                count(Class::Silent),
                count(Class::Loud),
                count(Class::Cosmetic),
                s.probe_failures()
            );
        }
        out.push('\n');
    }
    let mut left_out = 0usize;
    for s in &report.servers {
        let changes = shown_changes(s, verbose);
        let probes = shown_probes(s, verbose);
        if budget == 0 && limit.is_some() && s.status != Status::Error {
            left_out += changes.len() + probes.len();
            continue;
        }
        let mark = if server_failed(report, s) { "❌" } else { "✅" };
        let _ = writeln!(out, "### {mark} {}\n", code(&s.name));
        if s.status == Status::Error {
            let _ = writeln!(out, "**Error:** this server could not be checked.\n");
            out.push_str(&fenced(&escape_for_display(s.error.as_deref().unwrap_or("")), "text"));
            out.push('\n');
        }
        for note in &s.notes {
            let _ = writeln!(out, "> **Note:** {}\n", text(note));
        }
        if let Some(line) = &s.probe_summary {
            let _ = writeln!(out, "**Probes:** {}\n", text(line));
        }
        let take_changes = changes.len().min(budget);
        budget -= take_changes;
        if take_changes > 0 {
            let kept = &changes[..take_changes];
            let _ = writeln!(out, "{}\n", text(&super::group::summary_line(kept)));
            let groups = super::group::groups(kept);
            // A long list is summed up by rule first; the whole list follows, folded.
            let folded = groups.len() > super::human::MAX_LINES;
            if folded {
                out.push_str("| rule | class | tools |\n|---|---|---|\n");
                for (class, rule, tools) in super::group::by_rule(kept) {
                    let _ = writeln!(out, "| {} | {class} | {} |", code(rule), tool_list(&tools));
                }
                let _ = writeln!(out, "\n<details><summary>All {} changes</summary>\n", kept.len());
            }
            out.push_str("| tool | rule | class | message |\n|---|---|---|---|\n");
            for g in &groups {
                let class =
                    if report.fail_on.fails(g.class) { format!("**{}**", g.class) } else { g.class.to_string() };
                let (tool, message) = if g.len() > 1 {
                    (tool_list(&g.tools), format!("{} (on {} tools)", g.message, g.len()))
                } else {
                    (g.changes[0].tool.as_deref().map(code).unwrap_or_else(|| "*server*".into()), g.message.clone())
                };
                let _ = writeln!(out, "| {tool} | {} | {class} | {} |", code(g.rule), text(&message));
            }
            out.push('\n');
            for g in &groups {
                details(&mut out, g.changes[0], (g.len() > 1).then_some(g.len()));
            }
            if folded {
                out.push_str("</details>\n\n");
            }
        }
        left_out += changes.len() - take_changes;
        let take_probes = probes.len().min(budget);
        budget -= take_probes;
        if take_probes > 0 {
            out.push_str("#### Probes\n\n| tool | probe | outcome | rule | message |\n|---|---|---|---|---|\n");
            for p in &probes[..take_probes] {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    code(&p.tool),
                    match p.kind {
                        ProbeKind::Call => "call",
                        ProbeKind::Incomplete => "incomplete call",
                    },
                    match p.outcome {
                        ProbeOutcome::Pass => "pass",
                        ProbeOutcome::Fail => "**fail**",
                        ProbeOutcome::Skipped => "skipped",
                    },
                    p.rule.map(|r| code(r.as_str())).unwrap_or_default(),
                    text(&p.message)
                );
            }
            out.push('\n');
        }
        left_out += probes.len() - take_probes;
        let passed = s.probes.iter().filter(|p| p.outcome == ProbeOutcome::Pass).count();
        if !verbose && passed > 0 {
            let _ = writeln!(out, "{} passed.\n", plural(passed, "probe call", "probe calls"));
        }
        if s.status == Status::Ok && changes.is_empty() && probes.is_empty() {
            let hidden = s.changes.len();
            if hidden > 0 {
                let _ = writeln!(out, "No change in meaning ({hidden} cosmetic).\n");
            } else {
                out.push_str("No change.\n\n");
            }
        }
    }
    if left_out > 0 {
        let _ = writeln!(
            out,
            "> **{} more change{} and probe{} not shown** (size limit); see the JSON report (`mcp-pin check --format json`).",
            left_out,
            if left_out == 1 { "" } else { "s" },
            if left_out == 1 { "" } else { "s" },
        );
    }
    (out, total)
}

/// Tool names for a table cell: up to three inline, more folded in `<details>`.
fn tool_list(tools: &[&str]) -> String {
    let names: Vec<String> = tools.iter().map(|t| code(t)).collect();
    if names.len() <= 3 {
        return names.join(", ");
    }
    format!("<details><summary>{} tools</summary>{}</details>", names.len(), names.join(", "))
}

/// The before/after of one change (or of a group of `tools` identical ones), folded.
fn details(out: &mut String, c: &Change, tools: Option<usize>) {
    if c.before.is_none() && c.after.is_none() {
        return;
    }
    let who = match tools {
        Some(n) => format!("{n} tools"),
        None => html(c.tool.as_deref().unwrap_or("server")),
    };
    let mut summary = format!("<code>{who}</code> · <code>{}</code>", html(c.rule.as_str()));
    if !c.pointer.is_empty() {
        let _ = write!(summary, " at <code>{}</code>", html(&c.pointer));
    }
    let _ = writeln!(out, "<details><summary>{summary}</summary>\n");
    if let Some((b, a)) = super::human::texts(c) {
        // (One-word values such as versions: before and after say it all.)
        if super::human::worth_word_diff(b, a) || super::human::is_prose(c) {
            out.push_str("Word diff (`[-removed-]` `{+added+}`):\n\n");
            out.push_str(&fenced(&super::human::text_diff(b, a, false), "text"));
            out.push('\n');
        }
    }
    for (label, v) in [("Before", &c.before), ("After", &c.after)] {
        match v {
            None => {
                let _ = writeln!(out, "{label}: *(absent)*\n");
            }
            Some(serde_json::Value::String(s)) => {
                let _ = writeln!(out, "{label}:\n");
                out.push_str(&fenced(&escape_for_display(s), "text"));
                out.push('\n');
            }
            Some(v) => {
                let _ = writeln!(out, "{label}:\n");
                out.push_str(&fenced(&crate::json::to_canonical_string(v), "json"));
                out.push('\n');
            }
        }
    }
    out.push_str("</details>\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markdown_html_and_mentions() {
        assert_eq!(text("a|b <img> @x *y*\nz"), "a\\|b \\<img\\> \\@x \\*y\\*<br>z");
        assert_eq!(code("a`b|c"), "`` a`b\\|c ``");
        assert_eq!(code("x\u{200B}"), "`x\\u{200B}`");
        assert_eq!(fenced("```\n", "text"), "````text\n```\n````\n");
        assert_eq!(html("<b>&\""), "&lt;b&gt;&amp;&quot;");
    }
}
