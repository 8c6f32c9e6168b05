//! The report of a check (or an offline diff): the data model, the gate verdict, and one
//! renderer per format.

pub mod finding;
pub mod github;
pub mod group;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod masked;
mod merge;
pub mod sarif;
pub mod story;
pub mod textdiff;

pub use merge::{merge_files, merge_json, MAX_REPORT};

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::change::Change;
use crate::probe::{Probe, ProbeKind, ProbeOutcome};
use crate::rules::Class;

/// Which changes fail the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Error,
}

/// One server's part of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerReport {
    pub name: String,
    pub status: Status,
    pub error: Option<String>,
    pub changes: Vec<Change>,
    pub probes: Vec<Probe>,
    /// Notes that are not changes: expired ignores, a changed configuration, warnings.
    pub notes: Vec<String>,
    /// One line on the probes: how many tools were probed, skipped (and why) and passed.
    #[serde(default, rename = "probeSummary", skip_serializing_if = "Option::is_none")]
    pub probe_summary: Option<String>,
    /// How many tools the lock pinned and the server lists now (so a report can say how many of
    /// them remain); absent where unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolCounts>,
}

/// A server's tool counts: pinned in the lock, and live (or in the newer lock).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCounts {
    pub pinned: usize,
    pub live: usize,
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
            probe_summary: None,
            tools: None,
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

    /// Probe failures whose class fails the gate.
    pub fn failing_probes(&self, fail_on: FailOn) -> usize {
        self.probes.iter().filter(|p| p.outcome == ProbeOutcome::Fail && fail_on.fails(p.effective_class())).count()
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
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub silent: usize,
    pub loud: usize,
    pub cosmetic: usize,
    pub probe_failures: usize,
    pub errors: usize,
    /// Every finding by class: changes and failing probe calls, each of its class after policy
    /// (what the other formats count).
    pub findings: story::ClassCounts,
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
        c.findings = story::Tally::of(self).findings;
        c
    }

    /// How the run ends: pass, fail, or an error (a server could not be checked).
    pub fn outcome(&self) -> story::Outcome {
        story::Outcome::of(self)
    }

    /// `fail` when a change at or above the gate's class, a probe failure (unless `never`), or an
    /// error: a server that could not be checked cannot pass the gate.
    pub fn verdict(&self) -> Verdict {
        let gate = self.servers.iter().any(|s| {
            s.status == Status::Error
                || (self.fail_on != FailOn::Never
                    && (s.failing_changes(self.fail_on) > 0 || s.failing_probes(self.fail_on) > 0))
        });
        if gate {
            Verdict::Fail
        } else {
            Verdict::Pass
        }
    }

    /// 0 pass, 1 the gate fails, 2 an error (after every server was tried).
    /// How a run that produced this report ends: an error outranks a failed gate.
    pub fn exit_status(&self) -> crate::exit::ExitStatus {
        use crate::exit::ExitStatus;
        if self.servers.iter().any(|s| s.status == Status::Error) {
            ExitStatus::Error
        } else if self.verdict() == Verdict::Fail {
            ExitStatus::GateFailed
        } else {
            ExitStatus::Success
        }
    }
}

/// A report format (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// For a person at a terminal (the default).
    Human,
    /// The stable machine contract (docs/report-json.md).
    Json,
    /// GitHub-flavoured Markdown for `$GITHUB_STEP_SUMMARY` or a pull-request comment.
    Markdown,
    /// GitHub Actions workflow commands (`::error file=mcp.lock,line=N::...`).
    Github,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
    /// JUnit XML for test-report viewers.
    Junit,
}

impl Format {
    /// The syntax the format is written in, for the sink's escaping layer ([`crate::sink::finish`]).
    pub fn syntax(self) -> crate::sink::Syntax {
        use crate::sink::Syntax;
        match self {
            Format::Human | Format::Markdown => Syntax::Text,
            Format::Json | Format::Sarif => Syntax::Json,
            Format::Junit => Syntax::Xml,
            Format::Github => Syntax::Annotations,
        }
    }

    pub const ALL: [Format; 6] =
        [Format::Human, Format::Json, Format::Markdown, Format::Github, Format::Sarif, Format::Junit];

    pub fn name(self) -> &'static str {
        match self {
            Format::Human => "human",
            Format::Json => "json",
            Format::Markdown => "markdown",
            Format::Github => "github",
            Format::Sarif => "sarif",
            Format::Junit => "junit",
        }
    }

    pub fn parse(s: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Whether the format is a structure a program parses (masked in its data only, see
    /// [`render`]) rather than text a person reads (masked in its data and again as text).
    pub fn is_structured(self) -> bool {
        match self {
            Format::Json | Format::Sarif | Format::Junit => true,
            Format::Human | Format::Markdown | Format::Github => false,
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Format::parse(s).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            format!("unknown report format `{s}`; formats: {}", names.join(", "))
        })
    }
}

/// `FORMAT=PATH` (the `--report` flag): write one more report, in FORMAT, to PATH.
/// Usable as a clap `value_parser`.
pub fn parse_report_spec(s: &str) -> Result<(Format, PathBuf), String> {
    let Some((format, path)) = s.split_once('=') else {
        return Err(format!("`{s}` is not FORMAT=PATH (for example sarif=mcp-pin.sarif)"));
    };
    if path.is_empty() {
        return Err(format!("`{s}` names no file after `=`"));
    }
    Ok((format.parse()?, PathBuf::from(path)))
}

/// What the renderers need besides the report.
#[derive(Debug, Clone, Default)]
pub struct RenderContext {
    /// Colour and verbosity (human; `verbose` also shows cosmetic changes in the other formats).
    pub style: human::Style,
    /// The lockfile as annotations and SARIF name it: relative to the repository root, `/`-separated.
    pub lockfile_display: String,
    /// The lockfile's text, for line numbers (none: annotations and SARIF carry no line).
    pub lock_text: LazyText,
    /// Where the whole report of this run can be read (the run's page under GitHub Actions): a
    /// report cut to fit a comment points there.
    pub run_url: Option<String>,
}

/// A text read from its file only when a renderer first asks for it (the human and JSON
/// formats never need the lockfile's lines; a big lock is not read again for them).
#[derive(Debug, Clone, Default)]
pub struct LazyText {
    path: Option<PathBuf>,
    text: std::sync::OnceLock<Option<String>>,
}

impl LazyText {
    /// A text already in hand.
    pub fn text(text: impl Into<String>) -> LazyText {
        LazyText { path: None, text: std::sync::OnceLock::from(Some(text.into())) }
    }

    /// The text of `path`, read on first use (a missing file gives none).
    pub fn file(path: &Path) -> LazyText {
        LazyText { path: Some(path.to_path_buf()), text: std::sync::OnceLock::new() }
    }

    pub fn get(&self) -> Option<&str> {
        self.text
            .get_or_init(|| {
                self.path.as_ref().and_then(|p| crate::files::read_regular(p, crate::lockfile::MAX_LOCKFILE).ok())
            })
            .as_deref()
    }
}

impl RenderContext {
    /// The context for a report about `lockfile`: reads its text (a missing file just means no
    /// line numbers) and names it relative to `$GITHUB_WORKSPACE` when it lies inside, else
    /// relative to the current folder when it lies inside, else as given.
    pub fn for_lockfile(style: human::Style, lockfile: &Path) -> RenderContext {
        let workspace =
            std::env::var_os(crate::env_vars::GITHUB_WORKSPACE).filter(|w| !w.is_empty()).map(PathBuf::from);
        let cwd = std::env::current_dir().ok();
        RenderContext {
            style,
            lockfile_display: display_path(lockfile, workspace.as_deref(), cwd.as_deref()),
            lock_text: LazyText::file(lockfile),
            run_url: github_run_url(),
        }
    }
}

/// The page of this workflow run under GitHub Actions
/// (`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`), where its log and step
/// summary are.
pub fn github_run_url() -> Option<String> {
    use crate::env_vars::{get, GITHUB_ACTIONS, GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_SERVER_URL};
    if get(GITHUB_ACTIONS).as_deref() != Some("true") {
        return None;
    }
    let (server, repo, run) = (get(GITHUB_SERVER_URL)?, get(GITHUB_REPOSITORY)?, get(GITHUB_RUN_ID)?);
    let url = format!("{}/{}/actions/runs/{}", server.trim_end_matches('/'), repo, run);
    // Only an address that reads as one (it goes into a markdown link).
    url.starts_with("https://")
        .then_some(url)
        .filter(|u| u.chars().all(|c| c.is_ascii_graphic() && !"()<>[]\\\"'`".contains(c)))
}

/// `path` relative to the first of `bases` that contains it, with `/` separators.
pub fn display_path(path: &Path, workspace: Option<&Path>, cwd: Option<&Path>) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match cwd {
            Some(c) => c.join(path),
            None => path.to_path_buf(),
        }
    };
    let absolute = std::fs::canonicalize(&absolute).unwrap_or(absolute);
    for base in [workspace, cwd].into_iter().flatten() {
        let base = std::fs::canonicalize(base).unwrap_or_else(|_| base.to_path_buf());
        if let Ok(rel) = absolute.strip_prefix(&base) {
            if !rel.as_os_str().is_empty() {
                return slashes(rel);
            }
        }
    }
    slashes(path)
}

fn slashes(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

/// Render `report` in `format` (as it is: [`render_masked`] is what is written).
pub fn render(report: &Report, format: Format, ctx: &RenderContext) -> String {
    crate::sink::finish(format.syntax(), render_raw(report, format, ctx))
}

/// Render `report` in `format` for output, every secret masked: in the report's data before any
/// renderer runs ([`masked::masked`]), so a structured format is masked in its strings only and
/// always parses; a text format is masked once more as text (what mcp-pin's own words and the
/// renderer's escapes make of it). What this returns is written as is.
pub fn render_masked(report: &Report, format: Format, ctx: &RenderContext) -> String {
    let text = render(&masked::masked(report), format, &masked_context(ctx));
    if format.is_structured() {
        text
    } else {
        crate::secrets::mask(&text).into_owned()
    }
}

/// The human report under `--quiet` (server errors and the verdict), for output as
/// [`render_masked`] makes it.
pub fn render_quiet(report: &Report, ctx: &RenderContext) -> String {
    let text = crate::sink::finish(Format::Human.syntax(), human::render_quiet(&masked::masked(report), &ctx.style));
    crate::secrets::mask(&text).into_owned()
}

/// `ctx` with the lockfile's name masked like the report (its text is the lock as written).
fn masked_context(ctx: &RenderContext) -> std::borrow::Cow<'_, RenderContext> {
    match crate::secrets::mask(&ctx.lockfile_display) {
        std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(ctx),
        std::borrow::Cow::Owned(display) => {
            std::borrow::Cow::Owned(RenderContext { lockfile_display: display, ..ctx.clone() })
        }
    }
}

/// The renderer's own text, before the sink's escaping layer ([`crate::sink::finish`]).
fn render_raw(report: &Report, format: Format, ctx: &RenderContext) -> String {
    match format {
        Format::Human => human::render(report, &ctx.style),
        Format::Json => json::render(report),
        Format::Markdown => markdown::render_capped(report, ctx, markdown::COMMENT_MAX),
        Format::Github => github::render(report, &ctx.lockfile_display, ctx.lock_text.get()),
        Format::Sarif => sarif::render(report, ctx),
        Format::Junit => junit::render(report),
    }
}

/// Append the Markdown report to `$GITHUB_STEP_SUMMARY`, capped so that the step's summary stays
/// under GitHub's 1 MiB limit (what the file already holds counts). Returns `Ok(false)` when the
/// variable is unset or empty. The caller gates it (on `GITHUB_ACTIONS=true`).
pub fn step_summary_append(report: &Report, ctx: &RenderContext) -> std::io::Result<bool> {
    let Some(path) = std::env::var_os(crate::env_vars::GITHUB_STEP_SUMMARY).filter(|p| !p.is_empty()) else {
        return Ok(false);
    };
    step_summary_append_to(report, ctx, Path::new(&path))?;
    Ok(true)
}

/// [`step_summary_append`] with an explicit file.
pub fn step_summary_append_to(report: &Report, ctx: &RenderContext, path: &Path) -> std::io::Result<()> {
    let used = std::fs::metadata(path).map(|m| m.len() as usize).unwrap_or(0);
    let room = markdown::STEP_SUMMARY_MAX.saturating_sub(used);
    let text = markdown::render_capped(&masked::masked(report), ctx, room);
    crate::sink::append_file(path, &crate::sink::finish(Format::Markdown.syntax(), text))
}
