//! Where a schema node lives and what a local `$ref` points to: [`Node`] (a value and its raw
//! location, the identity of the visited set), JSON-pointer escaping, and [`Walker::resolve`],
//! which follows local references (siblings override the target) and stops on cycles.

use super::*;
use crate::json::{from_pointer_token, pointer_token};

/// A schema node: its (possibly merged) value and where it lives in the raw document.
#[derive(Clone)]
pub(super) struct Node<'a> {
    pub(super) v: Cow<'a, Value>,
    /// Raw JSON pointer of the node (identity for the visited set).
    pub(super) id: String,
    /// Raw base for children: keys in `sib` live under `site`, the rest under `raw`.
    pub(super) raw: String,
    pub(super) site: Option<(String, BTreeSet<String>)>,
}

impl<'a> Node<'a> {
    pub(super) fn root(v: &'a Value) -> Node<'a> {
        Node { v: Cow::Borrowed(v), id: String::new(), raw: String::new(), site: None }
    }

    pub(super) fn obj(&self) -> Option<&Map<String, Value>> {
        self.v.as_object()
    }

    pub(super) fn get(&self, k: &str) -> Option<&Value> {
        self.obj().and_then(|m| m.get(k))
    }

    pub(super) fn child_raw(&self, key: &str) -> String {
        match &self.site {
            Some((site, keys)) if keys.contains(key) => format!("{site}/{}", pointer_token(key)),
            _ => format!("{}/{}", self.raw, pointer_token(key)),
        }
    }

    /// A child node: borrowed from the document when the parent is, cloned otherwise.
    pub(super) fn child(&self, path: &[&str]) -> Option<Node<'a>> {
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
            raw = format!("{raw}/{}", pointer_token(seg));
        }
        let v = match &self.v {
            Cow::Borrowed(r) => Cow::Borrowed(nav(r, path)?),
            Cow::Owned(o) => Cow::Owned(nav(o, path)?.clone()),
        };
        Some(Node { v, id: raw.clone(), raw, site: None })
    }
}

/// The node standing for an absent schema (`{}`), at a given raw location.
pub(super) fn empty_node<'a>(raw: String) -> Node<'a> {
    Node { v: Cow::Owned(Value::Object(Map::new())), id: format!("{raw}#absent"), raw, site: None }
}

/// Look up a JSON pointer in a normalised document (a `definitions` segment falls back to `$defs`).
pub(super) fn lookup<'d>(doc: &'d Value, ptr: &str) -> Option<&'d Value> {
    if ptr.is_empty() {
        return Some(doc);
    }
    let mut cur = doc;
    for seg in ptr.strip_prefix('/')?.split('/') {
        let seg = from_pointer_token(seg);
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

impl<'a> Walker<'a> {
    /// Follow local `$ref`s (siblings override the target). Stops on ref cycles and unknown targets.
    pub(super) fn resolve(&self, node: Node<'a>, old_side: bool) -> Node<'a> {
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
                    Some(t) => Cow::Owned(crate::diff::normalize::normalize_schema(t)),
                    None => return node,
                },
            };
            let siblings: Vec<(&String, &Value)> =
                m.iter().filter(|(k, _)| k.as_str() != "$ref" && k.as_str() != "$nullable").collect();
            let nullable = m.get("$nullable") == Some(&Value::Bool(true));
            let target: Cow<'a, Value> = match target.as_ref() {
                Value::Bool(true) => Cow::Owned(Value::Object(Map::new())),
                Value::Bool(false) => Cow::Owned(crate::diff::normalize::nothing()),
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
}
