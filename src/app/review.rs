//! `mcp-pin review`: the pending changes of each server, judged as `check` judges them, accepted,
//! rejected or skipped one item at a time; a rejection, with its reason, is the team's: recorded in
//! the committed rejections file beside the lockfile ([`crate::rejections`]).

use std::collections::BTreeMap;

use super::{load_config, record_policy, selected, take, today, write_guard, AppError, Options};
use crate::change::Change;
use crate::exit::ExitStatus;
use crate::lockfile::{accept_server_level, accept_tools, source_of, Lockfile, ServerEntry};
use crate::rejections::{definition_digest, Rejection, Rejections};
use crate::report::{self, ServerReport};

/// What `review` asks about: one tool's pending changes, or a server's server-level ones.
fn review_item(tool: &Option<String>) -> String {
    crate::rejections::item_label(tool)
}

/// The answers `review` takes, as its `?` prints them.
const REVIEW_HELP: &str = "    y  accept: the lock takes the live definition (written when the review ends)
    n  reject: the lock keeps the pinned definition; the rejection and its reason are recorded
       for the team (commit the rejections file): `lock` refuses this live definition, `check`
       names it
    s  skip: decide later; the next review asks again
    a  accept this and every remaining item (one whose added words carry a cue is asked again)
    q  quit: ask nothing more; what was accepted so far is written
    ?  this help
";

/// The question after each item: short enough for any terminal, indented under the item.
const ASK: &str = "  accept? [y]es [n]o [s]kip [a]ll [q]uit [?]help > ";
/// The question again for a cued item after `a`.
const ASK_AGAIN: &str = "  `a` takes the rest, not this one (it carries a cue): accept? [y]es [n]o [s]kip [q]uit > ";

/// One server's pending changes, taken and judged before the first question.
struct Pending {
    server: String,
    prev: ServerEntry,
    live: ServerEntry,
    /// What is asked, in risk order: a tool's changes, or the server-level ones (`None`).
    items: Vec<(Option<String>, Vec<Change>)>,
}

/// `mcp-pin review`: every selected server's pending changes, judged as `check` judges them
/// (`[rules]` classes, `[[ignore]]` entries), taken first; then one item at a time, `[n/N]`, the
/// user accepts, rejects or skips it; only what was accepted is written, and two lines say what.
/// Never waits for input in CI.
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
    let today = today();
    let mut status = ExitStatus::Success;
    let mut remembered = 0usize;

    // Every server is taken and judged first, so the questions are counted (`[n/N]`) and none
    // waits on a slow server between two answers.
    let mut pending: Vec<Pending> = vec![];
    for server in selected(&config, opts) {
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
        let mut items = vec![];
        for (tool, changes) in groups {
            if let Some(r) = rejections.matching(&server.name, &tool, &live.surface) {
                crate::tell!(
                    "{} of {}: {}, and the live definition is the same: not asked again",
                    review_item(&tool),
                    server.name,
                    r.describe()
                );
                remembered += 1;
            } else {
                items.push((tool, changes));
            }
        }
        // Asked in risk order (RULES.md, "Risk within a rule"): the item whose highest-ranked
        // change is highest first (a change whose added words carry a cue before any other).
        items.sort_by_key(|(_, cs)| std::cmp::Reverse(cs.iter().map(Change::rank).max()));
        pending.push(Pending { server: server.name.clone(), prev: prev.clone(), live, items });
    }

    let total: usize = pending.iter().map(|p| p.items.len()).sum();
    let mut new = pinned.clone();
    let mut accept_all = false;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let (mut accepted, mut rejected, mut skipped): (Vec<String>, Vec<String>, Vec<String>) = (vec![], vec![], vec![]);
    let mut asked = 0usize;
    let mut quit = false;
    'servers: for p in &pending {
        for (tool, changes) in &p.items {
            asked += 1;
            let cued = changes.iter().any(Change::cued);
            let label = format!("{} of {}", review_item(tool), p.server);
            let answer = if accept_all && !cued {
                "y".to_string()
            } else {
                let rows = report::human::review_item(changes, &report::human::Style { verbose: true, ..*style });
                crate::tell_raw!("\n[{asked}/{total}] {}\n{rows}", crate::json::escape_line(&label));
                loop {
                    // `a` accepts the rest, but a change whose added words carry a cue is asked
                    // again, one by one.
                    let again = accept_all && cued;
                    crate::tell_raw!("{}", if again { ASK_AGAIN } else { ASK });
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
                            if cued {
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
                }
            };
            match answer.as_str() {
                "y" | "yes" => {
                    let cur = new.servers.get(&p.server).cloned().unwrap_or_else(|| p.prev.clone());
                    let merged = match tool {
                        Some(t) => accept_tools(&cur, &p.live, std::slice::from_ref(t)),
                        None => accept_server_level(&cur, &p.live),
                    };
                    new.servers.insert(p.server.clone(), merged);
                    rejections.set(&p.server, tool, None);
                    accepted.push(label);
                }
                "n" | "no" => {
                    // A rejection is the team's: its reason is recorded with it.
                    crate::tell_raw!("  why? (one line, recorded for the team; Enter for none) > ");
                    let _ = std::io::stderr().flush();
                    let reason = match lines.next() {
                        Some(Ok(l)) => Some(l.trim().to_string()).filter(|l| !l.is_empty()),
                        _ => None,
                    };
                    let rejection = Rejection {
                        definition: definition_digest(&p.live.surface, tool),
                        reason,
                        date: Some(today.clone()),
                        by: None,
                    };
                    rejections.set(&p.server, tool, Some(rejection));
                    rejected.push(label);
                }
                "s" | "skip" => skipped.push(label),
                _ => {
                    quit = true;
                    break 'servers;
                }
            }
        }
    }

    // Two lines: what was decided, then what was written and what to do with it.
    let each = |n: &str, v: &[String]| format!("{n} {} ({})", v.len(), v.join(", "));
    let mut decided: Vec<String> = vec![];
    if quit {
        decided.push(format!("quit after {} of {total}: nothing more asked", asked.saturating_sub(1)));
    }
    decided.push(if accepted.is_empty() { "nothing accepted".into() } else { each("accepted", &accepted) });
    if !rejected.is_empty() {
        decided.push(each("rejected", &rejected) + ": the lock keeps the pinned definitions");
    }
    if !skipped.is_empty() {
        decided.push(each("skipped", &skipped) + ": asked again next time");
    }
    if total > 0 || remembered == 0 {
        crate::tell!("\n{}", decided.join("; "));
    }
    if remembered > 0 {
        crate::tell!(
            "{remembered} rejected before and not asked again (remove its entry from {} to be asked again)",
            shown(&rejections.path)
        );
    }
    if !accepted.is_empty() {
        new.write(&path)?;
    }
    if let Some(old) = rejections.migrating() {
        crate::tell!(
            "moved the rejections of {} into {}; the old file is removed",
            shown(old),
            shown(&rejections.path)
        );
    }
    if let Err(e) = rejections.write() {
        crate::tell!("warning: cannot record rejections in {}: {e}", shown(&rejections.path));
    }
    let mut written: Vec<String> = vec![];
    if !accepted.is_empty() {
        written.push(shown(&path));
    }
    if !rejected.is_empty() || rejections.migrating().is_some() {
        written.push(shown(&rejections.path));
    }
    match written.len() {
        0 => crate::tell!("{} unchanged", shown(&path)),
        1 => crate::tell!("wrote {0}: read `git diff {0}`, then commit it", written[0]),
        _ => crate::tell!("wrote {}: read `git diff {}`, then commit both", written.join(" and "), written.join(" ")),
    }
    Ok(status)
}

/// A file as the user names it: relative to the folder `review` runs in when it is under it.
fn shown(path: &std::path::Path) -> String {
    let here = std::env::current_dir().ok();
    crate::json::escape_line(&report::display_path(path, None, here.as_deref()))
}
