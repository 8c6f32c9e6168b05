//! Every environment variable mcp-pin itself reads, each once, here (uv's `env_vars.rs`).
//! Variables a config expands (`${VAR}`) are the config's, read through [`crate::secrets`].

/// Set by CI services (GitHub Actions, GitLab, CircleCI, ...): a run under CI reads only the
/// variables `--allow-env` names, never prompts (`review` refuses), shows no progress bar.
/// Anything but empty, `0` or `false` counts as set.
pub const CI: &str = "CI";
/// Any value turns colour off for `--color auto` (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";
/// `true` under GitHub Actions: `check` appends the markdown report to the step summary.
pub const GITHUB_ACTIONS: &str = "GITHUB_ACTIONS";
/// The step summary file GitHub Actions gives a step.
pub const GITHUB_STEP_SUMMARY: &str = "GITHUB_STEP_SUMMARY";
/// The repository's checkout: annotations and SARIF name the lockfile relative to it.
pub const GITHUB_WORKSPACE: &str = "GITHUB_WORKSPACE";
/// GitHub's address (`https://github.com`), the repository (`OWNER/NAME`) and the run's id under
/// GitHub Actions: a markdown report cut to fit a comment links the run's page.
pub const GITHUB_SERVER_URL: &str = "GITHUB_SERVER_URL";
pub const GITHUB_REPOSITORY: &str = "GITHUB_REPOSITORY";
pub const GITHUB_RUN_ID: &str = "GITHUB_RUN_ID";
/// Names the variables a config may read under CI (comma-separated), like `--allow-env`.
pub const MCP_PIN_ALLOW_ENV: &str = "MCP_PIN_ALLOW_ENV";
/// `YYYY-MM-DD`: today's date for `[[ignore]]` expiry (tests).
pub const MCP_PIN_TODAY: &str = "MCP_PIN_TODAY";
/// Prefix of the variable that stands in for VS Code's `${input:ID}` prompt
/// (`MCP_PIN_INPUT_<ID>`, the id upper-cased, other characters as `_`).
pub const MCP_PIN_INPUT_PREFIX: &str = "MCP_PIN_INPUT_";
/// The official conformance suite's context for its client (client credentials): read by the
/// hidden `conformance-client` adapter only.
pub const MCP_CONFORMANCE_CONTEXT: &str = "MCP_CONFORMANCE_CONTEXT";
/// The name of the conformance scenario being run (the adapter only).
pub const MCP_CONFORMANCE_SCENARIO: &str = "MCP_CONFORMANCE_SCENARIO";

/// Any value but `0`: no sandbox is available, whatever this machine has. Tools that must run in
/// it are then skipped, never called bare (tests prove a tool is then never called).
pub const MCP_PIN_NO_SANDBOX: &str = "MCP_PIN_NO_SANDBOX";

/// The user's home folder: never a probe's candidate (`probe::candidates::guard`).
pub const HOME: &str = "HOME";

/// The value of `name`, if set and not empty.
pub fn get(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Whether this run is under CI (see [`CI`]): read once per process, so every part of a run
/// (the secrets policy, `review`, the progress bar) agrees.
pub fn in_ci() -> bool {
    static IN_CI: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *IN_CI.get_or_init(|| get(CI).is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false")))
}
