//! The copy of the project as it was before the tools that destroy things (RULES.md, "Steady":
//! "a tool that deletes, overwrites or clears is called after every tool that reads what it
//! destroys, or on a fresh copy of the project"). The probe run keeps the scratch copy once its
//! makers have run ([`Kept::take`]) and puts it back before each destroyer after the first and
//! once after them ([`Kept::put_back`]): each destroyer, and each tool called after them, acts on
//! the world the makers left, never on what another destroyer left of it (an emptied document,
//! a deleted sheet). What the server holds in memory is not the copy's: the probe run makes the
//! makers' calls again for that.
//!
//! Only what changed is put back: an entry whose kind, size or modification time differs from
//! what was kept, or that was not there, is copied again from the kept copy; an entry that was
//! not kept is removed. Symlinks are kept and put back as symlinks (a link to the real project's
//! ignored code stays a link; nothing is ever written through one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The most a copy may hold to be kept (bytes of its regular files); a bigger one is not kept,
/// and its destroyers act one after another on what the others left.
pub const KEEP_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// What an entry was when it was kept (or last put back).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir,
    Link(PathBuf),
    File { len: u64, modified: Option<SystemTime> },
}

/// A kept copy of a folder: its entries' bytes in `dir`, and what each was.
#[derive(Debug)]
pub struct Kept {
    dir: PathBuf,
    entries: BTreeMap<PathBuf, Entry>,
}

/// Every entry under `root` (relative, sorted, parents before children), links not followed;
/// `None` past `max_bytes` of regular files.
fn walk(root: &Path, max_bytes: u64) -> std::io::Result<Option<BTreeMap<PathBuf, Entry>>> {
    let mut out = BTreeMap::new();
    let mut bytes = 0u64;
    let mut dirs = vec![PathBuf::new()];
    while let Some(rel) = dirs.pop() {
        for e in std::fs::read_dir(root.join(&rel))? {
            let e = e?;
            let rel = rel.join(e.file_name());
            let meta = std::fs::symlink_metadata(e.path())?;
            let kind = meta.file_type();
            let entry = if kind.is_symlink() {
                Entry::Link(std::fs::read_link(e.path())?)
            } else if kind.is_dir() {
                dirs.push(rel.clone());
                Entry::Dir
            } else if kind.is_file() {
                bytes = bytes.saturating_add(meta.len());
                if bytes > max_bytes {
                    return Ok(None);
                }
                Entry::File { len: meta.len(), modified: meta.modified().ok() }
            } else {
                continue; // sockets, FIFOs: not part of a copy
            };
            out.insert(rel, entry);
        }
    }
    Ok(Some(out))
}

/// Make `rel` under `to` what `entry` says, from `from` (a file's bytes).
fn put(from: &Path, to: &Path, rel: &Path, entry: &Entry) -> std::io::Result<()> {
    let target = to.join(rel);
    match entry {
        Entry::Dir => std::fs::create_dir_all(&target),
        Entry::Link(points) => {
            #[cfg(unix)]
            std::os::unix::fs::symlink(points, &target)?;
            Ok(())
        }
        Entry::File { .. } => std::fs::copy(from.join(rel), &target).map(|_| ()),
    }
}

/// Remove whatever is at `path` (a link itself, never what it points to).
fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

impl Kept {
    /// Keep what `project` holds now, in `dir` (made here; it must not exist). `None` when the
    /// copy holds more than [`KEEP_MAX_BYTES`].
    pub fn take(project: &Path, dir: PathBuf) -> std::io::Result<Option<Kept>> {
        let Some(entries) = walk(project, KEEP_MAX_BYTES)? else { return Ok(None) };
        std::fs::create_dir(&dir)?;
        for (rel, entry) in &entries {
            put(project, &dir, rel, entry)?;
        }
        // The entries as walked in the project (a file's modification time is the project's,
        // which copying it did not change).
        Ok(Some(Kept { dir, entries }))
    }

    /// Make `project` hold what was kept again: entries that were not kept removed, entries that
    /// changed or went copied back.
    pub fn put_back(&mut self, project: &Path) -> std::io::Result<()> {
        let now = walk(project, u64::MAX)?.unwrap_or_default();
        // Deepest first, so a folder's entries go before it.
        for (rel, entry) in now.iter().rev() {
            if self.entries.get(rel) != Some(entry) {
                remove(&project.join(rel))?;
            }
        }
        let mut changed = Vec::new();
        for (rel, entry) in &self.entries {
            let there = std::fs::symlink_metadata(project.join(rel)).is_ok();
            if !there {
                put(&self.dir, project, rel, entry)?;
                changed.push(rel.clone());
            }
        }
        // What the files put back are now (a new modification time).
        for rel in changed {
            if let Ok(m) = std::fs::symlink_metadata(project.join(&rel)) {
                if m.is_file() {
                    self.entries.insert(rel, Entry::File { len: m.len(), modified: m.modified().ok() });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A destroyer's work is undone: a file emptied, a file deleted, a folder removed, a new file
    /// and a link made; untouched files are not copied again (their modification time stays).
    #[test]
    #[cfg(unix)]
    fn what_changed_is_put_back_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("project");
        std::fs::create_dir_all(project.join("docs/deep")).unwrap();
        std::fs::write(project.join("report.md"), "# Report\nrows").unwrap();
        std::fs::write(project.join("docs/deep/a.txt"), "a").unwrap();
        std::fs::write(project.join("same.txt"), "same").unwrap();
        std::os::unix::fs::symlink("/nonexistent/real", project.join("node_modules")).unwrap();
        let same_before = std::fs::metadata(project.join("same.txt")).unwrap().modified().unwrap();
        let mut kept = Kept::take(&project, t.path().join("kept")).unwrap().unwrap();
        for round in 0..2 {
            std::fs::write(project.join("report.md"), "").unwrap();
            std::fs::remove_dir_all(project.join("docs")).unwrap();
            std::fs::write(project.join("new.txt"), "new").unwrap();
            std::fs::remove_file(project.join("node_modules")).unwrap();
            std::fs::create_dir(project.join("node_modules")).unwrap();
            kept.put_back(&project).unwrap();
            assert_eq!(std::fs::read_to_string(project.join("report.md")).unwrap(), "# Report\nrows", "{round}");
            assert_eq!(std::fs::read_to_string(project.join("docs/deep/a.txt")).unwrap(), "a", "{round}");
            assert!(!project.join("new.txt").exists(), "{round}");
            assert_eq!(std::fs::read_link(project.join("node_modules")).unwrap(), Path::new("/nonexistent/real"));
            let same_now = std::fs::metadata(project.join("same.txt")).unwrap().modified().unwrap();
            assert_eq!(same_now, same_before, "an unchanged file was copied again");
        }
    }

    #[test]
    fn a_copy_past_the_budget_is_not_kept() {
        let t = tempfile::tempdir().unwrap();
        let project = t.path().join("project");
        std::fs::create_dir(&project).unwrap();
        let big = std::fs::File::create(project.join("big.bin")).unwrap();
        big.set_len(KEEP_MAX_BYTES + 1).unwrap();
        assert!(Kept::take(&project, t.path().join("kept")).unwrap().is_none());
        assert!(!t.path().join("kept").exists());
    }
}
