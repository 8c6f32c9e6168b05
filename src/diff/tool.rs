//! Tool-level fields: title, description, annotations, execution, icons, _meta, unknown fields,
//! and the two schemas (handed to the walker).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::canonical::Canonical;
use super::normalize::{canon, normalize_schema};
use super::text::{escape_hidden, new_hidden, same_words};
use super::tool_change as change;
use super::walk::{short, Mode, Walker};
use crate::change::Change;
use crate::json::pointer_token;
use crate::rules::RuleId;

/// Every change between two definitions of one tool (named `name` in the new surface), as sent.
/// A caller that diffs many tools makes each [`Canonical`] once and calls [`diff_canonical`].
pub fn diff_tool(name: &str, old: &Value, new: &Value) -> Vec<Change> {
    if old == new {
        // the same JSON (numbers compared by spelling): nothing can differ
        return Vec::new();
    }
    diff_canonical(name, &Canonical::of(old), &Canonical::of(new))
}

/// Every change between two canonical definitions of one tool.
pub fn diff_canonical(name: &str, a: &Canonical, b: &Canonical) -> Vec<Change> {
    let (a, b): (&Value, &Value) = (a, b);
    let mut out = Vec::new();
    let (am, bm) = match (a.as_object(), b.as_object()) {
        (Some(x), Some(y)) => (x, y),
        _ => {
            if canon(a) != canon(b) {
                out.push(change(
                    RuleId::FieldChanged,
                    name,
                    String::new(),
                    format!("definition of tool {} is not a JSON object and changed", escape_hidden(name)),
                    Some(a.clone()),
                    Some(b.clone()),
                ));
            }
            out.extend(hidden_changes(name, Some(a), b));
            super::finish(&mut out);
            return out;
        }
    };
    let t = escape_hidden(name);
    let keys: BTreeSet<&String> = am.keys().chain(bm.keys()).collect();
    for key in keys {
        let (x, y) = (am.get(key.as_str()), bm.get(key.as_str()));
        let p = format!("/{}", pointer_token(key));
        match key.as_str() {
            "name" => {}
            "description" => {
                if x == y {
                    continue;
                }
                let (sx, sy) = (x.and_then(Value::as_str), y.and_then(Value::as_str));
                let reflow = x.is_none_or(Value::is_string)
                    && y.is_none_or(Value::is_string)
                    && same_words(sx.unwrap_or(""), sy.unwrap_or(""));
                if reflow {
                    out.push(change(
                        RuleId::DescriptionReflowed,
                        name,
                        p,
                        format!("description of tool {t} was reflowed (whitespace only)"),
                        x.cloned(),
                        y.cloned(),
                    ));
                } else {
                    let msg = match (x, y) {
                        (None, Some(_)) => format!("tool {t} now has a description"),
                        (Some(_), None) => format!("description of tool {t} was removed"),
                        _ => format!("description of tool {t} changed"),
                    };
                    out.push(change(RuleId::DescriptionChanged, name, p, msg, x.cloned(), y.cloned()));
                }
            }
            "title" => {
                if x != y {
                    let msg = format!("title of tool {t} changed from {} to {}", opt(x), opt(y));
                    out.push(change(RuleId::TitleChanged, name, p, msg, x.cloned(), y.cloned()));
                }
            }
            "inputSchema" => {
                let (sa, sb) = (schema_of(x), schema_of(y));
                let mut w = Walker::new(Some(name), Mode::Input, "/inputSchema", &sa, &sb).with_raw(x, y);
                w.run();
                out.extend(w.out);
            }
            "outputSchema" => match (x, y) {
                (None, Some(_)) => out.push(change(
                    RuleId::OutputSchemaAdded,
                    name,
                    p,
                    format!("tool {t} now declares an outputSchema (structured output)"),
                    None,
                    y.cloned(),
                )),
                (Some(_), None) => out.push(change(
                    RuleId::OutputSchemaRemoved,
                    name,
                    p,
                    format!("tool {t} no longer declares an outputSchema: structured output is no longer promised"),
                    x.cloned(),
                    None,
                )),
                _ => {
                    let (sa, sb) = (schema_of(x), schema_of(y));
                    let mut w = Walker::new(Some(name), Mode::Output, "/outputSchema", &sa, &sb).with_raw(x, y);
                    w.run();
                    out.extend(w.out);
                }
            },
            "annotations" => annotations(name, x, y, &mut out),
            "icons" => {
                if x.map(canon) != y.map(canon) {
                    out.push(change(
                        RuleId::IconsChanged,
                        name,
                        p,
                        format!("icons of tool {t} changed"),
                        x.cloned(),
                        y.cloned(),
                    ));
                }
            }
            "_meta" => super::ui::meta_changes(name, x, y, &mut out),
            "execution" => execution(name, x, y, &mut out),
            _ => {
                if x.map(canon) != y.map(canon) {
                    let msg =
                        format!("field `{}` of tool {t} changed from {} to {}", escape_hidden(key), opt(x), opt(y));
                    out.push(change(RuleId::FieldChanged, name, p, msg, x.cloned(), y.cloned()));
                }
            }
        }
    }
    out.extend(hidden_changes(name, Some(a), b));
    super::finish(&mut out);
    out
}

fn schema_of(v: Option<&Value>) -> Value {
    match v {
        Some(s) => normalize_schema(s),
        None => Value::Object(Map::new()),
    }
}

fn opt(v: Option<&Value>) -> String {
    v.map(short).unwrap_or_else(|| "(none)".into())
}

/// `hidden-characters` for text in `new` that `old` nowhere carried.
pub fn hidden_changes(name: &str, old: Option<&Value>, new: &Value) -> Vec<Change> {
    let t = escape_hidden(name);
    new_hidden(old, new)
        .into_iter()
        .map(|(p, s)| {
            let esc_s = escape_hidden(&s);
            change(
                RuleId::HiddenCharacters,
                name,
                p.clone(),
                format!("tool {t} now contains hidden characters at {}: \"{esc_s}\"", escape_hidden(&p)),
                None,
                Some(Value::String(esc_s)),
            )
        })
        .collect()
}

const HINTS: &[(&str, bool, bool)] = &[
    // (hint, default, true-is-safe)
    ("readOnlyHint", false, true),
    ("destructiveHint", true, false),
    ("idempotentHint", false, true),
    ("openWorldHint", true, false),
];

fn annotations(name: &str, x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Change>) {
    let t = escape_hidden(name);
    let empty = Map::new();
    let (am, bm) = match (x, y) {
        (None | Some(Value::Object(_)), None | Some(Value::Object(_))) => {
            (x.and_then(Value::as_object).unwrap_or(&empty), y.and_then(Value::as_object).unwrap_or(&empty))
        }
        _ => {
            if x != y {
                out.push(change(
                    RuleId::FieldChanged,
                    name,
                    "/annotations".into(),
                    format!("annotations of tool {t} changed"),
                    x.cloned(),
                    y.cloned(),
                ));
            }
            return;
        }
    };
    let eff = |m: &Map<String, Value>, h: &str, d: bool| m.get(h).and_then(Value::as_bool).unwrap_or(d);
    let ro_a = eff(am, "readOnlyHint", false);
    let ro_b = eff(bm, "readOnlyHint", false);
    for (hint, default, true_is_safe) in HINTS {
        let (va, vb) = (eff(am, hint, *default), eff(bm, hint, *default));
        let counts = match *hint {
            "destructiveHint" | "idempotentHint" => !ro_a && !ro_b,
            _ => true,
        };
        if counts && va != vb {
            let safer = vb == *true_is_safe;
            let rule = if safer { RuleId::AnnotationRelaxed } else { RuleId::AnnotationEscalated };
            let msg = format!(
                "{hint} of tool {t} changed from {va} to {vb} ({})",
                if safer {
                    "toward safety: a host may now auto-approve it"
                } else {
                    "toward danger: hosts may still treat it as safe"
                }
            );
            out.push(change(
                rule,
                name,
                format!("/annotations/{hint}"),
                msg,
                Some(Value::Bool(va)),
                Some(Value::Bool(vb)),
            ));
        }
    }
    let keys: BTreeSet<&String> = am.keys().chain(bm.keys()).collect();
    for k in keys {
        if HINTS.iter().any(|(h, _, _)| h == k) {
            // a non-boolean hint is a field change of its own
            let (p, q) = (am.get(k.as_str()), bm.get(k.as_str()));
            let nb = |v: Option<&Value>| v.is_some_and(|v| !v.is_boolean());
            if (nb(p) || nb(q)) && p != q {
                let msg = format!("annotation {k} of tool {t} changed from {} to {}", opt(p), opt(q));
                out.push(change(
                    RuleId::FieldChanged,
                    name,
                    format!("/annotations/{}", pointer_token(k)),
                    msg,
                    p.cloned(),
                    q.cloned(),
                ));
            }
            continue;
        }
        let (p, q) = (am.get(k.as_str()), bm.get(k.as_str()));
        if p.map(canon) == q.map(canon) {
            continue;
        }
        let ptr = format!("/annotations/{}", pointer_token(k));
        if k == "title" {
            out.push(change(
                RuleId::AnnotationTitleChanged,
                name,
                ptr,
                format!("annotations.title of tool {t} changed from {} to {}", opt(p), opt(q)),
                p.cloned(),
                q.cloned(),
            ));
        } else {
            let msg = format!("annotation `{}` of tool {t} changed from {} to {}", escape_hidden(k), opt(p), opt(q));
            out.push(change(RuleId::FieldChanged, name, ptr, msg, p.cloned(), q.cloned()));
        }
    }
}

fn execution(name: &str, x: Option<&Value>, y: Option<&Value>, out: &mut Vec<Change>) {
    let t = escape_hidden(name);
    // absent execution == {"taskSupport": "forbidden"}
    let norm = |v: Option<&Value>| -> Value {
        let mut m = match v {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => return other.clone(),
        };
        if m.get("taskSupport") == Some(&Value::String("forbidden".into())) {
            m.remove("taskSupport");
        }
        Value::Object(m)
    };
    let (a, b) = (norm(x), norm(y));
    if canon(&a) == canon(&b) {
        return;
    }
    let ts = |v: &Value| v.get("taskSupport").map(short).unwrap_or_else(|| "\"forbidden\"".into());
    let (ta, tb) = (ts(&a), ts(&b));
    let msg = if ta != tb {
        format!("taskSupport of tool {t} changed from {ta} to {tb}")
    } else {
        format!("execution of tool {t} changed")
    };
    let p = if ta != tb { "/execution/taskSupport" } else { "/execution" };
    out.push(change(RuleId::ExecutionChanged, name, p.into(), msg, x.cloned(), y.cloned()));
}
