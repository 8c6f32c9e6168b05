//! The server's own words (RULES.md, "Arguments that reach the tool"): a rejection that names
//! the values it would take ("Available sheets: 'Items', 'Notes'", "a range such as 'A1:C10'",
//! "must be one of: fast, slow") feeds the next candidates. Each value offered is tried in the
//! argument set that was rejected, the other arguments kept, so a tool that needs a file, a
//! sheet and a range gets them as one consistent set, one rejection at a time.
//!
//! This file reads the words, once per rejection ([`Refusal`]: what they offer, name, quote,
//! count); the ways of answering them are the responders of [`super::responders::TABLE`], and
//! [`super::responders::sets_from_rejection`] the sets they give.

use std::path::Path;
use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::{described, ArgSet, Known, Source};
use crate::probe::validate::{self, Formats};

/// Words that say an array must not be empty.
pub(super) const NON_EMPTY: &[&str] =
    &["at least one", "must not be empty", "cannot be empty", "can't be empty", "non-empty", "is empty", "no items"];
/// Words that say a name is taken: the call must make something under a name of its own.
pub(super) const TAKEN: &[&str] = &[
    "already exists",
    "already exist",
    "already taken",
    "already in use",
    "already used",
    "already registered",
    "already defined",
    "must be unique",
    "is not unique",
    "duplicate name",
];
/// Longest fresh name that is no path (a spreadsheet's sheet name may hold 31 characters).
const MAX_FRESH_NAME: usize = 31;
/// Words that, in a list of what a rejection would take, say it would take nothing (or are an
/// abbreviation that starts the examples: "must be absolute, e.g. '/home/me/q1.xlsx'").
const NOTHING: &[&str] = &["none", "(none)", "nothing", "null", "nil", "n/a", "empty", "-", "e.g", "i.e", "etc"];
/// Words that say a path argument takes a name, not a path.
pub(super) const NAME_ONLY: &[&str] = &[
    "path separator",
    "cannot contain '/'",
    "must not contain '/'",
    "not a path",
    "only a file name",
    "just the file name",
];
/// Words that say a path argument must be written relative (to the folder the server works in),
/// not absolute.
pub(super) const RELATIVE_ONLY: &[&str] = &[
    "must be relative",
    "must be a relative",
    "relative path within",
    "relative to vault",
    "relative to the vault",
    "must not be absolute",
    "absolute paths are not",
    "not an absolute path",
];
/// Most argument sets made from one rejection.
pub const PER_REJECTION: usize = 4;
/// Most calls a tool's search may add from rejections, beyond [`super::MAX_CANDIDATES`].
pub const MAX_FROM_WORDS: usize = 8;

/// Whether words ask for an absolute path ("Path 'x' must be absolute", "chemin absolu", "ruta
/// absoluta", "absoluter Pfad", "绝对路径", "絶対パス", "абсолютный путь"), in whatever language
/// they come.
pub fn asks_absolute_path(text: &str) -> bool {
    let t = text.to_lowercase();
    ["absolu", "绝对", "絕對", "絶対", "절대", "абсолютн"].iter().any(|w| t.contains(w))
}

/// Phrases after which a rejection lists what it would take.
const OFFERS: &[&str] = &[
    "one of",
    "available",
    "valid values",
    "valid options",
    "valid types",
    "valid formats",
    "valid modes",
    "valid operations",
    "allowed values",
    "allowed",
    "options are",
    "supported",
    "expected",
    "choose from",
    "did you mean",
];
/// Phrases after which a rejection says what it wants in words as often as in values ("must be
/// absolute", "must be text", "try again"): only what they quote is offered ("must be 'add' or
/// 'enhance'").
const QUOTED_OFFERS: &[&str] = &["must be", "should be", "try"];

/// The values a rejection `text` offers, in order: those after an offering phrase (`Available
/// sheets: 'Items', 'Notes'`), then the examples and quoted spans a description would give.
pub fn offered(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for rest in described::after_phrases(text, QUOTED_OFFERS) {
        for v in described::quoted(sentence(rest)) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    for rest in described::after_phrases(text, OFFERS) {
        // `Available sheets: a, b`: the list starts after the colon that follows.
        // (A colon inside a value, `'A1:C10'`, starts nothing.)
        let colon = rest
            .char_indices()
            .find(|(i, c)| *c == ':' && rest[i + 1..].chars().next().is_none_or(char::is_whitespace));
        let rest = match colon.map(|(i, _)| i) {
            Some(c) if c <= 40 && !rest[..c].contains(['.', '\n']) => &rest[c + 1..],
            _ => rest,
        };
        // A list written as a literal: `Available presentations: ['p1', 'p2']`.
        let rest = rest.trim_start();
        let rest = rest.strip_prefix('[').unwrap_or(rest);
        for v in described::list(rest) {
            // "Available: none" offers nothing.
            if NOTHING.contains(&v.to_ascii_lowercase().as_str()) {
                continue;
            }
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    // "start: must be at least 1", "must be greater than 0": the bound it names.
    for v in bounds(text) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    // "Only SELECT queries are allowed": the statement it names (a SQL property takes it).
    for v in super::sql::statements(text) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    for v in described::examples(text) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The numbers a text names as bounds: "at least N", "minimum N", "at most N" (N itself),
/// "greater than N" (N + 1 for a whole number), "between A and B" (A).
pub fn bounds(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    if lower.contains("non-negative") || lower.contains("nonnegative") {
        out.push("0".to_string());
    } else if lower.contains("positive") && !lower.contains("non-positive") {
        // "must be a positive integer", "must be positive", "a positive value"
        out.push("1".to_string());
    }
    for (phrase, step) in [
        ("at least ", 0i64),
        ("minimum of ", 0),
        ("minimum ", 0),
        (">= ", 0),
        ("greater than or equal to ", 0),
        ("greater than ", 1),
        ("at most ", 0),
        ("between ", 0),
    ] {
        for (at, _) in lower.match_indices(phrase) {
            let rest = &lower[at + phrase.len()..];
            let n: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-' || *c == '.').collect();
            let n = n.trim_end_matches('.');
            let v = match (n.parse::<i64>(), step) {
                (Ok(i), s) => (i + s).to_string(),
                (Err(_), 0) if n.parse::<f64>().is_ok() => n.to_string(),
                _ => continue,
            };
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Most items an array is given because the words count them.
const MAX_COUNTED: usize = 16;

/// The counts a text gives for a noun, as (fewest, noun's last word): "color_scale needs 2 or 3
/// colors" gives (2, "color"), "at least 3 items" (3, "item"), "2-5 values" (2, "value").
pub fn counts(text: &str) -> Vec<(usize, String)> {
    let tokens: Vec<String> = text
        .split(|c: char| c.is_whitespace() || ",;:()".contains(c))
        .filter(|t| !t.is_empty())
        .map(|t| t.trim_end_matches('.').to_ascii_lowercase())
        .collect();
    let mut out = Vec::new();
    let mut after = 0;
    for (i, t) in tokens.iter().enumerate() {
        // "2-5", or "2" then "or"/"to" and a number (whose own count it is not).
        let first = t.split('-').next().unwrap_or(t);
        let Ok(n) = first.parse::<usize>() else { continue };
        if i < after {
            continue;
        }
        let mut j = i + 1;
        if matches!(tokens.get(j).map(String::as_str), Some("or" | "to"))
            && tokens.get(j + 1).is_some_and(|x| x.parse::<usize>().is_ok())
        {
            j += 2;
        }
        if tokens.get(j).map(String::as_str) == Some("more") {
            j += 1;
        }
        after = j;
        let Some(noun) = tokens.get(j).and_then(|w| super::hints::words(w).pop()) else { continue };
        if (2..=MAX_COUNTED).contains(&n)
            && noun.chars().all(|c| c.is_ascii_alphabetic())
            && !out.contains(&(n, noun.clone()))
        {
            out.push((n, noun));
        }
    }
    out
}

/// The file extensions a text names (`.xlsx`, `(.xlsm, .xlsx)`), lower case, without the dot: a
/// dot after a space, a bracket or a comma, then 2 to 5 letters or digits, then no letter.
pub fn extensions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if *c != '.'
            || !(i == 0 || matches!(chars[i - 1], ' ' | '(' | '[' | ',' | '\'' | '"' | '/') || doubled(&chars, i))
        {
            continue;
        }
        let ext: String = chars[i + 1..].iter().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if (2..=5).contains(&ext.len()) && ext.chars().any(|c| c.is_ascii_alphabetic()) {
            let e = ext.to_ascii_lowercase();
            if !out.contains(&e) {
                out.push(e);
            }
        }
    }
    out
}

/// Whether the dot at `i` ends a name that already had an extension (`notes.txt.docx`: the
/// server appended the one it takes).
fn doubled(chars: &[char], i: usize) -> bool {
    let before: String = chars[..i].iter().rev().take_while(|c| c.is_ascii_alphanumeric()).collect();
    let at = i - before.chars().count();
    (2..=4).contains(&before.len()) && at >= 2 && chars[at - 1] == '.' && chars[at - 2].is_ascii_alphanumeric()
}

/// What one rejection says of the call it rejected, read once for every responder
/// ([`super::responders`]): the properties it names, quotes and aims at, the values it offers, the
/// leaves inside object arguments it is about, the statements and extensions it names.
pub struct Refusal<'a> {
    pub def: &'a Value,
    pub known: &'a Known,
    /// The set the server rejected (the others kept in every set offered).
    pub rejected: &'a ArgSet,
    pub text: &'a str,
    /// `text` in ASCII lower case.
    pub lower: String,
    /// The tool's `inputSchema` (`{}` when it has none), compiled as `whole`.
    pub root: &'a Value,
    pub whole: jsonschema::Validator,
    pub props: Option<&'a Map<String, Value>>,
    pub required: Vec<&'a str>,
    /// The required properties the text names, and those whose value it quotes
    /// (`Range '' must have …`).
    pub named: Vec<&'a str>,
    pub quoted: Vec<&'a str>,
    /// Where a value it offers goes first, and where when that gives nothing new.
    pub aimed: Vec<&'a str>,
    pub then: Vec<&'a str>,
    /// It names an optional property that was not sent ("Give `range` to create a table").
    pub names_optional: bool,
    /// Leaves inside object arguments it names or quotes ("Column '' is not in A1:C10").
    pub inner: Vec<Leaf>,
    /// The values it offers ([`offered`]), but a property's own name, a Windows path and a
    /// value it quotes as refused.
    pub values: Vec<String>,
    /// The SQL statements it names ("Only SELECT queries are allowed").
    pub statements: Vec<String>,
    /// The file extensions it names ("must point to an Excel file (.xlsx)").
    pub extensions: Vec<String>,
    /// The folder paths are resolved against (the project's).
    pub dir: Option<&'a Path>,
    /// The arguments `rejected` sent, paths resolved against `dir`.
    pub sent: Map<String, Value>,
}

impl<'a> Refusal<'a> {
    /// Read `text`, the rejection of `rejected` by the tool `def`; `None` when the tool's
    /// `inputSchema` does not compile (no set could be checked against it).
    pub fn read(def: &'a Value, known: &'a Known, rejected: &'a ArgSet, text: &'a str) -> Option<Refusal<'a>> {
        static EMPTY: LazyLock<Value> = LazyLock::new(|| Value::Object(Map::new()));
        let root = def.get("inputSchema").unwrap_or(&EMPTY);
        let whole = validate::compile_as(root, validate::draft_of(root), Formats::Assert).ok()?;
        let props = root.get("properties").and_then(Value::as_object);
        let required: Vec<&str> =
            root.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        // The properties the text names; else those whose value it quotes; else every required one.
        let named: Vec<&str> = required.iter().copied().filter(|p| crate::probe::names_argument(text, p)).collect();
        let quoted: Vec<&str> =
            required.iter().copied().filter(|p| rejected.args.get(*p).is_some_and(|v| quotes(text, v))).collect();
        // An optional property it names that was not sent ("Give `range` to create a table"):
        // the words are about that one, never about every required property.
        let names_optional = props.is_some_and(|m| {
            m.keys().any(|k| {
                !required.contains(&k.as_str()) && !rejected.args.contains_key(k) && super::names_property(text, k)
            })
        });
        // Leaves inside object arguments (`sort_by: [{column: ""}]`) the text names or quotes
        // ("Column '' is not in A1:C10. Use a header ('region', 'sales')").
        let inner: Vec<Leaf> = inner_leaves(&rejected.args)
            .into_iter()
            .filter(|l| {
                rejected.from.get(&l.top) != Some(&Source::Fixture)
                    && (crate::probe::names_argument(text, &l.key) || quotes(text, &l.value))
            })
            .collect();
        let values = offered_values(text, props);
        let (aimed, then) = aim(text, &named, &quoted, &values, &rejected.args);
        let dir = known.paths.base.as_deref();
        Some(Refusal {
            def,
            known,
            rejected,
            text,
            lower: text.to_ascii_lowercase(),
            root,
            whole,
            props,
            required,
            named,
            quoted,
            aimed,
            then,
            names_optional,
            inner,
            values,
            statements: super::sql::statements(text),
            extensions: extensions(text),
            dir,
            sent: rejected.resolve(dir),
        })
    }

    /// The schema of top-level property `prop` (`{}` when it has none).
    pub fn schema_of(&self, prop: &str) -> &Value {
        static EMPTY: LazyLock<Value> = LazyLock::new(|| Value::Object(Map::new()));
        self.props.and_then(|m| m.get(prop)).unwrap_or(&EMPTY)
    }

    /// Whether `v` is a text that quotes one of the values sent (`File not found: a.docx` for
    /// `a`): no offer.
    pub fn echoes(&self, v: &Value) -> bool {
        let sent = self.sent.values().filter_map(Value::as_str).filter(|s| s.len() >= 3);
        v.as_str().is_some_and(|v| sent.into_iter().any(|s| v != s && v.contains(s)))
    }

    /// Whether `prop` of the rejected set was sent as a path (relative to the project).
    pub fn sent_as_path(&self, prop: &str) -> bool {
        self.rejected.relative.iter().any(|r| *r == format!("/{}", crate::json::pointer_token(prop)))
    }
}

/// The values `text` offers ([`offered`]), but a property's own name (`range` in "Give `range`
/// …"), a Windows path (`C:\\Reports\\q1.xlsx` in "must be absolute, e.g. …": never a path on
/// this machine) and a value it quotes as refused ("Path 'workbooks' must be absolute").
fn offered_values(text: &str, props: Option<&Map<String, Value>>) -> Vec<String> {
    let mut values = offered(text);
    values.retain(|v| {
        let windows = v.as_bytes().get(1) == Some(&b':') && v.as_bytes().first().is_some_and(u8::is_ascii_alphabetic);
        !windows && !props.is_some_and(|m| m.keys().any(|k| k.eq_ignore_ascii_case(v))) && !refused(text, v)
    });
    values
}

/// Where the values `text` offers go: first (`aimed`), and when that gives nothing new (`then`).
/// A value it quotes points at its property more surely than a word: "Path 'workbooks' must be
/// absolute" is about `csv_path`, sent `workbooks`, not about `path`, whose value it does not
/// quote. Of several values it quotes, the offer is for the one quoted last before it: "Sheet
/// 'Sales' has no image named 'TaxRate'. Available: 'Picture 1'" offers a `name`, not a `sheet`;
/// the others have it only when that gives nothing new.
fn aim<'a>(
    text: &str,
    named: &[&'a str],
    quoted: &[&'a str],
    values: &[String],
    args: &Map<String, Value>,
) -> (Vec<&'a str>, Vec<&'a str>) {
    let quoted_first = !quoted.is_empty() && !named.iter().any(|n| quoted.contains(n));
    let (aimed, then) =
        if quoted_first { (quoted.to_vec(), named.to_vec()) } else { (named.to_vec(), quoted.to_vec()) };
    match (quoted.len() > 1).then(|| nearest_quoted(text, values, args, quoted)).flatten() {
        Some(nearest) => (vec![nearest], aimed.iter().chain(&then).copied().filter(|p| *p != nearest).collect()),
        None => (aimed, then),
    }
}

/// Whether `text` says the value it quotes as `part` is refused ("Sheet 'Data' not found",
/// "Invalid range 'x'", "Unknown column 'y'", "Path 'x' must be absolute"), not offered (`Use a
/// header ('region', 'sales')`, "such as 'A1:C10'"):
/// a negation in the rest of its sentence, or a refusal just before it.
pub(super) fn refused(text: &str, part: &str) -> bool {
    const AFTER: &[&str] =
        &["not", "no", "isn't", "doesn't", "cannot", "can't", "invalid", "unknown", "missing", "must", "should"];
    const BEFORE: &[&str] = &["invalid", "unknown", "no such", "missing", "cannot find", "could not find"];
    let lower = text.to_lowercase();
    let part = part.to_lowercase();
    [format!("'{part}'"), format!("\"{part}\"")].iter().any(|q| {
        lower.match_indices(q.as_str()).any(|(i, m)| {
            let rest = &lower[i + m.len()..];
            // (To the end of its sentence: a dot inside a value, `'a.xlsx'`, ends nothing.)
            let words: Vec<&str> = sentence(rest).split(|c: char| !c.is_alphanumeric() && c != '\'').take(8).collect();
            let head = &lower[..i];
            let before = &head[head.char_indices().rev().nth(23).map_or(0, |(j, _)| j)..];
            words.iter().any(|w| AFTER.contains(w)) || BEFORE.iter().any(|b| before.contains(b))
        })
    })
}

/// Push `set` onto `out` when the tool's `inputSchema` (`whole`) takes it as it will be sent
/// (paths resolved against `dir`) and it is no set tried or offered already.
pub(super) fn push_new(
    out: &mut Vec<ArgSet>,
    set: ArgSet,
    whole: &jsonschema::Validator,
    dir: Option<&std::path::Path>,
    tried: &[ArgSet],
) {
    if whole.is_valid(&Value::Object(set.resolve(dir))) && !tried.iter().chain(out.iter()).any(|s| s.args == set.args) {
        out.push(set);
    }
}

/// `rest` to the end of its sentence: a dot that ends one is followed by a space (a dot inside a
/// value, `'a.xlsx'`, ends nothing), or a line end or a semicolon.
fn sentence(rest: &str) -> &str {
    rest.split(". ").next().unwrap_or("").split(['\n', ';']).next().unwrap_or("")
}

/// The pairs of whole-number arguments that bound a range and were sent the same value: `(end
/// property, value)`. A pair is two names equal but for one word, a start
/// word (`start`, `from`, `begin`, `first`, `min`) in one and its end word in the other
/// (`start_row`/`end_row`, `from_line`/`to_line`, `minValue`/`maxValue`).
pub(super) fn ranges(args: &Map<String, Value>) -> Vec<(String, i64)> {
    const PAIRS: &[(&str, &str)] =
        &[("start", "end"), ("from", "to"), ("begin", "end"), ("first", "last"), ("min", "max")];
    let mut out = Vec::new();
    for (end, e) in args {
        let Some(n) = e.as_i64() else { continue };
        let ew = super::hints::words(end);
        for (start, s) in args {
            let sw = super::hints::words(start);
            if s.as_i64() != Some(n) || sw.len() != ew.len() {
                continue;
            }
            let differ: Vec<usize> = (0..ew.len()).filter(|i| ew[*i] != sw[*i]).collect();
            if let [i] = differ[..] {
                if PAIRS.iter().any(|(a, b)| sw[i] == *a && ew[i] == *b) {
                    out.push((end.clone(), n));
                }
            }
        }
    }
    out
}

/// Whether `text` quotes the value `v` (`'x'`, `"x"`; `''` for an empty string).
pub(super) fn quotes(text: &str, v: &Value) -> bool {
    !quoted_at(text, v).is_empty()
}

/// Where (byte offsets) `text` quotes the value `v`.
fn quoted_at(text: &str, v: &Value) -> Vec<usize> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return vec![],
    };
    let mut at: Vec<usize> = [format!("'{s}'"), format!("\"{s}\"")]
        .iter()
        .flat_map(|q| text.match_indices(q.as_str()).map(|(i, _)| i).collect::<Vec<_>>())
        .collect();
    at.sort_unstable();
    at
}

/// Of the properties `quoted` (whose values in `args` the text quotes), the one quoted last
/// before the first value the text offers (`offers`), when exactly one is.
fn nearest_quoted<'a>(text: &str, offers: &[String], args: &Map<String, Value>, quoted: &[&'a str]) -> Option<&'a str> {
    let offer = offers.iter().filter_map(|v| quoted_at(text, &Value::String(v.clone())).first().copied()).min()?;
    let before = |p: &str| args.get(p).and_then(|v| quoted_at(text, v).into_iter().filter(|i| *i < offer).max());
    let mut at: Vec<(usize, &'a str)> = quoted.iter().filter_map(|p| Some((before(p)?, *p))).collect();
    at.sort_unstable();
    match at.as_slice() {
        [.., (a, _), (b, p)] if a != b => Some(p),
        [(_, p)] => Some(p),
        _ => None,
    }
}

/// A string or number below the top level of the arguments (inside an object argument or an
/// array's objects).
pub struct Leaf {
    /// The argument it is in.
    pub top: String,
    /// Its JSON pointer inside that argument's value.
    pub rest: String,
    /// The key it is under.
    pub key: String,
    pub value: Value,
}

/// The leaves below the top level of `args`. The items of a top-level array that are not objects
/// are values of their argument, not properties.
fn inner_leaves(args: &Map<String, Value>) -> Vec<Leaf> {
    fn walk(top: &str, rest: String, key: &str, v: &Value, out: &mut Vec<Leaf>) {
        let depth = rest.matches('/').count();
        match v {
            Value::Object(m) if depth < 8 => {
                for (k, x) in m {
                    walk(top, format!("{rest}/{}", crate::json::pointer_token(k)), k, x, out);
                }
            }
            // The items of an array inside an object argument are leaves under the array's key
            // (`rule.colors[0]`); a top-level array's are values of their argument.
            Value::Array(a) if depth < 8 => {
                for (j, x) in a.iter().enumerate().filter(|(_, x)| x.is_object() || depth > 0) {
                    walk(top, format!("{rest}/{j}"), key, x, out);
                }
            }
            Value::String(_) | Value::Number(_) if depth > 0 => {
                out.push(Leaf { top: top.to_string(), rest, key: key.to_string(), value: v.clone() })
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in args {
        walk(k, String::new(), k, v, &mut out);
    }
    out
}

/// The JSON pointers (inside argument `top`'s value `v`) of the non-empty arrays shorter than `n`
/// under a key whose last word is `noun` (`colors` for "color").
pub(super) fn counted_arrays(top: &str, v: &Value, noun: &str, n: usize) -> Vec<String> {
    fn walk(key: &str, at: String, v: &Value, noun: &str, n: usize, out: &mut Vec<String>) {
        if at.matches('/').count() > 8 {
            return;
        }
        match v {
            Value::Array(a)
                if !a.is_empty() && a.len() < n && super::hints::words(key).last().is_some_and(|w| w == noun) =>
            {
                out.push(at)
            }
            Value::Array(a) => {
                a.iter().enumerate().for_each(|(j, x)| walk(key, format!("{at}/{j}"), x, noun, n, out));
            }
            Value::Object(m) => {
                m.iter().for_each(|(k, x)| walk(k, format!("{at}/{}", crate::json::pointer_token(k)), x, noun, n, out))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(top, String::new(), v, noun, n, &mut out);
    out
}

/// `rejected` with `leaf` set to `v` (a number where a number was), found by the rejection; the
/// leaf is no path any more. A leaf in an array (`rule.colors[0]`) is set in every item of the
/// array that held the same value ("Invalid color ''" about `colors: ["", ""]`).
pub(super) fn with_leaf(rejected: &ArgSet, leaf: &Leaf, v: &str, said: Source) -> Option<ArgSet> {
    let new = match leaf.value {
        Value::Number(_) => Value::Number(serde_json::from_str(v).ok()?),
        _ => Value::String(v.to_string()),
    };
    if new == leaf.value {
        return None;
    }
    let mut set = rejected.clone();
    let parent = leaf.rest.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
    if let Some(Value::Array(items)) = set.args.get_mut(&leaf.top)?.pointer_mut(parent) {
        for x in items.iter_mut().filter(|x| **x == leaf.value) {
            *x = new.clone();
        }
    }
    *set.args.get_mut(&leaf.top)?.pointer_mut(&leaf.rest)? = new;
    let at = format!("/{}{}", crate::json::pointer_token(&leaf.top), leaf.rest);
    set.relative.retain(|r| *r != at);
    set.from.insert(leaf.top.clone(), said);
    Some(set)
}

/// A name nothing has yet, of the tool `tool` (so two tools of one session never take each
/// other's): a path `dir/x.ext` becomes `dir/mcp-pin-probe-<tool>.ext`; a plain name becomes
/// `mcp_pin_probe_<tool>`, letters, digits and `_` only, at most [`MAX_FRESH_NAME`] characters.
pub(super) fn fresh_name(tool: &str, taken: &str, path: bool) -> String {
    let stem: String =
        tool.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if !path {
        return format!("{}_{stem}", super::context::FRESH_NAME.replace('-', "_"))
            .chars()
            .take(MAX_FRESH_NAME)
            .collect();
    }
    let (dir, file) = taken.rsplit_once('/').map_or(("", taken), |(d, f)| (d, f));
    let ext =
        file.rsplit_once('.').map(|(_, e)| e).filter(|e| !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()));
    let name = format!(
        "{}-{}{}",
        super::context::FRESH_NAME,
        stem.replace('_', "-"),
        ext.map(|e| format!(".{e}")).unwrap_or_default()
    );
    if dir.is_empty() {
        name
    } else {
        format!("{dir}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::responders::sets_from_rejection;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_property_inside_an_object_argument_takes_the_values_offered_for_it() {
        let def = json!({"name": "sort_range", "inputSchema": {"type": "object",
            "$defs": {"SortKey": {"type": "object", "properties": {"column": {"type": "string"}}, "required": ["column"]}},
            "properties": {
                "path": {"type": "string"}, "sheet": {"type": "string"}, "range": {"type": "string"},
                "sort_by": {"type": "array", "items": {"$ref": "#/$defs/SortKey"}, "minItems": 1}
            }, "required": ["path", "sheet", "range", "sort_by"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("sales.xlsx")),
            ("sheet".to_string(), json!("Sales")),
            ("range".to_string(), json!("A1:C10")),
            ("sort_by".to_string(), json!([{"column": ""}])),
        ]));
        let text = "Column '' is not in A1:C10. Use a header ('region', 'sales', None) or a column letter from A to C.";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, &[]);
        assert_eq!(sets[0].args["sort_by"], json!([{"column": "region"}]), "{sets:?}");
        assert_eq!(sets[0].from["sort_by"], Source::Rejection(Some("offered-values")));
        assert!(sets.iter().all(|s| s.args["path"] == "sales.xlsx" && s.args["sheet"] == "Sales"), "{sets:?}");
    }

    #[test]
    fn an_optional_property_named_by_every_word_of_its_name_is_added() {
        let def = json!({"name": "insert_header_near_text", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"}, "target_text": {"type": "string"},
            "target_paragraph_index": {"type": "integer"}, "header_title": {"type": "string"}
        }, "required": ["filename"]}});
        let rejected = ArgSet::smallest(Map::from_iter([("filename".to_string(), json!("report.docx"))]));
        let text = "Target paragraph not found (by index or text).";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, std::slice::from_ref(&rejected));
        assert!(sets.iter().any(|s| s.args.contains_key("target_paragraph_index")), "{sets:?}");
        assert!(sets.iter().all(|s| !s.args.contains_key("header_title")), "{sets:?}");
    }

    #[test]
    fn a_value_the_words_quote_points_at_its_property_more_surely_than_a_word() {
        let def = json!({"name": "export_csv", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "csv_path": {"type": "string"}
        }, "required": ["path", "csv_path"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("sales.xlsx")),
            ("csv_path".to_string(), json!("workbooks")),
        ]));
        let text = "Path 'workbooks' must be a file, e.g. 'out.csv' or 'C:\\Reports\\q1.csv'.";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, &[]);
        assert!(sets.iter().all(|s| s.args["path"] == "sales.xlsx"), "{sets:?}");
        assert_eq!(sets[0].args["csv_path"], "out.csv", "{sets:?}");
        assert!(sets.iter().all(|s| !s.args["csv_path"].as_str().unwrap_or("").starts_with("C:")), "{sets:?}");
    }

    #[test]
    fn words_about_an_optional_property_never_fill_the_required_ones() {
        let def = json!({"name": "set_table", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string"},
            "range": {"type": "string", "description": "The range with its header row, e.g. 'A1:C10'."}
        }, "required": ["path", "sheet"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("sales.xlsx")),
            ("sheet".to_string(), json!("Sales")),
        ]));
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, "Give `range` to create a table.", &[]);
        assert!(sets.iter().all(|s| s.args["path"] == "sales.xlsx" && s.args["sheet"] == "Sales"), "{sets:?}");
        assert_eq!(sets.first().map(|s| s.args.get("range").cloned()), Some(Some(json!("A1:C10"))), "{sets:?}");
    }

    #[test]
    fn a_property_of_an_object_argument_the_words_ask_for_is_added() {
        let def = json!({"name": "add_data_validation", "inputSchema": {"type": "object",
            "$defs": {"Rule": {"type": "object", "properties": {
                "type": {"enum": ["list", "whole"], "type": "string"},
                "options": {"type": "array", "items": {"type": "string"}},
                "source": {"type": "string", "description": "e.g. '=$A$2:$A$20'"},
                "prompt": {"type": "string"}
            }, "required": ["type"]}},
            "properties": {"range": {"type": "string"}, "rule": {"$ref": "#/$defs/Rule"}},
            "required": ["range", "rule"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("range".to_string(), json!("B2")),
            ("rule".to_string(), json!({"type": "list"})),
        ]));
        let text = "list validation needs either options or source.";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, &[]);
        let rules: Vec<&Value> = sets.iter().map(|s| &s.args["rule"]).collect();
        assert!(rules.contains(&&json!({"type": "list", "options": [""]})), "{rules:?}");
        assert!(rules.contains(&&json!({"type": "list", "source": "=$A$2:$A$20"})), "{rules:?}");
        assert!(rules.iter().all(|r| r.get("prompt").is_none()), "{rules:?}");
        assert!(sets.iter().all(|s| s.args["range"] == "B2"));
    }

    #[test]
    fn words_that_say_what_is_wanted_are_no_values() {
        assert!(offered("Path 'x' must be absolute.").iter().all(|v| v != "absolute"));
        assert!(offered("Every header cell must be text.").is_empty());
        assert_eq!(offered("Invalid operation: . Must be 'add' or 'enhance'"), ["add", "enhance"]);
        assert_eq!(offered("Path must be 'a.xlsx' or 'b.xlsx'. Try again"), ["a.xlsx", "b.xlsx"]);
    }

    #[test]
    fn a_path_the_words_want_relative_is_sent_as_written() {
        let def = json!({"name": "delete-note", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "vault": {"type": "string"}
        }, "required": ["path", "vault"]}});
        let mut rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("daily/today.md")),
            ("vault".to_string(), json!("project")),
        ]));
        rejected.relative.push("/path".into());
        let sets = sets_from_rejection(
            &def,
            &Known::default(),
            &rejected,
            "Invalid arguments: Path must be relative to vault root",
            &[],
        );
        let written = sets.iter().find(|s| s.args["path"] == "daily/today.md").expect("the same path");
        assert!(written.relative.is_empty(), "sent as written, never resolved: {written:?}");
        assert_eq!(written.args["vault"], "project");
    }

    #[test]
    fn an_index_the_words_refuse_gets_the_next_one() {
        let def = json!({"name": "format_table_cell", "inputSchema": {"type": "object", "properties": {
            "slide_index": {"type": "integer"}, "shape_index": {"type": "integer"}, "row": {"type": "integer"}
        }, "required": ["slide_index", "shape_index", "row"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("slide_index".to_string(), json!(0)),
            ("shape_index".to_string(), json!(3)),
            ("row".to_string(), json!(0)),
        ]));
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, "Shape at index 3 is not a table", &[]);
        assert_eq!(sets.len(), 1, "{sets:?}");
        assert_eq!((sets[0].args["shape_index"].clone(), sets[0].args["slide_index"].clone()), (json!(4), json!(0)));
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, "Shape does not contain a table", &[]);
        assert_eq!(sets.first().map(|s| s.args["shape_index"].clone()), Some(json!(4)), "{sets:?}");
        // Words about no index move none.
        assert!(sets_from_rejection(&def, &Known::default(), &rejected, "Row out of range", &[]).is_empty());
    }

    #[test]
    fn a_range_sent_empty_gets_its_end_one_past_its_start() {
        let def = json!({"name": "merge_table_cells", "inputSchema": {"type": "object", "properties": {
            "start_row": {"type": "integer"}, "end_row": {"type": "integer"},
            "start_col": {"type": "integer"}, "end_col": {"type": "integer"}, "count": {"type": "integer"}
        }, "required": ["start_row", "end_row", "start_col", "end_col", "count"]}});
        let rejected = ArgSet::smallest(Map::from_iter(
            ["start_row", "end_row", "start_col", "end_col", "count"].map(|k| (k.to_string(), json!(0))),
        ));
        let sets = sets_from_rejection(
            &def,
            &Known::default(),
            &rejected,
            "Invalid merge range: cannot merge a single cell with itself",
            &[],
        );
        let moved: Vec<(&str, &Value)> = sets
            .iter()
            .flat_map(|s| s.args.iter().filter(|(k, v)| rejected.args[k.as_str()] != **v).map(|(k, v)| (k.as_str(), v)))
            .collect();
        assert_eq!(moved, [("end_col", &json!(1)), ("end_row", &json!(1))], "{sets:?}");
    }

    #[test]
    fn a_list_of_nothing_offers_nothing() {
        assert!(offered("Sheet 'Sales' has no table or PivotTable 'x'. Available: none.").iter().all(|v| v != "none"));
        assert_eq!(offered("Available sheets: 'Sales', 'None'")[0], "Sales");
    }

    #[test]
    fn a_tool_that_requires_nothing_gets_its_optional_properties_when_the_words_name_none() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("books")).unwrap();
        let known = Known { paths: super::super::context::Paths::scan(d.path(), &[]), ..Known::default() };
        let def = json!({"name": "list_workbooks", "inputSchema": {"type": "object", "properties": {
            "directory": {"type": "string", "default": ""}, "recursive": {"type": "boolean"}
        }}});
        let rejected = ArgSet::smallest(Map::new());
        let sets = sets_from_rejection(
            &def,
            &known,
            &rejected,
            "Path must be a non-empty file system path.",
            std::slice::from_ref(&rejected),
        );
        assert!(sets.iter().any(|s| s.args.get("directory").is_some_and(|v| v != "")), "{sets:?}");
        // Words that name a property point at it alone.
        let def2 = json!({"name": "find", "inputSchema": {"type": "object", "properties": {
            "directory": {"type": "string"}, "pattern": {"type": "string"}
        }}});
        let sets =
            sets_from_rejection(&def2, &known, &rejected, "pattern is required", std::slice::from_ref(&rejected));
        assert!(sets.iter().all(|s| !s.args.contains_key("directory")), "{sets:?}");
    }

    #[test]
    fn a_name_the_rejection_says_is_taken_gets_one_of_its_own() {
        let def = json!({"name": "create_chart", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string", "maxLength": 31}
        }, "required": ["path", "sheet"]}});
        let mut rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("data/sales.xlsx")),
            ("sheet".to_string(), json!("Sales")),
        ]));
        rejected.relative.push("/path".into());
        let sets =
            sets_from_rejection(&def, &Known::default(), &rejected, "A sheet named 'Sales' already exists.", &[]);
        assert_eq!(sets[0].args["sheet"], "mcp_pin_probe_create_chart", "{sets:?}");
        assert_eq!(sets[0].args["path"], "data/sales.xlsx", "the other arguments are kept");
        // A path keeps its folder and extension, and stays a path.
        let sets = sets_from_rejection(
            &def,
            &Known::default(),
            &rejected,
            "/home/u/p/data/sales.xlsx already exists. Pass overwrite=true to replace it.",
            &[],
        );
        let made = sets.iter().find(|s| s.args["path"] != "data/sales.xlsx").expect("a fresh path");
        assert_eq!(made.args["path"], "data/mcp-pin-probe-create-chart.xlsx", "{sets:?}");
        assert!(made.relative.contains(&"/path".to_string()));
        // Never longer than a sheet name may be; nothing taken, nothing fresh.
        assert!(fresh_name("add_a_rather_long_tool_name_here", "x", false).chars().count() <= MAX_FRESH_NAME);
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, "Sheet 'Sales' not found.", &[]);
        assert!(sets.iter().all(|s| s.args["sheet"] != "mcp_pin_probe_create_chart"), "{sets:?}");
    }

    #[test]
    fn bounds_a_text_names() {
        assert_eq!(bounds("start: must be at least 1"), ["1"]);
        assert_eq!(bounds("count must be greater than 0."), ["1"]);
        assert_eq!(bounds("a value between 5 and 10"), ["5"]);
        assert_eq!(bounds("Parameter 'rows': must be a positive integer"), ["1"]);
        assert_eq!(bounds("Parameter 'width': must be positive"), ["1"]);
        assert_eq!(bounds("index must be non-negative"), ["0"]);
        assert!(bounds("at least one file").is_empty());
        assert_eq!(offered("Invalid arguments: start: must be at least 1"), ["1"]);
    }

    #[test]
    fn a_rejection_that_quotes_a_value_fills_the_property_that_sent_it() {
        let def = json!({"name": "set_note", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string"}, "cell": {"type": "string"}
        }, "required": ["path", "sheet", "cell"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("book.xlsx")),
            ("sheet".to_string(), json!("Sales")),
            ("cell".to_string(), json!("")),
        ]));
        let sets = sets_from_rejection(
            &def,
            &Known::default(),
            &rejected,
            "Range '' must have explicit rows and columns, such as 'A1:C10'.",
            &[],
        );
        assert_eq!(sets[0].args["cell"], "A1:C10", "{sets:?}");
        assert_eq!((sets[0].args["path"].clone(), sets[0].args["sheet"].clone()), (json!("book.xlsx"), json!("Sales")));
        // Named generically while set already: the value goes to the property whose value is quoted.
        let def2 = json!({"name": "copy_range", "inputSchema": {"type": "object", "properties": {
            "range": {"type": "string"}, "at": {"type": "string"}
        }, "required": ["range", "at"]}});
        let r2 =
            ArgSet::smallest(Map::from_iter([("range".to_string(), json!("A1:C10")), ("at".to_string(), json!(""))]));
        let sets = sets_from_rejection(
            &def2,
            &Known::default(),
            &r2,
            "Range '' must have explicit rows and columns, such as 'A1:C10'.",
            &[],
        );
        assert_eq!(sets[0].args["at"], "A1:C10", "{sets:?}");
    }

    #[test]
    fn an_empty_array_the_rejection_names_gets_one_item() {
        let def = json!({"name": "write_range", "inputSchema": {"type": "object", "properties": {
            "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}, "at": {"type": "string"}
        }, "required": ["rows", "at"]}});
        let rejected =
            ArgSet::smallest(Map::from_iter([("rows".to_string(), json!([])), ("at".to_string(), json!("B2"))]));
        let sets =
            sets_from_rejection(&def, &Known::default(), &rejected, "rows must contain at least one value.", &[]);
        assert_eq!(sets[0].args["rows"].as_array().map(Vec::len), Some(1), "{sets:?}");
        assert_eq!(sets[0].args["rows"][0].as_array().map(Vec::len), Some(1), "an item of an item too: {sets:?}");
        assert_eq!(sets[0].args["at"], "B2");
    }

    #[test]
    fn a_value_the_rejection_quotes_as_not_found_gives_way_to_the_next_candidates() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("Welcome.md"), "# hi").unwrap();
        let known = Known { paths: super::super::context::Paths::scan(d.path(), &[]), ..Known::default() };
        let def = json!({"name": "read-note", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string", "description": "Just the note name, e.g. 'my-note.md'"},
            "vault": {"type": "string"}
        }, "required": ["vault", "filename"]}});
        let mut rejected = ArgSet::smallest(Map::from_iter([
            ("filename".to_string(), json!("my-note.md")),
            ("vault".to_string(), json!("project")),
        ]));
        rejected.from.insert("vault".into(), Source::Rejection(Some("offered-values")));
        let sets = sets_from_rejection(&def, &known, &rejected, "Note \"my-note.md\" not found in vault", &[]);
        assert!(sets.iter().any(|s| s.args["filename"] == "Welcome.md" && s.args["vault"] == "project"), "{sets:?}");
    }

    #[test]
    fn a_rejection_of_path_separators_gets_the_name_as_it_is() {
        let def = json!({"name": "read-note", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"}
        }, "required": ["filename"]}});
        let mut rejected = ArgSet::smallest(Map::from_iter([("filename".to_string(), json!("Welcome.md"))]));
        rejected.relative.push("/filename".into());
        let sets =
            sets_from_rejection(&def, &Known::default(), &rejected, "Filename cannot contain path separators", &[]);
        assert_eq!(sets[0].args["filename"], "Welcome.md");
        assert!(sets[0].relative.is_empty(), "sent as it is: {sets:?}");
    }

    #[test]
    fn a_part_of_a_value_the_rejection_quotes_is_replaced_in_it() {
        let def = json!({"name": "add_sparklines", "inputSchema": {"type": "object", "properties": {
            "sheet": {"type": "string"}, "source": {"type": "string"}
        }, "required": ["sheet", "source"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("sheet".to_string(), json!("Sales")),
            ("source".to_string(), json!("Data!B2:F9")),
        ]));
        let sets = sets_from_rejection(
            &def,
            &Known::default(),
            &rejected,
            "Sheet 'Data' not found. Available sheets: 'Sales'.",
            &[],
        );
        assert!(sets.iter().any(|s| s.args["source"] == "Sales!B2:F9" && s.args["sheet"] == "Sales"), "{sets:?}");
        assert!(refused("Invalid range 'x'", "x") && refused("«ünïcödé» Unknown column \"y\"", "y"));
        assert!(!refused("Use a header ('region', 'sales', None) or a column letter", "sales"));
    }

    /// Of two values a rejection quotes, the offer after them is for the one quoted last ("no
    /// image named 'TaxRate'"), never for the sheet it also quotes; the same two values quoted in
    /// the other order give the offer to the other property.
    #[test]
    fn an_offer_is_for_the_value_quoted_nearest_before_it() {
        let def = json!({"name": "delete_image", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string"}, "name": {"type": "string"}
        }, "required": ["path", "sheet", "name"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("path".to_string(), json!("sales.xlsx")),
            ("sheet".to_string(), json!("Sales")),
            ("name".to_string(), json!("TaxRate")),
        ]));
        let text = "Sheet 'Sales' has no image named 'TaxRate'. Available: 'Picture 1'.";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, &[]);
        assert_eq!(sets[0].args["name"], "Picture 1", "{sets:?}");
        assert_eq!(sets[0].args["sheet"], "Sales", "{sets:?}");
        assert!(sets.iter().all(|s| s.args["sheet"] == "Sales"), "{sets:?}");
        let text = "No image 'TaxRate' on sheet 'Sales'. Available sheets: 'Data'.";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, &[]);
        assert_eq!(sets[0].args["sheet"], "Data", "{sets:?}");
        assert_eq!(sets[0].args["name"], "TaxRate", "{sets:?}");
    }

    /// An empty range is mended before an index is walked: "Invalid text positions" about
    /// `start_pos: 0, end_pos: 0` in paragraph 0 is wrong in every paragraph, and each step of the
    /// walk costs one rejection of the tool's budget.
    #[test]
    fn an_empty_range_is_mended_before_an_index_is_walked() {
        let def = json!({"name": "format_text", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"}, "paragraph_index": {"type": "integer"},
            "start_pos": {"type": "integer"}, "end_pos": {"type": "integer"}
        }, "required": ["filename", "paragraph_index", "start_pos", "end_pos"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("filename".to_string(), json!("report.docx")),
            ("paragraph_index".to_string(), json!(0)),
            ("start_pos".to_string(), json!(0)),
            ("end_pos".to_string(), json!(0)),
        ]));
        let text = "Invalid text positions. Paragraph has 18 characters.";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, &[]);
        assert_eq!(
            (sets[0].args["end_pos"].clone(), sets[0].args["paragraph_index"].clone()),
            (json!(1), json!(0)),
            "{sets:?}"
        );
        assert!(sets.iter().any(|s| s.args["paragraph_index"] == 1), "the walk still follows: {sets:?}");
    }

    /// A value the words still ask for although it was sent empty is taken by the server as none
    /// ("Must provide either (old_string + new_string)" with `new_string: ""`): its next candidate.
    #[test]
    fn a_value_asked_for_though_sent_empty_gets_its_next_candidate() {
        let def = json!({"name": "edit_block", "inputSchema": {"type": "object", "properties": {
            "file_path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}
        }, "required": ["file_path"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("file_path".to_string(), json!("notes.txt")),
            ("old_string".to_string(), json!("hello")),
            ("new_string".to_string(), json!("")),
        ]));
        let text = "Must provide either (old_string + new_string) or (range + content)";
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, text, std::slice::from_ref(&rejected));
        assert!(sets.iter().any(|s| s.args["new_string"] == "a" && s.args["old_string"] == "hello"), "{sets:?}");
        // A value sent empty that the words do not name stays as it was.
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, "Search content not found", &[]);
        assert!(sets.iter().all(|s| s.args["new_string"] == ""), "{sets:?}");
    }

    #[test]
    fn counts_a_text_gives() {
        assert_eq!(counts("color_scale needs 2 or 3 colors."), [(2, "color".to_string())]);
        assert_eq!(counts("Give at least 3 items"), [(3, "item".to_string())]);
        assert_eq!(counts("between 2-5 values, or 2 to 4 rows"), [(2, "value".to_string()), (2, "row".to_string())]);
        assert!(counts("Paragraph has 1 character; line 12").is_empty(), "{:?}", counts("Paragraph has 1 character"));
        assert!(counts("error 404 at 2026-12-06").is_empty());
    }

    /// An array inside an object argument that the words count gets that many items ("color_scale
    /// needs 2 or 3 colors" about `rule.colors: [""]`), and the value then offered for the items
    /// ("Invalid color ''. Use a hex color like '#1F4E78'") goes into every item that held the
    /// refused one.
    #[test]
    fn an_array_the_words_count_gets_that_many_items_and_each_the_value_offered() {
        let def = json!({"name": "add_conditional_format", "inputSchema": {"type": "object", "properties": {
            "range": {"type": "string"},
            "rule": {"type": "object", "properties": {"type": {"type": "string"},
                "colors": {"type": "array", "items": {"type": "string"}}}, "required": ["type"]}
        }, "required": ["range", "rule"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("range".to_string(), json!("A1:C10")),
            ("rule".to_string(), json!({"type": "color_scale", "colors": [""]})),
        ]));
        let sets = sets_from_rejection(&def, &Known::default(), &rejected, "color_scale needs 2 or 3 colors.", &[]);
        assert_eq!(sets[0].args["rule"], json!({"type": "color_scale", "colors": ["", ""]}), "{sets:?}");
        let sets = sets_from_rejection(
            &def,
            &Known::default(),
            &sets[0],
            "Invalid color ''. Use a hex color like '#1F4E78'.",
            &[],
        );
        assert_eq!(sets[0].args["rule"], json!({"type": "color_scale", "colors": ["#1F4E78", "#1F4E78"]}), "{sets:?}");
        assert!(sets.iter().all(|s| s.args["range"] == "A1:C10"), "{sets:?}");
        // An argument the user fixed is left as it is, and the others are still counted.
        let mut fixed = rejected.clone();
        fixed.args.insert("a_tags".into(), json!(["x"]));
        fixed.from.insert("a_tags".into(), Source::Fixture);
        let sets = sets_from_rejection(&def, &Known::default(), &fixed, "needs 2 or 3 colors; 2 tags", &[]);
        assert_eq!(sets.first().map(|s| s.args["rule"]["colors"].clone()), Some(json!(["", ""])), "{sets:?}");
        assert!(sets.iter().all(|s| s.args["a_tags"] == json!(["x"])), "{sets:?}");
    }

    #[test]
    fn extensions_a_text_names() {
        assert_eq!(extensions("Path 'x' must point to an Excel file (.xlsm, .xlsx, .xls)"), ["xlsm", "xlsx", "xls"]);
        assert_eq!(extensions("Only .pdf files are supported."), ["pdf"]);
        assert!(extensions("Version 1.20 of file a.txt. Done.").is_empty());
        assert_eq!(extensions("Document /p/notes.txt.docx does not exist"), ["docx"]);
    }

    #[test]
    fn a_rejection_that_names_an_extension_gets_the_projects_files_of_it() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("notes.txt"), "x").unwrap();
        std::fs::write(d.path().join("sales.xlsx"), "x").unwrap();
        let known = Known { paths: super::super::context::Paths::scan(d.path(), &[]), ..Known::default() };
        let def = json!({"name": "read_range", "inputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "sheet": {"type": "string"}
        }, "required": ["path", "sheet"]}});
        let mut rejected =
            ArgSet::smallest(Map::from_iter([("path".to_string(), json!(".")), ("sheet".to_string(), json!("a"))]));
        rejected.relative.push("/path".into());
        let sets =
            sets_from_rejection(&def, &known, &rejected, "Path '/x' must point to an Excel file (.xlsm, .xlsx)", &[]);
        assert_eq!(sets[0].args["path"], "sales.xlsx", "{sets:?}");
        assert_eq!(sets[0].relative, ["/path"]);
        assert_eq!(sets[0].args["sheet"], "a");
    }

    #[test]
    fn a_rejection_that_asks_for_an_optional_argument_gets_it() {
        let def = json!({"name": "add_footnote", "inputSchema": {"type": "object", "properties": {
            "filename": {"type": "string"},
            "text": {"type": "string"},
            "search_text": {"type": "string", "description": "Text to find, e.g. 'Sales'"},
            "paragraph_index": {"type": "integer", "minimum": 0}
        }, "required": ["filename", "text"]}});
        let rejected = ArgSet::smallest(Map::from_iter([
            ("filename".to_string(), json!("report.docx")),
            ("text".to_string(), json!("a")),
        ]));
        let known = Known::default();
        let text = "Must provide either search_text or paragraph_index";
        let sets = sets_from_rejection(&def, &known, &rejected, text, &[]);
        assert!(sets.iter().any(|s| s.args.get("search_text") == Some(&json!("Sales"))), "{sets:?}");
        assert!(sets.iter().any(|s| s.args.get("paragraph_index") == Some(&json!(0))), "{sets:?}");
        assert!(sets.iter().all(|s| s.args["filename"] == "report.docx"
            && s.from.get("search_text").is_none_or(|f| *f == Source::Rejection(Some("named-optional")))));
        // A property the text does not name is never added.
        assert!(sets_from_rejection(&def, &known, &rejected, "Document not found", &[]).is_empty());
    }

    #[test]
    fn rejections_offer_the_values_they_name() {
        assert_eq!(
            offered("Sheet 'Sheet1' not found. Available sheets: 'Items', 'Notes'"),
            ["Items", "Notes", "Sheet1"]
        );
        // The value it refused is no offer (`Invalid` comes before it).
        assert_eq!(offered("Invalid range 'a'. Use a range such as 'A1:C10'"), ["A1:C10"]);
        assert_eq!(offered("mode must be one of: fast, slow"), ["fast", "slow"]);
        assert_eq!(offered("Expected a single cell such as 'B2', got 'A1:C10'."), ["B2", "A1:C10"]);
        assert_eq!(
            offered("Presentation '' not found. Available presentations: ['presentation_1']")[0],
            "presentation_1"
        );
        assert_eq!(offered("Invalid chart type: ''. Valid types are: column, bar, pie"), ["column", "bar", "pie"]);
        assert_eq!(
            offered("Invalid operation: . Must be 'analyze', 'optimize', or 'recommend'"),
            ["analyze", "optimize", "recommend"]
        );
        assert_eq!(offered("Parameter 'rows': must be a positive integer")[0], "1");
        assert_eq!(offered("Unknown format x; supported formats: csv, json or xml."), ["csv", "json", "xml"]);
        assert!(offered("not found: alpha").is_empty());
        assert_eq!(offered("Key \"\" is not configurable. Allowed keys: shell, lineLimit"), ["shell", "lineLimit"]);
    }

    #[test]
    fn a_rejection_fills_the_property_it_names_keeping_the_others() {
        let def = json!({"name": "read_sheet", "inputSchema": {"type": "object", "properties": {
            "file": {"type": "string"}, "sheet": {"type": "string"}, "range": {"type": "string"}
        }, "required": ["file", "sheet", "range"]}});
        let mut rejected = ArgSet::smallest(Map::from_iter([
            ("file".to_string(), json!("budget.xlsx")),
            ("sheet".to_string(), json!("a")),
            ("range".to_string(), json!("a")),
        ]));
        rejected.from.insert("file".into(), Source::ProjectFolder);
        let known = Known::default();
        let sets = sets_from_rejection(
            &def,
            &known,
            &rejected,
            "Sheet 'a' not found. Available sheets: 'Items', 'Notes'",
            &[],
        );
        assert_eq!(sets[0].args["sheet"], "Items");
        assert_eq!(sets[0].args["file"], "budget.xlsx");
        assert_eq!(sets[0].from["sheet"], Source::Rejection(Some("offered-values")));
        assert_eq!(sets[0].from["file"], Source::ProjectFolder);
        // Only the property the text names is changed; a value already sent is not offered again.
        assert!(sets.iter().all(|s| s.args["range"] == "a" && s.args["sheet"] != "a"), "{sets:?}");
        let next =
            sets_from_rejection(&def, &known, &sets[0], "Invalid range 'a'. Use a range such as 'A1:C10'", &sets);
        assert_eq!((next[0].args["sheet"].clone(), next[0].args["range"].clone()), (json!("Items"), json!("A1:C10")));
    }

    #[test]
    fn words_that_ask_for_an_absolute_path_in_any_language() {
        for t in [
            "Path 'sales.xlsx' must be absolute, e.g. '/home/me/q1.xlsx'",
            "le chemin doit être absolu",
            "la ruta debe ser absoluta",
            "Pfad muss absolut sein",
            "路径必须是绝对路径",
            "絶対パスを指定してください",
            "путь должен быть абсолютным",
        ] {
            assert!(asks_absolute_path(t), "{t}");
        }
        for t in ["Sheet 'a' not found", "relative to the vault root", "absent"] {
            assert!(!asks_absolute_path(t), "{t}");
        }
    }
}
