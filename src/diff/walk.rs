//! Stage two: walk two normalised schemas side by side and classify every difference.
//!
//! One walker for every keyword that holds a sub-schema (see [`Kw`] and the `match` in
//! [`Walker::walk`], which has no catch-all arm: a keyword nobody handled is a compile error).
//! The same walk serves `inputSchema` and `outputSchema`; [`Mode`] mirrors the rule ids and
//! classes. Local `$ref`s are resolved on the way, with a visited set over pairs of raw
//! locations, so recursive schemas terminate and a shared definition is compared once.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::normalize::{apply_null, canon, type_set, ALL_TYPES};
use super::num::Dec;
use super::text::{escape_hidden, same_words};
use super::MAX_DEPTH;
use crate::change::{Change, Class};
use crate::rules::{self, Kind as K, RuleId, Surface};

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

/// Every keyword the walker knows. `classify` maps a key to one; `walk` matches them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kw {
    Schema,
    Type,
    Enum,
    EnumTitles,
    EnumDescriptions,
    Required,
    Properties,
    PatternProperties,
    AdditionalProperties,
    UnevaluatedProperties,
    UnevaluatedItems,
    Items,
    AdditionalItems,
    PrefixItems,
    Contains,
    Defs,
    AllOf,
    AnyOf,
    OneOf,
    Not,
    If,
    Then,
    Else,
    DependentSchemas,
    DependentRequired,
    PropertyNames,
    ContentSchema,
    NumericMax,
    NumericMin,
    Upper,
    Lower,
    Pattern,
    Format,
    MultipleOf,
    UniqueItems,
    Default,
    Description,
    Title,
    Ref,
    Nullable,
    HeaderMapping,
    Other,
}

fn classify(k: &str) -> Kw {
    match k {
        "$schema" => Kw::Schema,
        "type" => Kw::Type,
        "enum" => Kw::Enum,
        "$enumTitles" => Kw::EnumTitles,
        "$enumDescriptions" => Kw::EnumDescriptions,
        "required" => Kw::Required,
        "properties" => Kw::Properties,
        "patternProperties" => Kw::PatternProperties,
        "additionalProperties" => Kw::AdditionalProperties,
        "unevaluatedProperties" => Kw::UnevaluatedProperties,
        "unevaluatedItems" => Kw::UnevaluatedItems,
        "items" => Kw::Items,
        "additionalItems" => Kw::AdditionalItems,
        "prefixItems" => Kw::PrefixItems,
        "contains" => Kw::Contains,
        "$defs" => Kw::Defs,
        "allOf" => Kw::AllOf,
        "anyOf" => Kw::AnyOf,
        "oneOf" => Kw::OneOf,
        "not" => Kw::Not,
        "if" => Kw::If,
        "then" => Kw::Then,
        "else" => Kw::Else,
        "dependentSchemas" => Kw::DependentSchemas,
        "dependentRequired" => Kw::DependentRequired,
        "propertyNames" => Kw::PropertyNames,
        "contentSchema" => Kw::ContentSchema,
        "maximum" | "exclusiveMaximum" => Kw::NumericMax,
        "minimum" | "exclusiveMinimum" => Kw::NumericMin,
        "maxLength" | "maxItems" | "maxProperties" | "maxContains" => Kw::Upper,
        "minLength" | "minItems" | "minProperties" | "minContains" => Kw::Lower,
        "pattern" => Kw::Pattern,
        "format" => Kw::Format,
        "multipleOf" => Kw::MultipleOf,
        "uniqueItems" => Kw::UniqueItems,
        "default" => Kw::Default,
        "description" => Kw::Description,
        "title" => Kw::Title,
        "$ref" => Kw::Ref,
        "$nullable" => Kw::Nullable,
        "x-mcp-header" => Kw::HeaderMapping,
        _ => Kw::Other,
    }
}

/// A schema node: its (possibly merged) value and where it lives in the raw document.
#[derive(Clone)]
struct Node<'a> {
    v: Cow<'a, Value>,
    /// Raw JSON pointer of the node (identity for the visited set).
    id: String,
    /// Raw base for children: keys in `sib` live under `site`, the rest under `raw`.
    raw: String,
    site: Option<(String, BTreeSet<String>)>,
}

impl<'a> Node<'a> {
    fn root(v: &'a Value) -> Node<'a> {
        Node { v: Cow::Borrowed(v), id: String::new(), raw: String::new(), site: None }
    }

    fn obj(&self) -> Option<&Map<String, Value>> {
        self.v.as_object()
    }

    fn get(&self, k: &str) -> Option<&Value> {
        self.obj().and_then(|m| m.get(k))
    }

    fn child_raw(&self, key: &str) -> String {
        match &self.site {
            Some((site, keys)) if keys.contains(key) => format!("{site}/{}", esc(key)),
            _ => format!("{}/{}", self.raw, esc(key)),
        }
    }

    /// A child node: borrowed from the document when the parent is, cloned otherwise.
    fn child(&self, path: &[&str]) -> Option<Node<'a>> {
        fn nav<'v>(mut v: &'v Value, path: &[&str]) -> Option<&'v Value> {
            for seg in path {
                v = match v {
                    Value::Object(m) => m.get(*seg)?,
                    Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
                    _ => return None,
                };
            }
            Some(v)
        }
        let mut raw = self.child_raw(path[0]);
        for seg in &path[1..] {
            raw = format!("{raw}/{}", esc(seg));
        }
        let v = match &self.v {
            Cow::Borrowed(r) => Cow::Borrowed(nav(r, path)?),
            Cow::Owned(o) => Cow::Owned(nav(o, path)?.clone()),
        };
        Some(Node { v, id: raw.clone(), raw, site: None })
    }
}

/// The node standing for an absent schema (`{}`), at a given raw location.
fn empty_node<'a>(raw: String) -> Node<'a> {
    Node { v: Cow::Owned(Value::Object(Map::new())), id: format!("{raw}#absent"), raw, site: None }
}

pub fn esc(s: &str) -> String {
    if !s.contains(['~', '/']) {
        return s.to_string();
    }
    s.replace('~', "~0").replace('/', "~1")
}

fn unesc(s: &str) -> String {
    s.replace("~1", "/").replace("~0", "~")
}

/// Look up a JSON pointer in a normalised document (a `definitions` segment falls back to `$defs`).
fn lookup<'d>(doc: &'d Value, ptr: &str) -> Option<&'d Value> {
    if ptr.is_empty() {
        return Some(doc);
    }
    let mut cur = doc;
    for seg in ptr.strip_prefix('/')?.split('/') {
        let seg = unesc(seg);
        cur = match cur {
            Value::Object(m) => match m.get(&seg) {
                Some(x) => x,
                None if seg == "definitions" => m.get("$defs")?,
                None if seg == "items" => m.get("prefixItems")?,
                None => return None,
            },
            Value::Array(a) => a.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

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

    // ----- naming

    fn noun(&self) -> &'static str {
        match self.mode {
            Mode::Input => "argument",
            Mode::Output => "result field",
        }
    }

    /// `argument "filters.status"` / `the arguments` for a logical pointer.
    fn label(&self, ptr: &str) -> String {
        let path = human_path(ptr);
        if path.is_empty() {
            match self.mode {
                Mode::Input => "the argument object".into(),
                Mode::Output => "the result".into(),
            }
        } else {
            format!("{} \"{}\"", self.noun(), path)
        }
    }

    fn of_tool(&self) -> String {
        match self.tool {
            Some(t) => format!(" of tool {}", escape_hidden(t)),
            None => String::new(),
        }
    }

    // ----- emitting

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
            message = format!("{message} (inside an `if` condition: the direction cannot be proven)");
        } else if pos.inverted && k.directional() {
            message = format!("{message} (inside `not`: the direction is reversed)");
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
        });
    }

    // ----- resolution

    /// Follow local `$ref`s (siblings override the target). Stops on ref cycles and unknown targets.
    fn resolve(&self, node: Node<'a>, old_side: bool) -> Node<'a> {
        let doc: &'a Value = if old_side { self.old_doc } else { self.new_doc };
        let mut node = node;
        for _ in 0..32 {
            let Some(m) = node.obj() else { return node };
            let Some(Value::String(r)) = m.get("$ref") else {
                return node;
            };
            let Some(ptr) = r.strip_prefix('#') else {
                return node;
            };
            if !(ptr.is_empty() || ptr.starts_with('/')) {
                return node;
            }
            let raw = if old_side { self.old_raw } else { self.new_raw };
            let target: Cow<'a, Value> = match lookup(doc, ptr) {
                Some(t) => Cow::Borrowed(t),
                // a path normalisation removed: found as written, then normalised
                None => match raw.and_then(|r| lookup(r, ptr)) {
                    Some(t) => Cow::Owned(super::normalize::normalize_schema(t)),
                    None => return node,
                },
            };
            let siblings: Vec<(&String, &Value)> =
                m.iter().filter(|(k, _)| k.as_str() != "$ref" && k.as_str() != "$nullable").collect();
            let nullable = m.get("$nullable") == Some(&Value::Bool(true));
            let target: Cow<'a, Value> = match target.as_ref() {
                Value::Bool(true) => Cow::Owned(Value::Object(Map::new())),
                Value::Bool(false) => Cow::Owned(super::normalize::nothing()),
                _ => target,
            };
            if siblings.is_empty() && !nullable {
                node = Node { v: target, id: ptr.to_string(), raw: ptr.to_string(), site: None };
                continue;
            }
            let target = target.into_owned();
            let mut merged = match target {
                Value::Object(t) => t,
                other => return Node { v: Cow::Owned(other), ..node },
            };
            let keys: BTreeSet<String> = siblings.iter().map(|(k, _)| (*k).clone()).collect();
            for (k, v) in siblings {
                merged.insert(k.clone(), v.clone());
            }
            let target_has_ref = merged.contains_key("$ref") && !keys.contains("$ref");
            if nullable && !target_has_ref {
                apply_null(&mut merged);
            }
            let site_raw = node.raw.clone();
            // Siblings that do not change what the target accepts keep the target's identity, so a
            // root `{"$ref": "#/$defs/Node", "$defs": ...}` and a later `{"$ref": "#/$defs/Node"}`
            // are one node and recursion stops at the first repeat.
            let inert = keys.iter().all(|k| matches!(k.as_str(), "$defs" | "$schema" | "$id" | "$comment"));
            let id = if inert && !nullable { ptr.to_string() } else { format!("{ptr}+{}", node.id) };
            node =
                Node { v: Cow::Owned(Value::Object(merged)), id, raw: ptr.to_string(), site: Some((site_raw, keys)) };
            if !target_has_ref {
                return node;
            }
        }
        node
    }

    // ----- the walk

    fn walk(&mut self, a: Node<'a>, b: Node<'a>, ptr: &str, pos: Pos) {
        let a = self.resolve(a, true);
        let b = self.resolve(b, false);
        if !self.visited.insert((a.id.clone(), b.id.clone(), pos.inverted, pos.in_if)) {
            return;
        }
        if pos.depth > MAX_DEPTH {
            if canon(&a.v) != canon(&b.v) {
                self.emit(
                    K::TooDeep,
                    pos,
                    ptr,
                    format!(
                        "{}{} changed below {} nesting levels; not compared further",
                        self.label(ptr),
                        self.of_tool(),
                        MAX_DEPTH
                    ),
                    None,
                    None,
                );
            }
            return;
        }
        if a.obj().is_none() || b.obj().is_none() {
            if canon(&a.v) != canon(&b.v) {
                self.emit(
                    K::KeywordChanged,
                    pos,
                    ptr,
                    format!("schema of {}{} is not a JSON Schema object and changed", self.label(ptr), self.of_tool()),
                    Some(a.v.into_owned()),
                    Some(b.v.into_owned()),
                );
            }
            return;
        }
        let (Some(am), Some(bm)) = (a.obj(), b.obj()) else {
            return;
        };
        let deeper = Pos { depth: pos.depth + 1, ..pos };
        if let Some((plain_old, kw)) = self.lift_case(&a, &b) {
            self.lifted(&a, &b, plain_old, kw, ptr, pos, deeper);
            return;
        }

        // Grouped keywords first.
        if both_accept(am, bm, "number") {
            self.numeric_bound(am, bm, ptr, pos, true);
            self.numeric_bound(am, bm, ptr, pos, false);
        }

        let keys: BTreeSet<&String> = am.keys().chain(bm.keys()).collect();
        let switched = composition_switched(am, bm);
        for key in keys {
            let (x, y) = (am.get(key.as_str()), bm.get(key.as_str()));
            let kind = classify(key);
            if x == y && !holds_schema(kind) {
                continue; // the same value of a keyword that refers to nothing else
            }
            if instance_type(key).is_some_and(|t| !both_accept(am, bm, t)) {
                // Constraints on a type one side no longer (or not yet) accepts: the type change
                // says it all (an object argument that became a string has no properties left
                // to be "removed").
                continue;
            }
            let kptr = format!("{ptr}/{}", esc(key));
            match kind {
                Kw::Schema => {
                    if x != y {
                        let what = |v: Option<&Value>| v.map(|v| v.to_string()).unwrap_or_else(|| "(none)".into());
                        self.emit(
                            K::Dialect,
                            pos,
                            &kptr,
                            format!("schema dialect{} changed from {} to {}", self.of_tool(), what(x), what(y)),
                            x.cloned(),
                            y.cloned(),
                        );
                    }
                }
                Kw::Type => self.types(am, bm, ptr, pos),
                Kw::Enum => self.enums(am, bm, ptr, pos),
                Kw::EnumTitles | Kw::EnumDescriptions => {
                    if let (Some(Value::Object(xo)), Some(Value::Object(yo))) = (x, y) {
                        let k = if classify(key) == Kw::EnumTitles { K::TitleChanged } else { K::DescriptionChanged };
                        let what = if k == K::TitleChanged { "title" } else { "description" };
                        for (val, t) in xo {
                            if let Some(t2) = yo.get(val) {
                                if t != t2 {
                                    let k = if k == K::DescriptionChanged
                                        && same_words(t.as_str().unwrap_or(""), t2.as_str().unwrap_or(""))
                                    {
                                        K::DescriptionReflowed
                                    } else {
                                        k
                                    };
                                    let msg = format!(
                                        "{what} of enum value {} of {}{} changed",
                                        escape_hidden(val),
                                        self.label(ptr),
                                        self.of_tool()
                                    );
                                    self.emit(k, pos, &format!("{ptr}/enum"), msg, Some(t.clone()), Some(t2.clone()));
                                }
                            }
                        }
                    }
                }
                Kw::Required => self.required(am, bm, ptr, pos),
                Kw::Properties => self.properties(&a, &b, am, bm, ptr, deeper, "properties"),
                Kw::PatternProperties => self.properties(&a, &b, am, bm, ptr, deeper, "patternProperties"),
                Kw::AdditionalProperties
                | Kw::UnevaluatedProperties
                | Kw::UnevaluatedItems
                | Kw::Items
                | Kw::AdditionalItems => self.closable(&a, &b, key, ptr, deeper),
                Kw::PrefixItems => self.prefix_items(&a, &b, ptr, deeper),
                Kw::Contains | Kw::PropertyNames | Kw::ContentSchema | Kw::Then | Kw::Else => {
                    self.optional_schema(&a, &b, key, ptr, pos, deeper)
                }
                Kw::If => self.optional_schema(&a, &b, key, ptr, pos, Pos { in_if: true, ..deeper }),
                Kw::Not => self.optional_schema(&a, &b, key, ptr, pos, Pos { inverted: !pos.inverted, ..deeper }),
                // A definition validates only where a `$ref` uses it, and is compared there. One
                // that nothing reaches means nothing (servers attach all their shared definitions
                // to every tool): not compared.
                Kw::Defs => {}
                Kw::AllOf => self.branches(&a, &b, "allOf", "allOf", ptr, deeper),
                Kw::AnyOf | Kw::OneOf => self.union_keyword(&a, &b, am, key, x, y, &kptr, ptr, pos, deeper, switched),
                Kw::DependentSchemas => self.dependent_schemas(&a, &b, ptr, deeper),
                Kw::DependentRequired => self.dependent_required(x, y, &kptr, pos),
                Kw::NumericMax | Kw::NumericMin => {} // compared above as one effective bound
                Kw::Upper => self.bound(x, y, &kptr, key, pos, true),
                Kw::Lower => self.bound(x, y, &kptr, key, pos, false),
                Kw::Pattern | Kw::Format => self.pattern(x, y, &kptr, key, ptr, pos),
                Kw::MultipleOf => self.multiple_of(x, y, &kptr, ptr, pos),
                Kw::UniqueItems => {
                    let t = |v: Option<&Value>| v == Some(&Value::Bool(true));
                    if t(x) != t(y) {
                        let k = if t(y) { K::Tightened } else { K::Loosened };
                        let msg = format!(
                            "{}{} {} unique items",
                            self.label(ptr),
                            self.of_tool(),
                            if t(y) { "now requires" } else { "no longer requires" }
                        );
                        self.emit(k, pos, &kptr, msg, x.cloned(), y.cloned());
                    } else if x != y {
                        self.other(x, y, &kptr, key, ptr, pos);
                    }
                }
                Kw::Default => {
                    if x != y {
                        let (k, msg) = match (x, y) {
                            (None, Some(v)) => (
                                K::DefaultAdded,
                                format!("{}{} now has default {}", self.label(ptr), self.of_tool(), short(v)),
                            ),
                            (Some(v), None) => (
                                K::DefaultChanged,
                                format!("default {} of {}{} was removed", short(v), self.label(ptr), self.of_tool()),
                            ),
                            (Some(v), Some(w)) => (
                                K::DefaultChanged,
                                format!(
                                    "default of {}{} changed from {} to {}",
                                    self.label(ptr),
                                    self.of_tool(),
                                    short(v),
                                    short(w)
                                ),
                            ),
                            (None, None) => continue,
                        };
                        self.emit(k, pos, &kptr, msg, x.cloned(), y.cloned());
                    }
                }
                Kw::Description => {
                    if x != y {
                        let sx = x.and_then(Value::as_str).unwrap_or("");
                        let sy = y.and_then(Value::as_str).unwrap_or("");
                        let both_text = x.is_none_or(Value::is_string) && y.is_none_or(Value::is_string);
                        let k = if both_text && same_words(sx, sy) {
                            K::DescriptionReflowed
                        } else {
                            K::DescriptionChanged
                        };
                        let msg = match k {
                            K::DescriptionReflowed => format!(
                                "description of {}{} was reflowed (whitespace only)",
                                self.label(ptr),
                                self.of_tool()
                            ),
                            _ => match (x, y) {
                                (None, Some(_)) => {
                                    format!("{}{} now has a description", self.label(ptr), self.of_tool())
                                }
                                (Some(_), None) => {
                                    format!("description of {}{} was removed", self.label(ptr), self.of_tool())
                                }
                                _ => format!("description of {}{} changed", self.label(ptr), self.of_tool()),
                            },
                        };
                        self.emit(k, pos, &kptr, msg, x.cloned(), y.cloned());
                    }
                }
                Kw::Title => {
                    if x != y {
                        let msg = format!(
                            "title of {}{} changed from {} to {}",
                            self.label(ptr),
                            self.of_tool(),
                            opt_short(x),
                            opt_short(y)
                        );
                        self.emit(K::TitleChanged, pos, &kptr, msg, x.cloned(), y.cloned());
                    }
                }
                Kw::Ref => {
                    // Local refs were resolved; what is left is remote (or unresolvable).
                    if x != y {
                        let msg = format!(
                            "reference of {}{} changed from {} to {} (remote references are never fetched)",
                            self.label(ptr),
                            self.of_tool(),
                            opt_short(x),
                            opt_short(y)
                        );
                        self.emit(K::RefChanged, pos, &kptr, msg, x.cloned(), y.cloned());
                    }
                }
                Kw::Nullable => {
                    if x != y {
                        let msg = format!("{}{} changed whether it accepts null", self.label(ptr), self.of_tool());
                        let k = if y == Some(&Value::Bool(true)) { K::TypeWidened } else { K::TypeNarrowed };
                        self.emit(k, pos, &format!("{ptr}/type"), msg, None, None);
                    }
                }
                // 2026-07-28: the argument's value also travels as this HTTP header. Only
                // arguments (input) have one; elsewhere it is just another keyword.
                Kw::HeaderMapping if self.mode == Mode::Input && x != y => self.header_mapping(x, y, &kptr, ptr, pos),
                Kw::HeaderMapping => self.other(x, y, &kptr, key, ptr, pos),
                Kw::Other => self.other(x, y, &kptr, key, ptr, pos),
            }
        }
    }

    /// `anyOf` / `oneOf` (out of [`Walker::walk`]'s frame, which recurses once per level).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn union_keyword(
        &mut self,
        a: &Node<'a>,
        b: &Node<'a>,
        am: &Map<String, Value>,
        key: &str,
        x: Option<&Value>,
        y: Option<&Value>,
        kptr: &str,
        ptr: &str,
        pos: Pos,
        deeper: Pos,
        switched: bool,
    ) {
        if switched {
            // compared once, from the side that has anyOf
            if key == "anyOf" {
                let (ka, kb) = if am.contains_key("anyOf") { ("anyOf", "oneOf") } else { ("oneOf", "anyOf") };
                // oneOf rejects a value that matches two alternatives; anyOf accepts it
                let k = if kb == "oneOf" { K::Tightened } else { K::Loosened };
                // ... which makes no difference when no two alternatives can overlap
                // (a tagged union spelled with either keyword)
                let (one_of, one_of_side) = if kb == "oneOf" { (b, false) } else { (a, true) };
                let (alts, _) = self.alternatives(one_of, "oneOf", ptr, one_of_side);
                let values: Vec<&Value> = alts.iter().map(|n| n.v.as_ref()).collect();
                if !super::overlap::pairwise_disjoint(&values) {
                    self.emit(
                        k,
                        pos,
                        &format!("{ptr}/{kb}"),
                        format!(
                            "alternatives of {}{} changed from {ka} to {kb} ({})",
                            self.label(ptr),
                            self.of_tool(),
                            if kb == "oneOf" {
                                "a value matching several now fails"
                            } else {
                                "a value matching several is now accepted"
                            }
                        ),
                        None,
                        None,
                    );
                }
                self.branches(a, b, ka, kb, ptr, deeper);
            }
        } else if let (None, Some(Value::Array(alts))) | (Some(Value::Array(alts)), None) = (x, y) {
            // A union that appears where there was none narrows what is accepted
            // (every value must now match one alternative); one that goes widens it.
            let appeared = x.is_none();
            let (k, msg) = if appeared {
                (
                    K::Tightened,
                    format!(
                        "{}{} must now match one of {} `{key}` alternatives",
                        self.label(ptr),
                        self.of_tool(),
                        alts.len()
                    ),
                )
            } else {
                (
                    K::Loosened,
                    format!(
                        "{}{} no longer has to match one of {} `{key}` alternatives",
                        self.label(ptr),
                        self.of_tool(),
                        alts.len()
                    ),
                )
            };
            self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
        } else {
            self.branches(a, b, key, key, ptr, deeper);
        }
    }

    /// An argument's `x-mcp-header` appeared, changed or went (kept out of the walker's own
    /// frame: the walk recurses once per nesting level).
    #[inline(never)]
    fn header_mapping(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, ptr: &str, pos: Pos) {
        let show = |v: Option<&Value>| match v {
            Some(Value::String(h)) => format!("`{}`", escape_hidden(h)),
            Some(v) => short(v),
            None => "none".into(),
        };
        let msg = match (x, y) {
            (None, Some(_)) => format!(
                "{}{} is now also sent as HTTP header {} (visible to every proxy and log on the way)",
                self.label(ptr),
                self.of_tool(),
                show(y)
            ),
            (Some(_), None) => {
                format!("{}{} is no longer sent as HTTP header {}", self.label(ptr), self.of_tool(), show(x))
            }
            _ => format!(
                "{}{} is now sent as HTTP header {} (was {})",
                self.label(ptr),
                self.of_tool(),
                show(y),
                show(x)
            ),
        };
        self.emit(K::HeaderMapping, pos, kptr, msg, x.cloned(), y.cloned());
    }

    fn other(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, key: &str, ptr: &str, pos: Pos) {
        if x.map(canon) != y.map(canon) {
            let key = escape_hidden(key);
            let msg = match (x, y) {
                (None, Some(v)) => {
                    format!("keyword `{key}` added to {}{}: {}", self.label(ptr), self.of_tool(), short(v))
                }
                (Some(_), None) => format!("keyword `{key}` removed from {}{}", self.label(ptr), self.of_tool()),
                _ => format!(
                    "keyword `{key}` of {}{} changed from {} to {}",
                    self.label(ptr),
                    self.of_tool(),
                    opt_short(x),
                    opt_short(y)
                ),
            };
            self.emit(K::KeywordChanged, pos, kptr, msg, x.cloned(), y.cloned());
        }
    }

    #[inline(never)]
    fn types(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos) {
        let (tx, ty) = (am.get("type"), bm.get("type"));
        if tx == ty {
            return;
        }
        let all = || ALL_TYPES.iter().map(|s| s.to_string()).collect::<BTreeSet<String>>();
        let (sa, sb) = match (type_set(am), type_set(bm)) {
            (Some(a), Some(b)) => (a, b),
            (None, Some(b)) if tx.is_none() => (all(), b),
            (Some(a), None) if ty.is_none() => (a, all()),
            _ => {
                let kptr = format!("{ptr}/type");
                self.other(tx, ty, &kptr, "type", ptr, pos);
                return;
            }
        };
        // integer is a subset of number
        let covers = |set: &BTreeSet<String>, t: &str| set.contains(t) || (t == "integer" && set.contains("number"));
        let added: Vec<&String> = sb.iter().filter(|t| !covers(&sa, t)).collect();
        let removed: Vec<&String> = sa.iter().filter(|t| !covers(&sb, t)).collect();
        let kptr = format!("{ptr}/type");
        // Type names come from the server's schema: hidden characters in them are shown escaped.
        let list = |v: &[&String]| v.iter().map(|s| escape_hidden(s)).collect::<Vec<_>>().join(", ");
        let show = |s: &BTreeSet<String>| s.iter().map(|t| escape_hidden(t)).collect::<Vec<_>>().join(", ");
        let none_label = |s: &BTreeSet<String>| {
            if s.is_empty() {
                "nothing".to_string()
            } else {
                show(s)
            }
        };
        // A type replaced by one that shares no value with it (`string` to `array`, `object` to
        // `string`): one change. In input every old call now fails with an error (loud
        // type-narrowed, never also type-widened); in output a consumer now receives values it
        // never saw (silent output-type-widened).
        let disjoint = !sa.is_empty()
            && !sb.is_empty()
            && ty.is_some()
            && sa.iter().all(|t| !covers(&sb, t))
            && sb.iter().all(|t| !covers(&sa, t));
        if disjoint {
            let (k, why) = match self.mode {
                Mode::Input => (K::TypeNarrowed, "no value of the old type is accepted now"),
                Mode::Output => (K::TypeWidened, "a consumer now receives values of a type it never saw"),
            };
            let msg = format!(
                "{}{} changed type from {} to {}: {why}",
                self.label(ptr),
                self.of_tool(),
                show(&sa),
                show(&sb)
            );
            self.emit(k, pos, &kptr, msg, tx.cloned(), ty.cloned());
            return;
        }
        if !added.is_empty() {
            let msg = if ty.is_none() {
                format!(
                    "{}{} no longer has a type restriction (was {})",
                    self.label(ptr),
                    self.of_tool(),
                    none_label(&sa)
                )
            } else {
                format!(
                    "{}{} now also accepts {} (was {})",
                    self.label(ptr),
                    self.of_tool(),
                    list(&added),
                    none_label(&sa)
                )
            };
            self.emit(K::TypeWidened, pos, &kptr, msg, tx.cloned(), ty.cloned());
        }
        if !removed.is_empty() {
            let msg = format!(
                "{}{} no longer accepts {} (now {})",
                self.label(ptr),
                self.of_tool(),
                list(&removed),
                none_label(&sb)
            );
            self.emit(K::TypeNarrowed, pos, &kptr, msg, tx.cloned(), ty.cloned());
        }
    }

    fn enums(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos) {
        let (x, y) = (am.get("enum"), bm.get("enum"));
        if x == y {
            return;
        }
        let kptr = format!("{ptr}/enum");
        match (x, y) {
            (Some(Value::Array(ea)), Some(Value::Array(eb))) => {
                let ka: BTreeMap<String, &Value> = ea.iter().map(|v| (canon(v), v)).collect();
                let kb: BTreeMap<String, &Value> = eb.iter().map(|v| (canon(v), v)).collect();
                let ta = type_set(am).unwrap_or_default();
                let tb = type_set(bm).unwrap_or_default();
                let null_moved_with_type = ta.contains("null") != tb.contains("null");
                for (k, v) in &ka {
                    let null_with_type = v.is_null() && null_moved_with_type;
                    if !kb.contains_key(k) && !null_with_type {
                        if v.is_null() {
                            // null leaving a list of values is null no longer accepted: a type change
                            let msg = format!("{}{} no longer accepts null", self.label(ptr), self.of_tool());
                            self.emit(K::TypeNarrowed, pos, &kptr, msg, Some((*v).clone()), None);
                            continue;
                        }
                        let msg = format!(
                            "value {} is no longer in the enum of {}{}",
                            escape_hidden(k),
                            self.label(ptr),
                            self.of_tool()
                        );
                        self.emit(K::EnumRemoved, pos, &kptr, msg, Some((*v).clone()), None);
                    }
                }
                for (k, v) in &kb {
                    let null_with_type = v.is_null() && null_moved_with_type;
                    if !ka.contains_key(k) && !null_with_type {
                        if v.is_null() {
                            let msg = format!("{}{} now also accepts null", self.label(ptr), self.of_tool());
                            self.emit(K::TypeWidened, pos, &kptr, msg, None, Some((*v).clone()));
                            continue;
                        }
                        let msg = format!(
                            "value {} was added to the enum of {}{}",
                            escape_hidden(k),
                            self.label(ptr),
                            self.of_tool()
                        );
                        self.emit(K::EnumAdded, pos, &kptr, msg, None, Some((*v).clone()));
                    }
                }
            }
            (Some(_), None) => {
                let msg = format!("{}{} is no longer limited to a list of values", self.label(ptr), self.of_tool());
                self.emit(K::TypeWidened, pos, &kptr, msg, x.cloned(), None);
            }
            (None, Some(_)) => {
                let msg =
                    format!("{}{} is now limited to the values {}", self.label(ptr), self.of_tool(), opt_short(y));
                self.emit(K::TypeNarrowed, pos, &kptr, msg, None, y.cloned());
            }
            _ => {
                if x != y {
                    self.other(x, y, &kptr, "enum", ptr, pos);
                }
            }
        }
    }

    fn required(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos) {
        if am.get("required") == bm.get("required") {
            return;
        }
        let kptr = format!("{ptr}/required");
        let names = |m: &Map<String, Value>| -> Option<BTreeSet<String>> {
            match m.get("required") {
                None => Some(BTreeSet::new()),
                Some(Value::Array(a)) => {
                    Some(a.iter().map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| canon(v))).collect())
                }
                Some(_) => None,
            }
        };
        let (Some(ra), Some(rb)) = (names(am), names(bm)) else {
            self.other(am.get("required"), bm.get("required"), &kptr, "required", ptr, pos);
            return;
        };
        let noun = self.noun();
        let field = |name: &str| {
            let p = human_path(ptr);
            let full = if p.is_empty() { name.to_string() } else { format!("{p}.{name}") };
            format!("{} \"{}\"", noun, escape_hidden(&full))
        };
        // A required change points at the property it is about (`.../properties/query`), as the
        // JSON report contract promises, so an ignore on a property prefix covers it too.
        // A property that is gone, or new, is one change (`property-removed` / `required-added`),
        // not two: "now optional" would misdescribe a property that no longer exists.
        let listed = |m: &Map<String, Value>, n: &str| {
            m.get("properties").and_then(Value::as_object).is_some_and(|p| p.contains_key(n))
        };
        for n in ra.difference(&rb) {
            if listed(am, n) && !listed(bm, n) {
                continue;
            }
            let msg = format!("required {}{} is now optional", field(n), self.of_tool());
            let pptr = format!("{ptr}/properties/{}", esc(n));
            self.emit(K::RequiredRemoved, pos, &pptr, msg, Some(Value::String(n.clone())), None);
        }
        for n in rb.difference(&ra) {
            let msg = if listed(bm, n) && !listed(am, n) {
                format!("{}{} was added, required", field(n), self.of_tool())
            } else {
                format!("{}{} is now required", field(n), self.of_tool())
            };
            let pptr = format!("{ptr}/properties/{}", esc(n));
            self.emit(K::RequiredAdded, pos, &pptr, msg, None, Some(Value::String(n.clone())));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn properties(
        &mut self,
        a: &Node<'a>,
        b: &Node<'a>,
        am: &Map<String, Value>,
        bm: &Map<String, Value>,
        ptr: &str,
        pos: Pos,
        kw: &str,
    ) {
        let empty = Map::new();
        let pa = am.get(kw).and_then(Value::as_object).unwrap_or(&empty);
        let pb = bm.get(kw).and_then(Value::as_object).unwrap_or(&empty);
        let bad = |m: &Map<String, Value>| m.get(kw).is_some_and(|v| !v.is_object());
        if bad(am) || bad(bm) {
            self.other(am.get(kw), bm.get(kw), &format!("{ptr}/{kw}"), kw, ptr, pos);
            return;
        }
        let closed = bm.get("additionalProperties") == Some(&Value::Bool(false))
            || bm.get("unevaluatedProperties") == Some(&Value::Bool(false));
        let names: BTreeSet<&String> = pa.keys().chain(pb.keys()).collect();
        let outer = Pos { depth: pos.depth - 1, ..pos };
        for name in names {
            let cptr = format!("{ptr}/{kw}/{}", esc(name));
            let pattern = kw == "patternProperties";
            let what = || {
                if pattern {
                    format!("{}s matching /{}/", self.noun(), escape_hidden(name))
                } else {
                    format!("{} \"{}\"", self.noun(), human_path(&cptr))
                }
            };
            let (gone, came) =
                if pattern { ("are no longer described", "are now described") } else { ("was removed", "was added") };
            match (pa.get(name), pb.get(name)) {
                (Some(_), None) => {
                    let msg = format!("{}{} {gone}", what(), self.of_tool());
                    self.emit_as(K::PropertyRemoved, closed, outer, &cptr, msg, pa.get(name).cloned(), None);
                }
                (None, Some(_)) => {
                    let required = |m: &Map<String, Value>| {
                        m.get("required")
                            .and_then(Value::as_array)
                            .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name)))
                    };
                    if !pattern && required(bm) && !required(am) {
                        continue; // a new required property: reported once, as `required-added`
                    }
                    let msg = format!("{}{} {came}", what(), self.of_tool());
                    self.emit(K::PropertyAdded, outer, &cptr, msg, None, pb.get(name).cloned());
                }
                (Some(_), Some(_)) => {
                    if let (Some(ca), Some(cb)) = (a.child(&[kw, name]), b.child(&[kw, name])) {
                        self.walk(ca, cb, &cptr, pos);
                    }
                }
                (None, None) => {}
            }
        }
    }

    /// additionalProperties / items / unevaluated*: absent = `{}`, `false` = closed.
    fn closable(&mut self, a: &Node<'a>, b: &Node<'a>, key: &str, ptr: &str, pos: Pos) {
        let (x, y) = (a.get(key), b.get(key));
        if x.is_none() && y.is_none() {
            return;
        }
        let kptr = format!("{ptr}/{}", esc(key));
        let outer = Pos { depth: pos.depth - 1, ..pos };
        let is_false = |v: Option<&Value>| v == Some(&Value::Bool(false));
        if is_false(x) != is_false(y) {
            let (k, verb) = if is_false(y) { (K::Tightened, "now forbidden") } else { (K::Loosened, "now allowed") };
            let what = match key {
                "additionalProperties" | "unevaluatedProperties" => "properties it does not list are",
                _ => "items beyond the listed ones are",
            };
            let msg = format!("{}{}: {what} {verb} (`{key}`)", self.label(ptr), self.of_tool());
            self.emit(k, outer, &kptr, msg, x.cloned(), y.cloned());
            return;
        }
        if is_false(x) {
            return;
        }
        let ca = a.child(&[key]).unwrap_or_else(|| empty_node(a.child_raw(key)));
        let cb = b.child(&[key]).unwrap_or_else(|| empty_node(b.child_raw(key)));
        self.walk(ca, cb, &kptr, pos);
    }

    fn prefix_items(&mut self, a: &Node<'a>, b: &Node<'a>, ptr: &str, pos: Pos) {
        let len = |n: &Node<'a>| n.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
        let (la, lb) = (len(a), len(b));
        let bad = |n: &Node<'a>| n.get("prefixItems").is_some_and(|v| !v.is_array());
        if bad(a) || bad(b) {
            let kptr = format!("{ptr}/prefixItems");
            self.other(
                a.get("prefixItems"),
                b.get("prefixItems"),
                &kptr,
                "prefixItems",
                ptr,
                Pos { depth: pos.depth - 1, ..pos },
            );
            return;
        }
        for i in 0..la.max(lb) {
            let is = i.to_string();
            let cptr = format!("{ptr}/prefixItems/{i}");
            // a position beyond the tuple is governed by `items`
            let side = |n: &Node<'a>, l: usize| -> Node<'a> {
                if i < l {
                    n.child(&["prefixItems", &is]).unwrap_or_else(|| empty_node(n.child_raw("prefixItems")))
                } else {
                    match n.get("items") {
                        Some(Value::Bool(false)) => Node {
                            v: Cow::Owned(super::normalize::nothing()),
                            id: format!("{}#nothing", n.child_raw("items")),
                            raw: n.child_raw("items"),
                            site: None,
                        },
                        Some(_) => n.child(&["items"]).unwrap_or_else(|| empty_node(n.child_raw("items"))),
                        None => empty_node(format!("{}/{i}", n.child_raw("prefixItems"))),
                    }
                }
            };
            let (ca, cb) = (side(a, la), side(b, lb));
            self.walk(ca, cb, &cptr, pos);
        }
    }

    /// contains / not / if / then / else / propertyNames / contentSchema: present on one side only
    /// is a constraint added or dropped; on both, walked.
    fn optional_schema(&mut self, a: &Node<'a>, b: &Node<'a>, key: &str, ptr: &str, parent: Pos, child: Pos) {
        let (x, y) = (a.get(key), b.get(key));
        let kptr = format!("{ptr}/{}", esc(key));
        let (outer, pos) = (parent, child);
        match (x, y) {
            (Some(_), Some(_)) => {
                if let (Some(ca), Some(cb)) = (a.child(&[key]), b.child(&[key])) {
                    self.walk(ca, cb, &kptr, pos);
                }
            }
            (None, Some(v)) => {
                let msg = format!("{}{} has a new `{key}` constraint", self.label(ptr), self.of_tool());
                self.emit(K::Tightened, outer, &kptr, msg, None, Some(v.clone()));
            }
            (Some(v), None) => {
                let msg = format!("the `{key}` constraint of {}{} was removed", self.label(ptr), self.of_tool());
                self.emit(K::Loosened, outer, &kptr, msg, Some(v.clone()), None);
            }
            (None, None) => {}
        }
    }

    fn dependent_schemas(&mut self, a: &Node<'a>, b: &Node<'a>, ptr: &str, pos: Pos) {
        let empty = Map::new();
        let da = a.get("dependentSchemas").and_then(Value::as_object).unwrap_or(&empty);
        let db = b.get("dependentSchemas").and_then(Value::as_object).unwrap_or(&empty);
        let names: BTreeSet<&String> = da.keys().chain(db.keys()).collect();
        let outer = Pos { depth: pos.depth - 1, ..pos };
        for name in names {
            let cptr = format!("{ptr}/dependentSchemas/{}", esc(name));
            match (da.get(name), db.get(name)) {
                (Some(_), Some(_)) => {
                    if let (Some(ca), Some(cb)) =
                        (a.child(&["dependentSchemas", name]), b.child(&["dependentSchemas", name]))
                    {
                        self.walk(ca, cb, &cptr, pos);
                    }
                }
                (x, y) => {
                    let (k, verb) = if y.is_some() {
                        (K::Tightened, "now constrains")
                    } else {
                        (K::Loosened, "no longer constrains")
                    };
                    let msg = format!(
                        "{} \"{}\"{} {verb} the rest of the object when present",
                        self.noun(),
                        escape_hidden(name),
                        self.of_tool()
                    );
                    self.emit(k, outer, &cptr, msg, x.cloned(), y.cloned());
                }
            }
        }
    }

    fn dependent_required(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, pos: Pos) {
        let pairs = |v: Option<&Value>| -> BTreeSet<(String, String)> {
            let mut s = BTreeSet::new();
            if let Some(Value::Object(m)) = v {
                for (k, arr) in m {
                    if let Value::Array(a) = arr {
                        for n in a {
                            s.insert((k.clone(), n.as_str().map(str::to_string).unwrap_or_else(|| canon(n))));
                        }
                    }
                }
            }
            s
        };
        let (pa, pb) = (pairs(x), pairs(y));
        for (k, n) in pa.difference(&pb) {
            let msg = format!(
                "{} \"{}\"{} is no longer required when \"{}\" is present",
                self.noun(),
                escape_hidden(n),
                self.of_tool(),
                escape_hidden(k)
            );
            self.emit(K::Loosened, pos, kptr, msg, None, None);
        }
        for (k, n) in pb.difference(&pa) {
            let msg = format!(
                "{} \"{}\"{} is now required when \"{}\" is present",
                self.noun(),
                escape_hidden(n),
                self.of_tool(),
                escape_hidden(k)
            );
            self.emit(K::Tightened, pos, kptr, msg, None, None);
        }
    }

    /// maximum/exclusiveMaximum (upper) or minimum/exclusiveMinimum (lower) as one bound.
    fn numeric_bound(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos, upper: bool) {
        let (inc, exc) = if upper { ("maximum", "exclusiveMaximum") } else { ("minimum", "exclusiveMinimum") };
        // (value, exclusive); tighter = smaller for upper bounds, larger for lower bounds.
        let eff = |m: &Map<String, Value>| -> Result<Option<(Dec, bool)>, ()> {
            let i = match m.get(inc) {
                None => None,
                Some(v) => Some((Dec::from_value(v).ok_or(())?, false)),
            };
            let e = match m.get(exc) {
                None => None,
                Some(v) => Some((Dec::from_value(v).ok_or(())?, true)),
            };
            Ok(match (i, e) {
                (Some(i), Some(e)) => Some(if tighter(&e, &i, upper) { e } else { i }),
                (i, e) => i.or(e),
            })
        };
        let (ea, eb) = match (eff(am), eff(bm)) {
            (Ok(a), Ok(b)) => (a, b),
            _ => {
                for k in [inc, exc] {
                    if am.get(k) != bm.get(k) {
                        self.other(am.get(k), bm.get(k), &format!("{ptr}/{k}"), k, ptr, pos);
                    }
                }
                return;
            }
        };
        if ea == eb {
            return;
        }
        let kw_of = |e: &Option<(Dec, bool)>| e.as_ref().map(|(_, x)| if *x { exc } else { inc });
        let kptr = format!("{ptr}/{}", kw_of(&eb).or(kw_of(&ea)).unwrap_or(inc));
        let show = |e: &Option<(Dec, bool)>| match e {
            None => "none".to_string(),
            Some((d, x)) => format!(
                "{}{}",
                if upper {
                    if *x {
                        "< "
                    } else {
                        "<= "
                    }
                } else if *x {
                    "> "
                } else {
                    ">= "
                },
                d.canonical()
            ),
        };
        let k = match (&ea, &eb) {
            (None, Some(_)) => K::Tightened,
            (Some(_), None) => K::Loosened,
            (Some(x), Some(y)) => {
                if tighter(y, x, upper) {
                    K::Tightened
                } else {
                    K::Loosened
                }
            }
            (None, None) => return,
        };
        let msg = format!(
            "{} bound of {}{} changed from {} to {}",
            if upper { "upper" } else { "lower" },
            self.label(ptr),
            self.of_tool(),
            show(&ea),
            show(&eb)
        );
        let val = |e: &Option<(Dec, bool)>| e.as_ref().map(|(d, _)| Value::Number(d.to_number()));
        self.emit(k, pos, &kptr, msg, val(&ea), val(&eb));
    }

    fn bound(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, key: &str, pos: Pos, upper: bool) {
        if x == y {
            return;
        }
        let (dx, dy) = (x.map(Dec::from_value), y.map(Dec::from_value));
        if matches!(dx, Some(None)) || matches!(dy, Some(None)) {
            self.other(x, y, kptr, key, "", pos);
            return;
        }
        let (dx, dy) = (dx.flatten(), dy.flatten());
        let k = match (&dx, &dy) {
            (None, Some(_)) => K::Tightened,
            (Some(_), None) => K::Loosened,
            (Some(a), Some(b)) => {
                if (upper && b < a) || (!upper && b > a) {
                    K::Tightened
                } else if a == b {
                    return;
                } else {
                    K::Loosened
                }
            }
            (None, None) => return,
        };
        let ptr = kptr.rsplit_once('/').map(|x| x.0).unwrap_or("");
        let msg = format!(
            "`{key}` of {}{} changed from {} to {}",
            self.label(ptr),
            self.of_tool(),
            dx.map(|d| d.canonical()).unwrap_or_else(|| "none".into()),
            dy.map(|d| d.canonical()).unwrap_or_else(|| "none".into())
        );
        self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
    }

    fn pattern(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, key: &str, ptr: &str, pos: Pos) {
        if x == y {
            return;
        }
        let (k, msg) = match (x, y) {
            (None, Some(v)) => {
                (K::Tightened, format!("{}{} now must match {key} {}", self.label(ptr), self.of_tool(), short(v)))
            }
            (Some(v), None) => {
                (K::Loosened, format!("{key} {} of {}{} was dropped", short(v), self.label(ptr), self.of_tool()))
            }
            (Some(v), Some(w)) => (
                K::PatternChanged,
                format!(
                    "{key} of {}{} changed from {} to {}; whether it accepts more or less cannot be proven",
                    self.label(ptr),
                    self.of_tool(),
                    short(v),
                    short(w)
                ),
            ),
            (None, None) => return,
        };
        self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
    }

    fn multiple_of(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, ptr: &str, pos: Pos) {
        if x == y {
            return;
        }
        let k = match (x.and_then(Dec::from_value), y.and_then(Dec::from_value)) {
            (None, Some(_)) if x.is_none() => K::Tightened,
            (Some(_), None) if y.is_none() => K::Loosened,
            (Some(a), Some(b)) => match (a.divides(&b), b.divides(&a)) {
                (Some(true), _) => K::Tightened, // new is a multiple of old
                (_, Some(true)) => K::Loosened,
                _ => K::PatternChanged,
            },
            _ => {
                self.other(x, y, kptr, "multipleOf", ptr, pos);
                return;
            }
        };
        let msg = format!(
            "`multipleOf` of {}{} changed from {} to {}",
            self.label(ptr),
            self.of_tool(),
            opt_short(x),
            opt_short(y)
        );
        self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
    }

    /// allOf / anyOf / oneOf, matched by content.
    fn branches(&mut self, a: &Node<'a>, b: &Node<'a>, ka: &str, kb: &str, ptr: &str, pos: Pos) {
        let outer = Pos { depth: pos.depth - 1, ..pos };
        let (x, y) = (a.get(ka), b.get(kb));
        if !matches!((x, y), (None | Some(Value::Array(_)), None | Some(Value::Array(_)))) {
            self.other(x, y, &format!("{ptr}/{kb}"), kb, ptr, outer);
            return;
        }
        let (na, pa) = self.alternatives(a, ka, ptr, true);
        let (nb, pb) = self.alternatives(b, kb, ptr, false);
        self.match_branches(&na, &nb, &pa, &pb, ka, kb, ptr, pos);
    }

    /// The alternatives of union `kw` of `n`, resolved, with their pointers. `anyOf` is flattened
    /// (an alternative that is itself a pure `anyOf`, inline or behind a `$ref`, gives its own
    /// alternatives) and an alternative identical to an earlier one counts once:
    /// `anyOf[anyOf[A, B], C]` and `anyOf[A, B, C, C]` accept what `anyOf[A, B, C]` accepts.
    /// (`oneOf` is taken as written: nesting and duplicates change what it rejects.)
    fn alternatives(&self, n: &Node<'a>, kw: &str, ptr: &str, old_side: bool) -> (Vec<Node<'a>>, Vec<String>) {
        let mut out = (Vec::new(), Vec::new());
        let mut seen = HashSet::new();
        self.collect_alternatives(n, kw, ptr, old_side, 0, &mut seen, &mut out);
        out
    }

    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn collect_alternatives(
        &self,
        n: &Node<'a>,
        kw: &str,
        ptr: &str,
        old_side: bool,
        depth: usize,
        seen: &mut HashSet<String>,
        out: &mut (Vec<Node<'a>>, Vec<String>),
    ) {
        let len = n.get(kw).and_then(Value::as_array).map_or(0, Vec::len);
        for i in 0..len {
            let Some(c) = n.child(&[kw, &i.to_string()]) else {
                continue;
            };
            let c = self.resolve(c, old_side);
            let p = format!("{ptr}/{kw}/{i}");
            if kw == "anyOf" && depth < 8 && c.obj().and_then(pure_union) == Some("anyOf") {
                self.collect_alternatives(&c, kw, &p, old_side, depth + 1, seen, out);
                continue;
            }
            if kw == "anyOf" && !seen.insert(canon(&c.v)) {
                continue;
            }
            out.0.push(c);
            out.1.push(p);
        }
    }

    /// Whether to compare `a` and `b` as unions of which one side is a single alternative
    /// (`Some((that side is old, the union's keyword))`): a plain schema against a pure union (a
    /// union introduced or collapsed), or a union against a union that holds it as one of its
    /// alternatives (`oneOf[A, B]` becoming `anyOf[oneOf[A, B], C]`, or back).
    fn lift_case(&self, a: &Node<'a>, b: &Node<'a>) -> Option<(bool, &'static str)> {
        let (am, bm) = (a.obj()?, b.obj()?);
        let plain = |m: &Map<String, Value>| {
            !m.contains_key("anyOf") && !m.contains_key("oneOf") && m.keys().any(|k| !ANNOTATIONS.contains(&k.as_str()))
        };
        match (pure_union(am), pure_union(bm)) {
            (None, Some(kw)) if plain(am) => Some((true, kw)),
            (Some(kw), None) if plain(bm) => Some((false, kw)),
            (Some(ka), Some(kb)) if ka != kb || ka == "oneOf" => {
                let (a_holds, b_holds) = (self.holds_union(a, ka, true), self.holds_union(b, kb, false));
                if b_holds == Some(ka) && a_holds != Some(ka) {
                    Some((true, kb))
                } else if a_holds == Some(kb) && b_holds != Some(kb) {
                    Some((false, ka))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The keyword of the first alternative of union `kw` of `u` that is itself a pure union.
    fn holds_union(&self, u: &Node<'a>, kw: &str, old_side: bool) -> Option<&'static str> {
        let len = u.get(kw).and_then(Value::as_array).map_or(0, Vec::len);
        (0..len)
            .filter_map(|i| u.child(&[kw, &i.to_string()]))
            .find_map(|c| self.resolve(c, old_side).obj().and_then(pure_union))
    }

    /// A plain schema on one side, a pure `anyOf`/`oneOf` on the other (a union introduced or
    /// collapsed): the plain schema is compared as the one alternative it was, so
    /// `{type: object, ...}` becoming `anyOf: [{type: object, ...}, {...}]` is one alternative
    /// added (plus whatever changed in the matching one), not every keyword of the old schema
    /// gone. Annotations (`description`, `title`, ...) stay compared where they are.
    #[allow(clippy::too_many_arguments)]
    fn lifted(
        &mut self,
        a: &Node<'a>,
        b: &Node<'a>,
        plain_old: bool,
        kw: &'static str,
        ptr: &str,
        pos: Pos,
        deeper: Pos,
    ) {
        let (plain, union) = if plain_old { (a, b) } else { (b, a) };
        // Annotations the union carries outside its alternatives are compared there; the plain
        // side's other annotations go with its body into the alternative (a description that
        // moved into the matching alternative is no change).
        let outside: BTreeSet<&str> =
            ANNOTATIONS.iter().copied().filter(|k| *k == "$schema" || union.get(k).is_some()).collect();
        let part = |n: &Node<'a>, keep: &dyn Fn(&str) -> bool, tag: &str| -> Node<'a> {
            let m: Map<String, Value> =
                n.obj().into_iter().flatten().filter(|(k, _)| keep(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            Node {
                v: Cow::Owned(Value::Object(m)),
                id: format!("{}{tag}", n.id),
                raw: n.raw.clone(),
                site: n.site.clone(),
            }
        };
        let outer = |n: &Node<'a>| part(n, &|k| outside.contains(k), "#outside");
        self.walk(outer(a), outer(b), ptr, pos);
        let (alts, alt_ptrs) = self.alternatives(union, kw, ptr, !plain_old);
        let body = part(plain, &|k| !outside.contains(k), "#alternative");
        // A bare type set is a union of its types: `type: [string, number]` and
        // `anyOf: [{type: string}, {type: number}]` accept the same values.
        let bare_types: Option<Vec<String>> = body.obj().filter(|m| m.len() == 1).and_then(|m| match m.get("type") {
            Some(Value::Array(ts)) if ts.len() > 1 => ts.iter().map(|t| t.as_str().map(str::to_string)).collect(),
            _ => None,
        });
        let one: Vec<Node<'a>> = match &bare_types {
            Some(ts) => ts
                .iter()
                .map(|t| Node {
                    v: Cow::Owned(serde_json::json!({ "type": [t] })),
                    id: format!("{}#type-{t}", body.id),
                    raw: body.raw.clone(),
                    site: body.site.clone(),
                })
                .collect(),
            None => vec![body],
        };
        let one_ptr = vec![ptr.to_string(); one.len()];
        if plain_old && one.len() == 1 && self.split(&one[0], &alts, &alt_ptrs, kw, ptr, pos, deeper) {
            return;
        }
        if plain_old {
            self.match_branches(&one, &alts, &one_ptr, &alt_ptrs, kw, kw, ptr, deeper);
        } else {
            self.match_branches(&alts, &one, &alt_ptrs, &one_ptr, kw, kw, ptr, deeper);
        }
    }

    /// A schema split into alternatives each accepting part of what it accepted (one object
    /// with `type: a|b` and the properties of both, become `anyOf[{type: a, ...}, {type: b, ...}]`):
    /// one `constraint-tightened` for the split, plus whatever left every alternative (an enum
    /// value or a property no alternative keeps is gone). Arguments only, and only when every
    /// alternative is provably narrower; otherwise `false` and the alternatives are matched as
    /// usual.
    #[allow(clippy::too_many_arguments)]
    fn split(
        &mut self,
        body: &Node<'a>,
        alts: &[Node<'a>],
        alt_ptrs: &[String],
        kw: &str,
        ptr: &str,
        pos: Pos,
        deeper: Pos,
    ) -> bool {
        const NARROWER: [RuleId; 4] =
            [RuleId::ConstraintTightened, RuleId::TypeNarrowed, RuleId::EnumValueRemoved, RuleId::RequiredAdded];
        if self.mode != Mode::Input || !(2..=64).contains(&alts.len()) || self.trial >= 3 {
            return false;
        }
        // a change keyed without its alternative's pointer prefix, to compare across alternatives
        let base = self.base.len();
        let key = |c: &Change, alt_ptr: &str| {
            let suffix = c.pointer[(base + alt_ptr.len()).min(c.pointer.len())..].to_string();
            (c.rule, suffix, c.before.as_ref().map(canon).unwrap_or_default())
        };
        let mut walks = Vec::with_capacity(alts.len());
        for (alt, p) in alts.iter().zip(alt_ptrs) {
            let mut s = self.scratch();
            s.walk(body.clone(), alt.clone(), p, deeper);
            let narrower = s.out.iter().all(|c| {
                c.class == Class::Cosmetic
                    || NARROWER.contains(&c.rule)
                    || (c.rule == RuleId::PropertyRemoved && c.class == Class::Loud)
            });
            if !narrower || s.out.is_empty() {
                return false; // wider somewhere, or one alternative is the old schema itself
            }
            let keys: BTreeSet<(RuleId, String, String)> = s.out.iter().map(|c| key(c, p)).collect();
            walks.push((s.out, keys));
        }
        let msg = format!(
            "{}{} was split into {} `{kw}` alternatives, each accepting part of what it accepted",
            self.label(ptr),
            self.of_tool(),
            alts.len()
        );
        self.emit(K::Tightened, pos, &format!("{ptr}/{kw}"), msg, None, None);
        let (first, _) = &walks[0];
        let gone: Vec<Change> = first
            .iter()
            .filter(|c| matches!(c.rule, RuleId::EnumValueRemoved | RuleId::PropertyRemoved))
            .filter(|c| {
                let k = key(c, &alt_ptrs[0]);
                walks.iter().all(|(_, keys)| keys.contains(&k))
            })
            .cloned()
            .collect();
        self.out.extend(gone);
        true
    }

    /// Pair alternatives by content, walk the pairs, report the leftovers.
    #[allow(clippy::too_many_arguments)]
    fn match_branches(
        &mut self,
        na: &[Node<'a>],
        nb: &[Node<'a>],
        pa: &[String],
        pb: &[String],
        ka: &str,
        kb: &str,
        ptr: &str,
        pos: Pos,
    ) {
        let outer = Pos { depth: pos.depth - 1, ..pos };
        let mut used_a = vec![false; na.len()];
        let mut used_b = vec![false; nb.len()];
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        // 1. identical (by canonical text, then by an empty trial diff when small)
        let ca: Vec<String> = na.iter().map(|n| canon(&n.v)).collect();
        let cb: Vec<String> = nb.iter().map(|n| canon(&n.v)).collect();
        for i in 0..na.len() {
            if let Some(j) = (0..nb.len()).find(|&j| !used_b[j] && ca[i] == cb[j]) {
                used_a[i] = true;
                used_b[j] = true;
                pairs.push((i, j));
            }
        }
        let left = used_a.iter().filter(|u| !**u).count() * used_b.iter().filter(|u| !**u).count();
        if left > 0 && left <= 64 && self.trial < 3 {
            for i in 0..na.len() {
                if used_a[i] {
                    continue;
                }
                for j in 0..nb.len() {
                    if used_b[j] {
                        continue;
                    }
                    let mut s = self.scratch();
                    s.walk(na[i].clone(), nb[j].clone(), ptr, pos);
                    if s.out.iter().all(|c| c.class == Class::Cosmetic) {
                        used_a[i] = true;
                        used_b[j] = true;
                        pairs.push((i, j));
                        break;
                    }
                }
            }
        }
        // 2. most similar pairs
        let left = used_a.iter().filter(|u| !**u).count() * used_b.iter().filter(|u| !**u).count();
        if left > 0 && left <= 400 {
            let fa: Vec<BTreeSet<String>> = na.iter().map(|n| features(&n.v)).collect();
            let fb: Vec<BTreeSet<String>> = nb.iter().map(|n| features(&n.v)).collect();
            let mut cands: Vec<(u32, usize, usize)> = Vec::new();
            for i in (0..na.len()).filter(|&i| !used_a[i]) {
                for j in (0..nb.len()).filter(|&j| !used_b[j]) {
                    let inter = fa[i].intersection(&fb[j]).count();
                    let union = fa[i].union(&fb[j]).count().max(1);
                    let score = (inter * 1000 / union) as u32;
                    if score >= 500 {
                        cands.push((score, i, j));
                    }
                }
            }
            cands.sort_by(|p, q| q.0.cmp(&p.0).then(p.1.cmp(&q.1)).then(p.2.cmp(&q.2)));
            for (_, i, j) in cands {
                if !used_a[i] && !used_b[j] {
                    used_a[i] = true;
                    used_b[j] = true;
                    pairs.push((i, j));
                }
            }
        }
        // 3. what is left pairs by shape when the shape is unique on both sides: the one object
        //    alternative before and the one after are the same alternative, changed (and a union
        //    held as an alternative is the same union)
        let left_a: Vec<usize> = (0..na.len()).filter(|&i| !used_a[i]).collect();
        let left_b: Vec<usize> = (0..nb.len()).filter(|&j| !used_b[j]).collect();
        if !left_a.is_empty() && !left_b.is_empty() {
            let sa: Vec<Option<String>> = left_a.iter().map(|&i| shape(&na[i].v)).collect();
            let sb: Vec<Option<String>> = left_b.iter().map(|&j| shape(&nb[j].v)).collect();
            for (x, &i) in left_a.iter().enumerate() {
                let Some(k) = &sa[x] else { continue };
                let same_a = sa.iter().filter(|s| s.as_ref() == Some(k)).count();
                let on_b: Vec<usize> = (0..left_b.len()).filter(|&y| sb[y].as_ref() == Some(k)).collect();
                if same_a == 1 && on_b.len() == 1 {
                    let j = left_b[on_b[0]];
                    used_a[i] = true;
                    used_b[j] = true;
                    pairs.push((i, j));
                }
            }
        }
        pairs.sort_by_key(|p| p.1);
        for (i, j) in pairs {
            self.walk(na[i].clone(), nb[j].clone(), &pb[j], pos);
        }
        let is_all = kb == "allOf";
        // In a `oneOf`, an alternative overlapping another decides which values fail (those that
        // match two): adding or removing it moves acceptance both ways.
        let (va, vb) = (oneof_values(na, ka), oneof_values(nb, kb));
        for (i, n) in na.iter().enumerate().filter(|(i, _)| !used_a[*i]) {
            let cptr = &pa[i];
            let overlap = if ka == "oneOf" { super::overlap::first_overlap(&va, i) } else { None };
            let (k, msg) = if is_all {
                (
                    K::Loosened,
                    format!(
                        "a condition (`allOf` entry) of {}{} was removed: {}",
                        self.label(ptr),
                        self.of_tool(),
                        short(&n.v)
                    ),
                )
            } else if let Some(o) = overlap {
                (
                    K::PatternChanged,
                    format!(
                        "`oneOf` alternative {} of {}{} was removed; it may overlap alternative {}, so values matching both, rejected before, may now pass: the direction cannot be proven",
                        short(&n.v), self.label(ptr), self.of_tool(), short(&na[o].v)
                    ),
                )
            } else if is_null_only(&n.v) {
                (K::TypeNarrowed, format!("{}{} no longer accepts null", self.label(ptr), self.of_tool()))
            } else {
                (
                    K::BranchRemoved,
                    format!("alternative {} of {}{} was removed", short(&n.v), self.label(ptr), self.of_tool()),
                )
            };
            self.emit(k, outer, cptr, msg, Some(n.v.clone().into_owned()), None);
        }
        for (j, n) in nb.iter().enumerate().filter(|(j, _)| !used_b[*j]) {
            let cptr = &pb[j];
            let overlap = if kb == "oneOf" { super::overlap::first_overlap(&vb, j) } else { None };
            let (k, msg) = if is_all {
                (
                    K::Tightened,
                    format!(
                        "{}{} has a new condition (`allOf` entry): {}",
                        self.label(ptr),
                        self.of_tool(),
                        short(&n.v)
                    ),
                )
            } else if let Some(o) = overlap {
                (
                    K::PatternChanged,
                    format!(
                        "{}{} has a new `oneOf` alternative {} that may overlap alternative {}, so values matching both now fail: the direction cannot be proven",
                        self.label(ptr), self.of_tool(), short(&n.v), short(&nb[o].v)
                    ),
                )
            } else if is_null_only(&n.v) {
                // `null` joining a union: the same change as `null` joining a `type`
                (K::TypeWidened, format!("{}{} now also accepts null", self.label(ptr), self.of_tool()))
            } else {
                (
                    K::BranchAdded,
                    format!("{}{} accepts a new alternative {}", self.label(ptr), self.of_tool(), short(&n.v)),
                )
            };
            self.emit(k, outer, cptr, msg, None, Some(n.v.clone().into_owned()));
        }
    }
}

/// The alternatives' schemas when they are `oneOf`'s, for the overlap check (which only `oneOf`
/// needs); nothing otherwise.
fn oneof_values<'n>(all: &'n [Node<'_>], kw: &str) -> Vec<&'n Value> {
    if kw == "oneOf" {
        all.iter().map(|n| n.v.as_ref()).collect()
    } else {
        Vec::new()
    }
}

/// `{type: [null]}` (normalised): an alternative that accepts only null.
fn is_null_only(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.len() == 1 && matches!(m.get("type"), Some(Value::Array(t)) if t.len() == 1 && t[0] == "null")
    })
}

/// Keywords whose value holds sub-schemas: equal text may still differ through a `$ref`.
fn holds_schema(k: Kw) -> bool {
    matches!(
        k,
        Kw::Properties
            | Kw::PatternProperties
            | Kw::AdditionalProperties
            | Kw::UnevaluatedProperties
            | Kw::UnevaluatedItems
            | Kw::Items
            | Kw::AdditionalItems
            | Kw::PrefixItems
            | Kw::Contains
            | Kw::Defs
            | Kw::AllOf
            | Kw::AnyOf
            | Kw::OneOf
            | Kw::Not
            | Kw::If
            | Kw::Then
            | Kw::Else
            | Kw::DependentSchemas
            | Kw::PropertyNames
            | Kw::ContentSchema
    )
}

fn tighter(x: &(Dec, bool), y: &(Dec, bool), upper: bool) -> bool {
    if x.0 == y.0 {
        return x.1 && !y.1;
    }
    if upper {
        x.0 < y.0
    } else {
        x.0 > y.0
    }
}

/// The instance type a keyword constrains, for the keywords that constrain only one.
fn instance_type(key: &str) -> Option<&'static str> {
    Some(match key {
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "unevaluatedProperties"
        | "required"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas" => "object",
        "items" | "prefixItems" | "additionalItems" | "unevaluatedItems" | "contains" | "minItems" | "maxItems"
        | "uniqueItems" | "minContains" | "maxContains" => "array",
        "minLength" | "maxLength" | "pattern" => "string",
        "maximum" | "minimum" | "exclusiveMaximum" | "exclusiveMinimum" | "multipleOf" => "number",
        _ => return None,
    })
}

/// Whether both schemas accept instances of type `t` (a schema without `type` accepts all).
fn both_accept(a: &Map<String, Value>, b: &Map<String, Value>, t: &str) -> bool {
    let accepts = |m: &Map<String, Value>| {
        let has = |s: &str| s == t || (t == "number" && s == "integer");
        match m.get("type") {
            Some(Value::String(s)) => has(s),
            Some(Value::Array(v)) => v.iter().any(|x| x.as_str().is_some_and(has)),
            _ => true,
        }
    };
    accepts(a) && accepts(b)
}

/// Keywords that describe a schema without constraining its values.
const ANNOTATIONS: &[&str] =
    &["description", "title", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly", "$schema"];

/// What kind of alternative a schema is, for pairing leftovers: a union of some keyword, or a
/// set of types; `None` when it says neither.
fn shape(v: &Value) -> Option<String> {
    let m = v.as_object()?;
    if let Some(kw) = pure_union(m) {
        return Some(kw.to_string());
    }
    match m.get("type")? {
        Value::String(t) => Some(t.clone()),
        Value::Array(ts) => {
            let mut ts: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            ts.sort_unstable();
            Some(ts.join(","))
        }
        _ => None,
    }
}

/// The keyword of a pure union: `anyOf` or `oneOf` (an array) and nothing else but annotations.
fn pure_union(m: &Map<String, Value>) -> Option<&'static str> {
    let kw = match (m.get("anyOf"), m.get("oneOf")) {
        (Some(Value::Array(_)), None) => "anyOf",
        (None, Some(Value::Array(_))) => "oneOf",
        _ => return None,
    };
    m.keys().all(|k| k == kw || ANNOTATIONS.contains(&k.as_str())).then_some(kw)
}

fn composition_switched(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let has = |m: &Map<String, Value>, k: &str| m.contains_key(k);
    (has(a, "anyOf") && !has(a, "oneOf") && has(b, "oneOf") && !has(b, "anyOf"))
        || (has(a, "oneOf") && !has(a, "anyOf") && has(b, "anyOf") && !has(b, "oneOf"))
}

/// Leaf features of a schema for similarity: every path, and every path=value.
fn features(v: &Value) -> BTreeSet<String> {
    fn go(v: &Value, path: &str, out: &mut BTreeSet<String>, depth: usize) {
        if out.len() > 400 || depth > 32 {
            return;
        }
        match v {
            Value::Object(m) if !m.is_empty() => {
                for (k, x) in m {
                    let p = format!("{path}/{k}");
                    out.insert(p.clone());
                    go(x, &p, out, depth + 1);
                }
            }
            other => {
                out.insert(format!("{path}={}", canon(other)));
            }
        }
    }
    let mut out = BTreeSet::new();
    go(v, "", &mut out, 0);
    out
}

/// `/properties/filters/properties/status` -> `filters.status`; `/items` -> `[]`.
pub fn human_path(ptr: &str) -> String {
    let segs: Vec<String> = ptr.split('/').skip(1).map(unesc).collect();
    let mut out = String::new();
    let mut i = 0;
    while i < segs.len() {
        let s = segs[i].as_str();
        match s {
            "properties" if i + 1 < segs.len() => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&segs[i + 1]);
                i += 2;
                continue;
            }
            "items" => out.push_str("[]"),
            "prefixItems" if i + 1 < segs.len() => {
                out.push_str(&format!("[{}]", segs[i + 1]));
                i += 2;
                continue;
            }
            "additionalProperties" => out.push_str(".*"),
            "anyOf" | "oneOf" | "allOf" if i + 1 < segs.len() => {
                out.push_str(&format!("<{s} {}>", segs[i + 1]));
                i += 2;
                continue;
            }
            "$defs" if i + 1 < segs.len() => {
                out.push_str(&format!("$defs.{}", segs[i + 1]));
                i += 2;
                continue;
            }
            other => out.push_str(&format!("<{other}>")),
        }
        i += 1;
    }
    escape_hidden(&out)
}

/// A short one-line rendering of a value for messages (hidden characters escaped).
pub fn short(v: &Value) -> String {
    let s = canon(v);
    let s = if s.chars().count() > 80 { format!("{}...", s.chars().take(77).collect::<String>()) } else { s };
    escape_hidden(&s)
}

fn opt_short(v: Option<&Value>) -> String {
    v.map(short).unwrap_or_else(|| "(none)".into())
}
