//! Where each tool's calls are made (RULES.md, "Probes": where a tool is called).
//!
//! A tool whose effective hints say read-only is called in the server's own session; under the
//! default policy (`probe = "sandbox"`) every other tool of a stdio server is called in a second
//! session of the same server started inside the sandbox ([`crate::sandbox`]); both calls of a
//! tool in the same place. Where no complete sandbox can be had, those tools are skipped with the
//! reason, said once per server, and never called bare.
//!
//! A probe gets a [`Session`] for its place from [`Places`] and never cares which it is. The
//! server's own session is closed before the sandboxed one opens: a server never holds two of
//! the `--max-children` slots at once, so servers waiting for a second slot can never hold every
//! slot between them (with `--max-children 1` they always would).

use serde_json::Value;

use super::{policy, read_only, Plan};
use super::{Probe, ProbeOutcome};
use crate::client::{NoSandbox, Session};
use crate::config::{ProbePolicy, ServerConfig};

pub use crate::sandbox::Place;

/// Where the calls of `tool` go under the server's policy (a skipped tool is never called; it
/// is placed in the session, which it does not need).
pub fn of(server: &ServerConfig, tool: &str, def: &Value, plan: &Plan) -> Place {
    match plan {
        Plan::Call { .. } if policy(server, tool) == ProbePolicy::Sandbox && !read_only(def) => Place::Sandbox,
        _ => Place::Session,
    }
}

/// The sessions of one server's probe run: its own, then (when a tool needs it) the sandboxed
/// one. The sandboxed one may be started beside the own session ([`Places::start_sandbox`]) when
/// a child slot is free at once, so its start overlaps the own session's calls; otherwise it is
/// started when first asked for, after the own session is closed.
pub struct Places<'a> {
    server: &'a ServerConfig,
    own: Option<Own<'a>>,
    sandbox: Option<Result<Session, NoSandbox>>,
    /// The sandboxed session being started beside the own one.
    starting: Option<tokio::task::JoinHandle<Result<Session, NoSandbox>>>,
    /// How many times a session was started again after its server died ([`MAX_RESTARTS`]).
    restarts: usize,
}

/// The sandboxed session of a server started at the same time as its own session, before the
/// listing, when the lock says some tool will be called in the sandbox: the two server starts
/// overlap (a probed `check` then costs little more than a listing-only one). Both child slots are
/// taken at once, or neither: a server never holds one slot while it waits for another.
pub struct Early {
    task: tokio::task::JoinHandle<Result<Session, NoSandbox>>,
    /// The slot the own session's server is started with ([`Early::first`]).
    own_slot: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl Early {
    /// Start it when the pinned tools (`pinned`: each tool's raw JSON as the lock holds it) have
    /// one the server's policy calls in the sandbox, the server is a stdio one, the sandbox can
    /// be had here, and two child slots are free now; `None` otherwise (the sandboxed session is
    /// then started when the probes need it).
    pub fn start<'t>(server: &ServerConfig, pinned: impl IntoIterator<Item = &'t String>) -> Option<Early> {
        if !matches!(server.transport, crate::config::Transport::Stdio(_)) || crate::sandbox::available().is_err() {
            return None;
        }
        let wanted = pinned.into_iter().any(|text| {
            let Ok(def) = serde_json::from_str::<Value>(text) else { return false };
            let Some(name) = def.get("name").and_then(Value::as_str) else { return false };
            of(server, name, &def, &super::plan(server, name, &def)) == Place::Sandbox
        });
        if !wanted {
            return None;
        }
        let mut slots = crate::client::stdio::try_child_slots(2)?;
        let own_slot = slots.pop();
        let slot = slots.pop()?;
        let server = server.clone();
        let task =
            tokio::spawn(crate::client::stdio::with_slot(
                slot,
                async move { Session::connect_sandboxed(&server).await },
            ));
        Some(Early { task, own_slot })
    }

    /// Run `fut` (the own session's start) with the slot taken for it.
    pub async fn first<F: std::future::Future>(&mut self, fut: F) -> F::Output {
        match self.own_slot.take() {
            Some(slot) => crate::client::stdio::with_slot(slot, fut).await,
            None => fut.await,
        }
    }

    /// End it unused (the own session failed, or the probes are off).
    pub async fn close(self) {
        if let Ok(Ok(s)) = self.task.await {
            s.close().await;
        }
    }
}

/// Most restarts of a server that died during its probes, per run.
pub const MAX_RESTARTS: usize = 4;

/// The server's own session: the run's to close, or lent for the run (then no sandboxed session
/// is opened beside it).
enum Own<'a> {
    Owned(Box<Session>),
    Lent(&'a Session),
}

impl<'a> Places<'a> {
    pub fn new(own: Session, server: &'a ServerConfig) -> Places<'a> {
        Places { server, own: Some(Own::Owned(Box::new(own))), sandbox: None, starting: None, restarts: 0 }
    }

    /// Places for a session the caller keeps: every tool that must run in the sandbox is
    /// skipped (a second session beside a lent one could hold two child slots).
    pub fn lent(own: &'a Session, server: &'a ServerConfig) -> Places<'a> {
        let none = NoSandbox::Unavailable("this run makes its calls in one session only".into());
        Places { server, own: Some(Own::Lent(own)), sandbox: Some(Err(none)), starting: None, restarts: 0 }
    }

    /// Places whose sandboxed session was started before the own one ([`Early`]).
    pub fn with_early(own: Session, server: &'a ServerConfig, early: Option<Early>) -> Places<'a> {
        let mut p = Places::new(own, server);
        p.starting = early.map(|e| e.task);
        p
    }

    /// Start the sandboxed session now, beside the own one, if a child slot is free at once (a
    /// server never waits for a second slot while it holds one: servers waiting for each other's
    /// slots could hold every slot between them).
    pub fn start_sandbox(&mut self) {
        if self.sandbox.is_some() || self.starting.is_some() || !matches!(self.own, Some(Own::Owned(_))) {
            return;
        }
        let Some(slot) = crate::client::stdio::try_child_slot() else { return };
        let server = self.server.clone();
        self.starting = Some(tokio::spawn(crate::client::stdio::with_slot(slot, async move {
            Session::connect_sandboxed(&server).await
        })));
    }

    /// The session for `place`. The sandboxed one is started on first use (or awaited, when it
    /// was started beside), after the server's own session is closed; asking for the own
    /// session after that is a bug (`Err` then).
    pub async fn open(&mut self, place: Place) -> Result<&Session, &NoSandbox> {
        match place {
            Place::Session => {
                static CLOSED: NoSandbox = NoSandbox::Unavailable(String::new());
                match &self.own {
                    Some(Own::Owned(s)) => Ok(s),
                    Some(Own::Lent(s)) => Ok(*s),
                    None => Err(&CLOSED),
                }
            }
            Place::Sandbox => {
                if self.sandbox.is_none() {
                    if let Some(Own::Owned(own)) = self.own.take() {
                        own.close().await;
                    }
                    let started = match self.starting.take() {
                        Some(task) => task.await.unwrap_or_else(|e| Err(NoSandbox::Unavailable(e.to_string()))),
                        None => Session::connect_sandboxed(self.server).await,
                    };
                    self.sandbox = Some(started);
                }
                self.sandbox.as_ref().expect("set above").as_ref()
            }
        }
    }

    /// Start the session of `place` again, after its server died (RULES.md, "Never aimed at the
    /// machine": the tools still waiting get a server). `false` when it cannot be: a lent
    /// session, [`MAX_RESTARTS`] reached, or the server did not start again.
    pub async fn restart(&mut self, place: Place) -> bool {
        if self.restarts >= MAX_RESTARTS {
            return false;
        }
        match place {
            Place::Session => {
                let Some(Own::Owned(_)) = &self.own else { return false };
                if let Some(Own::Owned(old)) = self.own.take() {
                    old.close().await;
                }
                self.restarts += 1;
                match Session::connect(self.server).await {
                    Ok(s) => {
                        self.own = Some(Own::Owned(Box::new(s)));
                        true
                    }
                    Err(_) => false,
                }
            }
            Place::Sandbox => {
                let Some(Ok(_)) = &self.sandbox else { return false };
                if let Some(Ok(old)) = self.sandbox.take() {
                    old.close().await;
                }
                self.restarts += 1;
                let again = Session::connect_sandboxed(self.server).await;
                let ok = again.is_ok();
                self.sandbox = Some(again);
                ok
            }
        }
    }

    /// Keep the sandbox's copy of the project as it is now ([`crate::sandbox::keep`]); `false`
    /// for the server's own session (its project is the user's: never put back) or when it was
    /// not kept.
    pub fn keep(&mut self, place: Place) -> bool {
        match (place, &mut self.sandbox) {
            (Place::Sandbox, Some(Ok(s))) => s.keep_project(),
            _ => false,
        }
    }

    /// Put back the sandbox's copy kept by [`Places::keep`].
    pub fn put_back(&mut self, place: Place) -> bool {
        match (place, &mut self.sandbox) {
            (Place::Sandbox, Some(Ok(s))) => s.put_back_project(),
            _ => false,
        }
    }

    /// Close whatever is open (a sandboxed session still starting is awaited and closed).
    pub async fn close(self) {
        if let Some(Own::Owned(s)) = self.own {
            s.close().await;
        }
        if let Some(task) = self.starting {
            if let Ok(Ok(s)) = task.await {
                s.close().await;
            }
        }
        if let Some(Ok(s)) = self.sandbox {
            s.close().await;
        }
    }
}

/// Mark the probes of calls made in `place` (a probe that says the call was not made has none).
pub fn stamp(probes: &mut [Probe], place: Place) {
    for p in probes {
        let not_made = p.outcome == ProbeOutcome::Skipped && p.reason.is_some_and(super::SkipReason::not_made);
        if !not_made {
            p.place = Some(place);
        }
    }
}

/// How a skip for want of a sandbox starts (the summary's reason "no sandbox").
pub const NO_SANDBOX: &str = "not probed: not annotated read-only, and there is no sandbox for it here";

/// The skip of a tool that must run in the sandbox when there is none.
pub fn no_sandbox_skip(server: &ServerConfig, tool: &str) -> String {
    format!(
        "{NO_SANDBOX} (the server's note says why); it is never called outside one. To call it in the server's own session anyway, add [servers.{}.tools.{}] probe = \"all\" to mcp-pin.toml",
        super::toml_key(&server.name),
        super::toml_key(tool)
    )
}

/// The note said once per server when its sandboxed session could not be had.
pub fn no_sandbox_note(no: &NoSandbox, tools: usize) -> String {
    let n = format!("{tools} tool{}", if tools == 1 { "" } else { "s" });
    match no {
        NoSandbox::Unavailable(why) => format!(
            "no sandbox for this server's probes: {why}; {n} not annotated read-only {} skipped, never called outside one (docs/probes.md)",
            if tools == 1 { "was" } else { "were" }
        ),
        NoSandbox::Start(_) => format!("{no}; the calls of {n} not annotated read-only could not be made"),
    }
}
