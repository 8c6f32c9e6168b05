//! mcp-pin's integration tests, one test binary (ripgrep's layout): each file here is a module,
//! `common` holds the shared helpers (a temp project, the real `mcp-pin` binary, the fixture
//! server). One binary links mcp-pin's library once instead of once per file.
//! `cargo test --test integration` runs them all; `cargo test --test integration MODULE::` one file.
#![allow(clippy::disallowed_macros)] // tests print SKIP lines and diagnostics directly

mod common;

#[cfg(unix)]
mod action;
mod atomic_lock;
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "signals to the processes under test and system calls std does not wrap, through libc, each block with its SAFETY note"
)]
mod boundary;
mod bounds;
mod cli;
mod cloaking;
mod config;
mod diff_cases;
mod diff_props;
mod docs;
mod everyday;
mod faults;
mod fixture_server;
mod fuzz_regressions;
mod hostile;
mod https;
mod interop;
mod launch;
mod layers;
mod masking;
mod no_panic;
mod oauth;
mod oauth_bounds;
mod pr_files;
mod probe_args;
mod probe_gate;
#[cfg(unix)]
mod probe_order;
mod probe_search;
mod probe_servers;
mod probes_cli;
mod proxy;
mod proxy_attacks;
mod real_probes;
mod real_servers;
mod renames;
mod report_agreement;
mod report_formats;
#[cfg(unix)]
mod review_pty;
mod risk;
#[cfg(target_os = "linux")]
#[allow(
    unsafe_code,
    reason = "a sandboxed copy is checked with system calls std does not wrap (extended attributes, inode flags) and a pre_exec hook"
)]
mod sandbox;
mod secret_text;
mod secrets;
mod wrap;
