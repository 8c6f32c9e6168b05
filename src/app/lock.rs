//! `mcp-pin lock`: take each selected server's live surface (and, with probes, its result
//! contract) and write it to the lockfile; `--tool` accepts only some tools' changes.

use futures::stream::{self, StreamExt};
use std::path::PathBuf;

use super::{biggest_first, load_config, selected, take, write_guard, AppError, Options, Progress};
use crate::change::Change;
use crate::lockfile::{accept_tools, source_of, Lockfile, LockfileError, ServerEntry};
use crate::probe::{ProbeKind, ProbeOutcome};
use crate::surface::ServerSurface;

/// What `lock` did for one server.
#[derive(Debug)]
pub struct LockResult {
    pub name: String,
    pub outcome: Result<ServerEntry, String>,
    /// The changes this lock accepts (against the previous entry, if any).
    pub accepted: Vec<Change>,
    pub previous: bool,
    /// The probes this lock made (each says where its calls were made).
    pub probes: Vec<crate::probe::Probe>,
}

/// Outcome of `lock`.
#[derive(Debug)]
pub struct LockOutcome {
    pub lockfile: PathBuf,
    pub results: Vec<LockResult>,
    pub written: bool,
    /// Whether a lockfile was there before this run.
    pub existed: bool,
    pub removed: Vec<String>,
}

pub async fn lock(opts: &Options, ad_hoc: &[String], progress: &Progress) -> Result<LockOutcome, AppError> {
    let (config, path) = load_config(opts, ad_hoc)?;
    // Held until the new lock is written: a concurrent `lock` reads what this one wrote.
    let _guard = write_guard(&path).await?;
    let old = match Lockfile::read(&path) {
        Ok(l) => l,
        Err(LockfileError::Missing { .. }) => Lockfile::new(),
        Err(e) => return Err(e.into()),
    };
    let mut servers = selected(&config, opts);
    biggest_first(&mut servers, |name| old.servers.get(name).map_or(0, |e| e.surface.tools.len()));
    progress.start(servers.len());
    let old = &old;
    let mut results: Vec<LockResult> = stream::iter(servers)
        .map(|server| async move {
            // Accepting only some tools compares with the pin: the server is presented as pinned.
            let presented = match old.servers.get(&server.name).filter(|_| !opts.tools.is_empty()) {
                Some(prev) => super::as_pinned(server, prev),
                None => super::AsPinned {
                    server: std::borrow::Cow::Borrowed(server),
                    client: Some(server.client.info().key.to_string()),
                    note: None,
                },
            };
            let server = presented.server.as_ref();
            let outcome = match take(server).await {
                Ok((surface, session)) => {
                    for w in session.warnings() {
                        crate::tell!("warning: server `{}`: {w}", server.name);
                    }
                    // The probes record each tool's result shape; a failure is shown, not fatal:
                    // the lock pins what the server does today.
                    let (probes, run_probes) = if opts.probe {
                        let run = crate::probe::run(session, server, &surface.tools, None).await;
                        for note in &run.notes {
                            crate::tell!("warning: server `{}`: {note}", server.name);
                        }
                        for p in run.probes.iter().filter(|p| p.outcome == ProbeOutcome::Fail) {
                            crate::tell!(
                                "warning: server `{}`: probe {} of `{}` failed: {}",
                                server.name,
                                p.rule.map_or("", |r| r.as_str()),
                                p.tool,
                                p.message
                            );
                        }
                        // Per tool, how its arguments were found (the failures above say it too);
                        // `--quiet` keeps only the warnings.
                        for p in run
                            .probes
                            .iter()
                            .filter(|p| p.kind == ProbeKind::Call && p.outcome == ProbeOutcome::Pass)
                            .filter(|_| !opts.quiet)
                        {
                            let tool = crate::json::escape_line(&p.tool);
                            crate::tell!("server `{}`: probe of `{tool}` passed: {}", server.name, p.message);
                        }
                        if !opts.quiet {
                            crate::tell!("server `{}`: probes: {}", server.name, run.summary());
                        }
                        (run.shapes, run.probes)
                    } else {
                        session.close().await;
                        // Without probes, keep the shapes pinned before.
                        (old.servers.get(&server.name).map(|e| e.probes.clone()).unwrap_or_default(), vec![])
                    };
                    Ok((
                        ServerEntry {
                            source: source_of(server),
                            launch: Some(server.transport.launch().clone()),
                            client_capabilities: server.declared_capabilities(),
                            client: presented.client.clone(),
                            surface: surface.into_parts().0,
                            probes,
                        },
                        run_probes,
                    ))
                }
                Err(e) => Err(e),
            };
            progress.done(&server.name);
            (server.name.clone(), outcome)
        })
        .buffer_unordered(opts.jobs.max(1))
        .map(|(name, outcome)| {
            let (outcome, probes) = match outcome {
                Ok((entry, probes)) => (Ok(entry), probes),
                Err(e) => (Err(e), vec![]),
            };
            let prev = old.servers.get(&name);
            let accepted = match (&outcome, prev) {
                (Ok(new), Some(prev)) => {
                    let mut v = crate::diff::diff_surfaces(&prev.surface, &new.surface);
                    v.extend(crate::diff::launch::launch_changes(prev.launch.as_ref(), new.launch.as_ref()));
                    crate::diff::sort_changes(&mut v);
                    v
                }
                (Ok(new), None) => crate::diff::diff_surfaces(&ServerSurface::default(), &new.surface)
                    .into_iter()
                    .filter(|c| c.tool.is_some())
                    .collect(),
                _ => vec![],
            };
            LockResult { name, outcome, accepted, previous: prev.is_some(), probes }
        })
        .collect()
        .await;
    results.sort_by(|a, b| a.name.cmp(&b.name));
    progress.finish();

    // `--tool`: accept only those tools; everything else stays as pinned. A name that is no tool
    // of any selected server, pinned or live, is a typo: nothing is written.
    if !opts.tools.is_empty() {
        let mut known: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        for r in &results {
            if let Some(prev) = old.servers.get(&r.name) {
                known.extend(prev.surface.tools.keys().map(String::as_str));
            }
            if let Ok(live) = &r.outcome {
                known.extend(live.surface.tools.keys().map(String::as_str));
            }
        }
        let reached = results.iter().any(|r| r.outcome.is_ok());
        if let Some(t) = opts.tools.iter().find(|t| reached && !known.contains(t.as_str())) {
            let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
            return Err(AppError::Usage(format!(
                "no tool `{t}` in server{} {}, pinned or live{}; nothing was written",
                if names.len() == 1 { "" } else { "s" },
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                crate::config::hint(t, known.iter().copied())
            )));
        }
        for r in &mut results {
            let Ok(live) = &r.outcome else { continue };
            let Some(prev) = old.servers.get(&r.name) else {
                r.outcome = Err(format!(
                    "server `{}` is not in the lockfile yet; lock it whole first: `mcp-pin lock --server {}`",
                    r.name, r.name
                ));
                continue;
            };
            let merged = accept_tools(prev, live, &opts.tools);
            r.accepted = crate::diff::diff_surfaces(&prev.surface, &merged.surface);
            r.outcome = Ok(merged);
        }
    }
    let lifted = refuse_rejected(&mut results, old, &path, opts.accept_rejected)?;
    let mut new = (*old).clone();
    new.normalizer_version = crate::lockfile::NORMALIZER_VERSION;
    for r in &results {
        if let Ok(entry) = &r.outcome {
            new.servers.insert(r.name.clone(), entry.clone());
        }
    }
    // A server dropped from the config leaves the lock, but only on a full lock of a real config.
    let mut removed = vec![];
    if opts.servers.is_empty() && opts.shard.is_none() && ad_hoc.is_empty() && opts.tools.is_empty() {
        removed = new.servers.keys().filter(|k| !config.servers.contains_key(*k)).cloned().collect();
        for k in &removed {
            new.servers.remove(k);
        }
    }
    // Compared as written (masked): a lock that is already what this run would write is left alone.
    let old_text = crate::files::read_regular(&path, crate::lockfile::MAX_LOCKFILE).ok();
    let new_text = new.written_text();
    let written = if old_text.as_deref() != Some(new_text.as_str())
        && (results.iter().any(|r| r.outcome.is_ok()) || !removed.is_empty())
    {
        new.write_text(&path, &new_text)?;
        true
    } else {
        false
    };
    if let Some(rejections) = lifted {
        rejections.write().map_err(|e| AppError::Io(format!("cannot write {}: {e}", rejections.path.display())))?;
    }
    Ok(LockOutcome { lockfile: path, results, written, existed: old_text.is_some(), removed })
}

/// The team's rejections ([`crate::rejections`]): a live definition that was rejected in
/// `review` is not taken, the entry keeps the pinned one, and a line says which, why and when;
/// the rest of the server is taken as usual. With `accept_rejected` it is taken and its rejection
/// lifted: the rejections to write are returned.
fn refuse_rejected(
    results: &mut [LockResult],
    old: &Lockfile,
    lockfile: &std::path::Path,
    accept_rejected: bool,
) -> Result<Option<crate::rejections::Rejections>, AppError> {
    use crate::rejections::{definition_digest, item_label, Rejections};
    let mut rejections = Rejections::read(lockfile).map_err(AppError::Io)?;
    let mut lifted = false;
    for r in results.iter_mut() {
        let (Ok(live), Some(prev)) = (&r.outcome, old.servers.get(&r.name)) else { continue };
        let items: Vec<Option<String>> = rejections
            .entries
            .get(&r.name)
            .map(|m| m.keys().map(|k| k.strip_prefix("tool ").map(str::to_string)).collect())
            .unwrap_or_default();
        let mut kept = live.clone();
        let mut refused = false;
        for item in items {
            let Some(rejection) = rejections.matching(&r.name, &item, &live.surface).cloned() else { continue };
            // Already pinned as it is live: nothing to take.
            if definition_digest(&prev.surface, &item) == definition_digest(&live.surface, &item) {
                continue;
            }
            let what = format!("{} of `{}`", item_label(&item), crate::json::escape_line(&r.name));
            if accept_rejected {
                crate::tell!(
                    "taking {what} although the team {} (--accept-rejected): the rejection is lifted from {}",
                    rejection.describe(),
                    rejections.path.display()
                );
                rejections.set(&r.name, &item, None);
                lifted = true;
            } else {
                crate::tell!(
                    "not taken: {what}: the live definition is the one the team {}; the lock keeps the pinned definition (`--accept-rejected` takes it and lifts the rejection)",
                    rejection.describe()
                );
                kept = match &item {
                    Some(t) => accept_tools(&kept, prev, std::slice::from_ref(t)),
                    None => crate::lockfile::accept_server_level(&kept, prev),
                };
                refused = true;
            }
        }
        if refused {
            let mut v = crate::diff::diff_surfaces(&prev.surface, &kept.surface);
            v.extend(crate::diff::launch::launch_changes(prev.launch.as_ref(), kept.launch.as_ref()));
            crate::diff::sort_changes(&mut v);
            r.accepted = v;
            r.outcome = Ok(kept);
        }
    }
    Ok(lifted.then_some(rejections))
}
