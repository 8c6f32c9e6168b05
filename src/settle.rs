//! Settling: a lock entry and a live surface turned into what the judge compares, the one step
//! `check`, `review` and the proxy (its listing and its handshake) all take, so that no front end
//! compares anything another front end would not.
//!
//! Settling takes the live side masked as the lock is written ([`Live`], which only
//! [`Live::mask`] makes: a configured value pinned as `***` is `***` on both sides, never drift;
//! it does not mask again), reads the pinned tools with the duplicate-key-checking reader
//! ([`crate::json_read`], through [`PendingEntry::resolve`]), and drops every tool whose canonical text is the pinned text from
//! both sides (it cannot differ, so it is never parsed nor diffed). The result, [`Settled`], is
//! what [`crate::diff::verdict::judge`] takes.
//!
//! The listing it settles is taken by the one loop of [`crate::client::listing`], which both
//! front ends run (rmcp's session for the commands, the proxy's own requests at run time).
//!
//! The pinned half it settles is the lock's own ([`crate::lockfile`]'s `pending.rs`: the pinned
//! tools' text, [`PendingEntry::resolve`]).

use std::collections::BTreeSet;

use crate::lockfile::{LockfileError, PendingEntry, ServerEntry};
use crate::surface::{Live, SecretName, ServerSurface};

/// A pinned surface and a live one, ready to be judged.
#[derive(Debug, Clone)]
pub struct Settled {
    /// The lock entry, its surface holding only the pinned tools whose text differs from the
    /// live tool of that name (or that are not listed now).
    pub entry: ServerEntry,
    /// The live surface, masked, holding only the tools whose text differs from the pinned one.
    pub live: ServerSurface,
    /// Every pinned tool's name.
    pub pinned_names: BTreeSet<String>,
    /// Every live tool's name.
    pub live_names: BTreeSet<String>,
    /// Names (tools', keys') in the live surface that hold a configured secret's value: names
    /// are never masked, so `check` refuses such a surface (the proxy judges it as it is).
    pub secret_names: Vec<SecretName>,
}

impl Settled {
    /// The pinned side, as the judge compares it.
    pub fn pinned(&self) -> &ServerSurface {
        &self.entry.surface
    }

    /// The whole surfaces' tool counts (pinned, live), for "every tool is gone".
    pub fn counts(&self) -> (usize, usize) {
        (self.pinned_names.len(), self.live_names.len())
    }
}

/// Settle `live` against the lock entry `pending` (its tools still the lock's text).
pub fn settle(pending: PendingEntry, live: Live) -> Result<Settled, LockfileError> {
    let pinned_names = pending.tools.keys().cloned().collect();
    let live_names = live.tools.keys().cloned().collect();
    let (mut live, secret_names) = live.into_parts();
    let entry = pending.resolve(&mut live)?;
    Ok(Settled { entry, live, pinned_names, live_names, secret_names })
}

/// Settle two whole surfaces (`review`, which reads the whole lock; `mcp-pin diff`'s corpus):
/// every tool kept.
pub fn settle_whole(pinned: ServerEntry, live: Live) -> Settled {
    let pinned_names = pinned.surface.tools.keys().cloned().collect();
    let live_names = live.tools.keys().cloned().collect();
    let (live, secret_names) = live.into_parts();
    Settled { entry: pinned, live, pinned_names, live_names, secret_names }
}

/// Settle the server-level facts alone (the proxy's handshake, before any listing): the pinned
/// entry's, without its tools, against `live`'s (its tools ignored).
pub fn settle_server_level(pinned: &ServerEntry, live: &Live) -> Settled {
    let entry = ServerEntry {
        surface: ServerSurface { tools: Default::default(), ..pinned.surface.clone() },
        ..ServerEntry::default()
    };
    settle_whole(entry, live.without_tools())
}

/// A server the lock does not pin, relayed with every tool new (`[proxy] unpinned = "serve"`):
/// its own server-level facts on both sides (nothing server-level to say, both masked alike),
/// no pinned tool.
pub fn settle_unpinned(live: Live) -> Settled {
    let entry = ServerEntry { surface: live.without_tools().into_parts().0, ..ServerEntry::default() };
    settle_whole(entry, live)
}
