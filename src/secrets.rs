//! Secrets: every value mcp-pin read from the environment (or a VS Code secret input) for a
//! config, wherever it was expanded (a header, an env value, a URL's path or query, an argument).
//!
//! Three jobs, each done once for the whole process:
//! - **Which variables a config may read** ([`EnvPolicy`]). A config from a pull request is code:
//!   under CI (`CI` set), a `${VAR}` resolves only when the invocation names it
//!   (`--allow-env VAR`, the Action's `allow-env` input); at a terminal every variable resolves.
//!   A few variables that name the machine's own places and are no secret ([`NOT_SECRET`]) are
//!   always readable and never masked.
//! - **Which values are secrets** ([`kind_of`]): not every configured value is one. A JSON
//!   literal (`true`, `false`, `null`), a number, or a value under [`MIN_SECRET_LEN`] characters
//!   is never registered (a short one is refused where a secret is expected: [`read_var`]). A
//!   value under [`WORD_SECRET_LEN`] characters is masked only as a whole word (a `LOG_LEVEL`
//!   of `info` does not garble `information`). A multi-line value (a PEM key) is registered
//!   whole and line by line ([`MIN_LINE_LEN`]).
//! - **Masking**, one function per kind of output, used everywhere:
//!   - [`mask`] for free text (the terminal, logs, Markdown, messages): every registered value,
//!     in any spelling the outputs or a server can give it (escaped, percent-encoded, as an XML
//!     reference: [`crate::spelling`]), becomes [`MASK`]; [`crate::sink`] applies it to every
//!     stream write;
//!   - [`mask_json`] for structured outputs (the lockfile, JSON, SARIF and JUnit reports, a
//!     server's surface before it is pinned or compared): the same on every string of a JSON
//!     value before it is serialised, its string values and its object keys alike (keys that
//!     mask to the same text are told apart deterministically: [`masked_keys`]), never on its
//!     syntax, literals or numbers, so the output always parses;
//!   - [`excerpt`] wherever text is cut or split: masked first, cut afterwards.

use std::collections::BTreeSet;
use std::sync::{OnceLock, RwLock};

/// Shorter values are no secret to register, and refused where a secret is expected (masking
/// `ab` would mask every `ab` in a report).
pub const MIN_SECRET_LEN: usize = 4;

/// A secret shorter than this (a setting such as `info` from a dotenv file, or a short
/// password) is masked only where it stands as a whole word: `info` is masked in `level info`,
/// not in `information`, and an object key holding it is no reason to refuse a surface. Longer
/// values are masked wherever they occur, inside a word too.
pub const WORD_SECRET_LEN: usize = 8;

/// What replaces a secret in everything mcp-pin prints or writes.
pub const MASK: &str = "***";

/// Variables that name the machine's own places or the user, never a credential: readable
/// under CI without `--allow-env`, and not masked (masking `HOME` would garble every path).
pub const NOT_SECRET: &[&str] = &[
    "HOME",
    "USERPROFILE",
    "USER",
    "USERNAME",
    "LOGNAME",
    "PWD",
    "TMPDIR",
    "TEMP",
    "TMP",
    "SHELL",
    "TERM",
    "PATH",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "GITHUB_WORKSPACE",
    "RUNNER_TEMP",
    "RUNNER_TOOL_CACHE",
];

/// Which environment variables a config may read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EnvPolicy {
    /// Every variable (a terminal; the library's default).
    #[default]
    Any,
    /// Only these (CI: the names given with `--allow-env`), plus [`NOT_SECRET`].
    Only(BTreeSet<String>),
}

impl EnvPolicy {
    /// The policy for this process: `Only(allowed)` when `ci`, else `Any`.
    pub fn for_run(ci: bool, allowed: impl IntoIterator<Item = String>) -> EnvPolicy {
        if ci {
            EnvPolicy::Only(allowed.into_iter().collect())
        } else {
            EnvPolicy::Any
        }
    }

    pub fn allows(&self, var: &str) -> bool {
        match self {
            EnvPolicy::Any => true,
            EnvPolicy::Only(names) => names.contains(var) || NOT_SECRET.contains(&var),
        }
    }
}

static POLICY: OnceLock<EnvPolicy> = OnceLock::new();

/// Set the process's policy once, before any config is read (the binary does, from `CI` and
/// `--allow-env`). Later calls are ignored.
pub fn set_policy(policy: EnvPolicy) {
    let _ = POLICY.set(policy);
}

/// The process's policy (`Any` until set).
pub fn policy() -> &'static EnvPolicy {
    POLICY.get_or_init(EnvPolicy::default)
}

/// Why a variable could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Under CI and not allowed by the invocation.
    NotAllowed,
    /// Set to a value too short to mask.
    TooShort,
}

/// What a configured value is, as far as masking goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Empty,
    /// `true`, `false`, `null` (any case) or a number of at most [`MAX_PLAIN_DIGITS`] digits:
    /// a setting, never a secret, and not registered (masking `true` would mask every boolean,
    /// masking `8080` every such number).
    Plain,
    /// Under [`MIN_SECRET_LEN`] characters: too short to mask without masking ordinary text.
    TooShort,
    Secret,
}

/// A number with more digits than this is no port, size or count: a card number or a numeric
/// token, so it stays a secret.
pub const MAX_PLAIN_DIGITS: usize = 15;

/// Whether `v` is a secret to register, a plain setting, or too short to tell.
pub fn kind_of(v: &str) -> ValueKind {
    let t = v.trim();
    if t.is_empty() {
        return ValueKind::Empty;
    }
    if ["true", "false", "null"].iter().any(|l| t.eq_ignore_ascii_case(l)) {
        return ValueKind::Plain;
    }
    if is_number(t) && t.bytes().filter(u8::is_ascii_digit).count() <= MAX_PLAIN_DIGITS {
        return ValueKind::Plain;
    }
    if v.chars().count() < MIN_SECRET_LEN {
        return ValueKind::TooShort;
    }
    ValueKind::Secret
}

/// `[+-]digits[.digits][e[+-]digits]`, as a setting spells a number.
fn is_number(t: &str) -> bool {
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (t, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((i, f)) => (digits(i) || i.is_empty()) && (digits(f) || f.is_empty()) && !(i.is_empty() && f.is_empty()),
        None => digits(mantissa),
    };
    mantissa_ok && exponent.is_none_or(digits)
}

/// Read `var` through `lookup` for a config: refused when the policy does not allow it or the
/// value is too short to mask; registered as a secret when it is one ([`kind_of`]).
pub fn read_var(var: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Option<String>, Refusal> {
    if !policy().allows(var) {
        return Err(Refusal::NotAllowed);
    }
    let value = lookup(var);
    if let Some(v) = &value {
        if !NOT_SECRET.contains(&var) {
            if kind_of(v) == ValueKind::TooShort {
                return Err(Refusal::TooShort);
            }
            register(v);
        }
    }
    Ok(value)
}

/// [`read_var`] for a reference whose value may be a setting, not a secret:
/// - `default`: the default written beside the reference (`${REGION:-eu}`): a value equal to it
///   is in the config in clear, so it is no secret (never refused, never registered);
/// - `marked`: the config names the variable as no secret (`not_secret` in `mcp-pin.toml`: a
///   region, a log level). Its value is never refused as too short to mask, and it is not
///   registered, except under a restricting policy (CI), where the config is not trusted to
///   say what is secret: a value long enough to mask is masked there all the same.
pub fn read_setting(
    var: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    default: Option<&str>,
    marked: bool,
) -> Result<Option<String>, Refusal> {
    if needs_allow(var, lookup, default) {
        return Err(Refusal::NotAllowed);
    }
    if !policy().allows(var) {
        // Unset, with a default written beside it: the default is used, nothing was read.
        return Ok(None);
    }
    let value = lookup(var);
    if let Some(v) = &value {
        let written = default.is_some_and(|d| !d.is_empty() && d == v);
        if NOT_SECRET.contains(&var) || written {
            return Ok(value);
        }
        match (marked, kind_of(v)) {
            (false, ValueKind::TooShort) => return Err(Refusal::TooShort),
            (false, _) => register(v),
            (true, _) if *policy() != EnvPolicy::Any => register(v),
            (true, _) => {}
        }
    }
    Ok(value)
}

/// Whether reading `var` needs the run to allow it (`--allow-env`): under CI, a variable the run
/// does not name, unless it is unset and has a `default` written beside it (`${REGION:-eu}`:
/// the default is used and no value is read; only whether it is set is looked at).
pub fn needs_allow(var: &str, lookup: &dyn Fn(&str) -> Option<String>, default: Option<&str>) -> bool {
    !policy().allows(var) && (default.is_none() || lookup(var).is_some())
}

/// Each line of a multi-line secret this long or longer is registered on its own too: a server
/// that prints a PEM key prints it line by line. (Shorter lines, such as a key's last one, are
/// too common to mask everywhere.)
pub const MIN_LINE_LEN: usize = 16;

struct Registry {
    values: BTreeSet<String>,
    /// Every registered value and its literal spellings in the sinks, longest first, as one
    /// automaton.
    matcher: Option<aho_corasick::AhoCorasick>,
    /// By pattern id: whether the pattern's value is shorter than [`WORD_SECRET_LEN`] (matched
    /// only as a whole word).
    word_only: Vec<bool>,
    /// The longest pattern, in bytes (see [`safe_cut_from`]).
    longest: usize,
}

static REGISTRY: RwLock<Registry> = RwLock::new(Registry::EMPTY);

impl Registry {
    const EMPTY: Registry = Registry { values: BTreeSet::new(), matcher: None, word_only: Vec::new(), longest: 0 };
}

thread_local! {
    /// A registry of this thread's own while [`scoped`] runs (the fuzz targets: every input
    /// starts with no secret, and registers none for the rest of the process).
    static SCOPED: std::cell::RefCell<Option<Registry>> = const { std::cell::RefCell::new(None) };
}

/// `f` with the registry in force: this thread's scoped one, else the process's.
fn with_registry<R>(f: impl FnOnce(&Registry) -> R) -> R {
    let mut f = Some(f);
    let scoped = SCOPED.with(|s| s.borrow().as_ref().map(|reg| (f.take().expect("called once"))(reg)));
    match scoped {
        Some(r) => r,
        None => (f.take().expect("called once"))(&REGISTRY.read().unwrap_or_else(|e| e.into_inner())),
    }
}

fn with_registry_mut(f: impl FnOnce(&mut Registry)) {
    let mut f = Some(f);
    SCOPED.with(|s| {
        if let Some(reg) = s.borrow_mut().as_mut() {
            (f.take().expect("called once"))(reg);
        }
    });
    if let Some(f) = f {
        f(&mut REGISTRY.write().unwrap_or_else(|e| e.into_inner()));
    }
}

/// Run `f` with a registry of this thread's own, empty at the start and dropped at the end:
/// what `f` registers is masked only in this thread, while `f` runs. For the fuzz targets.
#[doc(hidden)]
pub fn scoped<R>(f: impl FnOnce() -> R) -> R {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            SCOPED.with(|s| *s.borrow_mut() = None);
        }
    }
    SCOPED.with(|s| *s.borrow_mut() = Some(Registry::EMPTY));
    let _reset = Reset;
    f()
}

/// The literal spellings a value can take in mcp-pin's outputs: as is, inside a JSON string,
/// in a one-line display (`\u{..}` escapes), percent-encoded (a URL), in XML/HTML text. Other
/// spellings (any escape of any character) are found by [`mask`] in the decoded view of a text.
fn spellings(v: &str) -> Vec<String> {
    let mut out = vec![v.to_string()];
    let json = serde_json::to_string(v).unwrap_or_default();
    out.push(json.trim_matches('"').to_string());
    let mut canonical = String::new();
    crate::json::write_string(&mut canonical, v);
    out.push(canonical.trim_matches('"').to_string());
    out.push(crate::json::escape_line(v));
    let pct: String = v
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    out.push(pct);
    out.push(v.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;"));
    out.retain(|s| s.chars().count() >= MIN_SECRET_LEN);
    out.sort();
    out.dedup();
    out
}

/// Register `value` as a secret: from now on the masking functions hide it. Only a secret is
/// registered ([`kind_of`]: not an empty value, a literal, a number or a too-short value); a
/// multi-line value is registered whole and each of its lines of [`MIN_LINE_LEN`] characters
/// or more on its own.
pub fn register(value: &str) {
    register_as(value, kind_of(value) == ValueKind::Secret)
}

/// Register a value known to be a credential (an OAuth client secret, a private key, an
/// assertion, a token or a code of a grant, whether from `${VAR}` or written in the config): a
/// number or a literal is a secret here too; only a value too short to mask is not registered.
pub fn register_credential(value: &str) {
    register_as(value, value.trim().chars().count() >= MIN_SECRET_LEN)
}

fn register_as(value: &str, whole: bool) {
    let mut new: Vec<&str> = vec![];
    if whole {
        new.push(value);
    }
    if value.contains(['\n', '\r']) {
        new.extend(
            value
                .split(['\n', '\r'])
                .map(str::trim)
                .filter(|l| l.chars().count() >= MIN_LINE_LEN && kind_of(l) == ValueKind::Secret),
        );
    }
    if new.is_empty() {
        return;
    }
    with_registry_mut(|reg| {
        let mut added = false;
        for v in new {
            added |= reg.values.insert(v.to_string());
        }
        if !added {
            return;
        }
        let mut patterns: Vec<(String, bool)> = reg
            .values
            .iter()
            .flat_map(|v| {
                let word = v.chars().count() < WORD_SECRET_LEN;
                spellings(v).into_iter().map(move |p| (p, word))
            })
            .collect();
        // One entry per spelling; a spelling of a long value is matched anywhere.
        patterns.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
        patterns.dedup_by(|b, a| a.0 == b.0);
        reg.longest = patterns.first().map_or(0, |p| p.0.len());
        reg.word_only = patterns.iter().map(|p| p.1).collect();
        // Every match, overlapping ones included: a short value's match inside a word is
        // dropped, and must not hide a match it overlaps.
        reg.matcher = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::Standard)
            .build(patterns.iter().map(|p| &p.0))
            .ok();
    })
}

/// Whether any secret is registered (the masking functions do nothing until one is).
pub fn any_registered() -> bool {
    with_registry(|reg| reg.matcher.is_some())
}

/// The spans of `text` that hold a registered value, in any spelling, merged and in order. A
/// value shorter than [`WORD_SECRET_LEN`] counts only as a whole word.
fn secret_spans(reg: &Registry, text: &str) -> Vec<(usize, usize)> {
    let Some(m) = &reg.matcher else { return Vec::new() };
    let found = |hay: &[u8]| -> Vec<(usize, usize)> {
        let (mut accepted, mut pending) = (Vec::new(), Vec::new());
        for x in m.find_overlapping_iter(hay) {
            match reg.word_only.get(x.pattern().as_usize()).copied().unwrap_or(false) {
                false => accepted.push((x.start(), x.end())),
                true => pending.push((x.start(), x.end())),
            }
        }
        // A short value's match counts when each of its neighbours is no word character or is
        // itself masked: so masking twice masks nothing more (what masking leaves, `***`, is
        // never a new word boundary next to a match it already declined).
        loop {
            let spans = merge(std::mem::take(&mut accepted));
            let masked = |i: usize| {
                let n = spans.partition_point(|&(a, _)| a <= i);
                n > 0 && i < spans[n - 1].1
            };
            let (ok, rest): (Vec<_>, Vec<_>) = pending.into_iter().partition(|&(s, e)| whole_word(hay, s, e, &masked));
            accepted = spans;
            if ok.is_empty() {
                break;
            }
            accepted.extend(ok);
            pending = rest;
        }
        accepted
    };
    let mut spans = found(text.as_bytes());
    for view in crate::spelling::decode(text.as_bytes()) {
        spans.extend(found(&view.bytes).into_iter().map(|(a, b)| view.origin(a, b)));
    }
    merge(spans)
}

/// Spans sorted, overlapping and touching ones merged.
fn merge(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

/// Whether `hay[start..end]` is a whole word: the character right before it and the one right
/// after it are each absent, no letter, digit or `_`, or already masked (`masked(i)`: byte `i`
/// lies in a masked span).
fn whole_word(hay: &[u8], start: usize, end: usize, masked: &dyn Fn(usize) -> bool) -> bool {
    let word_char = |c: char| c.is_alphanumeric() || c == '_';
    // The characters next to the match, read from at most 4 bytes (one UTF-8 character).
    let before = (1..=4.min(start)).find_map(|n| std::str::from_utf8(&hay[start - n..start]).ok()?.chars().next_back());
    let after = (1..=4.min(hay.len() - end)).find_map(|n| std::str::from_utf8(&hay[end..end + n]).ok()?.chars().next());
    let before_ok = before.is_none_or(|c| !word_char(c) || masked(start - c.len_utf8()));
    let after_ok = after.is_none_or(|c| !word_char(c) || masked(end));
    before_ok && after_ok
}

/// Free text with every registered secret, in any spelling, replaced by [`MASK`].
pub fn mask(text: &str) -> std::borrow::Cow<'_, str> {
    match with_registry(|reg| masked_string(reg, text)) {
        Some(masked) => std::borrow::Cow::Owned(masked),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// What [`mask_json`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Masked {
    /// Whether any string (a value or a key) was masked.
    pub changed: bool,
}

/// Mask every string of a structured value in place, before it is serialised: its string values
/// and its object keys (a key is a string a server chose: a property's name, a key of
/// `structuredContent`, of `serverInfo`), never its syntax, `true`/`false`/`null` or numbers, so
/// the result parses as the input did. Keys that mask to the same text are kept apart as
/// [`masked_keys`] says, so no entry is lost and the object stays valid JSON.
pub fn mask_json(value: &mut serde_json::Value) -> Masked {
    with_registry(|reg| {
        let mut out = Masked::default();
        if reg.matcher.is_some() {
            mask_value(reg, value, &mut out);
        }
        out
    })
}

/// The names the keys of one object take once masked, in the order given, or `None` when no key
/// holds a secret. `entries` are the object's keys with their (already masked) values.
///
/// A key that holds no secret keeps its name. A masked key takes its masked text (`***`,
/// `org_***`) unless another key of the object has that name already; then it takes the first of
/// `TEXT#2`, `TEXT#3`, ... that is free. Masked keys are named in the order of their masked text,
/// then of their value's canonical JSON, never of their original text: which suffix a key gets
/// says nothing about the secret it held, and the same object always gets the same names (two
/// keys whose masked text and value are both equal are indistinguishable either way).
pub fn masked_keys(entries: &[(&str, &serde_json::Value)]) -> Option<Vec<String>> {
    with_registry(|reg| {
        let names = masked_keys_in(reg, entries);
        names.iter().zip(entries).any(|(n, (k, _))| n != k).then_some(names)
    })
}

/// [`masked_keys`] under `reg`: every key's name (a key with no secret keeps its own).
fn masked_keys_in(reg: &Registry, entries: &[(&str, &serde_json::Value)]) -> Vec<String> {
    let masked: Vec<Option<String>> = entries.iter().map(|(k, _)| masked_string(reg, k)).collect();
    let mut names: Vec<Option<String>> = vec![None; entries.len()];
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for (i, m) in masked.iter().enumerate() {
        if m.is_none() {
            names[i] = Some(entries[i].0.to_string());
            taken.insert(entries[i].0.to_string());
        }
    }
    let mut order: Vec<(&str, String, usize)> = masked
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((m.as_deref()?, crate::json::to_canonical_string(entries[i].1), i)))
        .collect();
    order.sort();
    for (text, _, i) in order {
        let mut name = text.to_string();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            name = format!("{text}#{n}");
        }
        taken.insert(name.clone());
        names[i] = Some(name);
    }
    names.into_iter().map(Option::unwrap_or_default).collect()
}

/// `s` with every registered value replaced by [`MASK`], or `None` when it holds none.
fn masked_string(reg: &Registry, s: &str) -> Option<String> {
    let spans = secret_spans(reg, s);
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (a, b) in spans {
        // Spans start and end on character boundaries (see `crate::spelling`).
        out.push_str(&s[at..a]);
        out.push_str(MASK);
        at = b;
    }
    out.push_str(&s[at..]);
    Some(out)
}

fn mask_value(reg: &Registry, v: &mut serde_json::Value, out: &mut Masked) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            if let Some(masked) = masked_string(reg, s) {
                *s = masked;
                out.changed = true;
            }
        }
        Value::Array(items) => {
            for item in items.iter_mut() {
                mask_value(reg, item, out);
            }
        }
        Value::Object(map) => {
            for item in map.values_mut() {
                mask_value(reg, item, out);
            }
            if !map.keys().any(|k| !secret_spans(reg, k).is_empty()) {
                return;
            }
            let old = std::mem::take(map);
            let names = {
                let entries: Vec<(&str, &Value)> = old.iter().map(|(k, v)| (k.as_str(), v)).collect();
                masked_keys_in(reg, &entries)
            };
            for ((_, item), name) in old.into_iter().zip(names) {
                map.insert(name, item);
            }
            out.changed = true;
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Text from a server (a stderr or stdout line, an error body, an error message) made fit for a
/// one-line message: **masked first**, then flattened to one line (control characters and runs
/// of whitespace become one space) and cut to `max` characters (with `…`). Every place that
/// shortens or splits foreign text goes through here, so a secret that straddles the cut is
/// masked whole before anything is cut.
pub fn excerpt(text: &str, max: usize) -> String {
    let masked = mask(text);
    let mut out = String::with_capacity(masked.len().min(4 * max + 8));
    let mut last_space = false;
    for c in masked.chars() {
        let c = if c.is_whitespace() || c.is_control() { ' ' } else { c };
        if c == ' ' {
            if last_space || out.is_empty() {
                continue;
            }
            last_space = true;
        } else {
            last_space = false;
        }
        out.push(c);
    }
    cut_masked(out.trim_end(), max, "…")
}

/// `text` **masked first**, then, when it has more than `max` characters, cut to fewer and
/// ended with `more` so that it has `max` (a one-line rendering of a value in a message).
pub fn cut(text: &str, max: usize, more: &str) -> String {
    let masked = mask(text);
    let keep = max.saturating_sub(more.chars().count());
    if masked.chars().count() > max {
        cut_masked(&masked, keep, more)
    } else {
        masked.into_owned()
    }
}

/// Text already masked, cut to `keep` characters and `more` when longer.
fn cut_masked(masked: &str, keep: usize, more: &str) -> String {
    match masked.char_indices().nth(keep) {
        Some((at, _)) => format!("{}{more}", &masked[..at]),
        None => masked.to_string(),
    }
}

/// Where to cut the front off `bytes` (a stream's tail being kept) at or after `at`, so that no
/// secret is left cut in two: after the next line break, or, in an endless line, one longest
/// secret's length further (what straddled the cut is dropped with it).
pub fn safe_cut_from(bytes: &[u8], at: usize) -> usize {
    let at = at.min(bytes.len());
    match bytes[at..].iter().position(|&b| b == b'\n') {
        Some(i) => at + i + 1,
        None => {
            let longest = with_registry(|reg| reg.longest);
            (at + longest).min(bytes.len())
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_setting_is_neither_refused_nor_registered() {
        let env = |v: &str| match v {
            "REGION" => Some("eu".to_string()),
            "LOG_LEVEL" => Some("verbose-setting".to_string()),
            _ => None,
        };
        scoped(|| {
            // Where a secret is expected, a short value is refused.
            assert_eq!(read_var("REGION", &env), Err(Refusal::TooShort));
            // The default written beside the reference, or a variable marked `not_secret`: a setting.
            assert_eq!(read_setting("REGION", &env, Some("eu"), false), Ok(Some("eu".into())));
            assert_eq!(read_setting("REGION", &env, Some("us"), false), Err(Refusal::TooShort));
            assert_eq!(read_setting("REGION", &env, None, true), Ok(Some("eu".into())));
            assert_eq!(read_setting("LOG_LEVEL", &env, None, true), Ok(Some("verbose-setting".into())));
            assert!(!any_registered());
        });
    }

    use super::*;

    #[test]
    fn masks_every_spelling_and_only_registered_values() {
        register("s3cr\"et/value");
        assert_eq!(mask("a s3cr\"et/value b"), "a *** b");
        assert_eq!(mask(r#"{"k":"s3cr\"et/value"}"#), r#"{"k":"***"}"#);
        assert_eq!(mask("u=s3cr%22et%2Fvalue"), "u=***");
        assert_eq!(mask("nothing here"), "nothing here");
    }

    #[test]
    fn a_short_value_is_masked_as_a_whole_word_only_in_values_and_keys_alike() {
        scoped(|| {
            register("info");
            register("hunter2");
            register("sk-0123456789abcdef");
            assert_eq!(mask("level: info."), "level: ***.");
            assert_eq!(mask("information, infos, info_level, 2info"), "information, infos, info_level, 2info");
            assert_eq!(mask("password=hunter2&x"), "password=***&x");
            assert_eq!(mask("hunter22"), "hunter22");
            // a long value is masked inside a word too
            assert_eq!(mask("keysk-0123456789abcdefX"), "key***X");
            // a short value inside a longer one's match does not hide it
            assert_eq!(mask("sk-0123456789abcdef info"), "*** ***");
            // Keys are masked as values are: a short value as a whole word only.
            let mut v = serde_json::json!({"info": {"information": "info"}, "sk-0123456789abcdef": 1, "info_level": 2});
            let m = mask_json(&mut v);
            assert_eq!(v, serde_json::json!({"***": 1, "***#2": {"information": "***"}, "info_level": 2}));
            assert!(m.changed);
        });
    }

    #[test]
    fn literals_numbers_and_short_values_are_not_secrets() {
        scoped(|| {
            for plain in ["true", "FALSE", "null", " True ", "8080", "-1", "0.5", "1e3", "+2.", "123456789012345"] {
                assert_eq!(kind_of(plain), ValueKind::Plain, "{plain}");
            }
            for short in ["ab", "a1", "x.y"] {
                assert_eq!(kind_of(short), ValueKind::TooShort, "{short}");
            }
            for secret in ["1234567890123456", "info", "hunter2", "sk-abc", "1.2.3", "1e10x", "0x1F"] {
                assert_eq!(kind_of(secret), ValueKind::Secret, "{secret}");
            }
            assert_eq!(kind_of(""), ValueKind::Empty);
            register("true");
            register("8080");
            assert_eq!(mask("true 8080"), "true 8080", "never registered");
        });
    }

    #[test]
    fn a_multi_line_secret_is_masked_line_by_line_too() {
        scoped(|| {
            let pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nZm9v\n-----END PRIVATE KEY-----\n";
            register(pem);
            assert_eq!(mask("stderr: BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"), "stderr: ***");
            assert_eq!(mask(pem), "***");
            assert_eq!(mask("Zm9v"), "Zm9v", "a line too short to be unique is not masked alone");
        });
    }

    #[test]
    fn any_spelling_is_masked_in_text_and_only_strings_in_json() {
        scoped(|| {
            register("k+ey/secret&1");
            // JSON's \u escape of one character, as ASP.NET's ProblemDetails write `+`.
            assert_eq!(mask(r#"{"detail":"bad key k\u002Bey\/secret\u00261"}"#), r#"{"detail":"bad key ***"}"#);
            assert_eq!(mask("k%2bey%2Fsecret%261"), "***");
            assert_eq!(mask("k&#43;ey/secret&amp;1 and k\\+ey/secret&1"), "*** and ***");
            let mut v = serde_json::json!({"a": "x k+ey/secret&1 y", "k+ey/secret&1": true, "n": 8080, "b": [null, "k+ey/secret&1"]});
            let m = mask_json(&mut v);
            assert_eq!(v, serde_json::json!({"a": "x *** y", "***": true, "n": 8080, "b": [null, "***"]}));
            assert!(m.changed);
            let mut clean = serde_json::json!({"a": "nothing"});
            assert_eq!(mask_json(&mut clean), Masked::default());
        });
    }

    #[test]
    fn keys_that_mask_alike_are_kept_apart_by_what_they_hold_never_by_the_secret() {
        scoped(|| {
            register("org-alpha-0001");
            register("org-omega-0002");
            // Two secrets as keys, one spelled escaped, and a key already named like a mask.
            let mut v = serde_json::json!({
                "org-omega-0002": {"type": "string"},
                "org%2Dalpha%2D0001": {"type": "integer"},
                "***#2": "a key of the server's own",
                "x_org-alpha-0001": [{"org-omega-0002": "org-omega-0002"}],
            });
            mask_json(&mut v);
            assert_eq!(
                v,
                serde_json::json!({
                    "***": {"type": "integer"},
                    "***#2": "a key of the server's own",
                    "***#3": {"type": "string"},
                    "x_***": [{"***": "***"}],
                }),
                "named by masked text, then by value: `integer` before `string`"
            );
            // The same object with the secrets swapped gets the same names (nothing tells which
            // secret was where), and masking again changes nothing.
            let mut swapped = serde_json::json!({
                "org-alpha-0001": {"type": "string"},
                "org-omega-0002": {"type": "integer"},
                "***#2": "a key of the server's own",
                "x_org-omega-0002": [{"org-alpha-0001": "org-alpha-0001"}],
            });
            mask_json(&mut swapped);
            assert_eq!(swapped, v);
            let again = v.clone();
            assert!(!mask_json(&mut v).changed);
            assert_eq!(v, again);
        });
    }

    #[test]
    fn excerpts_mask_before_they_cut() {
        scoped(|| {
            register("straddling-secret-0123");
            let line = format!("{}straddling-secret-0123 tail", "x".repeat(190));
            let e = excerpt(&line, 200);
            assert!(!e.contains("straddling"), "{e}");
            assert!(e.ends_with("***…") || e.ends_with("*** tail"), "{e}");
            let tail = format!("ab straddling-secret-0123 and more {}", "y".repeat(50));
            let cut = safe_cut_from(tail.as_bytes(), 5);
            assert!(cut >= 5 + "straddling-secret-0123".len(), "an endless line loses what straddled the cut");
            let lines = "aaaa straddling-secret-0123\nnext line";
            assert_eq!(&lines[safe_cut_from(lines.as_bytes(), 8)..], "next line");
        });
    }

    #[test]
    fn policy_allows_named_and_place_variables_only() {
        let p = EnvPolicy::for_run(true, ["TOKEN".to_string()]);
        assert!(p.allows("TOKEN") && p.allows("HOME"));
        assert!(!p.allows("GITHUB_TOKEN"));
        assert!(EnvPolicy::for_run(false, []).allows("GITHUB_TOKEN"));
    }
}
