//! `mcp-pin check`: each selected server's live surface and probes against its lock entry.

use futures::stream::{self, StreamExt};
use std::path::{Path, PathBuf};

use super::{
    apply_policy, biggest_first, load_config, record_policy, selected, take, today, AppError, Options, Progress,
};
use crate::config::{Config, ServerConfig};
use crate::diff::verdict::Policy;
use crate::lockfile::{source_of, LockText, PendingEntry, ScannedLock};
use crate::rejections::Rejections;
use crate::report::{FailOn, Report, ServerReport};
use crate::surface::{Live, ServerSurface};

/// Diff one server's live surface against its lock entry and judge it under the config's
/// policy ([`crate::diff::verdict::judge`], the judgement the proxy acts on too).
async fn check_server(
    server: &ServerConfig,
    entry: Option<PendingEntry>,
    lockfile: &Path,
    probe: bool,
    config: &Config,
    today: &str,
    rejections: &Rejections,
) -> ServerReport {
    match judge_server(server, entry, lockfile, probe, config, today, rejections).await {
        Ok(report) => report,
        Err(mut report) => {
            apply_policy(&mut report, config, today);
            report
        }
    }
}

async fn judge_server(
    server: &ServerConfig,
    entry: Option<PendingEntry>,
    lockfile: &Path,
    probe: bool,
    config: &Config,
    today: &str,
    rejections: &Rejections,
) -> Result<ServerReport, ServerReport> {
    let Some(pending) = entry else {
        return Err(ServerReport::error(
            &server.name,
            format!(
                "server `{}` is in the config but not in {}; run `mcp-pin lock --server {}` and commit the lockfile",
                server.name,
                lockfile.display(),
                server.name
            ),
        ));
    };
    let presented = super::as_pinned(server, &pending.entry);
    let server = presented.server.as_ref();
    // The sandboxed session the probes will need starts with the own one, so the two starts overlap.
    let mut early = if probe { crate::probe::place::Early::start(server, pending.tools.values()) } else { None };
    let taken = match early.as_mut() {
        Some(e) => e.first(take(server)).await,
        None => take(server).await,
    };
    let (surface, session) = match taken {
        Ok(x) => x,
        Err(e) => {
            if let Some(e) = early {
                e.close().await;
            }
            return Err(ServerReport::error(&server.name, e));
        }
    };
    let mut report = ServerReport::ok(&server.name);
    report.notes.extend(presented.note);
    report.notes.extend(session.warnings());
    if probe {
        let run = crate::probe::run_early(session, early, server, &surface.tools, Some(&pending.entry.probes)).await;
        report.probe_summary = Some(run.summary());
        report.notes.extend(run.notes);
        report.probes = run.probes;
    } else {
        session.close().await;
    }
    let (pinned_tools, live_tools) = (pending.tools.len(), surface.tools.len());
    let policy = Policy { server: &server.name, rules: &config.rules, ignores: &config.ignores, today };
    // The program the config starts now against the one the lock vouches for.
    let launch = Some(server.transport.launch());
    let (settled, judged) = match judge_live_beside(pending, surface, launch, &policy) {
        Ok(x) => x,
        Err(e) => return Err(ServerReport::error(&server.name, e.to_string())),
    };
    let entry = &settled.entry;
    // tools/list may vary with the request's authorization (2026-07-28): the lock records which
    // credential names (header or env names, never values) produced the pinned surface.
    let names = |source: &serde_json::Value| -> Vec<String> {
        ["headers", "env"]
            .iter()
            .flat_map(|k| source.get(*k).and_then(|v| v.as_array()).cloned().unwrap_or_default())
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let (pinned_names, live_names) = (names(&entry.source), names(&source_of(server)));
    if pinned_names != live_names {
        let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
        report.notes.push(format!(
            "credentials differ: the surface was pinned with [{}] and this check sends [{}] (names only); a server may list other tools for other credentials, so changes below may come from the credentials, not the server. Run `mcp-pin lock --server {}` once the credentials are as intended",
            list(&pinned_names),
            list(&live_names),
            server.name
        ));
    }
    let declared = server.declared_capabilities();
    if entry.client_capabilities != declared {
        report.notes.push(format!(
            "configuration change: client capabilities were [{}] when locked and are [{}] now; the surface below is what the new capabilities show. Run `mcp-pin lock --server {}` to accept it",
            entry.client_capabilities.join(", "),
            declared.join(", "),
            server.name
        ));
    }
    report.tools = Some(crate::report::ToolCounts { pinned: pinned_tools, live: live_tools });
    if let Some(note) = other_server_note(&entry.surface, &settled.live) {
        report.notes.insert(0, note);
    }
    record_policy(&mut report, judged, config);
    let rejected = rejection_notes(&report, &settled, rejections);
    report.notes.splice(0..0, rejected);
    Ok(report)
}

/// A note for each change that brings back a live definition the team rejected
/// ([`crate::rejections`]): which, why and when, and what `lock` does with it.
fn rejection_notes(report: &ServerReport, settled: &crate::settle::Settled, rejections: &Rejections) -> Vec<String> {
    let items: std::collections::BTreeSet<&Option<String>> = report.changes.iter().map(|c| &c.tool).collect();
    items
        .into_iter()
        .filter_map(|item| {
            let r = rejections.matching(&report.name, item, &settled.live)?;
            Some(format!(
                "{} is the live definition the team {} ({}): `mcp-pin lock --server {}` takes the other changes and keeps its pinned definition; fix or roll back the server, or take it with `lock --accept-rejected`",
                crate::rejections::item_label(item),
                r.describe(),
                rejections.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                report.name
            ))
        })
        .collect()
}

/// The judgement of one live surface (taken, masked) against its lock entry: settled
/// ([`crate::settle`]) and judged under `policy`, exactly as the proxy settles and judges a
/// listing.
pub fn judge_live(
    pending: PendingEntry,
    surface: Live,
    policy: &Policy<'_>,
) -> Result<(crate::settle::Settled, crate::diff::policy::PolicyOutcome), crate::lockfile::LockfileError> {
    judge_live_beside(pending, surface, None, policy)
}

/// [`judge_live`] with the launch the config gives now (`server-launch-changed`, judged beside
/// the surfaces under the same policy).
pub fn judge_live_beside(
    pending: PendingEntry,
    surface: Live,
    launch: Option<&crate::config::Launch>,
    policy: &Policy<'_>,
) -> Result<(crate::settle::Settled, crate::diff::policy::PolicyOutcome), crate::lockfile::LockfileError> {
    let settled = crate::settle::settle(pending, surface)?;
    let beside = crate::diff::launch::launch_changes(settled.entry.launch.as_ref(), launch);
    let judged = crate::diff::verdict::judge_beside(&settled, beside, policy);
    Ok((settled, judged))
}

/// When the live server calls itself by another `serverInfo.name` than the pinned one, the
/// lockfile may be from another project or the config may reach another server: that leads the
/// report, whatever class `server-info-changed` has.
fn other_server_note(pinned: &ServerSurface, live: &ServerSurface) -> Option<String> {
    let name = |s: &ServerSurface| s.server_info.get("name").and_then(serde_json::Value::as_str).map(str::to_string);
    match (name(pinned), name(live)) {
        (Some(a), Some(b)) if a != b => Some(format!(
            "another server? the pinned server is named \"{}\" and the live one \"{}\" (serverInfo.name): check that the lockfile belongs to this project and the config reaches the intended server",
            crate::json::escape_line(&a),
            crate::json::escape_line(&b)
        )),
        _ => None,
    }
}

pub async fn check(
    opts: &Options,
    fail_on: FailOn,
    ad_hoc: &[String],
    progress: &Progress,
) -> Result<(Report, PathBuf), AppError> {
    let (config, path) = load_config(opts, ad_hoc)?;
    let config = std::sync::Arc::new(config);
    let mut servers = selected(&config, opts);
    let wanted: std::collections::BTreeSet<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    // Only the selected servers' entries are taken from the lock (`--server` / `--shard` on a big
    // lock stays fast), their tools still text: each is resolved against its live surface in its
    // own task, and a tool whose text is unchanged is never parsed.
    let (mut pending, gone) = {
        let text = LockText::read(&path)?;
        let scanned = ScannedLock::scan(text.as_str(), &path)?;
        let gone: Vec<String> = scanned.server_names().filter(|n| !config.servers.contains_key(*n)).cloned().collect();
        (scanned.pending(&|server| wanted.contains(server))?, gone)
    };
    let rejections = std::sync::Arc::new(Rejections::read(&path).map_err(AppError::Io)?);
    biggest_first(&mut servers, |name| pending.get(name).map_or(0, |e| e.tools.len()));
    progress.start(servers.len());
    let today = std::sync::Arc::new(today());
    let probe = opts.probe;
    // Each server is checked in its own task, so parsing and diffing big surfaces runs on every
    // core rather than inside one task that polls them all; at most `--jobs` at a time.
    let mut reports: Vec<ServerReport> = stream::iter(servers)
        .map(|server| {
            let (entry, path, server) = (pending.remove(&server.name), path.clone(), server.clone());
            let (config, today, rejections) = (config.clone(), today.clone(), rejections.clone());
            async move {
                let name = server.name.clone();
                let (c, t) = (config.clone(), today.clone());
                let task =
                    tokio::spawn(async move { check_server(&server, entry, &path, probe, &c, &t, &rejections).await });
                let r = task.await.unwrap_or_else(|e| {
                    let mut r = ServerReport::error(&name, format!("checking `{name}` failed inside mcp-pin: {e}"));
                    apply_policy(&mut r, &config, &today);
                    r
                });
                progress.done(&name);
                r
            }
        })
        .buffer_unordered(opts.jobs.max(1))
        .collect()
        .await;
    // A server still pinned but gone from the config is worth a line (not an error).
    if opts.servers.is_empty() && opts.shard.is_none() && ad_hoc.is_empty() {
        for name in &gone {
            let mut r = ServerReport::ok(name);
            r.notes.push(format!(
                "`{name}` is in {} but no longer in the config; `mcp-pin lock` drops it",
                path.display()
            ));
            reports.push(r);
        }
    }
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    progress.finish();
    Ok((Report { fail_on, servers: reports }, path))
}
