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

use std::sync::{Mutex, MutexGuard};

use crate::exit::Signal;

static STOPPED: Mutex<Option<Signal>> = Mutex::new(None);

fn state() -> MutexGuard<'static, Option<Signal>> {
    STOPPED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Held while a file is written: no signal can mark the run stopped in the meantime.
pub struct WriteGuard(#[allow(dead_code)] MutexGuard<'static, Option<Signal>>);

/// Permission to write, or an error when a signal already stopped the run.
pub fn write_guard() -> std::io::Result<WriteGuard> {
    let g = state();
    if let Some(s) = *g {
        return Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            format!("not written: mcp-pin was stopped by {}", s.name()),
        ));
    }
    Ok(WriteGuard(g))
}

/// Mark the run stopped by `signal` (waits for a write under way to finish). The first signal
/// is the one remembered.
pub fn stop(signal: Signal) {
    let mut g = state();
    if g.is_none() {
        *g = Some(signal);
    }
}

/// The signal that stopped the run, if one did.
pub fn stopped() -> Option<Signal> {
    *state()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stopped_run_writes_nothing() {
        // The state is global to the process: this is the only test in the library that stops it.
        assert!(super::write_guard().is_ok());
        super::stop(crate::exit::Signal::Terminate);
        super::stop(crate::exit::Signal::Interrupt);
        assert_eq!(super::stopped(), Some(crate::exit::Signal::Terminate));
        let e = super::write_guard().err().expect("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted);
        assert!(e.to_string().contains("SIGTERM"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.lock");
        assert!(crate::lockfile::write_atomic(&path, b"{}").is_err());
        assert!(!path.exists());
    }
}
