//! The app a tool renders (MCP Apps, extension `io.modelcontextprotocol/ui`, SEP-1865): a host
//! that supports it fetches the resource a tool names in `_meta.ui.resourceUri` and renders it,
//! scripts and all, next to the tool's result. `ui-resource-changed` (silent) when that URI
//! appears or points elsewhere, or when the tool's declared UI `csp` domains or `permissions`
//! gain an entry; everything else about `_meta` (the `ui` object removed, an entry dropped, a
//! spelling moved between the current and the deprecated key) is `meta-changed` (loud).
//!
//! What is read (the decisions are in `src/rules/decisions.md`):
//! - the resource URI: `_meta.ui.resourceUri`, else the deprecated flat `_meta["ui/resourceUri"]`
//!   (the extension still names it; hosts read either), compared exactly;
//! - `csp`: every key of `_meta.ui.csp` whose value is a list of domains (`connectDomains`,
//!   `resourceDomains`, `frameDomains`, `baseUriDomains`, and any key a later revision adds), each
//!   list a set of entries trimmed, lowercased and without a trailing `/` (origins compare
//!   case-insensitively); a domain that moves from one list to another is gained by the second;
//! - `permissions`: the features of `_meta.ui.permissions` (the extension's object of features,
//!   `{"camera": {}}`; a feature set to `false` or `null` is not requested), or the entries of a
//!   list, as earlier drafts spelled it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::normalize::canon;
use super::text::escape_hidden;
use super::tool_change as change;
use super::walk::short;
use crate::change::Change;
use crate::json::pointer_token;
use crate::rules::RuleId;

/// The deprecated flat key of the resource URI.
const FLAT_URI: &str = "ui/resourceUri";

/// What the host reads from a tool's `_meta` to render its app.
#[derive(Debug, Default)]
struct Ui {
    /// The resource URI and the pointer it was read at.
    uri: Option<(String, String)>,
    /// Each `csp` list by its key, as a set of entries.
    csp: BTreeMap<String, BTreeSet<String>>,
    /// The permissions requested.
    permissions: BTreeSet<String>,
}

fn ui_object(meta: Option<&Value>) -> Option<&Map<String, Value>> {
    meta.and_then(|m| m.get("ui")).and_then(Value::as_object)
}

fn entry(s: &str) -> String {
    let t = s.trim().to_ascii_lowercase();
    match t.strip_suffix('/') {
        Some(u) if !u.is_empty() => u.to_string(),
        _ => t,
    }
}

fn domains(v: &Value) -> Option<BTreeSet<String>> {
    match v {
        Value::Array(a) => Some(a.iter().filter_map(Value::as_str).map(entry).collect()),
        Value::String(s) => Some(BTreeSet::from([entry(s)])),
        _ => None,
    }
}

fn permissions(v: Option<&Value>) -> BTreeSet<String> {
    match v {
        Some(Value::Object(m)) => {
            m.iter().filter(|(_, v)| !matches!(v, Value::Null | Value::Bool(false))).map(|(k, _)| k.clone()).collect()
        }
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(|s| s.trim().to_string()).collect(),
        _ => BTreeSet::new(),
    }
}

fn read(meta: Option<&Value>) -> Ui {
    let ui = ui_object(meta);
    let nested = ui.and_then(|u| u.get("resourceUri")).and_then(Value::as_str);
    let flat = meta.and_then(|m| m.get(FLAT_URI)).and_then(Value::as_str);
    let uri = match (nested, flat) {
        (Some(u), _) => Some((u.to_string(), "/_meta/ui/resourceUri".to_string())),
        (None, Some(u)) => Some((u.to_string(), format!("/_meta/{}", pointer_token(FLAT_URI)))),
        (None, None) => None,
    };
    let csp = ui
        .and_then(|u| u.get("csp"))
        .and_then(Value::as_object)
        .map(|c| c.iter().filter_map(|(k, v)| domains(v).map(|d| (k.clone(), d))).collect())
        .unwrap_or_default();
    Ui { uri, csp, permissions: permissions(ui.and_then(|u| u.get("permissions"))) }
}

/// Entries for a message: the first 8, then how many more (a server's list can be long).
fn listed(set: &BTreeSet<String>) -> String {
    let mut out = set.iter().take(8).map(|s| short(&Value::String(s.clone()))).collect::<Vec<_>>().join(", ");
    if set.len() > 8 {
        out.push_str(&format!(" and {} more", set.len() - 8));
    }
    out
}

/// Every change of a tool's `_meta`: `ui-resource-changed` for what the host renders that is new
/// (see the module documentation), and one `meta-changed` when anything else differs.
pub fn meta_changes(name: &str, x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Change>) {
    if x.map(canon) == y.map(canon) {
        return;
    }
    let t = escape_hidden(name);
    let (old, new) = (read(x), read(y));
    let uri = |u: &str| short(&Value::String(u.to_string()));
    let swapped = match (&old.uri, &new.uri) {
        (None, Some((u, at))) => Some((
            at,
            None,
            u,
            format!("tool {t} now names an app for hosts to render next to its results: {}", uri(u)),
        )),
        (Some((a, _)), Some((b, at))) if a != b => Some((
            at,
            Some(Value::String(a.clone())),
            b,
            format!("the app tool {t} names for hosts to render changed from {} to {}", uri(a), uri(b)),
        )),
        _ => None,
    };
    let uri_reported = swapped.is_some();
    if let Some((at, before, after, message)) = swapped {
        out.push(change(
            RuleId::UiResourceChanged,
            name,
            at.clone(),
            message,
            before,
            Some(Value::String(after.clone())),
        ));
    }
    let mut gained_csp: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (key, now) in &new.csp {
        let before = old.csp.get(key);
        let gained: BTreeSet<String> = now.iter().filter(|d| before.is_none_or(|b| !b.contains(*d))).cloned().collect();
        if gained.is_empty() {
            continue;
        }
        let as_list =
            |s: Option<&BTreeSet<String>>| s.map(|s| Value::Array(s.iter().cloned().map(Value::String).collect()));
        out.push(change(
            RuleId::UiResourceChanged,
            name,
            format!("/_meta/ui/csp/{}", pointer_token(key)),
            format!(
                "UI csp {} of tool {t} gained {}: the app it renders may now load from or connect to more origins",
                short(&Value::String(key.clone())),
                listed(&gained)
            ),
            as_list(before),
            as_list(Some(now)),
        ));
        gained_csp.insert(key, gained);
    }
    let gained_perms: BTreeSet<String> = new.permissions.difference(&old.permissions).cloned().collect();
    if !gained_perms.is_empty() {
        let as_list = |s: &BTreeSet<String>| Value::Array(s.iter().cloned().map(Value::String).collect());
        out.push(change(
            RuleId::UiResourceChanged,
            name,
            "/_meta/ui/permissions".into(),
            format!(
                "UI permissions of tool {t} gained {}: the app it renders asks the host for more of the browser",
                listed(&gained_perms)
            ),
            Some(as_list(&old.permissions)),
            Some(as_list(&new.permissions)),
        ));
    }
    // What is left once the gains are taken out (as if they had not happened): a removal, a
    // dropped entry, any other key. Once a gain is reported, an empty `_meta` and none are the
    // same: the gain was the difference.
    let reported = uri_reported || !gained_csp.is_empty() || !gained_perms.is_empty();
    let left = |v: Option<Value>| v.filter(|v| !(reported && v.as_object().is_some_and(Map::is_empty)));
    let rest_old = left(rest(x, uri_reported, &BTreeMap::new(), &BTreeSet::new()));
    let rest_new = left(rest(y, uri_reported, &gained_csp, &gained_perms));
    if rest_old.as_ref().map(canon) != rest_new.as_ref().map(canon) {
        let opt = |v: Option<&Value>| v.map(short).unwrap_or_else(|| "(none)".into());
        out.push(change(
            RuleId::MetaChanged,
            name,
            "/_meta".into(),
            format!("_meta of tool {t} changed from {} to {}", opt(x), opt(y)),
            x.cloned(),
            y.cloned(),
        ));
    }
}

/// `_meta` read as the comparison of what is left needs it: the `csp` lists and `permissions`
/// as sets (order and letter case are no change) without `minus_*`, the resource URI left out
/// when it was reported, and empty `csp` lists, `csp`, `permissions` and `ui` objects left out
/// (they declare nothing).
fn rest(
    meta: Option<&Value>,
    drop_uri: bool,
    minus_csp: &BTreeMap<&str, BTreeSet<String>>,
    minus_perms: &BTreeSet<String>,
) -> Option<Value> {
    let mut meta = meta?.clone();
    let Some(m) = meta.as_object_mut() else { return Some(meta) };
    if drop_uri {
        m.remove(FLAT_URI);
    }
    if let Some(Value::Object(ui)) = m.get_mut("ui") {
        if drop_uri {
            ui.remove("resourceUri");
        }
        if let Some(Value::Object(csp)) = ui.get_mut("csp") {
            for (k, v) in csp.iter_mut() {
                if let Some(mut set) = domains(v) {
                    if let Some(minus) = minus_csp.get(k.as_str()) {
                        set.retain(|d| !minus.contains(d));
                    }
                    *v = Value::Array(set.into_iter().map(Value::String).collect());
                }
            }
            csp.retain(|_, v| !v.as_array().is_some_and(Vec::is_empty));
        }
        match ui.get_mut("permissions") {
            Some(Value::Object(p)) => {
                p.retain(|k, v| !minus_perms.contains(k) && !matches!(v, Value::Null | Value::Bool(false)))
            }
            Some(v @ Value::Array(_)) => {
                let mut set = permissions(Some(v));
                set.retain(|p| !minus_perms.contains(p));
                *v = Value::Array(set.into_iter().map(Value::String).collect());
            }
            _ => {}
        }
        let empty = |v: &Value| v.as_object().is_some_and(Map::is_empty) || v.as_array().is_some_and(Vec::is_empty);
        ui.retain(|k, v| !(matches!(k.as_str(), "csp" | "permissions") && empty(v)));
    }
    if m.get("ui").and_then(Value::as_object).is_some_and(Map::is_empty) {
        m.remove("ui");
    }
    Some(meta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(a: Value, b: Value) -> Vec<(RuleId, String)> {
        let mut out = Vec::new();
        let (a, b) = ((!a.is_null()).then_some(a), (!b.is_null()).then_some(b));
        meta_changes("t", a.as_ref(), b.as_ref(), &mut out);
        out.into_iter().map(|c| (c.rule, c.pointer)).collect()
    }

    const UI: RuleId = RuleId::UiResourceChanged;
    const META: RuleId = RuleId::MetaChanged;

    #[test]
    fn the_resource_uri() {
        let at = "/_meta/ui/resourceUri".to_string();
        assert_eq!(run(Value::Null, json!({"ui": {"resourceUri": "ui://a"}})), vec![(UI, at.clone())]);
        assert_eq!(run(json!({}), json!({"ui": {"resourceUri": "ui://a"}})), vec![(UI, at.clone())]);
        assert_eq!(
            run(json!({"ui": {"resourceUri": "ui://a"}}), json!({"ui": {"resourceUri": "ui://b"}})),
            vec![(UI, at.clone())]
        );
        // Removed: loud.
        assert_eq!(run(json!({"ui": {"resourceUri": "ui://a"}}), json!({})), vec![(META, "/_meta".into())]);
        assert_eq!(run(json!({"ui": {"resourceUri": "ui://a"}}), Value::Null), vec![(META, "/_meta".into())]);
        // The deprecated flat key reads the same; moving between the spellings is loud.
        let flat = "/_meta/ui~1resourceUri".to_string();
        assert_eq!(run(json!({}), json!({"ui/resourceUri": "ui://a"})), vec![(UI, flat.clone())]);
        assert_eq!(run(json!({"ui/resourceUri": "ui://a"}), json!({"ui/resourceUri": "ui://b"})), vec![(UI, flat)]);
        assert_eq!(
            run(json!({"ui/resourceUri": "ui://a"}), json!({"ui": {"resourceUri": "ui://a"}})),
            vec![(META, "/_meta".into())]
        );
        assert_eq!(
            run(json!({"ui/resourceUri": "ui://a"}), json!({"ui": {"resourceUri": "ui://b"}})),
            vec![(UI, at.clone())]
        );
        // Another key changing beside it is its own loud change.
        assert_eq!(
            run(json!({"ui": {"resourceUri": "ui://a"}, "v": 1}), json!({"ui": {"resourceUri": "ui://b"}, "v": 2})),
            vec![(UI, at.clone()), (META, "/_meta".into())]
        );
        // Visibility is another key of `ui`.
        assert_eq!(
            run(
                json!({"ui": {"resourceUri": "ui://a"}}),
                json!({"ui": {"resourceUri": "ui://a", "visibility": ["app"]}})
            ),
            vec![(META, "/_meta".into())]
        );
    }

    #[test]
    fn csp_and_permissions_gained_are_silent_dropped_loud() {
        let csp = |c: Value| json!({"ui": {"resourceUri": "ui://a", "csp": c}});
        assert_eq!(
            run(
                csp(json!({"connectDomains": ["https://api.example"]})),
                csp(json!({"connectDomains": ["https://api.example", "https://evil.example"]}))
            ),
            vec![(UI, "/_meta/ui/csp/connectDomains".into())]
        );
        assert_eq!(
            run(json!({"ui": {"resourceUri": "ui://a"}}), csp(json!({"resourceDomains": ["https://cdn.example"]}))),
            vec![(UI, "/_meta/ui/csp/resourceDomains".into())]
        );
        // Moved from one list to another: gained by the second, dropped from the first.
        assert_eq!(
            run(
                csp(json!({"resourceDomains": ["https://x.example"]})),
                csp(json!({"connectDomains": ["https://x.example"]}))
            ),
            vec![(UI, "/_meta/ui/csp/connectDomains".into()), (META, "/_meta".into())]
        );
        assert_eq!(
            run(
                csp(json!({"connectDomains": ["https://a.example", "https://b.example"]})),
                csp(json!({"connectDomains": ["https://a.example"]}))
            ),
            vec![(META, "/_meta".into())]
        );
        // Order, letter case, a trailing slash, an empty list: no change.
        assert!(run(
            csp(json!({"connectDomains": ["https://a.example", "https://B.example/"], "frameDomains": []})),
            csp(json!({"connectDomains": ["https://b.example", "https://a.example"]}))
        )
        .is_empty());
        let perms = |p: Value| json!({"ui": {"resourceUri": "ui://a", "permissions": p}});
        assert_eq!(
            run(perms(json!({"clipboardWrite": {}})), perms(json!({"clipboardWrite": {}, "camera": {}}))),
            vec![(UI, "/_meta/ui/permissions".into())]
        );
        assert_eq!(
            run(json!({"ui": {"resourceUri": "ui://a"}}), perms(json!(["microphone"]))),
            vec![(UI, "/_meta/ui/permissions".into())]
        );
        assert_eq!(
            run(perms(json!({"camera": {}, "geolocation": {}})), perms(json!({"camera": {}}))),
            vec![(META, "/_meta".into())]
        );
        assert!(run(perms(json!({"camera": {}})), perms(json!({"camera": {}, "microphone": false}))).is_empty());
        // The whole `ui` removed: loud, once.
        assert_eq!(run(perms(json!({"camera": {}})), json!({})), vec![(META, "/_meta".into())]);
        // A long list is named in part.
        let many: Vec<String> = (0..20).map(|i| format!("https://h{i:02}.example")).collect();
        let mut out = Vec::new();
        meta_changes("t", Some(&csp(json!({}))), Some(&csp(json!({"connectDomains": many}))), &mut out);
        assert!(
            out[0].message.ends_with(
                "\"https://h07.example\" and 12 more: the app it renders may now load from or connect to more origins"
            ),
            "{}",
            out[0].message
        );
    }
}
