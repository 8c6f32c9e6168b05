//! The ways mcp-pin answers the words of a rejection (RULES.md, "Arguments that reach the
//! tool"; docs/probes.md, "The server's own words"). Each responder is one small function that
//! proposes argument sets from what the rejection says, read once ([`Refusal`]); [`answer`] runs
//! them in [`TABLE`]'s order, which is their priority, and passes every set they propose through
//! one gate ([`Offers::offer`]). A value a responder gives is labelled with its id in the lock
//! and the reports (`rejection: offered-values`), so the bench shows which one earns its place.
//!
//! Adding a responder: its function and its test in the file of its group, and its entry in
//! [`TABLE`] (id, one line, an example the table's test runs), and a line in docs/probes.md.

mod arrays;
mod delegated;
mod numbers;
mod paths;
mod values;

use serde_json::Value;

use super::words::{Refusal, PER_REJECTION};
use super::{guard, ArgSet, Known, Source};

/// One way to answer a rejection.
pub struct Responder {
    /// Kebab-case and stable: the lock labels a value it gave `rejection: <id>`.
    pub id: &'static str,
    /// What it answers, and with what.
    pub doc: &'static str,
    /// Propose sets from the rejection ([`Offers::offer`] says which the gate admits).
    pub propose: fn(&Refusal, &mut Offers),
    /// A set it proposes may hold the arguments of one tried before, sent in another form (a path
    /// as written, not resolved): it is new when its arguments or its paths differ. For every
    /// other responder a set is new when its arguments differ (a set that only marks a path
    /// differently is the same call to them: applying this to all would try such twins).
    pub new_form: bool,
    /// Its values are the property's next candidates from the usual sources (the project, a
    /// listing, a handle a maker returned, a line of a file): each keeps the label of its source,
    /// never this id, because `check` reads two of them again where it runs (a made handle and a
    /// file's line, [`super::refresh_made`]).
    pub own_sources: bool,
    /// It answers any rejection of the call it is about, whatever the words say (a range sent
    /// empty is wrong whatever the server says of it): the harmless answers make its set too.
    pub any_words: bool,
    /// A rejection it answers, for the table's test (and the docs).
    pub example: Example,
}

/// A call a responder answers: the tool, the arguments it was sent, the project's files and the
/// rejection's words.
pub struct Example {
    /// The tool's definition (JSON).
    pub def: &'static str,
    /// The arguments it was sent (JSON), each the smallest valid value.
    pub args: &'static str,
    /// The arguments sent as paths of the project (JSON pointers).
    pub paths: &'static [&'static str],
    /// Files of the project.
    pub files: &'static [&'static str],
    pub text: &'static str,
}

/// Every responder, in the order they are asked: the first to propose a set has its place
/// among the [`PER_REJECTION`] sets one rejection may give.
pub const TABLE: &[Responder] = &[
    values::EXTENSION_FILES,
    values::QUOTED_PART,
    values::OFFERED_VALUES,
    arrays::NON_EMPTY_ARRAY,
    arrays::COUNTED_ARRAY,
    paths::NAME_ONLY,
    paths::RELATIVE_ONLY,
    numbers::EMPTY_RANGE,
    numbers::NEXT_INDEX,
    paths::TAKEN_NAME,
    delegated::QUOTED_NEXT_CANDIDATES,
    delegated::NAMED_OPTIONAL,
    delegated::SENT_EMPTY,
    delegated::INNER_OPTIONAL,
    delegated::PERMISSION,
];

/// The argument sets a rejection of `rejected` (by the tool `def`, in words `text`) offers: what
/// each responder of [`TABLE`] proposes, in the table's order, each set through one gate
/// ([`Offers::offer`]): valid against the tool's `inputSchema`, no secret, nothing aimed at the
/// machine, no fixture's value changed; at most [`PER_REJECTION`], none already in `tried`.
pub fn sets_from_rejection(def: &Value, known: &Known, rejected: &ArgSet, text: &str, tried: &[ArgSet]) -> Vec<ArgSet> {
    match Refusal::read(def, known, rejected, text) {
        Some(refusal) => answer(&refusal, TABLE, tried),
        None => vec![],
    }
}

/// The id of the responder `id` names, when this mcp-pin has it.
pub fn known_id(id: &str) -> Option<&'static str> {
    TABLE.iter().find(|r| r.id == id).map(|r| r.id)
}

/// The sets the responders of `table` propose for `refusal`, in order, each through the gate;
/// at most [`PER_REJECTION`], none already in `tried`.
pub fn answer(refusal: &Refusal, table: &[Responder], tried: &[ArgSet]) -> Vec<ArgSet> {
    let mut offers = Offers { refusal, tried, out: Vec::new(), said: Source::Rejection(None), new_form: false };
    for r in table {
        if offers.full() {
            break;
        }
        offers.said = Source::Rejection(Some(r.id));
        offers.new_form = r.new_form;
        (r.propose)(refusal, &mut offers);
    }
    offers.out
}

/// The sets admitted so far for one rejection, and the gate every proposed set passes.
pub struct Offers<'a> {
    refusal: &'a Refusal<'a>,
    tried: &'a [ArgSet],
    out: Vec<ArgSet>,
    /// The source of the values the responder being asked gives.
    said: Source,
    new_form: bool,
}

impl Offers<'_> {
    /// What a value the responder being asked gives is labelled: `rejection: <its id>`.
    pub fn said(&self) -> Source {
        self.said
    }

    /// Whether the rejection has given all the sets it may.
    pub fn full(&self) -> bool {
        self.out.len() >= PER_REJECTION
    }

    /// The sets admitted so far, by every responder asked before.
    pub fn sets(&self) -> &[ArgSet] {
        &self.out
    }

    /// Every set tried or admitted so far (what a candidate search must not give again).
    pub fn seen(&self) -> Vec<ArgSet> {
        [self.tried, self.out.as_slice()].concat()
    }

    /// Admit `set` when the gate lets it through and there is room: whether it was.
    ///
    /// The gate, the same for every responder (the rest of the one gate, paths made relative to
    /// the project, is [`super::gate::admit`] just before a set is sent): no fixture's value
    /// changed (the user's word); valid against the tool's `inputSchema` as it will be sent
    /// (paths resolved in the project); no secret ([`super::Known::holds_secret`]); no value it
    /// changed aimed at the machine ([`guard`]: the others were sent already, through the same
    /// gate); no set tried or admitted already ([`Responder::new_form`]).
    pub fn offer(&mut self, set: ArgSet) -> bool {
        let r = self.refusal;
        let fixture_kept =
            r.rejected.from.iter().all(|(k, f)| *f != Source::Fixture || set.args.get(k) == r.rejected.args.get(k));
        if self.full() || !fixture_kept {
            return false;
        }
        let sent = set.resolve(r.dir);
        let changed = sent.iter().filter(|(k, _)| set.args.get(*k) != r.rejected.args.get(*k));
        let aimed = changed
            .into_iter()
            .any(|(k, v)| guard::aimed_at_machine(k, r.schema_of(k), v, r.known.home.as_deref()).is_some());
        let sent = Value::Object(sent);
        let seen = self
            .tried
            .iter()
            .chain(&self.out)
            .any(|s| s.args == set.args && (!self.new_form || s.relative == set.relative));
        if aimed || seen || !r.whole.is_valid(&sent) || r.known.holds_secret(&sent) {
            return false;
        }
        self.out.push(set);
        true
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::probe::candidates::{context, Known};
    use serde_json::Map;

    /// Answers and texts that reject nothing: no responder may make a set of them. (A JSON
    /// answer reaches the responders as its strings, [`crate::probe::search::words_of`].)
    const HARMLESS: &[&str] = &[
        "OK",
        "Done.",
        "File saved",
        "No results found",
        "Created note alpha",
        "",
        r#"{"id": 7, "name": "alpha", "tags": ["a", "b"], "done": true, "at": "2026-12-06T10:00:00Z"}"#,
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et \
         dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex \
         ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu \
         fugiat nulla pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt \
         mollit anim id est laborum.",
    ];

    /// The sets the responders of `table` give for `r`'s example with the words `text`, in a
    /// project of its files; the set rejected counts as tried (as in the search).
    pub fn run(r: &Responder, table: &[Responder], text: &str) -> Vec<ArgSet> {
        let d = tempfile::tempdir().unwrap();
        for f in r.example.files {
            std::fs::write(d.path().join(f), "# hi\n").unwrap();
        }
        let known = Known { paths: context::Paths::scan(d.path(), &[]), ..Known::default() };
        let def: Value = serde_json::from_str(r.example.def).unwrap();
        let args: Map<String, Value> = serde_json::from_str(r.example.args).unwrap();
        let mut rejected = ArgSet::smallest(args);
        rejected.relative = r.example.paths.iter().map(|p| p.to_string()).collect();
        let refusal = Refusal::read(&def, &known, &rejected, text).unwrap();
        answer(&refusal, table, std::slice::from_ref(&rejected))
    }

    /// The sets `id`'s own example gives, with it alone.
    pub fn example(id: &str) -> Vec<ArgSet> {
        let r = TABLE.iter().find(|r| r.id == id).unwrap();
        run(r, std::slice::from_ref(r), r.example.text)
    }

    #[test]
    fn every_responders_example_gives_a_set_that_names_it() {
        for r in TABLE {
            let sets = run(r, std::slice::from_ref(r), r.example.text);
            assert!(!sets.is_empty(), "{}: its example gives nothing", r.id);
            for s in &sets {
                let ours = s.from.values().any(|f| *f == Source::Rejection(Some(r.id)));
                let others = s.from.values().any(|f| matches!(f, Source::Rejection(Some(id)) if *id != r.id));
                assert!(ours || r.own_sources, "{}: {s:?}", r.id);
                assert!(!others, "{}: {s:?}", r.id);
            }
        }
    }

    /// No responder answers a harmless text (on its own example's call); one that answers any
    /// words ([`Responder::any_words`]) answers them as it answers its example, so a flag that
    /// no longer holds fails too.
    #[test]
    fn harmless_answers_give_no_set() {
        let mut fired = vec![];
        for r in TABLE {
            let alone = |text: &str| run(r, std::slice::from_ref(r), text);
            for text in HARMLESS {
                let sets = alone(&crate::probe::search::words_of(text.to_string()));
                if sets.is_empty() == r.any_words || r.any_words && sets != alone(r.example.text) {
                    fired.push(format!("{} on {text:?}: {sets:?}", r.id));
                }
            }
        }
        assert!(fired.is_empty(), "{}", fired.join("\n"));
    }

    #[test]
    fn ids_are_kebab_case_unique_and_read_back_from_their_labels() {
        for (i, r) in TABLE.iter().enumerate() {
            assert!(r.id.split('-').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase())), "{}", r.id);
            assert!(TABLE[..i].iter().all(|o| o.id != r.id), "{} twice", r.id);
            assert!(!r.doc.is_empty() && !r.doc.contains('\n'), "{}", r.id);
            let s = Source::Rejection(Some(r.id));
            assert_eq!(s.label(), format!("rejection: {}", r.id));
            assert_eq!(Source::from_label(&s.label()), Some(s));
        }
        // Older locks: the label before responders had ids, and an id this mcp-pin lacks.
        assert_eq!(Source::from_label("server's words"), Some(Source::Rejection(None)));
        assert_eq!(Source::Rejection(None).label(), "server's words");
        assert_eq!(Source::from_label("rejection: a-newer-one"), Some(Source::Rejection(None)));
    }

    #[test]
    fn every_responder_is_in_the_docs() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/probes.md")).unwrap();
        for r in TABLE {
            assert!(docs.contains(&format!("`{}`", r.id)), "docs/probes.md does not name `{}`", r.id);
        }
    }
}
