//! Probes: per tool, one real end-to-end `tools/call` with valid arguments and, when the tool has
//! a required argument, one call with a required argument left out that must be rejected.
//!
//! [`run`] plans every tool ([`plan`]: safety policy, fixture or smallest valid arguments),
//! probes the tools in waves (those that only read first: their results feed the arguments of
//! later tools), each in its session ([`search`]: candidate arguments tried at `lock`, pinned
//! ones replayed at `check`; [`candidates`]: where arguments come from), and judges each answer
//! ([`judge_call`], [`judge_incomplete`]: pure functions over the raw result, so failure cases
//! test without a server). See `docs/probes.md`.

pub mod answer;
pub mod args;
pub mod candidates;
pub mod order;
pub mod outcome;
pub mod place;
pub mod regexgen;
pub mod search;
pub mod shape;
pub mod skeleton;
pub mod validate;

use std::collections::BTreeMap;
use std::time::Duration;

use futures::stream::{self, StreamExt};
use serde_json::{Map, Value};

use crate::client::{humanize, CallOutcome, ClientError, NoSandbox, Session};
use crate::config::{ProbePolicy, ServerConfig};
pub use outcome::{Probe, ProbeKind, ProbeOutcome, SkipReason};

pub use args::synthesize_args;
pub use place::Place;
pub use shape::Relation;

use crate::rules::RuleId;

/// Probe calls in flight at once, per server.
pub const CONCURRENCY: usize = 4;
/// Longest excerpt of a server's error text in a message.
pub const EXCERPT: usize = 200;

pub const CALL_FAILED: RuleId = RuleId::CallFailed;
pub const CALL_TIMEOUT: RuleId = RuleId::CallTimeout;
pub const STRUCTURED_CONTENT_MISSING: RuleId = RuleId::StructuredContentMissing;
pub const STRUCTURED_CONTENT_INVALID: RuleId = RuleId::StructuredContentInvalid;
pub const INCOMPLETE_CALL_ACCEPTED: RuleId = RuleId::IncompleteCallAccepted;
pub const RESULT_SHAPE_CHANGED: RuleId = RuleId::ResultShapeChanged;
/// Something pinned is not there this time (loud: counts and optional parts vary).
pub const RESULT_SHAPE_REDUCED: RuleId = RuleId::ResultShapeReduced;
/// A text block is JSON that now differs from `structuredContent`.
pub const TEXT_STRUCTURE_CONFLICT: RuleId = RuleId::TextStructureConflict;
/// A block contradicts its own declaration (JSON that does not parse, a wrong magic number).
pub const RESULT_PAYLOAD_INVALID: RuleId = RuleId::ResultPayloadInvalid;
/// Most result-contract findings reported per tool and rule; the last one says how many more.
pub const MAX_FINDINGS: usize = 8;

/// Every rule id a probe can report.
pub const RULES: &[RuleId] = &[
    CALL_FAILED,
    CALL_TIMEOUT,
    STRUCTURED_CONTENT_MISSING,
    STRUCTURED_CONTENT_INVALID,
    INCOMPLETE_CALL_ACCEPTED,
    RESULT_SHAPE_CHANGED,
    RESULT_SHAPE_REDUCED,
    TEXT_STRUCTURE_CONFLICT,
    RESULT_PAYLOAD_INVALID,
];

/// What a probe run produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProbeRun {
    /// Sorted by tool, the valid call's probes before the incomplete call's.
    pub probes: Vec<Probe>,
    /// Result contract per tool whose valid call got an answer (see [`shape::shape`]); a failed
    /// call is pinned as failed.
    pub shapes: BTreeMap<String, Value>,
    /// Said once for the server: why its sandboxed session could not be had.
    pub notes: Vec<String>,
}

impl ProbeRun {
    pub fn failures(&self) -> usize {
        self.probes.iter().filter(|p| p.outcome == ProbeOutcome::Fail).count()
    }

    /// One line on this run's probes ([`probe_summary`]).
    pub fn summary(&self) -> String {
        probe_summary(&self.probes)
    }
}

/// One line: how many tools were probed (and where, when the probes say), how many skipped and
/// why, how many passed (every probe of the tool passed), e.g. `13 tools: 9 probed (5 in the
/// session, 4 in the sandbox), 8 passed, 1 failed; 4 skipped (2 no sandbox, 1 probe = "none",
/// 1 require tasks)`. Derived from the probes alone (a tool is skipped when its valid call was),
/// so a report read back from JSON gives the same.
pub fn probe_summary(probes: &[Probe]) -> String {
    // Per tool: `None` when it was called, else the short reason it was not.
    let mut tools: BTreeMap<&str, Option<&'static str>> = BTreeMap::new();
    for p in probes {
        let why = (p.kind == ProbeKind::Call && p.outcome == ProbeOutcome::Skipped)
            .then(|| p.reason.map_or("other", SkipReason::label));
        let entry = tools.entry(p.tool.as_str()).or_insert(None);
        if entry.is_none() {
            *entry = why;
        }
    }
    let total = tools.len();
    let probed: Vec<&str> = tools.iter().filter(|(_, w)| w.is_none()).map(|(t, _)| *t).collect();
    // A probed tool failed when one of its calls is a silent finding; one whose findings are
    // all of another class (`result-shape-reduced` is loud) is counted apart, as every report
    // counts it; the failing calls are counted too when a tool failed more than one.
    let worst = |t: &str| {
        probes.iter().filter(|p| p.tool == t && p.outcome == ProbeOutcome::Fail).map(Probe::effective_class).max()
    };
    let failed = probed.iter().filter(|t| worst(t) == Some(crate::rules::Class::Silent)).count();
    let other = probed.iter().filter(|t| worst(t).is_some_and(|c| c != crate::rules::Class::Silent)).count();
    // A tool whose valid call passed with an answer that reads as a failure is counted apart
    // from the calls that succeeded (RULES.md, "An answer that says it failed has failed").
    let answered_failure = probed
        .iter()
        .filter(|t| worst(t).is_none())
        .filter(|t| probes.iter().any(|p| p.tool == **t && p.kind == ProbeKind::Call && p.answered_failure))
        .count();
    let failed_calls = probes
        .iter()
        .filter(|p| {
            p.outcome == ProbeOutcome::Fail
                && p.effective_class() == crate::rules::Class::Silent
                && probed.contains(&p.tool.as_str())
        })
        .count();
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for w in tools.values().flatten() {
        *why.entry(w).or_insert(0) += 1;
    }
    // Where each probed tool's valid call was made, when its probe says.
    let mut at: BTreeMap<Place, usize> = BTreeMap::new();
    for t in &probed {
        if let Some(place) = probes.iter().find(|p| p.tool == *t && p.kind == ProbeKind::Call).and_then(|p| p.place) {
            *at.entry(place).or_insert(0) += 1;
        }
    }
    let places = if at.is_empty() {
        String::new()
    } else {
        let parts: Vec<String> = at.iter().map(|(p, n)| format!("{n} in the {}", p.as_str())).collect();
        format!(" ({})", parts.join(", "))
    };
    let skipped = total - probed.len();
    let mut line = format!(
        "{total} tool{}: {} probed{places}, {} passed, {failed} failed",
        if total == 1 { "" } else { "s" },
        probed.len(),
        probed.len() - failed - other - answered_failure
    );
    if answered_failure > 0 {
        line.push_str(&format!(", {answered_failure} answered with a failure"));
    }
    if failed_calls != failed {
        line.push_str(&format!(" ({failed_calls} calls)"));
    }
    if other > 0 {
        line.push_str(&format!(", {other} with loud findings only"));
    }
    line.push_str(&format!("; {skipped} skipped"));
    if !why.is_empty() {
        let parts: Vec<String> = why.iter().map(|(w, n)| format!("{n} {w}")).collect();
        line.push_str(&format!(" ({})", parts.join(", ")));
    }
    line
}

/// Whether the probes are pinning (`lock`) or comparing with a pin (`check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Lock,
    Check,
}

/// What [`judge_call`] needs besides the outcome.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The live tool definition.
    pub def: &'a Value,
    /// The contract pinned for this tool (`None`: nothing pinned, or locking).
    pub pinned: Option<&'a Value>,
    pub mode: Mode,
    /// `Some(line)` when mcp-pin found the arguments (the line adds an `args` fixture); `None`
    /// when they are a fixture the user wrote.
    pub synthesised: Option<&'a str>,
    pub timeout: Duration,
    pub secrets: &'a [String],
    /// How many argument sets were tried before this outcome (1 when there was one).
    pub tried: usize,
}

/// What will be done for one tool.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Not called; the message says why and how to enable it.
    Skip { tool: String, reason: SkipReason, message: String },
    /// Called with `args` (the fixture, or the smallest valid arguments, which `lock` may better:
    /// [`search`]); then, when the tool has a required argument, with `incomplete`.
    /// `synthesised`: the config line that adds an `args` fixture, when the arguments are not
    /// the user's (`None`: the user's fixture).
    Call { tool: String, args: Map<String, Value>, incomplete: Option<Incomplete>, synthesised: Option<String> },
}

/// The deliberately incomplete call.
#[derive(Debug, Clone, PartialEq)]
pub struct Incomplete {
    /// The required argument left out.
    pub left_out: String,
    pub args: Map<String, Value>,
}

/// Probe every tool of one server. `session`: the server's own session (closed here, when its
/// part is done: [`place::Places`]); `tools`: the live raw tools by name; `pinned`: the shapes
/// recorded at lock time (`None` when locking). Never fails: every problem is a probe.
///
/// Tools are probed in waves by [`candidates::hints::rank`] (those that only read and need no
/// argument, then the other readers, then the rest, then those whose names say they destroy or
/// move things), at most [`CONCURRENCY`] at a time within a wave; at `lock` the values each wave
/// of readers returns feed the arguments of the next.
pub async fn run(
    session: Session,
    server: &ServerConfig,
    tools: &BTreeMap<String, Value>,
    pinned: Option<&BTreeMap<String, Value>>,
) -> ProbeRun {
    run_placed(place::Places::new(session, server), server, tools, pinned).await
}

/// [`run`] with the sandboxed session started beside the own one before the listing
/// ([`place::Early`]).
pub async fn run_early(
    session: Session,
    early: Option<place::Early>,
    server: &ServerConfig,
    tools: &BTreeMap<String, Value>,
    pinned: Option<&BTreeMap<String, Value>>,
) -> ProbeRun {
    run_placed(place::Places::with_early(session, server, early), server, tools, pinned).await
}

/// [`run`] in a session the caller keeps (the conformance adapter calls more tools after the
/// probes): tools that must run in the sandbox are skipped.
pub async fn run_in_session(
    session: &Session,
    server: &ServerConfig,
    tools: &BTreeMap<String, Value>,
    pinned: Option<&BTreeMap<String, Value>>,
) -> ProbeRun {
    run_placed(place::Places::lent(session, server), server, tools, pinned).await
}

async fn run_placed(
    mut places: place::Places<'_>,
    server: &ServerConfig,
    tools: &BTreeMap<String, Value>,
    pinned: Option<&BTreeMap<String, Value>>,
) -> ProbeRun {
    let secrets = server.secrets();
    let mode = if pinned.is_some() { Mode::Check } else { Mode::Lock };
    let budget = search::Budget::for_tools(tools.len());
    let mut placed = arrange(server, tools, pinned);
    if placed.get(&Place::Sandbox).is_some_and(|w| w.values().any(|t| !t.is_empty())) {
        places.start_sandbox();
    }
    let shared = Shared { server, pinned, mode, budget: &budget, secrets: &secrets };
    let mut run = Run {
        places,
        shared,
        tools,
        known: candidates::Known::of_server(server),
        done: Vec::new(),
        notes: Vec::new(),
        setups: Vec::new(),
    };
    // The server's own session first (its readers' listings feed the arguments of the tools that
    // change things), then the sandboxed one (never both at once).
    for at in [Place::Session, Place::Sandbox] {
        if let Some(waves) = placed.remove(&at) {
            run.place(at, waves).await;
        }
    }
    run.finish().await
}

/// One probe run of a server, place by place and wave by wave: what is known, done and set up
/// so far.
struct Run<'a, 't> {
    places: place::Places<'a>,
    shared: Shared<'a>,
    tools: &'t BTreeMap<String, Value>,
    known: candidates::Known,
    done: Vec<search::Done>,
    notes: Vec<String>,
    /// The setup calls that succeeded, made again first wherever a session starts after them.
    setups: Vec<(String, candidates::ArgSet)>,
}

/// The tools of a wave that was searched, and what was known once it was done (what the Late
/// wave holds against what is known at the end).
type Searched<'t> = Vec<(Vec<(&'t String, &'t Value)>, candidates::Known)>;

impl<'a, 't> Run<'a, 't> {
    /// Probe the tools of one place, wave by wave.
    async fn place(&mut self, at: Place, mut waves: Waves<'t>) {
        if let Err(no) = self.places.open(at).await {
            let (server, mode, secrets) = (self.shared.server, self.shared.mode, self.shared.secrets);
            self.notes.push(place::no_sandbox_note(no, waves.values().map(Vec::len).sum()));
            for (name, def) in waves.into_values().flatten() {
                let pinned = self.shared.pinned.and_then(|p| p.get(name));
                self.done.push(without_session(no, server, name, def, plan(server, name, def), pinned, mode, secrets));
            }
            return;
        }
        // What setup tools and makers returned exists in the session that made it, not here;
        // what the setup calls return here does.
        self.known = self.known.without_made();
        self.known.sandboxed = at == Place::Sandbox;
        prepare(&mut self.places, at, &self.setups, self.shared.server.timeout, Some(&mut self.known)).await;
        if self.shared.mode == Mode::Lock {
            if at == Place::Sandbox {
                waves.entry(order::Wave::Use).or_default();
            }
            waves.entry(order::Wave::Late).or_default();
        }
        let mut searched: Searched<'t> = Vec::new();
        for (wave, in_wave) in waves {
            let in_wave = self.tools_of(wave, in_wave, &searched);
            if in_wave.is_empty() {
                continue;
            }
            let mut results = self.wave(at, wave, &in_wave).await;
            if wave == order::Wave::Setup {
                self.set_up(at, &results).await;
            }
            let moved = self.mark_moved(wave, &mut results);
            for d in &mut results {
                place::stamp(&mut d.probes, at);
            }
            self.done.extend(results);
            // (The tools of `Use` and `Late` were searched in an earlier wave already.)
            if self.shared.mode == Mode::Lock && !moved {
                searched.push((in_wave, self.known.clone()));
            }
        }
    }

    /// The tools a wave calls: its own, or, at `lock`, those the Use and Late waves take.
    fn tools_of(
        &self,
        wave: order::Wave,
        in_wave: Vec<(&'t String, &'t Value)>,
        searched: &Searched<'t>,
    ) -> Vec<(&'t String, &'t Value)> {
        let (server, budget) = (self.shared.server, self.shared.budget);
        match wave {
            _ if self.shared.mode == Mode::Check => in_wave,
            order::Wave::Use => users_of_made_values(server, self.tools, &self.done, &self.known),
            // A tool that failed with every candidate gets one more try after every other wave of
            // its place when what the later waves returned or were sent gives it other arguments
            // (a reader of an early wave, and the document a later tool opened).
            order::Wave::Late => searched
                .iter()
                .flat_map(|(tools, then)| {
                    tools.iter().copied().filter(|(name, def)| {
                        failed_every_candidate(&self.done, name)
                            && !budget.spent()
                            && other_arguments(server, name, def, then, &self.known)
                    })
                })
                .collect(),
            _ => in_wave,
        }
    }

    /// Probe the tools of one wave, feed what they returned, and (at `lock`) give those that
    /// failed with every candidate one more try when the wave gave them other arguments.
    async fn wave(&mut self, at: Place, wave: order::Wave, in_wave: &[(&'t String, &'t Value)]) -> Vec<search::Done> {
        // Readers side by side; a tool that changes things alone, so what one changes never
        // happens under another's call (the same tools would pass at `lock` and fail at `check`
        // as their calls happen to interleave).
        let at_once = if wave.reads() { CONCURRENCY } else { 1 };
        // At `check`, a call `lock` found in its wave's one more try is made after the rest of
        // its wave, as it was found: after the values that wave returned, before later waves.
        let (first, after_wave): (Vec<_>, Vec<_>) = in_wave.iter().copied().partition(|(name, _)| {
            self.shared.mode == Mode::Lock
                || pinned_call(self.shared.pinned, name, AFTER_WAVE_KEY) != Some(&Value::Bool(true))
        });
        let (places, shared, setups) = (&mut self.places, &self.shared, &self.setups);
        let mut results = if wave == order::Wave::Remove {
            remove_each(places, at, shared, &first, &mut self.known, setups, &self.done).await
        } else {
            probe_wave(places, at, shared, &first, &self.known, at_once, setups).await
        };
        if !after_wave.is_empty() {
            feed(&mut self.known, self.tools, &results);
            results.extend(probe_wave(places, at, shared, &after_wave, &self.known, at_once, setups).await);
        }
        results.sort_by(|a, b| a.tool.cmp(&b.tool));
        let before = self.known.clone();
        feed(&mut self.known, self.tools, &results);
        if self.shared.mode == Mode::Lock {
            self.again_in_wave(at, in_wave, &before, &mut results, at_once).await;
        }
        results
    }

    /// At `lock`, the tools of a wave that failed with every candidate, called once more when
    /// what the wave returned gives them other arguments (`before`: what was known before it).
    /// A call that then passes with a value a tool of the wave returned is pinned `afterWave`:
    /// `check` makes it after the rest of its wave too, when that value is there to take.
    async fn again_in_wave(
        &mut self,
        at: Place,
        in_wave: &[(&'t String, &'t Value)],
        before: &candidates::Known,
        results: &mut [search::Done],
        at_once: usize,
    ) {
        let (server, budget) = (self.shared.server, self.shared.budget);
        let again: Vec<(&String, &Value)> = in_wave
            .iter()
            .copied()
            .filter(|(name, def)| {
                failed_every_candidate(results, name)
                    && !budget.spent()
                    && other_arguments(server, name, def, before, &self.known)
            })
            .collect();
        if again.is_empty() {
            return;
        }
        let mut retried =
            probe_wave(&mut self.places, at, &self.shared, &again, &self.known, at_once, &self.setups).await;
        feed(&mut self.known, self.tools, &retried);
        for d in retried.iter_mut().filter(|d| d.result.is_some()) {
            let uses_made = d.set.as_ref().is_some_and(|s| s.from.values().any(|f| *f == candidates::Source::Result));
            if let (true, Some(Value::Object(shape))) = (uses_made, &mut d.shape) {
                if let Some(Value::Object(call)) = shape.get_mut(search::CALL_KEY) {
                    call.insert(AFTER_WAVE_KEY.into(), Value::Bool(true));
                }
            }
        }
        for d in retried {
            if let Some(slot) = results.iter_mut().find(|x| x.tool == d.tool) {
                *slot = d;
            }
        }
    }

    /// After the Setup wave: the setup calls that succeeded are made once more, in order, after
    /// every setup tool's search (a setup tool's failed candidates, a `switch_presentation` to no
    /// presentation, can leave the session unset, and the later tools must see it set).
    async fn set_up(&mut self, at: Place, results: &[search::Done]) {
        let now: Vec<(String, candidates::ArgSet)> = results
            .iter()
            .filter(|d| d.result.is_some())
            .filter_map(|d| Some((d.tool.clone(), d.set.clone()?)))
            .collect();
        prepare(&mut self.places, at, &now, self.shared.server.timeout, Some(&mut self.known)).await;
        self.setups.extend(now);
    }

    /// The tools of the Use and Late waves were called again here: a call that now succeeds
    /// replaces the earlier one, and the pin says where (a reader only a maker reaches: the
    /// sandbox) or when (late) it was made, so `check` calls it there and then too. Whether the
    /// wave was one of those.
    fn mark_moved(&mut self, wave: order::Wave, results: &mut Vec<search::Done>) -> bool {
        let (key, value) = match wave {
            order::Wave::Use => (PLACE_KEY, Value::String(Place::Sandbox.as_str().into())),
            order::Wave::Late => (LATE_KEY, Value::Bool(true)),
            _ => return false,
        };
        let lock = self.shared.mode == Mode::Lock;
        results.retain(|d| d.result.is_some() || !lock);
        for d in results.iter_mut() {
            self.done.retain(|x| x.tool != d.tool);
            if let (true, Some(Value::Object(shape))) = (lock, &mut d.shape) {
                let call = shape.entry(search::CALL_KEY).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(call) = call {
                    call.insert(key.into(), value.clone());
                }
            }
        }
        true
    }

    /// Close the sessions and gather the probes and the result contracts, by tool.
    async fn finish(self) -> ProbeRun {
        self.places.close().await;
        let mut done = self.done;
        done.sort_by(|a, b| a.tool.cmp(&b.tool));
        let mut run = ProbeRun { notes: self.notes, ..ProbeRun::default() };
        for d in done {
            run.probes.extend(d.probes);
            if let Some(s) = d.shape {
                run.shapes.insert(d.tool, s);
            }
        }
        run
    }
}

/// The key of a pinned call that names the place it was made in, when that is not where its
/// hints place it (a reader only a maker's values reach: [`order::Wave::Use`]). Only the
/// sandbox is ever read from it: a lock cannot move a tool out of the sandbox.
pub const PLACE_KEY: &str = "place";

/// The key of a pinned call made after every other wave of its place ([`order::Wave::Late`]):
/// `check` calls it there too, after the same calls.
pub const LATE_KEY: &str = "late";

/// The key of a pinned call `lock` found in its wave's one more try, with a value a tool of that
/// wave made: `check` makes it after the rest of its wave (after that value exists, before the
/// later waves change what it acts on).
pub const AFTER_WAVE_KEY: &str = "afterWave";

/// What the lock's pinned call of `tool` says under `key` (where and when it was made).
fn pinned_call<'a>(pinned: Option<&'a BTreeMap<String, Value>>, tool: &str, key: &str) -> Option<&'a Value> {
    pinned.and_then(|p| p.get(tool)).and_then(|p| p.pointer(&format!("/{}/{key}", search::CALL_KEY)))
}

/// A place's tools by wave ([`order::wave`]).
type Waves<'t> = BTreeMap<order::Wave, Vec<(&'t String, &'t Value)>>;

/// Each tool's place ([`place::of`]) and, within it, its wave ([`order::wave`]). A tool that
/// sets up the session and must be called in the sandbox takes every other tool there with it
/// (its readers need the session it sets up; the sandbox is a safer place for them, never a
/// worse one), when the sandbox can be had. A tool the lock says was called in the sandbox
/// ([`PLACE_KEY`]) is called there, after the makers.
fn arrange<'t>(
    server: &ServerConfig,
    tools: &'t BTreeMap<String, Value>,
    pinned: Option<&BTreeMap<String, Value>>,
) -> BTreeMap<Place, Waves<'t>> {
    let mut each: Vec<(Place, order::Wave, &'t String, &'t Value, bool)> = Vec::new();
    for (name, def) in tools {
        let plan = plan(server, name, def);
        let called = matches!(plan, Plan::Call { .. });
        let mut at = place::of(server, name, def, &plan);
        let mut wave = order::wave(name, def);
        // What the pinned call says of where and when it was made.
        let said = |key: &str| pinned_call(pinned, name, key);
        let moved = said(PLACE_KEY).and_then(Value::as_str) == Some(Place::Sandbox.as_str());
        if called && moved && policy(server, name) == ProbePolicy::Sandbox {
            at = Place::Sandbox;
            wave = order::Wave::Use;
        }
        let late = said(LATE_KEY).and_then(Value::as_bool) == Some(true);
        if called && late && wave != order::Wave::Use {
            wave = order::Wave::Late;
        }
        each.push((at, wave, name, def, called));
    }
    let setup_in_sandbox =
        each.iter().any(|(at, wave, _, _, called)| *called && *at == Place::Sandbox && *wave == order::Wave::Setup);
    if setup_in_sandbox && crate::sandbox::available().is_ok() {
        for (at, _, _, _, called) in &mut each {
            if *called {
                *at = Place::Sandbox;
            }
        }
    }
    let mut placed: BTreeMap<Place, Waves> = BTreeMap::new();
    for (at, wave, name, def, _) in each {
        placed.entry(at).or_default().entry(wave).or_default().push((name, def));
    }
    placed
}

/// Offer what a wave's tools returned to the later tools: a listing reader's names, a setup
/// tool's or a maker's handles ([`order::feeds`]), and the values every call that succeeded was
/// sent ([`candidates::Known::worked_for`]).
fn feed(known: &mut candidates::Known, tools: &BTreeMap<String, Value>, results: &[search::Done]) {
    for d in results {
        if let (Some(_), Some(set)) = (&d.result, &d.set) {
            known.worked_for(&d.tool, set);
        }
        if let (Some(r), Some(def)) = (&d.result, tools.get(&d.tool)) {
            if order::makes(&d.tool, def) {
                match &d.set {
                    Some(set) => known.made_by_call(&d.tool, r, &set.args),
                    None => known.made_by(&d.tool, r),
                }
            } else if order::feeds(&d.tool, def) {
                known.listed_by(&d.tool, r);
            } else {
                // Any other successful answer: its values under another tool's property name.
                let names = other_tools_properties(tools, &d.tool);
                let sent = d.set.as_ref().map(|s| s.args.clone()).unwrap_or_default();
                known.keyed_by(&d.tool, r, &sent, &names);
            }
        }
    }
}

/// The top-level property names of every tool's `inputSchema` but `tool`'s own.
fn other_tools_properties(tools: &BTreeMap<String, Value>, tool: &str) -> std::collections::BTreeSet<String> {
    tools
        .iter()
        .filter(|(name, _)| name.as_str() != tool)
        .filter_map(|(_, def)| def.pointer("/inputSchema/properties").and_then(Value::as_object))
        .flat_map(|props| props.keys().cloned())
        .collect()
}

/// Whether `tool`'s valid call failed with every candidate (pinned as failed, no result).
fn failed_every_candidate(results: &[search::Done], tool: &str) -> bool {
    results.iter().any(|d| d.tool == tool && d.result.is_none() && d.shape.as_ref().is_some_and(shape::pinned_failure))
}

/// Whether what is known now gives `tool` other argument sets than what was known `before`.
fn other_arguments(
    server: &ServerConfig,
    tool: &str,
    def: &Value,
    before: &candidates::Known,
    now: &candidates::Known,
) -> bool {
    match plan(server, tool, def) {
        Plan::Call { args, synthesised: Some(_), .. } => {
            candidates::argument_sets(tool, def, before, &args) != candidates::argument_sets(tool, def, now, &args)
        }
        _ => false,
    }
}

/// At `lock`, in the sandbox after its makers (RULES.md: "a tool reads the world the other tools
/// made"): the tools of the server's own session whose valid call did not succeed there (an
/// error, or an answer that reads as a failure), when what the makers returned gives them other
/// arguments, or when a tool that changes things succeeded in the sandbox: what they read (an
/// index, a loaded dataset) may be state the maker made, not a value it returned.
fn users_of_made_values<'t>(
    server: &ServerConfig,
    tools: &'t BTreeMap<String, Value>,
    done: &[search::Done],
    known: &candidates::Known,
) -> Vec<(&'t String, &'t Value)> {
    let without = known.without_made();
    let changed = sandbox_changed(tools, done);
    tools
        .iter()
        .filter(|(name, def)| {
            done.iter().any(|d| {
                d.tool == **name
                    && d.result.is_none()
                    && d.shape.is_some()
                    && d.probes.iter().any(|p| p.place == Some(Place::Session))
            }) && (changed || other_arguments(server, name, def, &without, known))
        })
        .collect()
}

/// Whether a tool that changes things (not read-only by its hints) succeeded in the sandbox.
fn sandbox_changed(tools: &BTreeMap<String, Value>, done: &[search::Done]) -> bool {
    done.iter().any(|d| {
        d.result.is_some()
            && d.probes.iter().any(|p| p.place == Some(Place::Sandbox))
            && tools.get(&d.tool).is_some_and(|def| !read_only(def))
    })
}

/// Make the setup calls that succeeded (`setups`) in the session of `place`, first, one at a
/// time, with the same arguments (paths resolved against that session's folder). Not probes:
/// each was judged where it was probed.
async fn prepare(
    places: &mut place::Places<'_>,
    at: Place,
    setups: &[(String, candidates::ArgSet)],
    timeout: Duration,
    mut known: Option<&mut candidates::Known>,
) {
    let Ok(session) = places.open(at).await else { return };
    for (tool, set) in setups {
        let outcome = call(session, tool, set.send(session.working_dir()), timeout).await;
        if let (Some(k), Ok(CallOutcome::Result(r))) = (known.as_deref_mut(), &outcome) {
            if !shape::is_error(r) {
                k.made_by(tool, r);
            }
        }
    }
}

/// Probe the removers of one wave in the session of `at`, one at a time, each on the sandbox's
/// copy of the project as the makers left it ([`place::Places::keep`]). A handle a maker made
/// (a process, a note) is gone once one of them was sent it, so before the next remover that
/// maker is called again, with the arguments it succeeded with (`done`), and what it returns
/// replaces what it had made: `force_terminate` and then `kill_process` each end a process of
/// their own, at `lock` and at `check` alike. Not probes: the maker was judged where it was probed.
async fn remove_each(
    places: &mut place::Places<'_>,
    at: Place,
    shared: &Shared<'_>,
    tools: &[(&String, &Value)],
    known: &mut candidates::Known,
    setups: &[(String, candidates::ArgSet)],
    done: &[search::Done],
) -> Vec<search::Done> {
    let mut results = Vec::new();
    // Each remover acts on the world the makers left, never on what another remover left of it
    // (RULES.md, "Steady"): the sandbox's copy of the project is kept before the first and put
    // back before each of the others, and after the last for the tools called after them.
    let kept = places.keep(at);
    for (k, one) in tools.iter().enumerate() {
        if kept && k > 0 {
            places.put_back(at);
        }
        let now = probe_wave(places, at, shared, &[*one], known, 1, setups).await;
        let gone: Vec<String> = now
            .iter()
            .filter(|d| d.result.is_some())
            .filter_map(|d| d.set.as_ref())
            .flat_map(|s| known.makers_of(s))
            .collect();
        results.extend(now);
        if k + 1 == tools.len() {
            if kept {
                places.put_back(at);
            }
            break;
        }
        for maker in gone {
            let Some(set) = done.iter().find(|d| d.tool == maker && d.result.is_some()).and_then(|d| d.set.as_ref())
            else {
                continue;
            };
            let Ok(session) = places.open(at).await else { break };
            let outcome = call(session, &maker, set.send(session.working_dir()), shared.server.timeout).await;
            if let Ok(CallOutcome::Result(r)) = &outcome {
                if !shape::is_error(r) {
                    known.forget_made_by(&maker);
                    known.made_by_call(&maker, r, &set.args);
                }
            }
        }
    }
    results
}

/// Probe the tools of one wave in the session of `at`, `at_once` at a time. When the server
/// dies during the wave (a call lost its connection), it is started again and each tool whose
/// call was lost is called again, alone, in the new session (after the setup calls), so no tool
/// is judged on another's harm; a tool whose call is lost again is judged on that second call.
async fn probe_wave(
    places: &mut place::Places<'_>,
    at: Place,
    shared: &Shared<'_>,
    tools: &[(&String, &Value)],
    known: &candidates::Known,
    at_once: usize,
    setups: &[(String, candidates::ArgSet)],
) -> Vec<search::Done> {
    let Ok(session) = places.open(at).await else { return Vec::new() };
    let mut results = shared.probe(session, tools.to_vec(), known, at_once).await;
    let lost: Vec<(&String, &Value)> =
        tools.iter().copied().filter(|(name, _)| results.iter().any(|d| d.tool == **name && d.lost)).collect();
    if lost.is_empty() {
        return again_incomplete(places, at, shared, setups, results).await;
    }
    let mut dead = true;
    for (name, def) in lost {
        if dead && !restart_prepared(places, at, setups, shared.server.timeout).await {
            return results;
        }
        let Ok(session) = places.open(at).await else { return results };
        let Some(again) = shared.probe(session, vec![(name, def)], known, 1).await.pop() else { continue };
        dead = again.lost;
        if let Some(slot) = results.iter_mut().find(|d| d.tool == *name) {
            *slot = again;
            slot.lost = false;
            if let Some(p) = slot.probes.first_mut() {
                p.message.push_str(if dead {
                    "; called again in a new session after the server died during its wave, and it died again"
                } else {
                    "; called again in a new session after the server died during its wave"
                });
            }
        }
    }
    // A lost incomplete call is made again in a server started again there (`again_incomplete`).
    if dead && results.iter().all(|d| d.lost_incomplete.is_none()) {
        restart_prepared(places, at, setups, shared.server.timeout).await;
    }
    again_incomplete(places, at, shared, setups, results).await
}

/// Start the server of `at` again and make its setup calls there; `false` when it could not be.
async fn restart_prepared(
    places: &mut place::Places<'_>,
    at: Place,
    setups: &[(String, candidates::ArgSet)],
    timeout: Duration,
) -> bool {
    if !places.restart(at).await {
        return false;
    }
    prepare(places, at, setups, timeout, None).await;
    true
}

/// The incomplete calls of `results` that lost their connection, made again one at a time, each
/// in a new session of the server started again (after the setup calls): a server that a failed
/// valid call takes down a moment later is judged on the incomplete call's own answer, never on
/// the crash (RULES.md, "Steady"). One lost again is not judged. The server is started again
/// before the first and after any that lost it again, not before each.
async fn again_incomplete(
    places: &mut place::Places<'_>,
    at: Place,
    shared: &Shared<'_>,
    setups: &[(String, candidates::ArgSet)],
    mut results: Vec<search::Done>,
) -> Vec<search::Done> {
    let timeout = shared.server.timeout;
    // A lost call means the server died after it.
    let mut dead = results.iter().any(|d| d.lost_incomplete.is_some());
    for d in &mut results {
        let Some(lost) = d.lost_incomplete.take() else { continue };
        let outcome = if dead && !restart_prepared(places, at, setups, timeout).await {
            Err(ClientError::Transport("the server could not be started again".into()))
        } else {
            match places.open(at).await {
                Ok(session) => call(session, &d.tool, lost.args, timeout).await,
                Err(_) => Err(ClientError::Transport("no session of the server started again".into())),
            }
        };
        dead = outcome.is_err();
        let probe = if outcome.is_err() {
            Probe::skipped(
                &d.tool,
                ProbeKind::Incomplete,
                SkipReason::NotJudged,
                format!(
                    "not judged: the server died before it answered the call without `{}`, and again when the call was made in a new session",
                    lost.left_out
                ),
            )
        } else {
            let mut p =
                judge_incomplete(&d.tool, &lost.left_out, &outcome, lost.valid_succeeded, timeout, shared.secrets);
            p.message.push_str("; made again in a new session after the server died before answering it");
            p
        };
        d.probes.push(probe);
    }
    if dead {
        restart_prepared(places, at, setups, timeout).await;
    }
    results
}

/// What the tools of one probe run share.
struct Shared<'a> {
    server: &'a ServerConfig,
    pinned: Option<&'a BTreeMap<String, Value>>,
    mode: Mode,
    budget: &'a search::Budget,
    secrets: &'a [String],
}

impl Shared<'_> {
    /// Probe `tools` in `session`, at most `at_once` at a time.
    async fn probe(
        &self,
        session: &Session,
        tools: Vec<(&String, &Value)>,
        known: &candidates::Known,
        at_once: usize,
    ) -> Vec<search::Done> {
        // Collected first: a lazy `map` closure kept in the future's state makes it not provably
        // `Send` (rustc's higher-ranked closure limitation), and `check` runs it in a spawned task.
        let jobs: Vec<_> = tools
            .into_iter()
            .map(|(name, def)| {
                let job = search::Job {
                    plan: plan(self.server, name, def),
                    def,
                    pinned: self.pinned.and_then(|p| p.get(name)),
                    mode: self.mode,
                    timeout: self.server.timeout,
                    secrets: self.secrets,
                };
                search::probe_tool(session, job, known, self.budget)
            })
            .collect();
        stream::iter(jobs).buffer_unordered(at_once.max(1)).collect().await
    }
}

/// The probes of a tool whose place has no session: skipped for want of a sandbox, or, when the
/// server did not start inside it, the valid call judged as a call that could not be made.
#[allow(clippy::too_many_arguments)]
fn without_session(
    no: &NoSandbox,
    server: &ServerConfig,
    tool: &str,
    def: &Value,
    plan: Plan,
    pinned: Option<&Value>,
    mode: Mode,
    secrets: &[String],
) -> search::Done {
    let done = |probes, shape| search::Done {
        tool: tool.to_string(),
        probes,
        shape,
        result: None,
        set: None,
        lost: false,
        lost_incomplete: None,
    };
    match (no, plan) {
        (NoSandbox::Start(e), Plan::Call { synthesised, incomplete, .. }) if mode == Mode::Lock || pinned.is_some() => {
            let outcome = Err(ClientError::Transport(format!("the server did not start in the sandbox: {e}")));
            let ctx = Context {
                def,
                pinned,
                mode,
                synthesised: synthesised.as_deref(),
                timeout: server.timeout,
                secrets,
                tried: 1,
            };
            let (mut probes, shape) = judge(tool, &ctx, &outcome);
            if incomplete.is_some() {
                let why = "not sent: the connection failed on the valid call".to_string();
                probes.push(Probe::skipped(tool, ProbeKind::Incomplete, SkipReason::NotSent, why));
            }
            place::stamp(&mut probes, Place::Sandbox);
            done(probes, shape)
        }
        (NoSandbox::Start(_), _) => {
            let why = format!("{}: `mcp-pin lock` pins its probe, and later checks judge it", search::NOTHING_PINNED);
            done(vec![Probe::skipped(tool, ProbeKind::Call, SkipReason::NothingPinned, why)], None)
        }
        (NoSandbox::Unavailable(_), _) => {
            let p = Probe::skipped(tool, ProbeKind::Call, SkipReason::NoSandbox, place::no_sandbox_skip(server, tool));
            done(vec![p], None)
        }
    }
}

/// How the skip of a call that failed at lock with every argument set tried, and fails again,
/// starts.
const FAILS_AS_AT_LOCK: &str = "not judged: the call failed at lock too";

/// One call, bounded by `timeout` even if the client's own timeout did not fire.
async fn call(
    session: &Session,
    tool: &str,
    args: Map<String, Value>,
    timeout: Duration,
) -> Result<CallOutcome, ClientError> {
    let guard = timeout + Duration::from_secs(5);
    match tokio::time::timeout(guard, session.call_tool(tool, args, timeout)).await {
        Ok(r) => r,
        Err(_) => Ok(CallOutcome::Timeout),
    }
}

/// The effective probe policy for a tool.
pub fn policy(server: &ServerConfig, tool: &str) -> ProbePolicy {
    server.tools.get(tool).and_then(|t| t.probe).unwrap_or(server.probe)
}

/// Whether the default policy may call the tool: `annotations.readOnlyHint` true (absent means
/// false) and not also `destructiveHint: true`. The spec reads destructiveHint only when
/// readOnlyHint is false, but a tool that claims both is contradicting itself, and a probe
/// takes the dangerous reading.
pub fn read_only(def: &Value) -> bool {
    def.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
        && def.pointer("/annotations/destructiveHint") != Some(&Value::Bool(true))
}

/// Why the tool's `x-mcp-header` declarations (2026-07-28: an argument's value also sent as an
/// HTTP header) are invalid, if they are: a header name must be a non-empty RFC 9110 token
/// (visible ASCII, no separators), on a `string`, `integer` or `boolean` argument, and unique
/// within the tool regardless of case.
pub fn header_mapping_problem(def: &Value) -> Option<String> {
    let props = def.pointer("/inputSchema/properties").and_then(Value::as_object)?;
    let mut seen: std::collections::BTreeMap<String, &str> = std::collections::BTreeMap::new();
    for (arg, schema) in props {
        let Some(h) = schema.get("x-mcp-header") else { continue };
        let name = match h {
            Value::String(s) => s,
            _ => return Some(format!("the x-mcp-header of argument `{arg}` is not a string")),
        };
        let tchar = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() {
            return Some(format!("the x-mcp-header of argument `{arg}` is empty"));
        }
        if !name.chars().all(tchar) {
            return Some(format!(
                "the x-mcp-header `{}` of argument `{arg}` is not an HTTP header name",
                crate::json::escape_line(name)
            ));
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if types.is_empty() || types.iter().any(|t| !matches!(*t, "string" | "integer" | "boolean")) {
            return Some(format!(
                "the x-mcp-header of argument `{arg}` is on a value that is not a string, integer or boolean"
            ));
        }
        if let Some(other) = seen.insert(name.to_ascii_lowercase(), arg) {
            return Some(format!("arguments `{other}` and `{arg}` map to the same x-mcp-header `{name}`"));
        }
    }
    None
}

/// Which required argument the incomplete call leaves out: exactly one, everything else of
/// the valid call kept. Never a flag (a boolean, such as a required `dryRun: true` or
/// `confirm: false`), whose absence a lenient server could read as "go ahead": the first of the
/// others in `required` order (as the schema lists them). `None` when every required argument
/// of the call is a flag.
pub fn left_out_argument(required: &[String], args: &Map<String, Value>) -> Option<String> {
    required.iter().find(|r| matches!(args.get(*r), Some(v) if !v.is_boolean())).cloned()
}

/// Decide what to do with one tool: skip it (policy, task support, no arguments) or call it.
pub fn plan(server: &ServerConfig, name: &str, def: &Value) -> Plan {
    let skip = |reason: SkipReason, message: String| Plan::Skip { tool: name.to_string(), reason, message };
    let table = format!("[servers.{}.tools.{}]", toml_key(&server.name), toml_key(name));
    let fixture = server.tools.get(name).and_then(|t| t.args.as_ref());
    match policy(server, name) {
        ProbePolicy::None => return skip(SkipReason::ProbeNone, "not probed: probe = \"none\"".into()),
        ProbePolicy::ReadOnly if fixture.is_none() && !read_only(def) => {
            return skip(SkipReason::NotReadOnly, format!(
                "not probed: not annotated read-only (readOnlyHint); to probe it, add {table} probe = \"all\" to mcp-pin.toml"
            ))
        }
        _ => {}
    }
    if let Some(why) = header_mapping_problem(def) {
        return skip(
            SkipReason::InvalidHeader,
            format!(
                "not probed: invalid x-mcp-header: {why}; a client must not call such a tool (2026-07-28, SEP-2243)"
            ),
        );
    }
    if def.pointer("/execution/taskSupport").and_then(Value::as_str) == Some("required") {
        return skip(
            SkipReason::RequiresTasks,
            "not probed: the tool requires task augmentation (execution.taskSupport = \"required\"); probes make plain calls only"
                .into(),
        );
    }
    let schema = def.get("inputSchema").cloned().unwrap_or_else(|| Value::Object(Map::new()));
    let mut synthesised = None;
    let args = match fixture {
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            return skip(SkipReason::NeedsFixture, format!("not probed: the args fixture in {table} is not a table"))
        }
        None => match synthesize_args(&schema) {
            Ok(a) => {
                synthesised = Some(format!("{table} args = {}", args_template(&schema)));
                a
            }
            Err(why) => {
                return skip(
                    SkipReason::NeedsFixture,
                    format!(
                        "not probed: cannot synthesise valid arguments: {why}; add {table} args = {} to mcp-pin.toml",
                        args_template(&schema)
                    ),
                )
            }
        },
    };
    let required = search::required_in_order(def);
    let incomplete = left_out_argument(&required, &args).map(|left_out| {
        let mut a = args.clone();
        a.remove(&left_out);
        Incomplete { left_out, args: a }
    });
    Plan::Call { tool: name.to_string(), args, incomplete, synthesised }
}

/// `{ a = ..., b = ... }` with the top-level required names, for a fixture hint.
fn args_template(schema: &Value) -> String {
    let mut names: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return "{ ... }".into();
    }
    let parts: Vec<String> = names.iter().map(|n| format!("{} = ...", toml_key(n))).collect();
    format!("{{ {} }}", parts.join(", "))
}

/// A TOML key: bare when it can be, quoted otherwise.
pub fn toml_key(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        k.to_string()
    } else {
        let mut out = String::from("\"");
        for c in k.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }
}

fn probe(tool: &str, kind: ProbeKind, outcome: ProbeOutcome, rule: Option<RuleId>, message: String) -> Probe {
    Probe::new(tool, kind, outcome, rule, message)
}

fn fail(tool: &str, kind: ProbeKind, rule: RuleId, message: String) -> Probe {
    probe(tool, kind, ProbeOutcome::Fail, Some(rule), message)
}

/// Server text made fit for a report: one line, at most [`EXCERPT`] chars, the server's own
/// configured values (`secrets`, literal ones included) and every registered secret masked
/// before it is cut ([`crate::secrets::excerpt`]).
pub fn excerpt(text: &str, secrets: &[String]) -> String {
    let mut t = text.to_string();
    for s in secrets {
        if !s.is_empty() {
            t = t.replace(s.as_str(), "[redacted]");
        }
    }
    crate::secrets::excerpt(&t, EXCERPT)
}

fn task_required_error(code: i64, message: &str) -> bool {
    code == -32601 && message.to_ascii_lowercase().contains("task")
}

/// `resultType` other than `complete` (2026-07-28), e.g. `input_required`.
fn incomplete_result_type(result: &Value) -> Option<&str> {
    result.get("resultType").and_then(Value::as_str).filter(|t| *t != "complete")
}

/// Judge the valid call's outcome as `check` does for a call made with the user's own
/// arguments: see [`judge`].
pub fn judge_call(
    tool: &str,
    def: &Value,
    outcome: &Result<CallOutcome, ClientError>,
    pinned: Option<&Value>,
    timeout: Duration,
    secrets: &[String],
) -> (Vec<Probe>, Option<Value>) {
    let ctx = Context { def, pinned, mode: Mode::Check, synthesised: None, timeout, secrets, tried: 1 };
    judge(tool, &ctx, outcome)
}

/// Judge the valid call's outcome: its probes (one `pass`, or one `fail` per finding) and the
/// result contract to pin when the call got an answer (a failed call is pinned as failed).
///
/// A call that failed at lock with every argument set mcp-pin tried and fails again is not drift: it is
/// `skipped` with the fixture line, never `call-failed` (RULES.md: only a call that succeeded at
/// lock, or uses a fixture the user wrote, gates on `call-failed`).
pub fn judge(tool: &str, ctx: &Context<'_>, outcome: &Result<CallOutcome, ClientError>) -> (Vec<Probe>, Option<Value>) {
    let (mut probes, shape) = judge_outcome(tool, ctx, outcome);
    mark_answer(&mut probes, outcome, ctx.secrets);
    (probes, shape)
}

/// What the call answered, on each probe of a call that was made (`answered`), and whether an
/// answer not flagged as an error reads as a failure ([`answer::failure`]): a passing call
/// that did is counted apart ([`probe_summary`]) and its line says so.
fn mark_answer(probes: &mut [Probe], outcome: &Result<CallOutcome, ClientError>, secrets: &[String]) {
    let answered = answered_of(outcome, secrets);
    let failure = match outcome {
        Ok(CallOutcome::Result(r)) if !shape::is_error(r) && incomplete_result_type(r).is_none() => answer::failure(r),
        _ => None,
    };
    for p in probes.iter_mut().filter(|p| !p.reason.is_some_and(SkipReason::not_made)) {
        p.answered.clone_from(&answered);
        if let (Some(why), ProbeOutcome::Pass) = (&failure, p.outcome) {
            p.answered_failure = true;
            p.message.push_str(&format!("; it answered with a failure ({})", excerpt(why, secrets)));
        }
    }
}

/// What a call answered, masked ([`Probe::answered`]): the head of its result, or its JSON-RPC
/// error's message; `None` when it got no answer.
fn answered_of(outcome: &Result<CallOutcome, ClientError>, secrets: &[String]) -> Option<String> {
    match outcome {
        Ok(CallOutcome::Result(r)) => answer::head(r).map(|h| excerpt(&h, secrets)),
        Ok(CallOutcome::RpcError { message, .. }) => Some(excerpt(message, secrets)),
        _ => None,
    }
}

fn judge_outcome(
    tool: &str,
    ctx: &Context<'_>,
    outcome: &Result<CallOutcome, ClientError>,
) -> (Vec<Probe>, Option<Value>) {
    match result_of(tool, ctx, outcome) {
        Ok(result) => judge_result(tool, ctx, result),
        Err(judged) => judged,
    }
}

/// The result a call answered, or how a call without one is judged (and pinned): a lost
/// connection, a timeout, a JSON-RPC error, an answer that needs more input than a probe gives.
fn result_of<'o>(
    tool: &str,
    ctx: &Context<'_>,
    outcome: &'o Result<CallOutcome, ClientError>,
) -> Result<&'o Value, (Vec<Probe>, Option<Value>)> {
    let (k, secrets) = (ProbeKind::Call, ctx.secrets);
    let result = match outcome {
        Err(e) => {
            // Pinned as failed: a tool that takes its server down on every call, as at lock, is
            // not drift (the probe run calls a lost call again before judging it).
            let msg = format!("the call could not be made: {}", excerpt(&e.to_string(), secrets));
            return Err(failed_call(tool, ctx, msg, Some(shape::lost_shape())));
        }
        Ok(CallOutcome::Timeout) => {
            // Always judged (a hang is never excused), and pinned: the tool was probed.
            let msg = format!("no answer within {}; the call was cancelled", humanize(ctx.timeout));
            return Err((vec![fail(tool, k, CALL_TIMEOUT, msg)], Some(shape::timeout_shape())));
        }
        Ok(CallOutcome::RpcError { code, message }) => {
            if task_required_error(*code, message) {
                let msg = format!(
                    "not probed: the server requires task augmentation for this tool (JSON-RPC error {code}: {})",
                    excerpt(message, secrets)
                );
                return Err((vec![Probe::skipped(tool, k, SkipReason::RequiresTasks, msg)], None));
            }
            let msg = format!("JSON-RPC error {code}: {}", excerpt(message, secrets));
            return Err(failed_call(tool, ctx, msg, Some(shape::rpc_error_shape(*code))));
        }
        Ok(CallOutcome::Result(r)) => r,
    };
    if let Some(t) = incomplete_result_type(result) {
        let msg = format!(
            "not probed: the server answered resultType \"{}\" (it needs more input than a probe gives)",
            excerpt(t, secrets)
        );
        return Err((vec![Probe::skipped(tool, k, SkipReason::NeedsInput, msg)], None));
    }
    Ok(result)
}

/// A failed valid call as a probe: gated, or excused because it failed the same way at lock;
/// `pin` is what the lock pins for it.
fn failed_call(tool: &str, ctx: &Context<'_>, what: String, pin: Option<Value>) -> (Vec<Probe>, Option<Value>) {
    let k = ProbeKind::Call;
    let probe = match (ctx.mode, ctx.synthesised) {
        (Mode::Check, Some(line)) if ctx.pinned.is_some_and(shape::pinned_failure) => Probe::skipped(
            tool,
            k,
            SkipReason::FailsAsAtLock,
            format!(
                "{FAILS_AS_AT_LOCK} with every argument set mcp-pin tried ({what}); not drift. To probe it, add {line} to mcp-pin.toml"
            ),
        ),
        (Mode::Lock, Some(line)) => fail(
            tool,
            k,
            CALL_FAILED,
            format!(
                "{what}; no arguments mcp-pin tried made the call succeed ({} tried): its failing outcome is pinned and `check` will not fail on it while it fails; to probe it, add {line} to mcp-pin.toml",
                ctx.tried
            ),
        ),
        _ => fail(tool, k, CALL_FAILED, what),
    };
    (vec![probe], pin)
}

/// Judge a result: a declared error fails the call; otherwise its structured content against
/// the `outputSchema`, its channels' agreement, its payloads, and its contract against the pin.
fn judge_result(tool: &str, ctx: &Context<'_>, result: &Value) -> (Vec<Probe>, Option<Value>) {
    let output_schema = ctx.def.get("outputSchema").filter(|v| !v.is_null());
    // Masked as the pinned shape is when the lock is written, so the two compare masked to masked.
    let wrapper = shape::is_result_wrapper(output_schema);
    let mut live_shape = shape::shape_in(result, output_schema.is_none(), wrapper);
    crate::secrets::mask_json(&mut live_shape);
    if shape::is_error(result) {
        let text = shape::texts(result).join(" ");
        let msg = if text.trim().is_empty() {
            "the tool answered isError: true (no text)".to_string()
        } else {
            format!("the tool answered isError: true: {}", excerpt(&text, ctx.secrets))
        };
        return failed_call(tool, ctx, msg, Some(live_shape));
    }
    let mut probes = Vec::new();
    let mut notes = Vec::new();
    if let Some(os) = output_schema {
        check_output_schema(tool, os, result, &mut probes, &mut notes);
    }
    // A conflict is drift only when the pin did not conflict already.
    if shape::new_conflict(result, ctx.pinned, wrapper) {
        probes.push(fail(
            tool,
            ProbeKind::Call,
            TEXT_STRUCTURE_CONFLICT,
            format!("result of tool {tool}: a text block is JSON that differs from structuredContent (a text reader and a structure reader get different answers)"),
        ));
    }
    let payload: Vec<(RuleId, String)> =
        shape::payload_problems(tool, result).into_iter().map(|m| (RESULT_PAYLOAD_INVALID, m)).collect();
    // A pin from before the whole result contract was locked before payloads were judged: an
    // upgrade reports nothing for it until the next lock (RULES.md, the result contract, 7).
    // No pin at all (a new tool, `lock`) is judged.
    if ctx.pinned.is_none_or(shape::pins_whole_contract) {
        push_capped(&mut probes, tool, payload);
    } else if !payload.is_empty() {
        notes.push("its payload contradicts its declaration, not judged against a lock from before mcp-pin judged payloads: run `mcp-pin lock` to pin its result".into());
    }
    if let Some(p) = ctx.pinned {
        compare_with_pin(tool, p, &live_shape, output_schema.is_some(), &mut probes, &mut notes);
    }
    if probes.is_empty() {
        let mut msg = format!("ok ({})", summary(result));
        for n in notes {
            msg.push_str("; ");
            msg.push_str(&n);
        }
        probes.push(probe(tool, ProbeKind::Call, ProbeOutcome::Pass, None, msg));
    }
    (probes, Some(live_shape))
}

/// A declared `outputSchema`: the result's `structuredContent` must be there and validate.
fn check_output_schema(tool: &str, os: &Value, result: &Value, probes: &mut Vec<Probe>, notes: &mut Vec<String>) {
    let k = ProbeKind::Call;
    match shape::structured(result) {
        None => probes.push(fail(
            tool,
            k,
            STRUCTURED_CONTENT_MISSING,
            "the tool declares an outputSchema but the result has no structuredContent".into(),
        )),
        Some(sc) => match validate::compile(os, validate::Formats::Annotate) {
            Ok(v) => {
                if let Some(e) = validate::first_error(&v, sc) {
                    probes.push(fail(
                        tool,
                        k,
                        STRUCTURED_CONTENT_INVALID,
                        format!("structuredContent does not match the outputSchema: {e}"),
                    ));
                }
            }
            Err(e) => notes.push(format!("outputSchema not checked: it cannot be compiled ({e})")),
        },
    }
}

/// The result contract against the pinned one: what changed, then what is simply not there.
fn compare_with_pin(
    tool: &str,
    pinned: &Value,
    live: &Value,
    has_output_schema: bool,
    probes: &mut Vec<Probe>,
    notes: &mut Vec<String>,
) {
    let findings: Vec<(RuleId, String)> =
        shape::compare(tool, pinned, live, has_output_schema).into_iter().map(|f| (f.rule, f.message)).collect();
    let (changed, reduced): (Vec<_>, Vec<_>) = findings.into_iter().partition(|f| f.0 == RESULT_SHAPE_CHANGED);
    push_capped(probes, tool, changed);
    push_capped(probes, tool, reduced);
    if shape::pinned_failure(pinned) {
        notes.push("it failed at lock: run `mcp-pin lock` to pin its result".into());
    }
    notes.extend(shape::content_note(pinned, live));
}

/// One failing probe per finding, at most [`MAX_FINDINGS`] (the last says how many more).
fn push_capped(probes: &mut Vec<Probe>, tool: &str, findings: Vec<(RuleId, String)>) {
    let n = findings.len();
    for (i, (rule, mut message)) in findings.into_iter().enumerate() {
        if i == MAX_FINDINGS {
            break;
        }
        if i + 1 == MAX_FINDINGS && n > MAX_FINDINGS {
            message.push_str(&format!(" (and {} more)", n - MAX_FINDINGS));
        }
        probes.push(fail(tool, ProbeKind::Call, rule, message));
    }
}

/// `structured, 2 text blocks, 1 image block`: what came back, never a value.
pub fn summary(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    if shape::structured(result).is_some() {
        parts.push("structured".into());
    }
    let blocks = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
    for kind in shape::content_kinds(result) {
        let n = blocks.iter().filter(|b| b.get("type").and_then(Value::as_str).unwrap_or("(no type)") == kind).count();
        parts.push(format!("{n} {kind} block{}", if n == 1 { "" } else { "s" }));
    }
    if parts.is_empty() {
        "empty result".into()
    } else {
        parts.join(", ")
    }
}

/// Judge the incomplete call. It counts as rejected only when the rejection is the missing
/// argument's: a JSON-RPC invalid-params error (-32602), an error text that names the argument,
/// or any error while the valid call of the same tool succeeded in the same session
/// (`valid_succeeded`). Any other error is `skipped`: a tool that fails every call proves
/// nothing by failing this one. A success is `incomplete-call-accepted`.
pub fn judge_incomplete(
    tool: &str,
    left_out: &str,
    outcome: &Result<CallOutcome, ClientError>,
    valid_succeeded: bool,
    timeout: Duration,
    secrets: &[String],
) -> Probe {
    let k = ProbeKind::Incomplete;
    let pass = |m: String| probe(tool, k, ProbeOutcome::Pass, None, m);
    let rejected = |how: String, text: &str| -> Probe {
        if names_argument(text, left_out) {
            pass(format!("rejected without `{left_out}` ({how}, naming it)"))
        } else if valid_succeeded {
            pass(format!("rejected without `{left_out}` ({how}; the valid call succeeded)"))
        } else {
            Probe::skipped(
                tool,
                k,
                SkipReason::NotJudged,
                format!(
                    "not judged: the call without `{left_out}` failed ({how}), but its error does not name `{left_out}` and the valid call failed too: a tool that fails every call proves nothing by failing this one"
                ),
            )
        }
    };
    let mut p = match outcome {
        Err(e) => fail(
            tool,
            k,
            CALL_FAILED,
            format!("the call without `{left_out}` could not be made: {}", excerpt(&e.to_string(), secrets)),
        ),
        Ok(CallOutcome::Timeout) => fail(
            tool,
            k,
            CALL_TIMEOUT,
            format!("the call without `{left_out}` got no answer within {}; it was cancelled", humanize(timeout)),
        ),
        Ok(CallOutcome::RpcError { code: INVALID_PARAMS, .. }) => {
            pass(format!("rejected without `{left_out}` (JSON-RPC error {INVALID_PARAMS}, invalid params)"))
        }
        Ok(CallOutcome::RpcError { code, message }) => rejected(format!("JSON-RPC error {code}"), message),
        Ok(CallOutcome::Result(r)) if shape::is_error(r) => rejected("isError".into(), &shape::texts(r).join("\n")),
        Ok(CallOutcome::Result(r)) if incomplete_result_type(r).is_some() => {
            pass(format!("the server asked for more input without `{left_out}`"))
        }
        // An answer that says it failed has failed (RULES.md), flagged or not.
        Ok(CallOutcome::Result(r)) if answer::failure(r).is_some() => {
            let text = answer::head(r).unwrap_or_default();
            rejected("an answer that says it failed".into(), &text)
        }
        Ok(CallOutcome::Result(_)) => fail(
            tool,
            k,
            INCOMPLETE_CALL_ACCEPTED,
            format!("the call without required argument `{left_out}` succeeded: the server does not enforce its inputSchema"),
        ),
    };
    if !p.reason.is_some_and(SkipReason::not_made) {
        p.answered = answered_of(outcome, secrets);
    }
    p
}

/// JSON-RPC's invalid-params error code.
pub const INVALID_PARAMS: i64 = -32602;

/// Whether an error text names the argument `arg`: as a whole word (case-insensitive), or
/// spelled with spaces for underscores (`repo_path` as `repo path`).
pub fn names_argument(text: &str, arg: &str) -> bool {
    if arg.is_empty() {
        return false;
    }
    let text = text.to_lowercase();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let spaced = arg.replace('_', " ");
    [arg.to_lowercase(), spaced.to_lowercase()].iter().any(|a| {
        text.match_indices(a.as_str())
            .any(|(i, m)| !word(text[..i].chars().next_back()) && !word(text[i + m.len()..].chars().next()))
    })
}

#[cfg(test)]
mod tests;
