//! The keyword match: [`Walker::walk`] compares two resolved nodes keyword by keyword, with one
//! arm for every [`Kw`] and no catch-all, so a keyword nobody handled is a compile error; the
//! per-keyword comparisons (types, enums, required, properties, bounds, patterns...) follow.

use super::*;
use crate::json::pointer_token;

/// Every keyword the walker knows. `classify` maps a key to one; `walk` matches them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kw {
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

pub(super) fn classify(k: &str) -> Kw {
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

/// Keywords whose value holds sub-schemas: equal text may still differ through a `$ref`.
pub(super) fn holds_schema(k: Kw) -> bool {
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

pub(super) fn tighter(x: &(Dec, bool), y: &(Dec, bool), upper: bool) -> bool {
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
pub(super) fn instance_type(key: &str) -> Option<&'static str> {
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
pub(super) fn both_accept(a: &Map<String, Value>, b: &Map<String, Value>, t: &str) -> bool {
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

impl<'a> Walker<'a> {
    pub(super) fn walk(&mut self, a: Node<'a>, b: Node<'a>, ptr: &str, pos: Pos) {
        let a = self.resolve(a, true);
        let b = self.resolve(b, false);
        if !self.visited.insert((a.id.clone(), b.id.clone(), pos.inverted, pos.in_if)) {
            return;
        }
        if pos.depth > MAX_DEPTH {
            if canon(&a.v) != canon(&b.v) {
                self.emit(K::TooDeep, pos, ptr, self.say_too_deep(ptr), None, None);
            }
            return;
        }
        if a.obj().is_none() || b.obj().is_none() {
            if canon(&a.v) != canon(&b.v) {
                self.emit(
                    K::KeywordChanged,
                    pos,
                    ptr,
                    self.say_not_a_schema(ptr),
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
            let kptr = format!("{ptr}/{}", pointer_token(key));
            match kind {
                Kw::Schema => {
                    if x != y {
                        self.emit(K::Dialect, pos, &kptr, self.say_dialect(x, y), x.cloned(), y.cloned());
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
                                    let msg = self.say_enum_value_text(ptr, what, val);
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
                        self.emit(k, pos, &kptr, self.say_unique_items(ptr, t(y)), x.cloned(), y.cloned());
                    } else if x != y {
                        self.other(x, y, &kptr, key, ptr, pos);
                    }
                }
                Kw::Default => {
                    if x != y {
                        let k = if x.is_none() { K::DefaultAdded } else { K::DefaultChanged };
                        self.emit(k, pos, &kptr, self.say_default(ptr, x, y), x.cloned(), y.cloned());
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
                        let msg = self.say_description(ptr, k == K::DescriptionReflowed, x, y);
                        self.emit(k, pos, &kptr, msg, x.cloned(), y.cloned());
                    }
                }
                Kw::Title => {
                    if x != y {
                        self.emit(K::TitleChanged, pos, &kptr, self.say_title(ptr, x, y), x.cloned(), y.cloned());
                    }
                }
                Kw::Ref => {
                    // Local refs were resolved; what is left is remote (or unresolvable).
                    if x != y {
                        self.emit(K::RefChanged, pos, &kptr, self.say_ref(ptr, x, y), x.cloned(), y.cloned());
                    }
                }
                Kw::Nullable => {
                    if x != y {
                        let k = if y == Some(&Value::Bool(true)) { K::TypeWidened } else { K::TypeNarrowed };
                        self.emit(k, pos, &format!("{ptr}/type"), self.say_nullable(ptr), None, None);
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

    /// An argument's `x-mcp-header` appeared, changed or went (kept out of the walker's own
    /// frame: the walk recurses once per nesting level).
    #[inline(never)]
    pub(super) fn header_mapping(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, ptr: &str, pos: Pos) {
        let msg = self.say_header_mapping(ptr, x, y);
        self.emit(K::HeaderMapping, pos, kptr, msg, x.cloned(), y.cloned());
    }

    pub(super) fn other(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, key: &str, ptr: &str, pos: Pos) {
        if x.map(canon) != y.map(canon) {
            let msg = self.say_keyword(key, ptr, x, y);
            self.emit(K::KeywordChanged, pos, kptr, msg, x.cloned(), y.cloned());
        }
    }

    #[inline(never)]
    pub(super) fn types(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos) {
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
            let msg = self.say_type_replaced(ptr, &show(&sa), &show(&sb), why);
            self.emit(k, pos, &kptr, msg, tx.cloned(), ty.cloned());
            return;
        }
        if !added.is_empty() {
            let msg = if ty.is_none() {
                self.say_type_dropped(ptr, &none_label(&sa))
            } else {
                self.say_type_added(ptr, &list(&added), &none_label(&sa))
            };
            self.emit(K::TypeWidened, pos, &kptr, msg, tx.cloned(), ty.cloned());
        }
        if !removed.is_empty() {
            let msg = self.say_type_removed(ptr, &list(&removed), &none_label(&sb));
            self.emit(K::TypeNarrowed, pos, &kptr, msg, tx.cloned(), ty.cloned());
        }
    }

    pub(super) fn enums(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos) {
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
                            let msg = self.say_null(ptr, false);
                            self.emit(K::TypeNarrowed, pos, &kptr, msg, Some((*v).clone()), None);
                            continue;
                        }
                        let msg = self.say_enum_value(ptr, k, false);
                        self.emit(K::EnumRemoved, pos, &kptr, msg, Some((*v).clone()), None);
                    }
                }
                for (k, v) in &kb {
                    let null_with_type = v.is_null() && null_moved_with_type;
                    if !ka.contains_key(k) && !null_with_type {
                        if v.is_null() {
                            let msg = self.say_null(ptr, true);
                            self.emit(K::TypeWidened, pos, &kptr, msg, None, Some((*v).clone()));
                            continue;
                        }
                        let msg = self.say_enum_value(ptr, k, true);
                        self.emit(K::EnumAdded, pos, &kptr, msg, None, Some((*v).clone()));
                    }
                }
            }
            (Some(_), None) => {
                self.emit(K::TypeWidened, pos, &kptr, self.say_enum_whole(ptr, None), x.cloned(), None);
            }
            (None, Some(_)) => {
                self.emit(K::TypeNarrowed, pos, &kptr, self.say_enum_whole(ptr, y), None, y.cloned());
            }
            _ => {
                if x != y {
                    self.other(x, y, &kptr, "enum", ptr, pos);
                }
            }
        }
    }

    pub(super) fn required(&mut self, am: &Map<String, Value>, bm: &Map<String, Value>, ptr: &str, pos: Pos) {
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
            let msg = self.say_required_removed(ptr, n);
            let pptr = format!("{ptr}/properties/{}", pointer_token(n));
            self.emit(K::RequiredRemoved, pos, &pptr, msg, Some(Value::String(n.clone())), None);
        }
        for n in rb.difference(&ra) {
            let msg = self.say_required_added(ptr, n, listed(bm, n) && !listed(am, n));
            let pptr = format!("{ptr}/properties/{}", pointer_token(n));
            self.emit(K::RequiredAdded, pos, &pptr, msg, None, Some(Value::String(n.clone())));
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn properties(
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
            let cptr = format!("{ptr}/{kw}/{}", pointer_token(name));
            let pattern = kw == "patternProperties";
            match (pa.get(name), pb.get(name)) {
                (Some(_), None) => {
                    let msg = self.say_property(&cptr, name, pattern, false);
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
                    let msg = self.say_property(&cptr, name, pattern, true);
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
    pub(super) fn closable(&mut self, a: &Node<'a>, b: &Node<'a>, key: &str, ptr: &str, pos: Pos) {
        let (x, y) = (a.get(key), b.get(key));
        if x.is_none() && y.is_none() {
            return;
        }
        let kptr = format!("{ptr}/{}", pointer_token(key));
        let outer = Pos { depth: pos.depth - 1, ..pos };
        let is_false = |v: Option<&Value>| v == Some(&Value::Bool(false));
        if is_false(x) != is_false(y) {
            let k = if is_false(y) { K::Tightened } else { K::Loosened };
            let msg = self.say_closed(ptr, key, is_false(y));
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

    pub(super) fn prefix_items(&mut self, a: &Node<'a>, b: &Node<'a>, ptr: &str, pos: Pos) {
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
                            v: Cow::Owned(crate::diff::normalize::nothing()),
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
    pub(super) fn optional_schema(
        &mut self,
        a: &Node<'a>,
        b: &Node<'a>,
        key: &str,
        ptr: &str,
        parent: Pos,
        child: Pos,
    ) {
        let (x, y) = (a.get(key), b.get(key));
        let kptr = format!("{ptr}/{}", pointer_token(key));
        let (outer, pos) = (parent, child);
        match (x, y) {
            (Some(_), Some(_)) => {
                if let (Some(ca), Some(cb)) = (a.child(&[key]), b.child(&[key])) {
                    self.walk(ca, cb, &kptr, pos);
                }
            }
            (None, Some(v)) => {
                let msg = self.say_subschema(ptr, key, true);
                self.emit(K::Tightened, outer, &kptr, msg, None, Some(v.clone()));
            }
            (Some(v), None) => {
                let msg = self.say_subschema(ptr, key, false);
                self.emit(K::Loosened, outer, &kptr, msg, Some(v.clone()), None);
            }
            (None, None) => {}
        }
    }

    pub(super) fn dependent_schemas(&mut self, a: &Node<'a>, b: &Node<'a>, ptr: &str, pos: Pos) {
        let empty = Map::new();
        let da = a.get("dependentSchemas").and_then(Value::as_object).unwrap_or(&empty);
        let db = b.get("dependentSchemas").and_then(Value::as_object).unwrap_or(&empty);
        let names: BTreeSet<&String> = da.keys().chain(db.keys()).collect();
        let outer = Pos { depth: pos.depth - 1, ..pos };
        for name in names {
            let cptr = format!("{ptr}/dependentSchemas/{}", pointer_token(name));
            match (da.get(name), db.get(name)) {
                (Some(_), Some(_)) => {
                    if let (Some(ca), Some(cb)) =
                        (a.child(&["dependentSchemas", name]), b.child(&["dependentSchemas", name]))
                    {
                        self.walk(ca, cb, &cptr, pos);
                    }
                }
                (x, y) => {
                    let k = if y.is_some() { K::Tightened } else { K::Loosened };
                    let msg = self.say_dependent_schema(name, y.is_some());
                    self.emit(k, outer, &cptr, msg, x.cloned(), y.cloned());
                }
            }
        }
    }

    pub(super) fn dependent_required(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, pos: Pos) {
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
            let msg = self.say_dependent_required(n, k, false);
            self.emit(K::Loosened, pos, kptr, msg, None, None);
        }
        for (k, n) in pb.difference(&pa) {
            let msg = self.say_dependent_required(n, k, true);
            self.emit(K::Tightened, pos, kptr, msg, None, None);
        }
    }

    /// maximum/exclusiveMaximum (upper) or minimum/exclusiveMinimum (lower) as one bound.
    pub(super) fn numeric_bound(
        &mut self,
        am: &Map<String, Value>,
        bm: &Map<String, Value>,
        ptr: &str,
        pos: Pos,
        upper: bool,
    ) {
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
        let msg = self.say_numeric_bound(ptr, upper, &show(&ea), &show(&eb));
        let val = |e: &Option<(Dec, bool)>| e.as_ref().map(|(d, _)| Value::Number(d.to_number()));
        self.emit(k, pos, &kptr, msg, val(&ea), val(&eb));
    }

    pub(super) fn bound(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, key: &str, pos: Pos, upper: bool) {
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
        let msg = self.say_bound(
            ptr,
            key,
            &dx.map(|d| d.canonical()).unwrap_or_else(|| "none".into()),
            &dy.map(|d| d.canonical()).unwrap_or_else(|| "none".into()),
        );
        self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
    }

    pub(super) fn pattern(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, key: &str, ptr: &str, pos: Pos) {
        if x == y {
            return;
        }
        let k = match (x, y) {
            (None, Some(_)) => K::Tightened,
            (Some(_), None) => K::Loosened,
            (Some(_), Some(_)) => K::PatternChanged,
            (None, None) => return,
        };
        self.emit(k, pos, kptr, self.say_pattern(ptr, key, x, y), x.cloned(), y.cloned());
    }

    pub(super) fn multiple_of(&mut self, x: Option<&Value>, y: Option<&Value>, kptr: &str, ptr: &str, pos: Pos) {
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
        let msg = self.say_multiple_of(ptr, x, y);
        self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
    }
}
