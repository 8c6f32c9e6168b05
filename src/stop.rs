//! A signal ends the run; it does not race with it.
//!
//! When SIGINT, SIGTERM or SIGHUP arrives while servers are being probed, the servers are ended
//! ([`crate::client::stdio::running::end_all`]) and every call still in flight fails. Whatever
//! the run computed from those failures must never be written: a lock with the failures pinned
//! would stop judging those tools for good. So the signal path marks the run stopped first
//! ([`stop`]), and every write of a file and of the report ([`crate::lockfile::write_atomic`],
//! [`crate::sink`]) happens under [`write_guard`], which refuses once the run is stopped. A write
//! already under way when the signal arrives finishes first (its content was complete before the
//! signal), then the signal path goes on: a file is either written whole from a run that was not
//! interrupted, or not at all.
//!
//! The run is not cut off: it goes on to its end (its calls fail as the servers end, and each
//! write it then tries is refused), and `main` exits with the signal's code once the signal path
//! has ended every server ([`servers_ended`]). A run that does not end soon is cut off by the
//! signal path itself.

use std::sync::{Mutex, MutexGuard};

use crate::exit::Signal;

/// Whether (and by which signal) a run was stopped; one per process ([`STATE`]).
pub struct StopState(Mutex<Option<Signal>>);

static STATE: StopState = StopState::new();

/// Held while a file is written: no signal can mark the run stopped in the meantime.
pub struct WriteGuard<'a>(#[allow(dead_code)] MutexGuard<'a, Option<Signal>>);

impl StopState {
    pub const fn new() -> StopState {
        StopState(Mutex::new(None))
    }

    fn state(&self) -> MutexGuard<'_, Option<Signal>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Permission to write, or an error when a signal already stopped the run.
    pub fn write_guard(&self) -> std::io::Result<WriteGuard<'_>> {
        let g = self.state();
        if let Some(s) = *g {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                format!("not written: mcp-pin was stopped by {}", s.name()),
            ));
        }
        Ok(WriteGuard(g))
    }

    /// Mark the run stopped by `signal` (waits for a write under way to finish). The first
    /// signal is the one remembered.
    pub fn stop(&self, signal: Signal) {
        let mut g = self.state();
        if g.is_none() {
            *g = Some(signal);
        }
    }

    pub fn stopped(&self) -> Option<Signal> {
        *self.state()
    }
}

impl Default for StopState {
    fn default() -> Self {
        StopState::new()
    }
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
}
