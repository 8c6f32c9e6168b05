//! Unions and branches: `anyOf`/`oneOf`/`allOf` alternatives collected (flattened, deduplicated),
//! matched by content, then by similarity, then by shape; a plain schema lifted into a union, a
//! schema split into alternatives, and `oneOf` overlap.

use super::*;

/// The alternatives' schemas when they are `oneOf`'s, for the overlap check (which only `oneOf`
/// needs); nothing otherwise.
pub(super) fn oneof_values<'n>(all: &'n [Node<'_>], kw: &str) -> Vec<&'n Value> {
    if kw == "oneOf" {
        all.iter().map(|n| n.v.as_ref()).collect()
    } else {
        Vec::new()
    }
}

/// `{type: [null]}` (normalised): an alternative that accepts only null.
pub(super) fn is_null_only(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.len() == 1 && matches!(m.get("type"), Some(Value::Array(t)) if t.len() == 1 && t[0] == "null")
    })
}

/// Keywords that describe a schema without constraining its values.
pub(super) const ANNOTATIONS: &[&str] =
    &["description", "title", "$comment", "default", "examples", "deprecated", "readOnly", "writeOnly", "$schema"];

/// What kind of alternative a schema is, for pairing leftovers: a union of some keyword, or a
/// set of types; `None` when it says neither.
pub(super) fn shape(v: &Value) -> Option<String> {
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
pub(super) fn pure_union(m: &Map<String, Value>) -> Option<&'static str> {
    let kw = match (m.get("anyOf"), m.get("oneOf")) {
        (Some(Value::Array(_)), None) => "anyOf",
        (None, Some(Value::Array(_))) => "oneOf",
        _ => return None,
    };
    m.keys().all(|k| k == kw || ANNOTATIONS.contains(&k.as_str())).then_some(kw)
}

pub(super) fn composition_switched(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let has = |m: &Map<String, Value>, k: &str| m.contains_key(k);
    (has(a, "anyOf") && !has(a, "oneOf") && has(b, "oneOf") && !has(b, "anyOf"))
        || (has(a, "oneOf") && !has(a, "anyOf") && has(b, "anyOf") && !has(b, "oneOf"))
}

/// Leaf features of a schema for similarity: every path, and every path=value.
pub(super) fn features(v: &Value) -> BTreeSet<String> {
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

impl<'a> Walker<'a> {
    /// `anyOf` / `oneOf` (out of [`Walker::walk`]'s frame, which recurses once per level).
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn union_keyword(
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
                if !crate::diff::overlap::pairwise_disjoint(&values) {
                    self.emit(k, pos, &format!("{ptr}/{kb}"), self.say_union_keyword(ptr, ka, kb), None, None);
                }
                self.branches(a, b, ka, kb, ptr, deeper);
            }
        } else if let (None, Some(Value::Array(alts))) | (Some(Value::Array(alts)), None) = (x, y) {
            // A union that appears where there was none narrows what is accepted
            // (every value must now match one alternative); one that goes widens it.
            let appeared = x.is_none();
            let k = if appeared { K::Tightened } else { K::Loosened };
            let msg = self.say_union_appeared(ptr, key, alts.len(), appeared);
            self.emit(k, pos, kptr, msg, x.cloned(), y.cloned());
        } else {
            self.branches(a, b, key, key, ptr, deeper);
        }
    }

    /// allOf / anyOf / oneOf, matched by content.
    pub(super) fn branches(&mut self, a: &Node<'a>, b: &Node<'a>, ka: &str, kb: &str, ptr: &str, pos: Pos) {
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
    pub(super) fn alternatives(
        &self,
        n: &Node<'a>,
        kw: &str,
        ptr: &str,
        old_side: bool,
    ) -> (Vec<Node<'a>>, Vec<String>) {
        let mut out = (Vec::new(), Vec::new());
        let mut seen = HashSet::new();
        self.collect_alternatives(n, kw, ptr, old_side, 0, &mut seen, &mut out);
        out
    }

    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub(super) fn collect_alternatives(
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
    pub(super) fn lift_case(&self, a: &Node<'a>, b: &Node<'a>) -> Option<(bool, &'static str)> {
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
    pub(super) fn holds_union(&self, u: &Node<'a>, kw: &str, old_side: bool) -> Option<&'static str> {
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
    pub(super) fn lifted(
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
    pub(super) fn split(
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
        let msg = self.say_split(ptr, kw, alts.len());
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
    pub(super) fn match_branches(
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
            let overlap = if ka == "oneOf" { crate::diff::overlap::first_overlap(&va, i) } else { None };
            let (k, msg) = if is_all {
                (K::Loosened, self.say_all_of_entry(ptr, &n.v, false))
            } else if let Some(o) = overlap {
                (K::PatternChanged, self.say_overlapping_alternative(ptr, &n.v, &na[o].v, false))
            } else if is_null_only(&n.v) {
                (K::TypeNarrowed, self.say_null(ptr, false))
            } else {
                (K::BranchRemoved, self.say_alternative(ptr, &n.v, false))
            };
            self.emit(k, outer, cptr, msg, Some(n.v.clone().into_owned()), None);
        }
        for (j, n) in nb.iter().enumerate().filter(|(j, _)| !used_b[*j]) {
            let cptr = &pb[j];
            let overlap = if kb == "oneOf" { crate::diff::overlap::first_overlap(&vb, j) } else { None };
            let (k, msg) = if is_all {
                (K::Tightened, self.say_all_of_entry(ptr, &n.v, true))
            } else if let Some(o) = overlap {
                (K::PatternChanged, self.say_overlapping_alternative(ptr, &n.v, &nb[o].v, true))
            } else if is_null_only(&n.v) {
                // `null` joining a union: the same change as `null` joining a `type`
                (K::TypeWidened, self.say_null(ptr, true))
            } else {
                (K::BranchAdded, self.say_alternative(ptr, &n.v, true))
            };
            self.emit(k, outer, cptr, msg, None, Some(n.v.clone().into_owned()));
        }
    }
}
