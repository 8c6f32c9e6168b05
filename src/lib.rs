//! mcp-pin: pin the tool surface of MCP servers and gate CI on silent drift.
//!
//! The library does all the work; `main.rs` only starts the runtime, runs [`cli::run`] (which
//! turns the arguments into settings and calls [`app`]) and maps its [`exit::ExitStatus`] to the
//! process exit code. [`proxy`] is a second front end on the same library: `mcp-pin proxy`. Core modules (`diff`, `rules`, `lockfile`, `config`, `report`) take
//! plain data and do no network I/O, so they test without a process.

pub mod app;
pub mod calendar;
pub mod change;
pub mod cli;
pub mod client;
pub mod config;
pub mod diff;
pub mod digest;
pub mod env_vars;
pub mod exit;
pub mod files;
#[doc(hidden)]
pub mod fuzzing;
pub mod json;
pub mod json_read;
pub mod lockfile;
pub mod probe;
pub mod proxy;
pub mod rejections;
pub mod report;
pub mod rules;
pub mod sandbox;
pub mod secrets;
pub mod settle;
pub mod sink;
pub mod spelling;
pub mod stop;
pub mod suggest;
pub mod surface;
