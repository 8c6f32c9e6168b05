//! `mcp-pin review`: the pending changes of each server, judged as `check` judges them, accepted,
//! rejected or skipped one item at a time; a rejection, with its reason, is the team's: recorded in
//! the committed rejections file beside the lockfile ([`crate::rejections`]).

use std::collections::BTreeMap;

use super::{load_config, record_policy, selected, take, today, write_guard, AppError, Options};
use crate::change::Change;
use crate::exit::ExitStatus;
use crate::lockfile::{accept_server_level, accept_tools, source_of, Lockfile, ServerEntry};
use crate::rejections::{definition_digest, Rejection, Rejections};
use crate::report::{self, human::without_verdict, FailOn, Report, ServerReport};

/// What `review` asks about: one tool's pending changes, or a server's server-level ones.
fn review_item(tool: &Option<String>) -> String {
    crate::rejections::item_label(tool)
}

/// The answers `review` takes, as its `?` prints them.
const REVIEW_HELP: &str = "  y  accept: the lock takes the live definition (written when the review ends)
  n  reject: the lock keeps the pinned definition; the rejection and its reason are recorded for the
     team (commit the rejections file): `lock` refuses this live definition, `check` names it
  s  skip: decide later; the next review asks again
  a  accept this and every remaining item (one whose added words carry a cue is asked again)
  q  quit: ask nothing more; what was accepted so far is written
  ?  this help
";

/// `mcp-pin review`: for each server, the pending changes grouped by tool, judged as `check`
/// judges them (`[rules]` classes, `[[ignore]]` entries); the user accepts, rejects or skips each
/// item; only what was accepted is written, and a summary says what. Never waits for input in CI.
pub async fn review(opts: &Options, style: &report::human::Style) -> Result<ExitStatus, AppError> {
    use std::io::{BufRead, Write};
    if crate::env_vars::in_ci() {
        return Err(AppError::Usage(
            "`mcp-pin review` is interactive and CI is set; in CI use `mcp-pin check`, and accept drift with `mcp-pin lock` (or `lock --tool NAME`)".into(),
        ));
    }
    let (config, path) = load_config(opts, &[])?;
    let _guard = write_guard(&path).await?;
    let pinned = Lockfile::read(&path)?;
    let mut rejections = Rejections::read(&path).map_err(AppError::Io)?;
    let mut new = pinned.clone();
    let mut accept_all = false;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let (mut accepted, mut rejected, mut skipped, mut remembered): (Vec<String>, Vec<String>, Vec<String>, usize) =
        (vec![], vec![], vec![], 0);
    let mut quit = false;
    let mut status = ExitStatus::Success;
    let today = today();
    'servers: for server in selected(&config, opts) {
        let Some(prev) = pinned.servers.get(&server.name) else {
            crate::tell!("{}: not in the lockfile; `mcp-pin lock --server {}` pins it", server.name, server.name);
            continue;
        };
        let presented = super::as_pinned(server, prev);
        let server = presented.server.as_ref();
        if let Some(note) = &presented.note {
            crate::tell!("{}: {note}", server.name);
        }
        let (surface, session) = match take(server).await {
            Ok(x) => x,
            Err(e) => {
                crate::tell!("error: server `{}`: {e}", server.name);
                status = ExitStatus::Error;
                continue;
            }
        };
        let shapes = if opts.probe {
            crate::probe::run(session, server, &surface.tools, None).await.shapes
        } else {
            session.close().await;
            prev.probes.clone()
        };
        let live = ServerEntry {
            source: source_of(server),
            launch: Some(server.transport.launch().clone()),
            client_capabilities: server.declared_capabilities(),
            client: presented.client.clone(),
            surface: surface.surface().clone(),
            probes: shapes,
        };
        // Judged exactly as `check` judges: `[rules]` moves classes, `[[ignore]]` removes changes.
        // Settled as `check` and the proxy settle (the live side masked as the lock is written).
        let settled = crate::settle::settle_whole(prev.clone(), surface);
        let policy = crate::diff::verdict::Policy {
            server: &server.name,
            rules: &config.rules,
            ignores: &config.ignores,
            today: &today,
        };
        let mut judged = ServerReport::ok(&server.name);
        // The program the config starts now against the one the lock vouches for.
        let beside = crate::diff::launch::launch_changes(prev.launch.as_ref(), live.launch.as_ref());
        record_policy(&mut judged, crate::diff::verdict::judge_beside(&settled, beside, &policy), &config);
        for note in &judged.notes {
            crate::tell!("{}: note: {note}", server.name);
        }
        let mut groups: BTreeMap<Option<String>, Vec<Change>> = BTreeMap::new();
        for c in judged.changes {
            groups.entry(c.tool.clone()).or_default().push(c);
        }
        if groups.is_empty() {
            crate::tell!("{}: no pending changes", server.name);
            continue;
        }
        // Asked in risk order (RULES.md, "Risk within a rule"): the item whose highest-ranked
        // change is highest first (a change whose added words carry a cue before any other).
        let mut items: Vec<(Option<String>, Vec<Change>)> = groups.into_iter().collect();
        items.sort_by_key(|(_, cs)| std::cmp::Reverse(cs.iter().map(Change::rank).max()));
        for (tool, changes) in items {
            let cued = changes.iter().find(|c| c.cued()).and_then(|c| c.cues.as_ref()).map(|q| q.describe());
            let what = review_item(&tool);
            let label = format!("{what} of {}", server.name);
            if let Some(r) = rejections.matching(&server.name, &tool, &live.surface) {
                crate::tell!("{label}: {}, and the live definition is the same: not asked again", r.describe());
                remembered += 1;
                continue;
            }
            let sub = Report {
                fail_on: FailOn::Never,
                servers: vec![ServerReport { changes: changes.clone(), ..ServerReport::ok(&server.name) }],
            };
            let body = without_verdict(&report::human::render(&sub, &report::human::Style { verbose: true, ..*style }));
            crate::tell_raw!("{body}");
            let answer = loop {
                // `a` accepts the rest, but a change whose added words carry a cue is asked
                // again, one by one.
                let again = accept_all && cued.is_some();
                if accept_all && !again {
                    break "y".to_string();
                }
                if let Some(cue) = &cued {
                    crate::tell!("  read first: it carries {}", crate::json::escape_line(cue));
                }
                if again {
                    crate::tell_raw!("`a` accepts the rest, but this one carries a cue: accept {label} too? [y]es [n]o (reject) [s]kip [q]uit: ");
                } else {
                    crate::tell_raw!("accept {label}? [y]es [n]o (reject) [s]kip [a]ll [q]uit [?]help: ");
                }
                let _ = std::io::stderr().flush();
                let a = match lines.next() {
                    Some(Ok(l)) => l.trim().to_lowercase(),
                    // End of input: nothing more will be answered.
                    _ => {
                        crate::tell!("");
                        "q".into()
                    }
                };
                match a.as_str() {
                    "y" | "yes" | "n" | "no" | "s" | "skip" | "q" | "quit" => break a,
                    "a" | "all" if !again => {
                        accept_all = true;
                        if cued.is_some() {
                            // This very item carries a cue: asked again before it is taken.
                            continue;
                        }
                        break "y".into();
                    }
                    "?" | "h" | "help" => crate::tell_raw!("{REVIEW_HELP}"),
                    other => crate::tell!(
                        "  `{}` is not an answer: y, n, s, a or q (? explains them)",
                        crate::json::escape_line(other)
                    ),
                }
            };
            match answer.as_str() {
                "y" | "yes" => {
                    let cur = new.servers.get(&server.name).cloned().unwrap_or_else(|| prev.clone());
                    let merged = match &tool {
                        Some(t) => accept_tools(&cur, &live, std::slice::from_ref(t)),
                        None => accept_server_level(&cur, &live),
                    };
                    new.servers.insert(server.name.clone(), merged);
                    rejections.set(&server.name, &tool, None);
                    accepted.push(label);
                    crate::tell!("  accepted");
                }
                "n" | "no" => {
                    // A rejection is the team's: its reason is recorded with it.
                    crate::tell_raw!("  why? (one line, recorded for the team; Enter for none): ");
                    let _ = std::io::stderr().flush();
                    let reason = match lines.next() {
                        Some(Ok(l)) => Some(l.trim().to_string()).filter(|l| !l.is_empty()),
                        _ => None,
                    };
                    let rejection = Rejection {
                        definition: definition_digest(&live.surface, &tool),
                        reason,
                        date: Some(today.clone()),
                        by: None,
                    };
                    rejections.set(&server.name, &tool, Some(rejection));
                    rejected.push(label);
                    crate::tell!(
                        "  rejected: the lock keeps the pinned definition; `lock` refuses this live definition until it changes"
                    );
                }
                "s" | "skip" => {
                    skipped.push(label);
                    crate::tell!("  skipped: the next review asks again");
                }
                _ => {
                    quit = true;
                    break 'servers;
                }
            }
        }
    }
    // The summary: what was written, and what was not.
    if quit {
        crate::tell!("quit: nothing more asked");
    }
    let list = |v: &[String]| v.join(", ");
    if !accepted.is_empty() {
        new.write(&path)?;
        crate::tell!("wrote {}: accepted {} ({})", path.display(), accepted.len(), list(&accepted));
    } else {
        crate::tell!("nothing accepted; {} unchanged", path.display());
    }
    if !rejected.is_empty() {
        crate::tell!(
            "rejected {} ({}): the lock keeps the pinned definitions; recorded with the reasons in {}",
            rejected.len(),
            list(&rejected),
            rejections.path.display()
        );
    }
    if !skipped.is_empty() {
        crate::tell!("skipped {} ({}): asked again next time", skipped.len(), list(&skipped));
    }
    if remembered > 0 {
        crate::tell!(
            "{remembered} rejected before and not asked again (remove its entry from {} to be asked again)",
            rejections.path.display()
        );
    }
    if let Some(old) = rejections.migrating() {
        crate::tell!(
            "moved the rejections of {} into {} (commit it; the old file is removed)",
            old.display(),
            rejections.path.display()
        );
    }
    if let Err(e) = rejections.write() {
        crate::tell!("warning: cannot record rejections in {}: {e}", rejections.path.display());
    }
    let name = |p: &std::path::Path| p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    if !rejected.is_empty() || rejections.migrating().is_some() {
        crate::tell!("review the diff (`git diff {} {}`) and commit both", name(&path), name(&rejections.path));
    } else if !accepted.is_empty() {
        crate::tell!("review the lockfile diff (`git diff {}`) and commit it", name(&path));
    }
    Ok(status)
}
