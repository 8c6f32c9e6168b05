//! Ending every process a server started (Linux): the helper is a child subreaper, so each of
//! its descendants has it as an ancestor, whatever the process did (`setsid`, a double fork):
//! an orphan is reparented to the helper, not to init. The helper walks `/proc` for that tree
//! and kills it until nothing is left.

use std::collections::{BTreeMap, BTreeSet};

/// `(ppid, start time)` of a process, from `/proc/PID/stat` (the fields after the last `)`:
/// the command name may hold anything, parentheses and spaces included).
fn stat(pid: i32) -> Option<(i32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(0) ppid(1) ... starttime is field 22 of the line, index 19 here.
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((ppid, start))
}

/// Every process below `root`, with its start time (to tell it from a later process that
/// reused its id).
fn descendants(root: i32) -> Vec<(i32, u64)> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return vec![] };
    let mut children: BTreeMap<i32, Vec<(i32, u64)>> = BTreeMap::new();
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        if let Some((ppid, start)) = stat(pid) {
            children.entry(ppid).or_default().push((pid, start));
        }
    }
    let mut out = vec![];
    let mut seen = BTreeSet::new();
    let mut queue = vec![root];
    while let Some(p) = queue.pop() {
        for &(c, start) in children.get(&p).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(c) {
                out.push((c, start));
                queue.push(c);
            }
        }
    }
    out
}

/// Send SIGKILL to `pid` only if it is still the process that started at `start`: a pidfd is
/// taken first, then the start time checked again, so a reused id is never signalled.
fn kill_exactly(pid: i32, start: u64) {
    // SAFETY: pidfd_open and pidfd_send_signal with integer arguments; the fd is closed here.
    unsafe {
        let fd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as i32;
        if fd < 0 {
            // No pidfd (Linux < 5.3): the start time checked just before is the best there is.
            if stat(pid).map(|s| s.1) == Some(start) {
                libc::kill(pid, libc::SIGKILL);
            }
            return;
        }
        if stat(pid).map(|s| s.1) == Some(start) {
            libc::syscall(libc::SYS_pidfd_send_signal, fd, libc::SIGKILL, std::ptr::null::<libc::siginfo_t>(), 0);
        }
        libc::close(fd);
    }
}

/// Kill every descendant of this process and reap its children until none is left. Returns the
/// wait status of `watch` if it was reaped here.
pub fn kill_tree(watch: i32) -> Option<i32> {
    let me = std::process::id() as i32;
    let mut status = None;
    for _ in 0..10_000 {
        let tree = descendants(me);
        for &(pid, start) in &tree {
            kill_exactly(pid, start);
        }
        // Reap what died (orphans of the tree are this process's children by now, or soon).
        loop {
            let mut st = 0;
            // SAFETY: waitpid with a valid out-pointer.
            let pid = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) };
            if pid == watch {
                status = Some(st);
            }
            if pid <= 0 {
                break;
            }
        }
        if tree.is_empty() {
            // Nothing left below (and every child reaped just above).
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    status
}

#[cfg(test)]
mod tests {
    #[test]
    fn stat_reads_a_name_with_parentheses_and_spaces() {
        let me = std::process::id() as i32;
        let (ppid, start) = super::stat(me).expect("own stat");
        // SAFETY: getppid has no arguments.
        assert_eq!(ppid, unsafe { libc::getppid() });
        assert!(start > 0);
    }
}
