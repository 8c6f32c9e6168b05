//! `--format markdown`: GitHub-flavoured Markdown for a pull-request comment, an issue or
//! `$GITHUB_STEP_SUMMARY`, laid out the way a reviewer decides: the outcome and what blocks the
//! merge on top, then what to do about it, then per server one table per class, highest risk
//! first. Silent rows are all open; loud rows fold after [`LOUD_OPEN`]. Each row is one finding
//! (or the same change on several tools) and says what changed in the row itself: the words
//! added and removed of a description, `before → after` of a value, the rest folded in the row.
//!
//! Everything the server wrote (names, descriptions, messages) is escaped: hidden characters are
//! spelled out and Markdown/HTML cannot be injected into a comment. The report is capped
//! ([`render_capped`]) to fit a comment, and ends then with a pointer to the whole report.

use std::cmp::Reverse;
use std::fmt::Write;

use super::group::Group;
use super::story::{self, Outcome, Tally};
use super::textdiff::{excerpt, pieces, shown_texts, Piece, ROW};
use super::{FailOn, ProbeKind, ProbeOutcome, RenderContext, Report, ServerReport, Status};
use crate::change::Change;
use crate::json::escape_for_display;
use crate::rules::Class;

/// What a capped report may take of a step summary (GitHub's limit is 1 MiB per step).
pub const STEP_SUMMARY_MAX: usize = 1_000_000;
/// What a report may take to fit a pull-request comment or an issue body: GitHub's limit is
/// 65,536 characters; this counts bytes (never fewer than characters) and leaves room for the
/// sink's escapes ([`crate::sink::finish`]).
pub const COMMENT_MAX: usize = 64_000;
/// Loud rows of a server shown before the rest are folded.
pub const LOUD_OPEN: usize = 5;
/// Values longer than this (as compact JSON) are folded in their row.
const VALUE_INLINE: usize = 60;
/// Characters of one folded value kept.
const VALUE_MAX: usize = 2_000;

/// The whole report, uncapped.
pub fn render(report: &Report, verbose: bool) -> String {
    let ctx =
        RenderContext { style: super::human::Style { color: false, verbose, width: 0 }, ..RenderContext::default() };
    render_limited(report, &ctx, &prepare(report, verbose), None).0
}

/// The report in at most `max_bytes` bytes: as many rows as fit, silent ones first across every
/// server, then one line saying how many were left out and where the whole report is.
pub fn render_capped(report: &Report, ctx: &RenderContext, max_bytes: usize) -> String {
    // The rows (and their word diffs) are made once; only how many are laid out varies.
    let rows = prepare(report, ctx.style.verbose);
    let (full, items) = render_limited(report, ctx, &rows, None);
    if full.len() <= max_bytes {
        return full;
    }
    // The largest number of rows whose rendering fits (rendering grows with the limit).
    let (mut lo, mut hi) = (0usize, items);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if render_limited(report, ctx, &rows, Some(mid)).0.len() <= max_bytes {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let out = render_limited(report, ctx, &rows, Some(lo)).0;
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

/// Text for a table cell or a paragraph: hidden characters spelled out, defanged for GitHub
/// ([`crate::sink::defang`]: no mention, reference or link), Markdown and HTML punctuation
/// escaped, newlines as `<br>`.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::sink::defang(&escape_for_display(s)).chars() {
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
    crate::sink::defang(&escape_for_display(s))
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

/// A word diff inline: removed words struck through (`<del>`), added ones underlined (`<ins>`),
/// so it reads without colour and wraps like the text around it.
pub fn inline_diff(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Same(t) => text(t),
            Piece::Removed(t) => format!("<del>{}</del>", text(t)),
            Piece::Added(t) => format!("<ins>{}</ins>", text(t)),
        })
        .collect()
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

fn mark(report: &Report, s: &ServerReport) -> &'static str {
    if s.status == Status::Error {
        "⚠️"
    } else if server_failed(report, s) {
        "❌"
    } else {
        "✅"
    }
}

/// A rule id as a link to its entry in docs/rules.md (an id outside the catalogue as code).
fn rule_link(rule: &str) -> String {
    match crate::rules::lookup(rule) {
        Some(r) => format!("[{}]({})", code(r.id), r.rule.doc_url()),
        None => code(rule),
    }
}

/// Tool names for a table cell: up to three inline, more folded in `<details>`.
fn tool_list(tools: &[&str]) -> String {
    if tools.is_empty() {
        return "*server*".into();
    }
    let names: Vec<String> = tools.iter().map(|t| code(t)).collect();
    if names.len() <= 3 {
        return names.join(", ");
    }
    format!("<details><summary>{} tools</summary>{}</details>", names.len(), names.join(", "))
}

/// One table row: a group of changes or a failing probe call.
struct Row<'a> {
    class: Class,
    /// Its place in the report ([`crate::rules::cues::Rank`]).
    rank: crate::rules::cues::Rank,
    rule: &'a str,
    /// The tools (none: the server).
    tools: Vec<&'a str>,
    /// What changed, in one line (markdown): the finding's message, without the tool's name
    /// (the row names it).
    what: String,
    /// What the row shows below that line (markdown): the words added and removed, a value's
    /// before and after.
    detail: String,
    /// How many findings the row stands for.
    findings: usize,
}

impl Row<'_> {
    fn line(&self) -> String {
        format!("| {} | {} · {}{} |\n", tool_list(&self.tools), self.what, rule_link(self.rule), self.detail)
    }
}

fn group_row<'a>(g: &Group<'a>) -> Row<'a> {
    let c = g.changes[0];
    let mut what = text(&super::group::message_without_tool(c));
    if let Some(edit) = &g.edit {
        let _ = write!(what, ": {}", text(edit));
    }
    if g.len() > 1 {
        let _ = write!(what, " (on {} tools)", g.len());
    }
    if let Some(cues) = c.cues.as_ref().filter(|_| c.cued()) {
        what = format!("⚠️ **carries {}** · {what}", text(&cues.describe()));
    }
    Row {
        detail: if g.edit.is_some() { String::new() } else { change_detail(c) },
        class: g.class,
        rank: c.rank(),
        rule: g.rule,
        tools: if c.tool.is_some() { g.tools.clone() } else { vec![] },
        what,
        findings: g.len(),
    }
}

/// What a row adds to a change's message: the words added and removed of a text (the whole
/// diff folded when the row holds an excerpt), or `before → after` of a value the message does
/// not quote (folded when long).
fn change_detail(c: &Change) -> String {
    if let Some((b, a)) = shown_texts(c) {
        let all = pieces(b, a);
        let (cut, shortened) = excerpt(&all, ROW);
        // The row keeps the words; their line breaks are the fold's.
        let one_line: Vec<Piece> = cut.iter().map(one_line).collect();
        let mut s = format!("<br>{}", inline_diff(&one_line));
        if shortened {
            let _ = write!(s, "<details><summary>whole text</summary>{}</details>", inline_diff(&all));
        }
        return s;
    }
    let (Some(b), Some(a)) = (value(&c.before), value(&c.after)) else {
        return String::new();
    };
    if c.message.contains(&b) && c.message.contains(&a) {
        return String::new();
    }
    if b.chars().count() <= VALUE_INLINE && a.chars().count() <= VALUE_INLINE {
        return format!("<br>{} → {}", shown_value(&c.before, &b), shown_value(&c.after, &a));
    }
    format!(
        "<details><summary>before → after</summary>{}<br>→<br>{}</details>",
        shown_value(&c.before, &clip(&b, VALUE_MAX)),
        shown_value(&c.after, &clip(&a, VALUE_MAX))
    )
}

/// A piece with every run of whitespace that breaks a line as one space.
fn one_line(p: &Piece) -> Piece {
    let flat = |t: &str| {
        let mut out = String::with_capacity(t.len());
        let mut pending: Option<String> = None;
        for c in t.chars() {
            if c.is_whitespace() {
                pending.get_or_insert_with(String::new).push(c);
            } else {
                if let Some(ws) = pending.take() {
                    out.push_str(if ws.contains(['\n', '\r']) { " " } else { &ws });
                }
                out.push(c);
            }
        }
        if let Some(ws) = pending {
            out.push_str(if ws.contains(['\n', '\r']) { " " } else { &ws });
        }
        out
    };
    match p {
        Piece::Same(t) => Piece::Same(flat(t)),
        Piece::Removed(t) => Piece::Removed(flat(t)),
        Piece::Added(t) => Piece::Added(flat(t)),
    }
}

/// A value as compact JSON, keys sorted (a string as itself); `Some("")` for an absent one.
fn value(v: &Option<serde_json::Value>) -> Option<String> {
    match v {
        None | Some(serde_json::Value::Null) => Some(String::new()),
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(v) => Some(serde_json::to_string(v).unwrap_or_default()),
    }
}

fn shown_value(v: &Option<serde_json::Value>, s: &str) -> String {
    match v {
        None | Some(serde_json::Value::Null) => "*(none)*".into(),
        _ => code(s),
    }
}

fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… (+{} characters)", &s[..i], s[i..].chars().count()),
        None => s.to_string(),
    }
}

fn probe_row(p: &super::Probe) -> Row<'_> {
    let kind = match p.kind {
        ProbeKind::Call => "probe call",
        ProbeKind::Incomplete => "incomplete probe call",
    };
    Row {
        class: p.effective_class(),
        rank: crate::rules::cues::Rank {
            cued: false,
            class: p.effective_class(),
            risk: p.rule.map_or(super::finding::PROBE_FAILED_RISK, crate::rules::RuleId::risk),
        },
        rule: p.rule.map_or(super::finding::PROBE_FAILED_RULE, |r| r.as_str()),
        tools: vec![&p.tool],
        what: format!("{kind}: {}", text(&p.message)),
        detail: String::new(),
        findings: 1,
    }
}

/// A server's rows by class, each class highest risk first.
fn rows_of(s: &ServerReport, verbose: bool) -> [Vec<Row<'_>>; 3] {
    let changes: Vec<&Change> = s.changes.iter().filter(|c| verbose || c.class != Class::Cosmetic).collect();
    let mut rows: Vec<Row<'_>> = super::group::groups(&changes).iter().map(group_row).collect();
    rows.extend(
        s.probes
            .iter()
            .filter(|p| p.outcome == ProbeOutcome::Fail && (verbose || p.effective_class() != Class::Cosmetic))
            .map(probe_row),
    );
    // Stable: groups keep their order (rule, tool, pointer) within a risk.
    rows.sort_by_key(|r| Reverse(r.rank));
    let mut by_class: [Vec<Row<'_>>; 3] = [vec![], vec![], vec![]];
    for r in rows {
        by_class[class_index(r.class)].push(r);
    }
    by_class
}

fn class_index(c: Class) -> usize {
    match c {
        Class::Silent => 0,
        Class::Loud => 1,
        Class::Cosmetic => 2,
    }
}

/// The probe calls that are not findings and are worth a line: skipped ones (and, verbose,
/// passed ones).
fn other_probes(s: &ServerReport, verbose: bool) -> Vec<&super::Probe> {
    s.probes
        .iter()
        .filter(|p| match p.outcome {
            ProbeOutcome::Fail => false,
            ProbeOutcome::Skipped => !p.unprobed_by_config() || verbose,
            ProbeOutcome::Pass => verbose,
        })
        .collect()
}

/// Counts for a heading: `**36 silent** · 102 loud · 23 cosmetic`, the classes that fail the
/// gate in bold, probe findings said.
fn counts_line(t: &Tally, fail_on: FailOn) -> String {
    [Class::Silent, Class::Loud, Class::Cosmetic]
        .iter()
        .map(|&class| {
            let s = t.class_count(class);
            if fail_on.fails(class) && t.findings.get(class) > 0 {
                format!("**{s}**")
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// What to do next, under the verdict: what silent means, that it blocks the merge, and the
/// command that accepts the change.
fn what_now(report: &Report) -> Option<String> {
    let t = Tally::of(report);
    let accept = story::accept_command(report).map(|c| code(&c));
    let errors: Vec<String> =
        report.servers.iter().filter(|s| s.status == Status::Error).map(|s| code(&s.name)).collect();
    let mut s = String::from("> **What now?** ");
    match Outcome::of(report) {
        Outcome::Error => {
            let _ = write!(
                s,
                "mcp-pin could not check {} (the error is below), so this check fails until it can: fix what the error names (a server that does not start, a credential, a server missing from `mcp.lock`: `mcp-pin lock --server NAME` pins it).",
                errors.join(", ")
            );
            if t.findings.silent + t.findings.loud > 0 {
                let _ = write!(s, " The other servers' findings are below, each with its class.");
            }
        }
        Outcome::Fail => {
            if t.findings.silent > 0 {
                let _ = write!(
                    s,
                    "A **silent** change {}, so it blocks the merge. Read the silent rows below",
                    story::SILENT_MEANS
                );
            } else {
                let _ = write!(
                    s,
                    "Under `--fail-on loud` a **loud** change blocks the merge too (it {}). Read the loud rows below",
                    story::LOUD_MEANS
                );
            }
            let _ = write!(
                s,
                "; if the changes are intended, accept them with {} and commit `mcp.lock` (its diff is what the model will now see).",
                accept.as_deref().unwrap_or("`mcp-pin lock`")
            );
            if t.findings.silent > 0 && t.findings.loud > 0 {
                if report.fail_on == FailOn::Loud {
                    s.push_str(" Under `--fail-on loud` loud changes block it too.");
                } else {
                    let _ = write!(s, " A **loud** change {}: listed for review, not blocking.", story::LOUD_MEANS);
                }
            }
        }
        Outcome::Pass if t.findings.silent + t.findings.loud == 0 => return None,
        Outcome::Pass => {
            if report.fail_on == FailOn::Never {
                s.push_str("This run only reports (`--fail-on never`): nothing blocks.");
            } else {
                let _ = write!(
                    s,
                    "Nothing silent, so nothing blocks the merge. A **loud** change {}: review the rows below.",
                    story::LOUD_MEANS
                );
            }
            if let Some(cmd) = accept {
                let _ = write!(s, " To pin the new surface, run {cmd} and commit `mcp.lock`.");
            }
        }
    }
    if let Some(no) = say_no(report) {
        let _ = write!(s, "\n>\n> **Not wanted?** {no}");
    }
    s.push_str("\n\n");
    Some(s)
}

/// What to do when a change is not wanted (markdown): keep the gate red, hold the server at the
/// reviewed version (where its version changed: which one, and where to pin it), report it
/// upstream. None when nothing blocks.
fn say_no(report: &Report) -> Option<String> {
    let bumps = story::version_bumps(report);
    if Outcome::of(report) != Outcome::Fail && bumps.is_empty() {
        return None;
    }
    let mut s = String::from(if Outcome::of(report) == Outcome::Fail {
        "Keep this check red (do not run `mcp-pin lock`) and "
    } else {
        "Do not run `mcp-pin lock`; "
    });
    if bumps.is_empty() {
        s.push_str("hold the server at the version that was reviewed (the version its launch command names: `pkg@1.2.3` for npx, `pkg==1.2.3` for uvx, an image tag for docker)");
    } else {
        let each: Vec<String> = bumps
            .iter()
            .map(|(name, from, to)| format!("{} at {} (it now serves {})", code(name), code(from), code(to)))
            .collect();
        let _ = write!(
            s,
            "hold {} where its launch command names the version ({} for npx, {} for uvx, an image tag for docker)",
            each.join(", "),
            code(&format!("pkg@{}", bumps[0].1)),
            code(&format!("pkg=={}", bumps[0].1))
        );
    }
    s.push_str("; then report the change to the server's maintainers, quoting the rows below.");
    Some(s)
}

/// The callout above the tables when changes add words that carry a cue: which, and that they
/// are the first rows. None without one.
fn read_first(report: &Report, verbose: bool) -> Option<String> {
    let mut cued: Vec<(&str, &Change)> = report
        .servers
        .iter()
        .flat_map(|s| s.changes.iter().map(move |c| (s.name.as_str(), c)))
        .filter(|(_, c)| c.cued() && (verbose || c.class != Class::Cosmetic))
        .collect();
    if cued.is_empty() {
        return None;
    }
    cued.sort_by_key(|(_, c)| Reverse(c.rank()));
    let several = report.servers.len() > 1;
    let names: Vec<String> = cued
        .iter()
        .take(5)
        .map(|(server, c)| {
            let what = match &c.tool {
                Some(t) if several => code(&format!("{server}/{t}")),
                Some(t) => code(t),
                None => code(server),
            };
            let mut labels: Vec<&str> = Vec::new();
            for f in c.cues.iter().flat_map(|q| &q.found) {
                if !labels.contains(&f.kind.info().label) {
                    labels.push(f.kind.info().label);
                }
            }
            format!("{what} ({}, {})", labels.join(", "), c.class)
        })
        .collect();
    let more = if cued.len() > 5 { format!(" and {} more", cued.len() - 5) } else { String::new() };
    let only_adds = cued.iter().all(|(_, c)| !c.matches_pattern());
    let placed = match (cued.len(), only_adds) {
        (1, true) => "It is the first row of its rule",
        (1, false) => "It is the first row of its table",
        (_, true) => "They are the first rows of their rules",
        (_, false) => "They lead their tables",
    };
    Some(format!(
        "> ⚠️ **Read first: {} a pattern** in the words {} the model (an instruction, a role marker, a URL, a path outside the project, encoded text, another language, a tool this server does not serve, hidden characters, or many more words than the release's other rewordings): {}{more}. {placed}. A pattern is where to start reading, not a reading: the other rows were not read for you.\n\n",
        plural(cued.len(), "change matches", "changes match"),
        if cued.len() == 1 { "it adds for" } else { "they add for" },
        names.join(", "),
    ))
}

/// How many rows of each server and class a limit of `limit` rows lets through: silent rows of
/// every server first, then loud, then cosmetic, then the other probe lines.
fn allowance(rows: &[([usize; 3], usize)], limit: Option<usize>) -> Vec<[usize; 4]> {
    let mut budget = limit.unwrap_or(usize::MAX);
    let mut out = vec![[0usize; 4]; rows.len()];
    for k in 0..4 {
        for (i, (classes, others)) in rows.iter().enumerate() {
            let n = if k < 3 { classes[k] } else { *others };
            let take = n.min(budget);
            out[i][k] = take;
            budget -= take;
        }
    }
    out
}

/// Render with at most `limit` rows; returns the text and how many rows the uncapped report has.
/// Each server's rows by class, and its other probe lines.
type Prepared<'a> = Vec<([Vec<Row<'a>>; 3], Vec<&'a super::Probe>)>;

fn prepare(report: &Report, verbose: bool) -> Prepared<'_> {
    report.servers.iter().map(|s| (rows_of(s, verbose), other_probes(s, verbose))).collect()
}

fn render_limited(
    report: &Report,
    ctx: &RenderContext,
    per_server: &Prepared<'_>,
    limit: Option<usize>,
) -> (String, usize) {
    let verbose = ctx.style.verbose;
    let sizes: Vec<([usize; 3], usize)> =
        per_server.iter().map(|(r, o)| ([r[0].len(), r[1].len(), r[2].len()], o.len())).collect();
    let total: usize = sizes.iter().map(|(c, o)| c.iter().sum::<usize>() + o).sum();
    let allowed = allowance(&sizes, limit);

    let t = Tally::of(report);
    let outcome = Outcome::of(report);
    let mut out = String::new();
    let icon = match outcome {
        Outcome::Pass => "✅",
        Outcome::Fail => "❌",
        Outcome::Error => "⚠️",
    };
    let _ = writeln!(out, "## {icon} mcp-pin: {} · {}\n", outcome.word(), story::headline(report));
    let _ = writeln!(
        out,
        "{} · {} — {}, gate `--fail-on {}`\n",
        counts_line(&t, report.fail_on),
        plural(t.errors, "server error", "server errors"),
        plural(report.servers.len(), "server", "servers"),
        fail_on_name(report.fail_on)
    );
    if let Some(w) = read_first(report, verbose) {
        out.push_str(&w);
    }
    if let Some(w) = what_now(report) {
        out.push_str(&w);
    }
    if report.servers.len() > 1 {
        out.push_str("| server | result | silent | loud | cosmetic |\n|---|---|---:|---:|---:|\n");
        for s in &report.servers {
            let result = match (s.status, server_failed(report, s)) {
                (Status::Error, _) => "⚠️ error",
                (_, true) => "❌ fail",
                _ => "✅ pass",
            };
            let st = Tally::of_server(s);
            let _ = writeln!(
                out,
                "| {} | {result} | {} | {} | {} |",
                code(&s.name),
                st.findings.silent,
                st.findings.loud,
                st.findings.cosmetic
            );
        }
        out.push('\n');
    }
    let (mut rows_left_out, mut findings_left_out) = (0usize, 0usize);
    for (i, s) in report.servers.iter().enumerate() {
        let (rows, others) = &per_server[i];
        let allow = allowed[i];
        let kept: usize = allow.iter().sum();
        for (k, class_rows) in rows.iter().enumerate() {
            for r in &class_rows[allow[k]..] {
                rows_left_out += 1;
                findings_left_out += r.findings;
            }
        }
        rows_left_out += others.len() - allow[3];
        if kept == 0 && limit.is_some() && s.status != Status::Error && (sizes[i].0.iter().sum::<usize>() > 0) {
            continue;
        }
        server_section(&mut out, report, s, rows, others, allow, verbose);
    }
    if rows_left_out > 0 {
        let whole = match &ctx.run_url {
            Some(url) => format!("[this run's log]({url}) (every change), or "),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "> **{} not shown** ({} rows; GitHub's comment limit). The whole report: {whole}`mcp-pin check` (`--format json` for every field).",
            plural(findings_left_out, "more change", "more changes"),
            rows_left_out
        );
    }
    (out, total)
}

fn server_section(
    out: &mut String,
    report: &Report,
    s: &ServerReport,
    rows: &[Vec<Row<'_>>; 3],
    others: &[&super::Probe],
    allow: [usize; 4],
    verbose: bool,
) {
    let st = Tally::of_server(s);
    let _ = write!(out, "### {} {}", mark(report, s), code(&s.name));
    if st.findings.silent + st.findings.loud + st.findings.cosmetic > 0 {
        let _ = write!(out, " · {}", counts_line(&st, report.fail_on));
    }
    out.push_str("\n\n");
    if s.status == Status::Error {
        let _ = writeln!(out, "**Error:** this server could not be checked.\n");
        out.push_str(&fenced(&escape_for_display(s.error.as_deref().unwrap_or("")), "text"));
        out.push('\n');
    }
    for note in &s.notes {
        let _ = writeln!(out, "> **Note:** {}\n", text(note));
    }
    if let Some(line) = story::removed_line(s) {
        let _ = writeln!(out, "**Tools:** {line}.\n");
    }
    if let Some(line) = &s.probe_summary {
        let _ = writeln!(out, "**Probes:** {}\n", text(line));
    }
    let any_diff = rows.iter().flatten().any(|r| r.detail.contains("<del>") || r.detail.contains("<ins>"));
    for (k, class) in [Class::Silent, Class::Loud, Class::Cosmetic].into_iter().enumerate() {
        let shown = &rows[k][..allow[k]];
        if shown.is_empty() {
            continue;
        }
        let n: usize = rows[k].iter().map(|r| r.findings).sum();
        let why = match class {
            Class::Silent => "calls keep succeeding while what they mean changes",
            Class::Loud => "these break with an error if they break anyone",
            Class::Cosmetic => "no change in meaning",
        };
        let gate = if report.fail_on.fails(class) {
            "these block the merge"
        } else if class == Class::Cosmetic {
            "shown with `--verbose`"
        } else {
            "listed for review, not blocking"
        };
        let _ = writeln!(
            out,
            "**{}** — {why}; {gate}.\n",
            plural(n, &format!("{class} change"), &format!("{class} changes"))
        );
        // Silent rows are all open; loud ones fold after a few, cosmetic ones at once.
        let open = match class {
            Class::Silent => shown.len(),
            Class::Loud => LOUD_OPEN.min(shown.len()),
            Class::Cosmetic => 0,
        };
        let head = "| tool | what changed |\n|---|---|\n";
        if open > 0 {
            out.push_str(head);
            for r in &shown[..open] {
                out.push_str(&r.line());
            }
            out.push('\n');
        }
        if shown.len() > open {
            let folded: usize = shown[open..].iter().map(|r| r.findings).sum();
            let _ = write!(
                out,
                "<details><summary>{} {}</summary>\n\n{head}",
                if open > 0 { format!("{folded} more") } else { folded.to_string() },
                if folded == 1 { format!("{} change", class.as_str()) } else { format!("{} changes", class.as_str()) }
            );
            for r in &shown[open..] {
                out.push_str(&r.line());
            }
            out.push_str("\n</details>\n\n");
        }
    }
    if any_diff {
        out.push_str("<sub>Removed words are <del>struck through</del>, added words <ins>underlined</ins>.</sub>\n\n");
    }
    let others = &others[..allow[3]];
    if !others.is_empty() {
        let skipped = others.iter().filter(|p| p.outcome == ProbeOutcome::Skipped).count();
        let _ = writeln!(
            out,
            "<details><summary>{}</summary>\n\n| tool | probe | outcome | why |\n|---|---|---|---|",
            if skipped == others.len() {
                plural(skipped, "probe call skipped", "probe calls skipped")
            } else {
                plural(others.len(), "other probe call", "other probe calls")
            }
        );
        for p in others {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                code(&p.tool),
                match p.kind {
                    ProbeKind::Call => "call",
                    ProbeKind::Incomplete => "incomplete call",
                },
                match p.outcome {
                    ProbeOutcome::Pass => "pass",
                    ProbeOutcome::Fail => "fail",
                    ProbeOutcome::Skipped => "skipped",
                },
                text(&p.message)
            );
        }
        out.push_str("\n</details>\n\n");
    }
    let passed = s.probes.iter().filter(|p| p.outcome == ProbeOutcome::Pass).count();
    if !verbose && passed > 0 && s.probe_summary.is_none() {
        let _ = writeln!(out, "{} passed.\n", plural(passed, "probe call", "probe calls"));
    }
    if s.status == Status::Ok && rows.iter().all(Vec::is_empty) && st.findings.silent + st.findings.loud == 0 {
        if st.findings.cosmetic > 0 {
            let _ = writeln!(out, "No change in meaning ({} cosmetic).\n", st.findings.cosmetic);
        } else if s.probes.iter().all(|p| p.outcome != ProbeOutcome::Fail) {
            out.push_str("No change.\n\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markdown_html_and_mentions() {
        assert_eq!(text("a|b <img> @x *y*\nz"), "a\\|b \\<img\\> \\@\u{200B}x \\*y\\*<br>z");
        assert_eq!(text("see #1 and https://e.example"), "see \\#\u{200B}1 and hxxps://e.example");
        assert_eq!(code("a`b|c"), "`` a`b\\|c ``");
        assert_eq!(code("x\u{200B}"), "`x\\u{200B}`");
        assert_eq!(fenced("```\n", "text"), "````text\n```\n````\n");
        assert_eq!(html("<b>&\""), "&lt;b&gt;&amp;&quot;");
        assert_eq!(
            inline_diff(&[Piece::Same("a ".into()), Piece::Removed("<b>".into()), Piece::Added("*c*".into())]),
            "a <del>\\<b\\></del><ins>\\*c\\*</ins>"
        );
    }
}
