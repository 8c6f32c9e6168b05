//! The command line, run: the parsed arguments are turned once into the settings the library
//! takes ([`Options`], [`FailOn`], [`Output`]), each command of [`crate::app`] is called, and its
//! data is printed through the sink. Every command ends in an [`ExitStatus`].

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};

use super::{Cli, ColorChoice, Command, FailOnArg, ReportAction, ReportArgs, Selection};
use crate::app::{self, AppError, LockOutcome, Options, Progress};
use crate::change::Change;
use crate::exit::{ExitStatus, Signal};
use crate::lockfile::LockfileError;
use crate::report::{self, human::without_verdict, FailOn, Format, Report, ServerReport};

/// Parse the process's arguments (clap prints help, versions and usage errors itself) and run.
pub async fn run_from_args() -> ExitStatus {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            if let Some(flag) = json_flag(&e) {
                // clap would suggest `-- --json`, which makes `--json` a server's command.
                crate::tell!("error: unexpected argument '{flag}'");
                crate::tell!("hint: a report as JSON is `--format json` (to a file: `--format json --output FILE`)");
                return ExitStatus::Error;
            }
            e.exit()
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // `report merge` takes the gate of its inputs unless --fail-on is given on the command line.
    let explicit_fail_on = matches
        .subcommand_matches("report")
        .and_then(|m| m.subcommand_matches("merge"))
        .is_some_and(|m| m.value_source("fail_on") == Some(ValueSource::CommandLine));
    run(cli, explicit_fail_on).await
}

/// The flag of an unknown-argument error when it is `--json` (the report format, as a flag).
fn json_flag(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else { return None };
    let name = arg.strip_prefix("--")?;
    (name == "json").then(|| arg.clone())
}

/// Where and how a report goes: `--format`, `--output`, `--report`, the step summary, `--quiet`.
#[derive(Debug, Clone)]
pub struct Output {
    pub format: Format,
    /// `--output FILE`: the report in `format` to this file, the human one to the terminal.
    pub output: Option<PathBuf>,
    /// `--report FORMAT=FILE`, each.
    pub reports: Vec<(Format, PathBuf)>,
    /// Append the markdown report to `$GITHUB_STEP_SUMMARY` (under GitHub Actions).
    pub step_summary: bool,
    pub quiet: bool,
}

impl Output {
    fn new(args: &ReportArgs, quiet: bool) -> Output {
        Output {
            format: args.format.unwrap_or(Format::Human),
            output: args.output.clone(),
            reports: args.reports.clone(),
            step_summary: crate::env_vars::get(crate::env_vars::GITHUB_ACTIONS).as_deref() == Some("true")
                && !args.no_step_summary,
            quiet,
        }
    }
}

/// Run a parsed command line. `explicit_fail_on`: `--fail-on` was given on the command line
/// (not its default), which only `report merge` distinguishes.
pub async fn run(cli: Cli, explicit_fail_on: bool) -> ExitStatus {
    let g = &cli.global;
    on_signal();
    crate::secrets::set_policy(crate::secrets::EnvPolicy::for_run(
        crate::env_vars::in_ci(),
        g.allow_env.iter().map(|v| v.trim().to_string()).filter(|v| !v.is_empty()),
    ));
    let style =
        report::human::Style { color: use_color(g.color), verbose: g.verbose, width: report::human::terminal_width() };
    let base = Options { config: g.config.clone(), lockfile: g.lockfile.clone(), ..Options::default() };
    let select = |s: &Selection, no_probe: bool| {
        if let Some(n) = s.max_children {
            crate::client::stdio::set_max_children(usize::from(n));
        }
        Options {
            servers: s.servers.clone(),
            shard: s.shard,
            jobs: s.jobs.map_or(app::DEFAULT_JOBS, usize::from),
            probe: !no_probe,
            ..base.clone()
        }
    };
    let done = |r: Result<ExitStatus, AppError>| r.unwrap_or_else(|e| print_error(&e));
    match &cli.command {
        Command::Lock { select: sel, no_probe, command, tools, accept_rejected } => {
            let opts = Options {
                tools: tools.clone(),
                accept_rejected: *accept_rejected,
                quiet: g.quiet,
                ..select(sel, *no_probe)
            };
            let progress = Progress::new(!g.quiet);
            done(app::lock(&opts, command, &progress).await.map(|o| print_lock(&o, &style, g.quiet)))
        }
        Command::Check { select: sel, report: args, no_probe, command } => {
            let opts = select(sel, *no_probe);
            let progress = Progress::new(!g.quiet);
            done(app::check(&opts, fail_on(args.fail_on), command, &progress).await.map(|(report, lockfile)| {
                let ctx = report::RenderContext::for_lockfile(style, &lockfile);
                emit(&report, &Output::new(args, g.quiet), &ctx)
            }))
        }
        Command::Diff { old, new, report: args } => match app::diff_locks(old, new, fail_on(args.fail_on)) {
            Ok(report) => {
                let ctx = report::RenderContext::for_lockfile(style, new);
                emit(&report, &Output::new(args, g.quiet), &ctx)
            }
            Err(AppError::Lockfile(e @ LockfileError::Missing { .. })) => {
                // `diff` reads two files offline; locking would not make this one appear.
                print_error(&AppError::Hinted {
                    message: e.to_string(),
                    hint: "`mcp-pin diff OLD NEW` compares two lockfiles that exist; for the committed one, e.g. `git show HEAD:mcp.lock > old.lock && mcp-pin diff old.lock mcp.lock`".into(),
                })
            }
            Err(e) => print_error(&e),
        },
        Command::Explain { rule } => explain(rule.as_deref()),
        Command::Init { from, wrap: true, write, .. } => done(wrap(from.as_deref(), g.config.as_deref(), *write)),
        Command::Init { from, unwrap: true, write, .. } => done(unwrap(from.as_deref(), *write)),
        Command::Init { write: true, .. } => done(Err(AppError::Usage("--write goes with --wrap or --unwrap".into()))),
        Command::Init { from, force, .. } => done(init(from.as_deref(), *force)),
        Command::Proxy { server, log, dry_run, hide_new_tools, serve_unpinned, command } => {
            crate::proxy::run(crate::proxy::Settings {
                config: g.config.clone(),
                lockfile: g.lockfile.clone(),
                server: server.clone(),
                ad_hoc: command.clone(),
                log: log.clone(),
                dry_run: *dry_run,
                hide_new_tools: *hide_new_tools,
                serve_unpinned: *serve_unpinned,
            })
            .await
        }
        Command::Review { select: sel, no_probe } => done(app::review(&select(sel, *no_probe), &style).await),
        Command::Report { action: ReportAction::Merge { files, report: args } } => {
            match report::merge_files(files, explicit_fail_on.then(|| fail_on(args.fail_on))) {
                Ok(merged) => {
                    let lock = base.lockfile.clone().unwrap_or_else(|| PathBuf::from("mcp.lock"));
                    let ctx = report::RenderContext::for_lockfile(style, &lock);
                    emit(&merged, &Output::new(args, g.quiet), &ctx)
                }
                Err(e) => print_error(&AppError::Io(e.to_string())),
            }
        }
        Command::Completions { shell } => {
            // Our own script, no foreign text: written as generated.
            crate::sink::print_out(&super::completion_script(*shell));
            ExitStatus::Success
        }
        Command::ConformanceClient { url } => app::conformance::conformance_client(url).await,
    }
}

/// On SIGINT, SIGTERM or SIGHUP: first mark the run stopped, so nothing is written from then
/// on ([`crate::stop`]: the calls the signal cuts short must never be pinned or reported), then
/// end every server mcp-pin started (each under its helper, which ends what the server started;
/// they lead their own process groups, so a terminal's Ctrl-C does not reach them), then exit
/// with the usual code (128 + signal). `main` waits for this when the run returns meanwhile.
pub fn on_signal() {
    #[cfg(unix)]
    tokio::spawn(async {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut int), Ok(mut term), Ok(mut hup)) =
            (signal(SignalKind::interrupt()), signal(SignalKind::terminate()), signal(SignalKind::hangup()))
        else {
            return;
        };
        let which = tokio::select! {
            _ = int.recv() => Signal::Interrupt,
            _ = term.recv() => Signal::Terminate,
            _ = hup.recv() => Signal::Hangup,
        };
        crate::stop::stop(which);
        // Off the runtime's workers: the run goes on meanwhile (its calls fail as the servers
        // end) and finds every write refused.
        let _ = tokio::task::spawn_blocking(crate::client::stdio::running::end_all).await;
        crate::tell!(
            "mcp-pin: stopped by {}; every server it started was ended, and nothing was written",
            which.name()
        );
        crate::stop::servers_ended();
        // `main` exits once the run has returned; a run that does not is cut off here.
        tokio::time::sleep(RUN_END_WAIT).await;
        std::process::exit(ExitStatus::Interrupted(which).code());
    });
}

/// How long a run stopped by a signal has to return (its servers already ended) before the
/// signal path exits on its own.
const RUN_END_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

fn fail_on(arg: FailOnArg) -> FailOn {
    match arg {
        FailOnArg::Silent => FailOn::Silent,
        FailOnArg::Loud => FailOn::Loud,
        FailOnArg::Never => FailOn::Never,
    }
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os(crate::env_vars::NO_COLOR).is_none(),
    }
}

/// `error:` and, where there is one, `hint:`; an error ends the run with status 2.
fn print_error(e: &AppError) -> ExitStatus {
    crate::tell!("error: {e}");
    if let Some(h) = e.hint() {
        crate::tell!("hint: {h}");
    }
    ExitStatus::Error
}

/// Render and emit a report where `out` says.
fn emit(report: &Report, out: &Output, ctx: &report::RenderContext) -> ExitStatus {
    let files = out.output.iter().map(|p| (out.format, p.clone())).chain(out.reports.iter().cloned());
    for (f, path) in files {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = crate::sink::write_report(&path, &report::render_masked(report, f, ctx)) {
            return print_error(&AppError::Io(format!("cannot write report {}: {e}", path.display())));
        }
    }
    // A report file that is this process's stdout (`--output /dev/stdout`) is the stdout: the
    // human report is not printed after it.
    let report_on_stdout =
        out.output.iter().chain(out.reports.iter().map(|(_, p)| p)).any(|p| crate::sink::is_stdout(p));
    if out.step_summary {
        if let Err(e) = report::step_summary_append(report, ctx) {
            crate::tell!("warning: cannot append to $GITHUB_STEP_SUMMARY: {e}");
        }
    }
    if report_on_stdout {
        // Already there.
    } else if out.output.is_some() || out.format == Format::Human {
        let human = if out.quiet {
            report::render_quiet(report, ctx)
        } else {
            report::render_masked(report, Format::Human, ctx)
        };
        crate::sink::print_out(&human);
    } else {
        crate::sink::print_report(&report::render_masked(report, out.format, ctx));
    }
    report.exit_status()
}

fn explain(rule: Option<&str>) -> ExitStatus {
    match rule {
        None => {
            let mut s = String::new();
            for r in crate::rules::RULES {
                s.push_str(&format!("{:<30} {:<9} {}\n", r.id, r.class.as_str(), r.summary));
            }
            crate::sink::print_out(&s);
            ExitStatus::Success
        }
        Some(id) => match crate::rules::explain(id) {
            Some(text) => {
                crate::sink::print_out(&text);
                if !text.ends_with('\n') {
                    crate::sink::print_out("\n");
                }
                ExitStatus::Success
            }
            None => print_error(&AppError::Hinted {
                message: format!("no rule `{id}`{}", crate::config::hint(id, crate::rules::RULES.iter().map(|r| r.id))),
                hint: "`mcp-pin explain` lists every rule".into(),
            }),
        },
    }
}

fn init(from: Option<&std::path::Path>, force: bool) -> Result<ExitStatus, AppError> {
    let cwd = std::env::current_dir().map_err(|e| AppError::Io(e.to_string()))?;
    let done = app::init::init(&cwd, from, force)?;
    for w in &done.warnings {
        crate::tell!("warning: {w}");
    }
    crate::tell!(
        "wrote {} from {} ({}, {} server{}); next: `mcp-pin lock`",
        done.target.display(),
        done.source.display(),
        done.source_format,
        done.servers,
        if done.servers == 1 { "" } else { "s" }
    );
    Ok(ExitStatus::Success)
}

/// `init --wrap`: the client config rewritten to run every server through the proxy.
fn wrap(from: Option<&std::path::Path>, config: Option<&std::path::Path>, write: bool) -> Result<ExitStatus, AppError> {
    let cwd = std::env::current_dir().map_err(|e| AppError::Io(e.to_string()))?;
    let done = app::init::wrap(&cwd, from, config, write)?;
    if write {
        crate::tell!(
            "wrote {}: its {} server{} now run through `mcp-pin proxy` (the originals stay in {}; `mcp-pin init --unwrap --write` puts the entries back)",
            done.source.display(),
            done.servers,
            if done.servers == 1 { "" } else { "s" },
            done.config.display()
        );
        for (name, env) in &done.handovers {
            if !env.is_empty() {
                let vars: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
                crate::tell!("  {name} hands the proxy {}", vars.join(", "));
            }
        }
    } else {
        crate::sink::print_out(&done.text);
        crate::tell!(
            "this is {} with each server run through `mcp-pin proxy`; `mcp-pin init --wrap --write` saves it",
            done.source.display()
        );
    }
    Ok(ExitStatus::Success)
}

/// `init --unwrap`: the client config with the entries `--wrap --write` replaced put back.
fn unwrap(from: Option<&std::path::Path>, write: bool) -> Result<ExitStatus, AppError> {
    let cwd = std::env::current_dir().map_err(|e| AppError::Io(e.to_string()))?;
    let done = app::init::unwrap(&cwd, from, write)?;
    if write {
        crate::tell!(
            "wrote {}: {} entr{} back as {} written",
            done.source.display(),
            done.restored.len(),
            if done.restored.len() == 1 { "y" } else { "ies" },
            if done.restored.len() == 1 { "it was" } else { "they were" }
        );
    } else {
        crate::sink::print_out(&done.text);
        crate::tell!("this is {} unwrapped; `mcp-pin init --unwrap --write` saves it", done.source.display());
    }
    Ok(ExitStatus::Success)
}

fn print_lock(outcome: &LockOutcome, style: &report::human::Style, quiet: bool) -> ExitStatus {
    let mut status = ExitStatus::Success;
    let mut out = String::new();
    for r in &outcome.results {
        match &r.outcome {
            Ok(entry) => {
                let accepted: Vec<&Change> = r.accepted.iter().collect();
                // A first pin is not trusted silently: the words a new tool (or server) puts
                // before the model are held to the same cues as a change (RULES.md, "Risk within
                // a rule"). A warning; the lock is written all the same.
                let mut cued: Vec<&Change> = accepted.iter().copied().filter(|c| c.cued()).collect();
                cued.sort_by_key(|c| std::cmp::Reverse(c.rank()));
                for c in cued {
                    let what = match &c.tool {
                        Some(t) if c.rule == crate::rules::RuleId::ToolAdded => {
                            format!("new tool `{}`", crate::json::escape_line(t))
                        }
                        Some(t) => format!("tool `{}` ({})", crate::json::escape_line(t), c.rule),
                        None => format!("the server ({})", c.rule),
                    };
                    let cues = c.cues.as_ref().map(|q| q.describe()).unwrap_or_default();
                    crate::tell!(
                        "warning: server `{}`: {what} puts words before the model that carry {}; read them before committing the lock",
                        r.name,
                        crate::json::escape_line(&cues)
                    );
                }
                if !quiet {
                    let verb = if r.previous { "updated" } else { "pinned" };
                    out.push_str(&format!(
                        "{verb} {} ({} tools, protocol {})\n",
                        r.name,
                        entry.surface.tools.len(),
                        entry.surface.protocol_version
                    ));
                    if style.verbose {
                        // Each tool's digest, as the lock records it (SHA-256 over RFC 8785 JSON).
                        for (tool, digest) in crate::digest::digests(&entry.surface.tools) {
                            out.push_str(&format!("  digest {digest}  {}\n", crate::json::escape_line(&tool)));
                        }
                        // Each probe, and where its calls were made.
                        for p in &r.probes {
                            out.push_str(&report::human::probe_line(style, p));
                        }
                    }
                    if r.previous {
                        if accepted.is_empty() {
                            out.push_str("  no change\n");
                        }
                        let sub = Report {
                            fail_on: FailOn::Never,
                            servers: vec![ServerReport { changes: r.accepted.clone(), ..ServerReport::ok(&r.name) }],
                        };
                        if !accepted.is_empty() {
                            out.push_str("  accepting:\n");
                            for line in without_verdict(&report::human::render(&sub, style)).lines().skip(1) {
                                out.push_str(&format!("  {line}\n"));
                            }
                        }
                    }
                }
            }
            Err(e) => {
                status = ExitStatus::Error;
                crate::tell!("error: server `{}`: {}", r.name, e);
                if r.previous {
                    crate::tell!("hint: its previous entry in {} is kept untouched", outcome.lockfile.display());
                }
            }
        }
    }
    for name in &outcome.removed {
        out.push_str(&format!("removed {name} (no longer in the config)\n"));
    }
    if !quiet {
        let line = match (outcome.written, outcome.existed) {
            (true, _) => format!("wrote {}", outcome.lockfile.display()),
            (false, true) => format!("unchanged: {}", outcome.lockfile.display()),
            (false, false) => {
                format!("not written: no server could be pinned, so there is no {}", outcome.lockfile.display())
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    crate::sink::print_out(&out);
    status
}
