//! How the walker names what it found: the noun for a side (`argument` / `result field`), a
//! pointer as a human path (`filters.status`), the tool suffix and short value renderings. Every
//! message the walker writes is built from these, and the messages of the keyword match are
//! written here (`say_…`), one function per finding, so the wording lives in one place.

use super::*;

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

pub(super) fn opt_short(v: Option<&Value>) -> String {
    v.map(short).unwrap_or_else(|| "(none)".into())
}

impl<'a> Walker<'a> {
    pub(super) fn noun(&self) -> &'static str {
        match self.mode {
            Mode::Input => "argument",
            Mode::Output => "result field",
        }
    }

    /// `argument "filters.status"` / `the arguments` for a logical pointer.
    pub(super) fn label(&self, ptr: &str) -> String {
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

    pub(super) fn of_tool(&self) -> String {
        match self.tool {
            Some(t) => format!(" of tool {}", escape_hidden(t)),
            None => String::new(),
        }
    }
}

/// The messages of the keyword match ([`Walker::walk`]), one per finding. `ptr` is the logical
/// pointer of the schema the keyword belongs to.
impl Walker<'_> {
    /// `argument "q" of tool search`: what a message is about.
    fn who(&self, ptr: &str) -> String {
        format!("{}{}", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_too_deep(&self, ptr: &str) -> String {
        format!("{} changed below {} nesting levels; not compared further", self.who(ptr), MAX_DEPTH)
    }

    pub(super) fn say_not_a_schema(&self, ptr: &str) -> String {
        format!("schema of {} is not a JSON Schema object and changed", self.who(ptr))
    }

    pub(super) fn say_dialect(&self, x: Option<&Value>, y: Option<&Value>) -> String {
        let what = |v: Option<&Value>| v.map(|v| v.to_string()).unwrap_or_else(|| "(none)".into());
        format!("schema dialect{} changed from {} to {}", self.of_tool(), what(x), what(y))
    }

    pub(super) fn say_unique_items(&self, ptr: &str, now: bool) -> String {
        format!("{} {} unique items", self.who(ptr), if now { "now requires" } else { "no longer requires" })
    }

    /// A default added, removed or changed (`x != y`).
    pub(super) fn say_default(&self, ptr: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        match (x, y) {
            (None, Some(v)) => format!("{} now has default {}", self.who(ptr), short(v)),
            (Some(v), None) => format!("default {} of {} was removed", short(v), self.who(ptr)),
            _ => format!("default of {} changed from {} to {}", self.who(ptr), opt_short(x), opt_short(y)),
        }
    }

    pub(super) fn say_description(&self, ptr: &str, reflowed: bool, x: Option<&Value>, y: Option<&Value>) -> String {
        if reflowed {
            return format!("description of {} was reflowed (whitespace only)", self.who(ptr));
        }
        match (x, y) {
            (None, Some(_)) => format!("{} now has a description", self.who(ptr)),
            (Some(_), None) => format!("description of {} was removed", self.who(ptr)),
            _ => format!("description of {} changed", self.who(ptr)),
        }
    }

    pub(super) fn say_title(&self, ptr: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        format!("title of {} changed from {} to {}", self.who(ptr), opt_short(x), opt_short(y))
    }

    pub(super) fn say_ref(&self, ptr: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        format!(
            "reference of {} changed from {} to {} (remote references are never fetched)",
            self.who(ptr),
            opt_short(x),
            opt_short(y)
        )
    }

    pub(super) fn say_nullable(&self, ptr: &str) -> String {
        format!("{} changed whether it accepts null", self.who(ptr))
    }

    pub(super) fn say_header_mapping(&self, ptr: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        let show = |v: Option<&Value>| match v {
            Some(Value::String(h)) => format!("`{}`", escape_hidden(h)),
            Some(v) => short(v),
            None => "none".into(),
        };
        match (x, y) {
            (None, Some(_)) => format!(
                "{} is now also sent as HTTP header {} (visible to every proxy and log on the way)",
                self.who(ptr),
                show(y)
            ),
            (Some(_), None) => format!("{} is no longer sent as HTTP header {}", self.who(ptr), show(x)),
            _ => format!("{} is now sent as HTTP header {} (was {})", self.who(ptr), show(y), show(x)),
        }
    }

    /// Any other keyword added, removed or changed.
    pub(super) fn say_keyword(&self, key: &str, ptr: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        let key = escape_hidden(key);
        match (x, y) {
            (None, Some(v)) => format!("keyword `{key}` added to {}: {}", self.who(ptr), short(v)),
            (Some(_), None) => format!("keyword `{key}` removed from {}", self.who(ptr)),
            _ => format!("keyword `{key}` of {} changed from {} to {}", self.who(ptr), opt_short(x), opt_short(y)),
        }
    }

    /// `null` joining (`now`) or leaving a list of values or a union.
    pub(super) fn say_null(&self, ptr: &str, now: bool) -> String {
        if now {
            format!("{} now also accepts null", self.who(ptr))
        } else {
            format!("{} no longer accepts null", self.who(ptr))
        }
    }

    /// One enum value (`canon`, canonical text) added or removed.
    pub(super) fn say_enum_value(&self, ptr: &str, canon: &str, added: bool) -> String {
        if added {
            format!("value {} was added to the enum of {}", escape_hidden(canon), self.who(ptr))
        } else {
            format!("value {} is no longer in the enum of {}", escape_hidden(canon), self.who(ptr))
        }
    }

    /// A whole enum appeared (`Some(values)`) or went (`None`).
    pub(super) fn say_enum_whole(&self, ptr: &str, now: Option<&Value>) -> String {
        match now {
            Some(_) => format!("{} is now limited to the values {}", self.who(ptr), opt_short(now)),
            None => format!("{} is no longer limited to a list of values", self.who(ptr)),
        }
    }

    /// A sub-schema keyword (`contains`, `not`, `if`...) that appeared or went.
    pub(super) fn say_subschema(&self, ptr: &str, key: &str, appeared: bool) -> String {
        if appeared {
            format!("{} has a new `{key}` constraint", self.who(ptr))
        } else {
            format!("the `{key}` constraint of {} was removed", self.who(ptr))
        }
    }

    /// `pattern` or `format` added, dropped or replaced (`x != y`).
    pub(super) fn say_pattern(&self, ptr: &str, key: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        match (x, y) {
            (None, Some(v)) => format!("{} now must match {key} {}", self.who(ptr), short(v)),
            (Some(v), None) => format!("{key} {} of {} was dropped", short(v), self.who(ptr)),
            _ => format!(
                "{key} of {} changed from {} to {}; whether it accepts more or less cannot be proven",
                self.who(ptr),
                opt_short(x),
                opt_short(y)
            ),
        }
    }
}
