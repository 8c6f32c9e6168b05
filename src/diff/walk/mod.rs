//! Stage two: walk two normalised schemas side by side and classify every difference.
//!
//! One walker for every keyword that holds a sub-schema, split along its concerns:
//! - [`refs`]: schema nodes, JSON pointers and local `$ref` resolution (a visited set over pairs
//!   of raw locations, so recursive schemas terminate and a shared definition is compared once);
//! - [`keywords`]: the one keyword `match` (no catch-all arm: a keyword nobody handled is a
//!   compile error) and each keyword's comparison;
//! - [`unions`]: `anyOf`/`oneOf`/`allOf` alternatives matched by content;
//! - [`wording`]: how a finding is named in its message.
//!
//! The same walk serves `inputSchema` and `outputSchema`: it emits a [`Kind`](K), flipped inside
//! `not`, and the catalogue resolves the rule for the walk's side ([`rules::resolve`]).

// Shared by the submodules (`use super::*`).
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::normalize::{apply_null, canon, type_set, ALL_TYPES};
use super::num::Dec;
use super::text::{escape_hidden, same_words};
use super::MAX_DEPTH;
use crate::change::Change;
use crate::rules::Class;
use crate::rules::{self, Kind as K, RuleId, Surface};

mod keywords;
mod refs;
mod unions;
mod wording;

pub use wording::{human_path, short};

use refs::*;
use unions::*;

/// Which schema a walk compares: its rules and its wording follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Input,
    Output,
}

impl Mode {
    /// The schema side whose rules this walk emits.
    pub fn surface(self) -> Surface {
        match self {
            Mode::Input => Surface::InputSchema,
            Mode::Output => Surface::OutputSchema,
        }
    }
}

/// One walk over two schemas; the changes it found are in `out`.
pub struct Walker<'a> {
    tool: Option<&'a str>,
    mode: Mode,
    base: String,
    old_doc: &'a Value,
    new_doc: &'a Value,
    /// The documents as written, for a local `$ref` whose path normalisation removed
    /// (`#/properties/x/anyOf/0` once `x`'s nullable `anyOf` became a type).
    old_raw: Option<&'a Value>,
    new_raw: Option<&'a Value>,
    visited: HashSet<(String, String, bool, bool)>,
    /// Nesting of trial walks (branch matching); bounded so matching stays cheap.
    trial: usize,
    pub out: Vec<Change>,
}

#[derive(Clone, Copy)]
struct Pos {
    inverted: bool,
    in_if: bool,
    depth: usize,
}

impl<'a> Walker<'a> {
    pub fn new(tool: Option<&'a str>, mode: Mode, base: &str, old_doc: &'a Value, new_doc: &'a Value) -> Self {
        Walker {
            tool,
            mode,
            base: base.to_string(),
            old_doc,
            new_doc,
            old_raw: None,
            new_raw: None,
            visited: HashSet::new(),
            trial: 0,
            out: Vec::new(),
        }
    }

    /// The documents as written (before normalisation), to resolve references into them.
    pub fn with_raw(mut self, old_raw: Option<&'a Value>, new_raw: Option<&'a Value>) -> Self {
        self.old_raw = old_raw;
        self.new_raw = new_raw;
        self
    }

    /// Walk the two documents from their roots.
    pub fn run(&mut self) {
        let (o, n) = (self.old_doc, self.new_doc);
        self.walk(Node::root(o), Node::root(n), "", Pos { inverted: false, in_if: false, depth: 0 });
    }

    fn scratch(&self) -> Walker<'a> {
        Walker {
            tool: self.tool,
            mode: self.mode,
            base: self.base.clone(),
            old_doc: self.old_doc,
            new_doc: self.new_doc,
            old_raw: self.old_raw,
            new_raw: self.new_raw,
            visited: HashSet::new(),
            trial: self.trial + 1,
            out: Vec::new(),
        }
    }

    fn emit(&mut self, k: K, pos: Pos, ptr: &str, message: String, before: Option<Value>, after: Option<Value>) {
        self.emit_as(k, false, pos, ptr, message, before, after);
    }

    /// Emit what was found (`k`, flipped inside `not`, unprovable inside `if`); the catalogue
    /// picks the rule for the walk's side. `closed`: a property removed from a closed object
    /// (loud in input: sending it now fails with an error).
    #[allow(clippy::too_many_arguments)]
    fn emit_as(
        &mut self,
        k: K,
        closed: bool,
        pos: Pos,
        ptr: &str,
        message: String,
        before: Option<Value>,
        after: Option<Value>,
    ) {
        let mut k = if pos.inverted { k.flip() } else { k };
        let mut message = message;
        if pos.in_if && k.directional() {
            k = K::PatternChanged;
            message = wording::inside_if(&message);
        } else if pos.inverted && k.directional() {
            message = wording::inside_not(&message);
        }
        let rule = rules::resolve(k, self.mode.surface());
        let class =
            if self.mode == Mode::Input && k == K::PropertyRemoved && closed { Class::Loud } else { rule.class() };
        self.out.push(Change {
            rule,
            class,
            tool: self.tool.map(str::to_string),
            pointer: format!("{}{}", self.base, ptr),
            message,
            before,
            after,
            cues: None,
        });
    }
}
