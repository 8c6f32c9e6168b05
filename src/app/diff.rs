//! `mcp-pin diff OLD NEW`: two lockfiles compared offline, by the same engine as `check`.

use std::path::Path;

use super::AppError;
use crate::lockfile::{LockText, ScannedLock, ServerEntry};
use crate::report::{FailOn, Report, ServerReport};

/// `mcp-pin diff OLD NEW`: the same engine, offline.
pub fn diff_locks(old: &Path, new: &Path, fail_on: FailOn) -> Result<Report, AppError> {
    // The two locks are read and scanned on two threads. A tool whose text is the same in both
    // locks cannot differ: it is not even built into a tree. Only changed, added and removed
    // tools reach the diff (renames pair removed with added ones).
    let (old_text, new_text) = std::thread::scope(|s| {
        let o = s.spawn(|| LockText::read(old));
        let n = LockText::read(new);
        (o.join().expect("reading a lockfile panicked"), n)
    });
    let (old_text, new_text) = (old_text?, new_text?);
    let (old_text, new_text) = (old_text.as_str(), new_text.as_str());
    let (old_scan, new_scan) = std::thread::scope(|s| {
        let o = s.spawn(|| ScannedLock::scan(old_text, old));
        let n = ScannedLock::scan(new_text, new);
        (o.join().expect("scanning a lockfile panicked"), n)
    });
    let (old_scan, new_scan) = (old_scan?, new_scan?);
    let old = old_scan.build(&|s, t, raw| new_scan.tool_text(s, t) != Some(raw))?;
    let new = new_scan.build(&|s, t, raw| old_scan.tool_text(s, t) != Some(raw))?;
    let names: std::collections::BTreeSet<&String> = old.servers.keys().chain(new.servers.keys()).collect();
    let empty = ServerEntry::default();
    let servers = names
        .into_iter()
        .map(|name| {
            let mut r = ServerReport::ok(name);
            let (o, n) = (old.servers.get(name), new.servers.get(name));
            match (o, n) {
                (None, Some(_)) => r.notes.push("server added to the lockfile".into()),
                (Some(_), None) => r.notes.push("server removed from the lockfile".into()),
                _ => {}
            }
            r.changes = crate::diff::diff_surfaces_partial(&o.unwrap_or(&empty).surface, &n.unwrap_or(&empty).surface);
            let launch = crate::diff::launch::launch_changes(
                o.and_then(|e| e.launch.as_ref()),
                n.and_then(|e| e.launch.as_ref()),
            );
            if !launch.is_empty() {
                r.changes.extend(launch);
                crate::diff::sort_changes(&mut r.changes);
            }
            if o.is_some() && n.is_some() {
                let (pinned, live) = (old_scan.tool_count(name), new_scan.tool_count(name));
                r.tools = Some(crate::report::ToolCounts { pinned, live });
                crate::diff::every_tool_gone(&mut r.changes, pinned, live);
            }
            r
        })
        .collect();
    Ok(Report { fail_on, servers })
}
