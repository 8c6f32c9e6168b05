//! One tool's calls, in the session of the place it is called (the server's own session, or a
//! sandboxed one: this code does not know which). At `lock`, the candidate argument sets
//! ([`candidates::argument_sets`]) are tried in order until the valid call succeeds, within
//! [`candidates::MAX_CANDIDATES`] per tool and a time budget per server ([`Budget`]); the
//! arguments of the call that succeeded (or of the first, when none did) are pinned with the
//! result contract. At `check`, the pinned arguments are replayed, so a check is deterministic.
//! Then the incomplete call, in the same session.

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::candidates::{self, ArgSet, Known};
use super::{answer, call, judge, judge_incomplete, shape, Context, Mode, Plan};
use super::{Probe, ProbeKind, SkipReason};
use crate::client::{CallOutcome, ClientError, Session};

/// The key of a pin that holds the valid call's arguments.
pub const CALL_KEY: &str = "call";

/// The key, in a pinned call, of the calls `lock` made of the tool before it, that reached the
/// tool's code and failed ([`BEFORE_MAX`] at most): `check` makes them again when the pinned
/// call alone fails, so a call that passed only after what they did (a cherry-pick left in
/// progress, then aborted) is judged as `lock` saw it.
pub const BEFORE_KEY: &str = "before";
/// Most sets of one tool's search tried again with their paths absolute after the relative form
/// was refused.
const MAX_ABSOLUTE_TWINS: usize = 2;

/// Most calls kept in [`BEFORE_KEY`]; a search that needed more pins none.
pub const BEFORE_MAX: usize = 8;

/// When further candidates stop being tried for one server.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    until: Instant,
}

impl Budget {
    /// The budget of a server of `tools` tools: [`candidates::SEARCH_BUDGET`] and
    /// [`candidates::SEARCH_BUDGET_PER_TOOL`] for each, at most [`candidates::SEARCH_BUDGET_MAX`].
    pub fn for_tools(tools: usize) -> Budget {
        let each = candidates::SEARCH_BUDGET_PER_TOOL.saturating_mul(u32::try_from(tools).unwrap_or(u32::MAX));
        let all = candidates::SEARCH_BUDGET.saturating_add(each).min(candidates::SEARCH_BUDGET_MAX);
        Budget { until: Instant::now() + all }
    }

    /// Whether the server's time for further candidates is over.
    pub fn spent(&self) -> bool {
        Instant::now() >= self.until
    }
}

/// What probing one tool gave.
#[derive(Debug, Clone)]
pub struct Done {
    pub tool: String,
    pub probes: Vec<Probe>,
    /// The result contract to pin (with the valid call's arguments when mcp-pin found them).
    pub shape: Option<Value>,
    /// The result of a valid call that succeeded, for the values it lists.
    pub result: Option<Value>,
    /// The valid call's arguments as pinned (paths relative), when a call was made: a setup
    /// tool's are replayed in every place that needs it.
    pub set: Option<ArgSet>,
    /// The valid call lost its connection (the server died): the probe run starts the server
    /// again and calls the tool again, never judging it on the loss.
    pub lost: bool,
    /// The incomplete call lost its connection (the server died after the valid call was
    /// answered, or on this call): not judged here; the probe run starts the server again and
    /// makes this call again, alone ([`super::probe_wave`]).
    pub lost_incomplete: Option<LostIncomplete>,
}

/// An incomplete call whose connection was lost, to be made again in a new session.
#[derive(Debug, Clone)]
pub struct LostIncomplete {
    pub left_out: String,
    pub args: Map<String, Value>,
    /// Whether the valid call of the same tool succeeded (what a rejection is judged with).
    pub valid_succeeded: bool,
}

impl Done {
    /// What probing a tool that was not called gave.
    pub fn not_called(tool: String, probe: Probe) -> Done {
        Done { tool, probes: vec![probe], shape: None, result: None, set: None, lost: false, lost_incomplete: None }
    }
}

/// Everything one tool's probe needs besides the session.
pub struct Job<'a> {
    pub plan: Plan,
    pub def: &'a Value,
    /// The tool's pin (`None`: nothing pinned for it, or locking).
    pub pinned: Option<&'a Value>,
    pub mode: Mode,
    pub timeout: Duration,
    pub secrets: &'a [String],
}

/// How good a valid call's outcome is for the search: 2, a success it can stop at; 1, an
/// answer not flagged as an error that reads as a failure ([`answer::failure`]: the search goes
/// on, and pins it only when nothing better comes); 0, anything else.
fn rank(outcome: &Result<CallOutcome, ClientError>) -> u8 {
    match outcome {
        Ok(CallOutcome::Result(r)) if !shape::is_error(r) && super::incomplete_result_type(r).is_none() => {
            if answer::failure(r).is_none() {
                2
            } else {
                1
            }
        }
        _ => 0,
    }
}

/// What a call that did not succeed said, for the values it names: a JSON-RPC error's message,
/// or the text of a result that is an error or reads as one.
fn rejection_text(outcome: &Result<CallOutcome, ClientError>) -> Option<String> {
    match outcome {
        Ok(CallOutcome::RpcError { message, .. }) => Some(message.clone()),
        Ok(CallOutcome::Result(r)) => {
            let text = shape::texts(r).join("\n");
            let text = if text.trim().is_empty() { answer::head(r).unwrap_or_default() } else { text };
            Some(words_of(text).chars().take(MAX_REJECTION_TEXT).collect())
        }
        _ => None,
    }
}

/// Most characters of a rejection's text read for the values it names.
pub const MAX_REJECTION_TEXT: usize = 4_096;

/// The words of an answer's text: a JSON answer (`{"success": false, "message": "…"}`) says it
/// in its strings, one a line; its keys are no values to offer.
pub(crate) fn words_of(text: String) -> String {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => strings_of(&v).join("\n"),
        _ => text,
    }
}

/// The string leaves of a JSON value, in order.
fn strings_of(v: &Value) -> Vec<String> {
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().flat_map(strings_of).collect(),
        Value::Object(m) => m.values().flat_map(strings_of).collect(),
        _ => vec![],
    }
}

/// Whether a call that did not succeed reached the tool's code (and may have changed what the
/// next call finds): an answer from the tool, or a JSON-RPC error other than invalid params.
fn reached_the_tool(outcome: &Result<CallOutcome, ClientError>) -> bool {
    match outcome {
        Ok(CallOutcome::Result(_)) => true,
        Ok(CallOutcome::RpcError { code, .. }) => *code != -32602,
        _ => false,
    }
}

/// Whether trying another candidate is pointless: the tool hangs, the connection failed, or it
/// needs something no argument gives (tasks, more input).
fn hopeless(outcome: &Result<CallOutcome, ClientError>) -> bool {
    match outcome {
        Err(_) | Ok(CallOutcome::Timeout) => true,
        Ok(CallOutcome::RpcError { code, message }) => super::task_required_error(*code, message),
        Ok(CallOutcome::Result(r)) => super::incomplete_result_type(r).is_some(),
    }
}

/// Probe one tool in `session`: the valid call (searched at `lock`, replayed at `check`) and,
/// when it has a required argument, the incomplete call.
pub async fn probe_tool(session: &Session, job: Job<'_>, known: &Known, budget: &Budget) -> Done {
    let Job { plan, def, pinned, mode, timeout, secrets } = job;
    let (tool, smallest, synthesised) = match plan {
        Plan::Skip { tool, reason, message } => {
            let p = Probe::skipped(&tool, ProbeKind::Call, reason, message);
            return Done::not_called(tool, p);
        }
        Plan::Call { tool, args, synthesised, .. } => (tool, args, synthesised),
    };
    // A tool the lock holds no probe for is judged from the next `lock` on (RULES.md, Judging).
    if mode == Mode::Check && pinned.is_none() {
        let p = Probe::skipped(
            &tool,
            ProbeKind::Call,
            SkipReason::NothingPinned,
            format!("{NOTHING_PINNED}: `mcp-pin lock` pins its probe, and later checks judge it"),
        );
        return Done::not_called(tool, p);
    }
    let caller = Caller { session, tool: &tool, def, known, mode, timeout, synthesised: synthesised.is_some() };
    let (sets, mut note) = first_sets(&caller, pinned, &smallest);
    let mut found = caller.search(sets, &smallest, budget).await;
    // At `check`, a pinned call that fails alone is made again after the calls `lock` made
    // before it: judged on that, with a note, when it then passes.
    if mode == Mode::Check && found.best.as_ref().is_some_and(|b| b.1 < 2) {
        if let Some(outcome) = caller.after_before(pinned, &found.sets).await {
            found.best = Some((0, 2, outcome));
            note = Some("it passed once the calls `lock` made before it were made again");
        }
    }
    let ok = found.best.as_ref().is_some_and(|b| b.1 == 2);
    let Some((index, _, outcome)) = found.best.take() else {
        let p = not_probed(&tool, found.refused);
        return Done::not_called(tool, p);
    };
    let set = &found.sets[index];
    let ctx = Context { def, pinned, mode, synthesised: synthesised.as_deref(), timeout, secrets, tried: found.tried };
    let (mut probes, mut shape) = judge(&tool, &ctx, &outcome);
    // Say where the arguments came from (never a value), on the valid call's first line.
    if let Some(p) = probes.first_mut().filter(|p| !p.reason.is_some_and(SkipReason::not_made)) {
        p.message.push_str(&found.provenance(set, note));
    }
    // The arguments mcp-pin found are pinned with the contract (a fixture is the config's word;
    // no arguments need no pin; a secret is never pinned).
    if let (Some(Value::Object(m)), Some(_)) = (&mut shape, &synthesised) {
        if let Some(pin) = found.pin(&caller, index, ok) {
            m.insert(CALL_KEY.into(), pin);
        }
    }
    let result = match (&outcome, ok) {
        (Ok(CallOutcome::Result(r)), true) => Some(r.clone()),
        _ => None,
    };
    let lost = outcome.is_err();
    let lost_incomplete = caller.incomplete(set, &outcome, ok, secrets, &mut probes).await;
    Done { tool, probes, shape, result, set: Some(set.clone()), lost, lost_incomplete }
}

/// What one tool's probe calls with besides its sets: the session, the tool and its mode.
struct Caller<'a> {
    session: &'a Session,
    tool: &'a str,
    def: &'a Value,
    known: &'a Known,
    mode: Mode,
    timeout: Duration,
    /// The arguments are mcp-pin's, not a fixture: every set passes the gate, and at `lock` the
    /// server's words make more.
    synthesised: bool,
}

/// The sets a search starts from: at `lock`, the candidates; at `check`, the pinned call (with a
/// note when it had to be adapted to the inputSchema); for a fixture, the fixture.
fn first_sets(
    caller: &Caller,
    pinned: Option<&Value>,
    smallest: &Map<String, Value>,
) -> (Vec<ArgSet>, Option<&'static str>) {
    let (def, known) = (caller.def, caller.known);
    match (caller.synthesised, caller.mode) {
        (false, _) => (vec![ArgSet::fixture(smallest.clone())], None),
        (true, Mode::Lock) => (candidates::argument_sets(caller.tool, def, known, smallest), None),
        (true, Mode::Check) => match pinned.and_then(|p| p.get(CALL_KEY)).and_then(ArgSet::from_pin) {
            Some(pin) => {
                let pin = candidates::refresh_made(pin, known);
                let (set, adapted) = candidates::replay(pin, def, known, smallest);
                (vec![set], adapted.then_some("the pinned arguments no longer fit the inputSchema: adapted to it"))
            }
            // A lock from before pinned arguments: the smallest valid ones, as it was probed then.
            None => (vec![ArgSet::smallest(smallest.clone())], None),
        },
    }
}

/// The skip of a tool no call was made of: why no set could be sent.
fn not_probed(tool: &str, refused: Option<String>) -> Probe {
    let why = match refused {
        Some(what) => format!(
            "not probed: its arguments would aim the call at the machine or carry what no probe may send ({what}); add an args fixture"
        ),
        None => "not probed: no arguments could be made for it".to_string(),
    };
    Probe::skipped(tool, ProbeKind::Call, SkipReason::NeedsFixture, why)
}

/// One tool's search: the sets tried and to try, and what came of them.
struct Found {
    /// The sets, in the order they are tried (those the server's words gave spliced in after the
    /// set they answer); `worded` marks those.
    sets: Vec<ArgSet>,
    worded: Vec<bool>,
    /// Sets the words gave that were tried ([`candidates::words::MAX_FROM_WORDS`] at most).
    from_words: usize,
    /// Sets tried again with their paths absolute.
    twins: usize,
    /// The calls that reached the tool's code and failed, in order.
    reached: Vec<usize>,
    /// The first outcome of the best rank so far: its set's index, its rank, the outcome.
    best: Option<(usize, u8, Result<CallOutcome, ClientError>)>,
    /// Whether the best outcome so far is a refusal of the relative form of a path.
    best_form_refused: bool,
    tried: usize,
    /// Whether the server's time budget, not the tool's count of sets, ended the search.
    cut: bool,
    /// Why the gate refused a set (the first reason), for a tool no call was made of.
    refused: Option<String>,
}

impl Caller<'_> {
    /// The one gate (`candidates::gate`): every set, whatever produced it (a lock from a pull
    /// request included), passes it just before it is sent; what is pinned is what passed.
    fn admit(&self, set: &ArgSet) -> Result<ArgSet, String> {
        candidates::gate::admit(self.def, self.known, set, self.session.working_dir())
    }

    async fn call(&self, set: &ArgSet) -> Result<CallOutcome, ClientError> {
        call(self.session, self.tool, set.send(self.session.working_dir()), self.timeout).await
    }

    /// Try `sets` in order until one succeeds or the search is spent (its counts, or the
    /// server's time `budget`); at `lock` the server's words and a refused path form add sets.
    async fn search(&self, sets: Vec<ArgSet>, smallest: &Map<String, Value>, budget: &Budget) -> Found {
        let mut refused = None;
        // No set made at all: say so when the smallest arguments are what would aim it there.
        if self.synthesised && sets.is_empty() {
            let root = self.def.get("inputSchema").cloned().unwrap_or(Value::Null);
            let smallest = Value::Object(smallest.clone());
            refused = candidates::aimed_at_machine(&root, &smallest, self.known).map(str::to_string);
        }
        let worded = vec![false; sets.len()];
        let mut f = Found {
            sets,
            worded,
            from_words: 0,
            twins: 0,
            reached: Vec::new(),
            best: None,
            best_form_refused: false,
            tried: 0,
            cut: false,
            refused,
        };
        let mut i = 0;
        while i < f.sets.len() {
            if i > 0 && budget.spent() {
                f.cut = true;
                break;
            }
            if !self.pass(&mut f, i) {
                continue;
            }
            // Sets the server's words gave are tried as they come, each counted against
            // [`candidates::words::MAX_FROM_WORDS`] when it is tried, so a chain of rejections,
            // a file then a sheet then a range, is followed to its end.
            if f.worded[i] {
                if f.from_words >= candidates::words::MAX_FROM_WORDS {
                    i += 1;
                    continue;
                }
                f.from_words += 1;
            }
            let outcome = self.call(&f.sets[i]).await;
            f.tried += 1;
            let r = rank(&outcome);
            if r < 2 && reached_the_tool(&outcome) {
                f.reached.push(i);
            }
            let stop = r == 2 || hopeless(&outcome);
            let form_refused = !stop && self.answer(&mut f, i, &outcome);
            if f.best.as_ref().is_none_or(|b| r > b.1 || r == b.1 && f.best_form_refused) {
                f.best = Some((i, r, outcome));
                f.best_form_refused = form_refused;
            }
            if stop {
                break;
            }
            i += 1;
        }
        f
    }

    /// Pass set `i` through the gate (a fixture is the user's word): whether it may be sent; a
    /// set refused leaves the search, and the first reason is kept.
    fn pass(&self, f: &mut Found, i: usize) -> bool {
        if !self.synthesised {
            return true;
        }
        match self.admit(&f.sets[i]) {
            Ok(s) => {
                f.sets[i] = s;
                true
            }
            Err(why) => {
                f.refused.get_or_insert(why);
                f.sets.remove(i);
                f.worded.remove(i);
                false
            }
        }
    }

    /// After set `i` failed with `outcome`, at `lock`: the values the server's words name are
    /// tried next, in this set; then paths go absolute where the words ask for it, or the set is
    /// tried again with its paths absolute right after it. Whether the outcome refused the
    /// relative form of a path.
    fn answer(&self, f: &mut Found, i: usize, outcome: &Result<CallOutcome, ClientError>) -> bool {
        if self.mode != Mode::Lock {
            return false;
        }
        let text = rejection_text(outcome);
        if self.synthesised && f.from_words < candidates::words::MAX_FROM_WORDS {
            if let Some(text) = &text {
                let more = candidates::responders::sets_from_rejection(self.def, self.known, &f.sets[i], text, &f.sets);
                f.worded.splice(i + 1..i + 1, std::iter::repeat_n(true, more.len()));
                f.sets.splice(i + 1..i + 1, more);
            }
        }
        // Paths go relative first (RULES.md). Where the server's words say it wants them
        // absolute, every later set of this search sends them so; otherwise a set refused in the
        // relative form is tried absolute right after it (a few times per tool: a server that
        // takes neither is not asked twice for every set).
        let Some(twin) = f.sets[i].absolute_twin() else { return false };
        // A refusal of the form says nothing of the tool: any later answer of the same rank is
        // the one to report and pin.
        let says = text.is_some_and(|t| candidates::words::asks_absolute_path(&t));
        if says {
            for later in &mut f.sets[i + 1..] {
                later.absolute |= !later.relative.is_empty();
            }
        }
        if says || f.twins < MAX_ABSOLUTE_TWINS {
            f.twins += 1;
            f.sets.insert(i + 1, twin);
            f.worded.insert(i + 1, false);
        }
        says
    }

    /// At `check`, a pinned call that failed alone: the calls `lock` made before it (through the
    /// same gate as every set), then the pinned call once more; its outcome when it then passes.
    /// A call that hangs or loses its connection ends the replay: the pinned call's first
    /// outcome is judged (a server cannot stretch `check` by its timeout once for each).
    async fn after_before(&self, pinned: Option<&Value>, sets: &[ArgSet]) -> Option<Result<CallOutcome, ClientError>> {
        let before = pinned?.pointer(&format!("/{CALL_KEY}/{BEFORE_KEY}"))?;
        let calls: Vec<ArgSet> = before
            .as_array()
            .into_iter()
            .flatten()
            .take(BEFORE_MAX)
            .filter_map(ArgSet::from_pin)
            .map(|s| candidates::refresh_made(s, self.known))
            .collect();
        let calls: Vec<ArgSet> = calls.iter().map(|s| self.admit(s).ok()).collect::<Option<_>>()?;
        if calls.is_empty() || sets.is_empty() {
            return None;
        }
        for s in &calls {
            if hopeless(&self.call(s).await) {
                return None;
            }
        }
        let outcome = self.call(&sets[0]).await;
        (rank(&outcome) == 2).then_some(outcome)
    }

    /// The incomplete call for the valid call `set` (answered `outcome`, a success when `ok`):
    /// judged into `probes`, or skipped when the valid call got no answer; the call to make again
    /// when it lost its connection (never judged on a crash: made again, alone, once the server
    /// is started again).
    async fn incomplete(
        &self,
        set: &ArgSet,
        outcome: &Result<CallOutcome, ClientError>,
        ok: bool,
        secrets: &[String],
        probes: &mut Vec<Probe>,
    ) -> Option<LostIncomplete> {
        let required = required_in_order(self.def);
        let (left_out, args) = incomplete_args(&required, set, self.session.working_dir())?;
        let not_sent = match outcome {
            Ok(CallOutcome::Timeout) => Some("not sent: the valid call timed out"),
            Err(_) => Some("not sent: the connection failed on the valid call"),
            _ => None,
        };
        if let Some(why) = not_sent {
            probes.push(Probe::skipped(self.tool, ProbeKind::Incomplete, SkipReason::NotSent, why.into()));
            return None;
        }
        let o = call(self.session, self.tool, args.clone(), self.timeout).await;
        if o.is_err() {
            return Some(LostIncomplete { left_out, args, valid_succeeded: ok });
        }
        probes.push(judge_incomplete(self.tool, &left_out, &o, ok, self.timeout, secrets));
        None
    }
}

impl Found {
    /// `; arguments: …` for the valid call's line: where the arguments of `set` came from (never
    /// a value), a `note`, and whether the server's time cut the search short.
    fn provenance(&self, set: &ArgSet, note: Option<&str>) -> String {
        let mut out = format!("; arguments: {}", set.describe());
        if let Some(n) = note {
            out.push_str(&format!(" ({n})"));
        }
        if self.cut {
            out.push_str(&format!(
                "; the search stopped after {} argument set(s): the server's probes had used their time (slow calls), and another lock may pin other arguments",
                self.tried
            ));
        }
        out
    }

    /// The pin of the set at `index` (whose call succeeded when `ok`): none for no arguments or
    /// a secret. At `lock`, a tool that changes things keeps the failed calls that reached its
    /// code before it ([`BEFORE_KEY`]).
    fn pin(&self, caller: &Caller, index: usize, ok: bool) -> Option<Value> {
        let set = &self.sets[index];
        let secret = |s: &ArgSet| caller.known.holds_secret(&Value::Object(s.args.clone()));
        if set.args.is_empty() || secret(set) {
            return None;
        }
        let mut pin = set.to_pin(self.tried);
        let before: Vec<&ArgSet> = self.reached.iter().filter(|j| **j < index).map(|j| &self.sets[*j]).collect();
        let changes = candidates::hints::rank(caller.tool, caller.def) > 1;
        if ok && caller.mode == Mode::Lock && changes && !before.is_empty() && before.len() <= BEFORE_MAX {
            let kept = before.iter().filter(|s| !secret(s));
            if let Value::Object(p) = &mut pin {
                p.insert(BEFORE_KEY.into(), kept.map(|s| s.to_pin(0)).collect());
            }
        }
        Some(pin)
    }
}

/// How the skip of a tool the lock holds no probe for starts.
pub const NOTHING_PINNED: &str = "not judged: the lock holds no probe for this tool";

/// The top-level `required` names, in the schema's order, once each.
pub fn required_in_order(def: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in def.pointer("/inputSchema/required").and_then(Value::as_array).into_iter().flatten() {
        if let Some(s) = r.as_str() {
            if !out.iter().any(|o| o == s) {
                out.push(s.to_string());
            }
        }
    }
    out
}

/// The incomplete call for the valid call `set`: the argument left out and the arguments sent.
fn incomplete_args(
    required: &[String],
    set: &ArgSet,
    dir: Option<&std::path::Path>,
) -> Option<(String, Map<String, Value>)> {
    let left_out = super::left_out_argument(required, &set.args)?;
    let mut args = set.send(dir);
    args.remove(&left_out);
    Some((left_out, args))
}
