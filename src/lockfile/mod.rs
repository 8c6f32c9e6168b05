//! `mcp.lock`: the pinned surfaces, deterministic and reviewable, written atomically.
//!
//! See `docs/lockfile.md` for the format. The lock is JSON with sorted keys and two-space indent
//! (written by [`crate::json`]), servers and tools keyed (so sorted) by name, no timestamps, and
//! never a secret: how a server was reached is recorded without env or header values.
//!
//! One file per job, the way Cargo keeps its resolve model apart from its encoder: the model
//! ([`model`]), the reader ([`read`]), the pinned-text half of settling ([`pending`]), the
//! writer ([`write`]) and acceptance ([`accept`]).

mod accept;
mod model;
mod pending;
mod read;
mod write;

use std::path::PathBuf;

pub use accept::{accept_server_level, accept_tools};
pub use model::{Lockfile, ServerEntry};
pub use pending::PendingEntry;
pub use read::{line_of, LockText, ScannedLock, MAX_LOCKFILE};
pub use write::{source_of, WriteGuard};

/// Version of the lockfile's structure. A lock with a higher version was written by a newer
/// mcp-pin and is refused with "upgrade".
pub const LOCKFILE_VERSION: u64 = 1;

/// Version of the canonical form of tool definitions. When a future mcp-pin changes how it
/// normalises, it reads older locks through the old form, so an unchanged server shows no drift.
pub const NORMALIZER_VERSION: u64 = 1;

#[derive(Debug, thiserror::Error)]
pub enum LockfileError {
    #[error("no lockfile at {path}")]
    Missing { path: PathBuf },
    #[error("cannot read lockfile {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("lockfile {path} is not valid JSON at line {line}, column {column}: {message}")]
    Syntax { path: PathBuf, line: usize, column: usize, message: String },
    #[error("lockfile {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    /// Git left merge conflict markers in it: two branches changed the lock.
    #[error("lockfile {path} has git merge conflict markers (line {line}: `<<<<<<<`): two branches each changed it, and git could not merge them")]
    Conflict { path: PathBuf, line: usize },
    #[error(
        "lockfile {path} has lockfileVersion {found}, newer than this mcp-pin supports ({supported}); upgrade mcp-pin"
    )]
    TooNew { path: PathBuf, found: u64, supported: u64 },
    #[error("cannot write lockfile {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests;
