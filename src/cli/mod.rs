//! Command-line arguments (clap), turned once into the settings the library takes
//! ([`run`]); the core never sees clap types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub mod run;

#[derive(Debug, Parser)]
#[command(
    name = "mcp-pin",
    version,
    about = "Pin the tool surface of MCP servers in a lockfile and gate CI on silent drift",
    after_help = "Examples:\n  mcp-pin lock                    # read ./mcp-pin.toml, write ./mcp.lock\n  mcp-pin check                   # exit 0: no silent drift; 1: the gate fails; 2: an error\n  mcp-pin check --format json     # machine-readable report\n  mcp-pin lock -- npx -y @modelcontextprotocol/server-everything@2026.8.31\n  mcp-pin diff old.lock mcp.lock  # review a lockfile change offline\n  mcp-pin explain required-removed"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Config file (default: ./mcp-pin.toml)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Lockfile (default: mcp.lock beside the config)
    #[arg(long, global = true, value_name = "FILE")]
    pub lockfile: Option<PathBuf>,
    /// Less output: only the verdict and errors
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// More output: cosmetic changes, timings, server stderr
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Under CI (`CI` set), the environment variables a config may read, by name (repeatable or
    /// comma-separated; also `MCP_PIN_ALLOW_ENV`). Without it a CI run reads none: a config from a
    /// pull request could otherwise send any job secret to a server it chooses (docs/security.md)
    #[arg(long = "allow-env", global = true, value_name = "VAR", value_delimiter = ',', env = "MCP_PIN_ALLOW_ENV")]
    pub allow_env: Vec<String>,
    /// Colour: auto (terminal and NO_COLOR unset), always, never
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// Which servers a command that talks to servers (`lock`, `check`, `review`) takes, and how many
/// at once. Only those commands list these options.
#[derive(Debug, Args, Default, Clone)]
pub struct Selection {
    /// Only these servers (repeatable); only their `${VAR}`s are read
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// Only shard K of N (1-based): servers sorted by name, every Nth from the Kth (drift cron matrix)
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// How many servers to talk to at once (default 128: servers mostly wait, so a fleet is
    /// checked together; what costs is a child process, bounded by --max-children)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// How many stdio server processes may run at once (default 32); the rest wait their turn.
    /// Each is a process with its own memory (an `npx` server takes 50-100 MB)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_children: Option<u16>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum FailOnArg {
    Silent,
    Loud,
    Never,
}

/// `--format` values: the report formats, by name.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = crate::report::Format> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(crate::report::Format::ALL.iter().map(|f| f.name()))
        .map(|s| s.parse::<crate::report::Format>().expect("a listed format name parses"))
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Take each server's live surface and write the lockfile
    Lock {
        #[command(flatten)]
        select: Selection,
        /// Skip the probe calls; the result shapes pinned before are kept (docs/probes.md)
        #[arg(long)]
        no_probe: bool,
        /// Accept only these tools' changes (repeatable); the rest of the lock stays as pinned
        #[arg(long = "tool", value_name = "NAME")]
        tools: Vec<String>,
        /// Take a live definition the team rejected in `review` (the lock keeps the pinned one
        /// otherwise), and lift its rejection from the rejections file (docs/lockfile.md)
        #[arg(long)]
        accept_rejected: bool,
        /// An ad-hoc server instead of a config: `mcp-pin lock -- CMD ARGS...` or `-- URL`; it is
        /// pinned in ./mcp.lock only when no config is here, or in --lockfile FILE
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Diff each server's live surface against the lockfile and gate on it
    Check {
        #[command(flatten)]
        select: Selection,
        #[command(flatten)]
        report: ReportArgs,
        /// Skip the probe calls for this run
        #[arg(long)]
        no_probe: bool,
        /// An ad-hoc stdio server instead of a config: `mcp-pin check -- CMD ARGS...`
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Walk the pending changes at a terminal and accept or reject them tool by tool
    Review {
        #[command(flatten)]
        select: Selection,
        /// Skip the probe calls (pinned result shapes stay as they are)
        #[arg(long)]
        no_probe: bool,
    },
    /// Diff two lockfiles offline (review a lockfile change)
    Diff {
        old: PathBuf,
        new: PathBuf,
        #[command(flatten)]
        report: ReportArgs,
    },
    /// Adapter for the official MCP conformance suite (`conformance client --command`): connect to
    /// URL, take the surface, probe every tool, always exit 0 unless the connection failed.
    #[command(hide = true, name = "conformance-client")]
    ConformanceClient { url: String },
    /// Write a commented mcp-pin.toml from a client config found here (.mcp.json, .vscode/mcp.json,
    /// .cursor/mcp.json) or given with --from (e.g. claude_desktop_config.json)
    Init {
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Overwrite an existing mcp-pin.toml
        #[arg(long)]
        force: bool,
        /// Print the client config rewritten so each server runs through `mcp-pin proxy` (needs
        /// the mcp-pin.toml that `mcp-pin init` writes); --write saves it
        #[arg(long)]
        wrap: bool,
        /// Print the client config with each entry that --wrap --write replaced put back as it
        /// was written (kept beside it, in FILE.before-wrap.json); --write saves it
        #[arg(long, conflicts_with = "wrap")]
        unwrap: bool,
        /// With --wrap or --unwrap: write the rewritten client config over the original
        #[arg(long)]
        write: bool,
    },
    /// Relay one server to an MCP client (stdio), enforcing the reviewed lock on every message:
    /// silent changes quarantined, calls to them refused, results that contradict their
    /// declaration blocked (docs/proxy.md). A client config runs `mcp-pin proxy --server NAME`
    Proxy {
        /// The config's server to relay (optional when the config has one server)
        #[arg(long = "server", value_name = "NAME")]
        server: Option<String>,
        /// Also write every decision as a JSON line to FILE (appended)
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// Judge and log every decision, but change nothing: the client gets what the server sends
        #[arg(long)]
        dry_run: bool,
        /// Neither list nor pass calls to tools the lock does not pin (as `[proxy] new_tools = "hide"`)
        #[arg(long)]
        hide_new_tools: bool,
        /// Relay a server the lock does not pin, every tool judged as new (as `[proxy] unpinned = "serve"`)
        #[arg(long)]
        serve_unpinned: bool,
        /// One server without a config: `mcp-pin proxy -- CMD ARGS...` or `-- URL` (its entry in
        /// ./mcp.lock, or --lockfile FILE)
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Work with saved reports (`report merge A.json B.json ...` joins the shards of a drift cron)
    Report {
        #[command(subcommand)]
        action: ReportAction,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions { shell: clap_complete::Shell },
    /// Explain a rule: its class, why, and a before/after example
    Explain {
        /// Rule id (e.g. required-removed); omit to list every rule
        rule: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Which changes fail the gate: silent (default), loud (loud or silent), never (report only)
    #[arg(long, value_enum, default_value_t = FailOnArg::Silent)]
    pub fail_on: FailOnArg,
    /// Report format on stdout
    #[arg(long, value_parser = format_parser())]
    pub format: Option<crate::report::Format>,
    /// Also write the report (in --format) to this file; the terminal gets the human report
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a report in FORMAT to FILE (repeatable), e.g. --report sarif=mcp-pin.sarif
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = crate::report::parse_report_spec)]
    pub reports: Vec<(crate::report::Format, PathBuf)>,
    /// Under GitHub Actions, do not append the markdown report to $GITHUB_STEP_SUMMARY
    #[arg(long)]
    pub no_step_summary: bool,
}

fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s.split_once('/').ok_or("expected K/N, e.g. 2/8")?;
    let k: usize = k.trim().parse().map_err(|_| "K must be a whole number")?;
    let n: usize = n.trim().parse().map_err(|_| "N must be a whole number")?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: need 1 <= K <= N"));
    }
    Ok((k, n))
}

#[derive(Debug, Subcommand)]
pub enum ReportAction {
    /// Merge JSON reports (from `check --format json`) into one, rendered in --format
    Merge {
        /// The JSON reports to merge
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        report: ReportArgs,
    },
}

/// The command line as completion scripts describe it: hidden subcommands (the conformance
/// adapter) are left out, so no shell offers them.
pub fn completion_command() -> clap::Command {
    use clap::CommandFactory;
    let full = Cli::command();
    let mut cmd = clap::Command::new("mcp-pin")
        .version(env!("CARGO_PKG_VERSION"))
        .about(full.get_about().cloned().unwrap_or_default());
    for a in full.get_arguments() {
        cmd = cmd.arg(a.clone());
    }
    cmd.subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned())
}

/// The completion script for `shell`, as `mcp-pin completions SHELL` prints it.
///
/// clap_complete's bash generator spells the hyphenated binary name two ways: the loop that
/// walks the words sets `cmd="mcp__pin__subcmd__check"` while the `case` arms that complete
/// options are labelled `mcp__subcmd__pin__subcmd__check)` (the hyphen read as a subcommand
/// separator), so no option of any subcommand completed. The arms are renamed to match.
pub fn completion_script(shell: clap_complete::Shell) -> String {
    let mut cmd = completion_command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "mcp-pin", &mut buf);
    let script = String::from_utf8_lossy(&buf).into_owned();
    match shell {
        clap_complete::Shell::Bash => script.replace("mcp__subcmd__pin", "mcp__pin"),
        _ => script,
    }
}
