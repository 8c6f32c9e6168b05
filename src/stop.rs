//! A signal ends the run; it does not race with it.
//!
//! When SIGINT, SIGTERM or SIGHUP arrives while servers are being probed, the servers are ended
//! ([`crate::client::stdio::running::end_all`]) and every call still in flight fails. Whatever
//! the run computed from those failures must never be written: a lock with the failures pinned
//! would stop judging those tools for good. So the signal path marks the run stopped first
//! ([`stop`]), and nothing is written from then on:
//! - a file mcp-pin owns is written atomically ([`crate::files::write_atomic`]) through a
//!   temporary file made by [`temp_file`] and renamed by [`persist`]: a signal removes a
//!   temporary file still being filled and refuses the rename, so the old file stays and no
//!   temporary file is left;
//! - a report written in place, or appended ([`crate::sink`]), is written under [`write_guard`],
//!   which refuses once the run is stopped; a write under way when the signal arrives finishes
//!   first (it cannot be taken back), then the signal path goes on.
//!
//! The run is not cut off: it goes on to its end (its calls fail as the servers end, and each
//! write it then tries is refused), and `main` exits with the signal's code once the signal path
//! has ended every server ([`servers_ended`]). A run that does not end soon is cut off by the
//! signal path itself.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::exit::Signal;

/// Whether (and by which signal) a run was stopped, and the temporary files of the atomic
/// writes under way; one per process ([`STATE`]).
pub struct StopState(Mutex<State>);

pub struct State {
    signal: Option<Signal>,
    temps: Vec<PathBuf>,
}

static STATE: StopState = StopState::new();

/// Held while a file is written: no signal can mark the run stopped in the meantime.
pub struct WriteGuard<'a>(#[allow(dead_code)] MutexGuard<'a, State>);

impl StopState {
    pub const fn new() -> StopState {
        StopState(Mutex::new(State { signal: None, temps: Vec::new() }))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Permission to write in place, or an error when a signal already stopped the run.
    pub fn write_guard(&self) -> std::io::Result<WriteGuard<'_>> {
        let g = self.state();
        refused(&g)?;
        Ok(WriteGuard(g))
    }

    /// A temporary file in `dir` for an atomic write, recorded until [`StopState::persist`] or
    /// [`StopState::discard`]: a signal in between removes it.
    pub fn temp_file(&self, dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
        let mut g = self.state();
        refused(&g)?;
        let tmp = tempfile::Builder::new().prefix(".mcp-pin-").suffix(".tmp").tempfile_in(dir)?;
        g.temps.push(tmp.path().to_path_buf());
        Ok(tmp)
    }

    /// Rename a filled temporary file into place, unless a signal stopped the run (then it is
    /// removed). Under the state's lock, so a signal comes wholly before or after the rename.
    pub fn persist(&self, tmp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
        let mut g = self.state();
        g.temps.retain(|t| t != tmp.path());
        if let Err(e) = refused(&g) {
            let _ = tmp.close();
            return Err(e);
        }
        tmp.persist(path).map(drop).map_err(|e| e.error)
    }

    /// Remove a temporary file that will not be renamed (its write failed).
    pub fn discard(&self, tmp: tempfile::NamedTempFile) {
        self.state().temps.retain(|t| t != tmp.path());
        let _ = tmp.close();
    }

    /// Mark the run stopped by `signal` and remove the temporary files of the atomic writes
    /// under way (a write in place under way finishes first). The first signal is the one
    /// remembered.
    pub fn stop(&self, signal: Signal) {
        let mut g = self.state();
        if g.signal.is_none() {
            g.signal = Some(signal);
        }
        for t in g.temps.drain(..) {
            let _ = std::fs::remove_file(t);
        }
    }

    pub fn stopped(&self) -> Option<Signal> {
        self.state().signal
    }
}

impl Default for StopState {
    fn default() -> Self {
        StopState::new()
    }
}

/// Refused: the run was stopped by a signal.
fn refused(state: &State) -> std::io::Result<()> {
    match state.signal {
        Some(s) => Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            format!("not written: mcp-pin was stopped by {}", s.name()),
        )),
        None => Ok(()),
    }
}

/// A temporary file for an atomic write of this process's run ([`StopState::temp_file`]).
pub fn temp_file(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    STATE.temp_file(dir)
}

/// [`StopState::persist`] for this process's run.
pub fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
    STATE.persist(tmp, path)
}

/// [`StopState::discard`] for this process's run.
pub fn discard(tmp: tempfile::NamedTempFile) {
    STATE.discard(tmp)
}

/// Permission to write for this process's run ([`StopState::write_guard`]).
pub fn write_guard() -> std::io::Result<WriteGuard<'static>> {
    STATE.write_guard()
}

/// Mark this process's run stopped by `signal`.
pub fn stop(signal: Signal) {
    STATE.stop(signal)
}

/// The signal that stopped this process's run, if one did.
pub fn stopped() -> Option<Signal> {
    STATE.stopped()
}

static SERVERS_ENDED: (Mutex<bool>, std::sync::Condvar) = (Mutex::new(false), std::sync::Condvar::new());

/// Say that the signal path has ended every server (the run may exit now).
pub fn servers_ended() {
    *SERVERS_ENDED.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
    SERVERS_ENDED.1.notify_all();
}

/// Wait (at most `limit`) until the signal path has ended every server.
pub fn wait_servers_ended(limit: std::time::Duration) {
    let g = SERVERS_ENDED.0.lock().unwrap_or_else(|e| e.into_inner());
    let _ = SERVERS_ENDED.1.wait_timeout_while(g, limit, |ended| !*ended);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_writes_nothing_and_a_write_under_way_finishes_first() {
        let state = std::sync::Arc::new(StopState::new());
        let guard = state.write_guard().expect("not stopped yet");
        // The signal arrives while a write is under way: it waits for the write.
        let s2 = state.clone();
        let signal = std::thread::spawn(move || s2.stop(Signal::Terminate));
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!signal.is_finished(), "the signal waits for the write in progress");
        drop(guard);
        signal.join().unwrap();
        state.stop(Signal::Interrupt);
        assert_eq!(state.stopped(), Some(Signal::Terminate), "the first signal is remembered");
        let e = state.write_guard().err().expect("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
        assert!(e.to_string().contains("SIGTERM"), "{e}");
    }

    #[test]
    fn a_signal_removes_the_temporary_file_of_an_atomic_write_and_refuses_its_rename() {
        let dir = tempfile::tempdir().unwrap();
        let state = StopState::new();
        let done = state.temp_file(dir.path()).unwrap();
        state.persist(done, &dir.path().join("before")).expect("renamed before the signal");
        let tmp = state.temp_file(dir.path()).unwrap();
        let at = tmp.path().to_path_buf();
        assert!(at.exists());
        state.stop(Signal::Hangup);
        assert!(!at.exists(), "the signal removed it");
        assert!(state.persist(tmp, &dir.path().join("after")).is_err());
        assert!(!dir.path().join("after").exists());
        assert!(state.temp_file(dir.path()).is_err(), "no write starts after the signal");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("before")]);
    }
}
