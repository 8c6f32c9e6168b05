//! How the walker names what it found: the noun for a side (`argument` / `result field`), a
//! pointer as a human path (`filters.status`), the tool suffix and short value renderings, and
//! every message the walker writes (`say_…`, one function per finding, and the `if`/`not`
//! suffixes), so the wording lives in one place; the keyword match and the union code only
//! decide what was found.

use super::*;

/// `/properties/filters/properties/status` -> `filters.status`; `/items` -> `[]`.
pub fn human_path(ptr: &str) -> String {
    let segs: Vec<String> = ptr.split('/').skip(1).map(crate::json::from_pointer_token).collect();
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

/// A short one-line rendering of a value for messages (hidden characters escaped; masked
/// before it is cut, [`crate::secrets::cut`]).
pub fn short(v: &Value) -> String {
    escape_hidden(&crate::secrets::cut(&canon(v), 80, "..."))
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

/// A directional finding inside an `if` condition: its direction cannot be proven.
pub(super) fn inside_if(message: &str) -> String {
    format!("{message} (inside an `if` condition: the direction cannot be proven)")
}

/// A finding inside `not`: its direction is reversed.
pub(super) fn inside_not(message: &str) -> String {
    format!("{message} (inside `not`: the direction is reversed)")
}

/// The messages of types, `required`, properties, closed objects, dependencies, bounds and
/// unions, one function per finding.
impl<'a> Walker<'a> {
    /// `argument "filters.status"`: a property `name` of the object at `ptr`.
    fn field(&self, ptr: &str, name: &str) -> String {
        let p = human_path(ptr);
        let full = if p.is_empty() { name.to_string() } else { format!("{p}.{name}") };
        format!("{} \"{}\"", self.noun(), escape_hidden(&full))
    }

    /// `what` is `title` or `description`.
    pub(super) fn say_enum_value_text(&self, ptr: &str, what: &str, val: &str) -> String {
        format!("{what} of enum value {} of {}{} changed", escape_hidden(val), self.label(ptr), self.of_tool())
    }

    pub(super) fn say_type_replaced(&self, ptr: &str, from: &str, to: &str, why: &str) -> String {
        format!("{}{} changed type from {from} to {to}: {why}", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_type_dropped(&self, ptr: &str, was: &str) -> String {
        format!("{}{} no longer has a type restriction (was {was})", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_type_added(&self, ptr: &str, added: &str, was: &str) -> String {
        format!("{}{} now also accepts {added} (was {was})", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_type_removed(&self, ptr: &str, removed: &str, now: &str) -> String {
        format!("{}{} no longer accepts {removed} (now {now})", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_required_removed(&self, ptr: &str, name: &str) -> String {
        format!("required {}{} is now optional", self.field(ptr, name), self.of_tool())
    }

    /// `new_property`: the property itself is new, not an optional one made required.
    pub(super) fn say_required_added(&self, ptr: &str, name: &str, new_property: bool) -> String {
        if new_property {
            format!("{}{} was added, required", self.field(ptr, name), self.of_tool())
        } else {
            format!("{}{} is now required", self.field(ptr, name), self.of_tool())
        }
    }

    /// A property (at `cptr`) or, with `pattern`, the properties matching the pattern `name`.
    pub(super) fn say_property(&self, cptr: &str, name: &str, pattern: bool, added: bool) -> String {
        let what = if pattern {
            format!("{}s matching /{}/", self.noun(), escape_hidden(name))
        } else {
            format!("{} \"{}\"", self.noun(), human_path(cptr))
        };
        let verb = match (pattern, added) {
            (true, false) => "are no longer described",
            (true, true) => "are now described",
            (false, false) => "was removed",
            (false, true) => "was added",
        };
        format!("{what}{} {verb}", self.of_tool())
    }

    /// `additionalProperties` / `unevaluated*` / `items` closed (`forbidden`) or opened.
    pub(super) fn say_closed(&self, ptr: &str, key: &str, forbidden: bool) -> String {
        let what = match key {
            "additionalProperties" | "unevaluatedProperties" => "properties it does not list are",
            _ => "items beyond the listed ones are",
        };
        let verb = if forbidden { "now forbidden" } else { "now allowed" };
        format!("{}{}: {what} {verb} (`{key}`)", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_dependent_schema(&self, name: &str, constrains: bool) -> String {
        let verb = if constrains { "now constrains" } else { "no longer constrains" };
        format!(
            "{} \"{}\"{} {verb} the rest of the object when present",
            self.noun(),
            escape_hidden(name),
            self.of_tool()
        )
    }

    /// `name` is (or no longer is) required when `when` is present.
    pub(super) fn say_dependent_required(&self, name: &str, when: &str, required: bool) -> String {
        let verb = if required { "is now required" } else { "is no longer required" };
        format!(
            "{} \"{}\"{} {verb} when \"{}\" is present",
            self.noun(),
            escape_hidden(name),
            self.of_tool(),
            escape_hidden(when)
        )
    }

    pub(super) fn say_numeric_bound(&self, ptr: &str, upper: bool, from: &str, to: &str) -> String {
        let which = if upper { "upper" } else { "lower" };
        format!("{which} bound of {}{} changed from {from} to {to}", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_bound(&self, ptr: &str, key: &str, from: &str, to: &str) -> String {
        format!("`{key}` of {}{} changed from {from} to {to}", self.label(ptr), self.of_tool())
    }

    pub(super) fn say_multiple_of(&self, ptr: &str, x: Option<&Value>, y: Option<&Value>) -> String {
        format!(
            "`multipleOf` of {}{} changed from {} to {}",
            self.label(ptr),
            self.of_tool(),
            opt_short(x),
            opt_short(y)
        )
    }

    /// `anyOf` became `oneOf` (or back) where alternatives may overlap.
    pub(super) fn say_union_keyword(&self, ptr: &str, from: &str, to: &str) -> String {
        let effect = if to == "oneOf" {
            "a value matching several now fails"
        } else {
            "a value matching several is now accepted"
        };
        format!("alternatives of {}{} changed from {from} to {to} ({effect})", self.label(ptr), self.of_tool())
    }

    /// A union (`key`, `count` alternatives) that appeared where there was none, or went.
    pub(super) fn say_union_appeared(&self, ptr: &str, key: &str, count: usize, appeared: bool) -> String {
        if appeared {
            format!("{}{} must now match one of {count} `{key}` alternatives", self.label(ptr), self.of_tool())
        } else {
            format!("{}{} no longer has to match one of {count} `{key}` alternatives", self.label(ptr), self.of_tool())
        }
    }

    pub(super) fn say_split(&self, ptr: &str, kw: &str, count: usize) -> String {
        format!(
            "{}{} was split into {count} `{kw}` alternatives, each accepting part of what it accepted",
            self.label(ptr),
            self.of_tool()
        )
    }

    pub(super) fn say_all_of_entry(&self, ptr: &str, entry: &Value, added: bool) -> String {
        if added {
            format!("{}{} has a new condition (`allOf` entry): {}", self.label(ptr), self.of_tool(), short(entry))
        } else {
            format!(
                "a condition (`allOf` entry) of {}{} was removed: {}",
                self.label(ptr),
                self.of_tool(),
                short(entry)
            )
        }
    }

    /// A `oneOf` alternative that appeared or went while it may overlap `other`.
    pub(super) fn say_overlapping_alternative(&self, ptr: &str, alt: &Value, other: &Value, added: bool) -> String {
        if added {
            format!(
                "{}{} has a new `oneOf` alternative {} that may overlap alternative {}, so values matching both now fail: the direction cannot be proven",
                self.label(ptr), self.of_tool(), short(alt), short(other)
            )
        } else {
            format!(
                "`oneOf` alternative {} of {}{} was removed; it may overlap alternative {}, so values matching both, rejected before, may now pass: the direction cannot be proven",
                short(alt), self.label(ptr), self.of_tool(), short(other)
            )
        }
    }

    pub(super) fn say_alternative(&self, ptr: &str, alt: &Value, added: bool) -> String {
        if added {
            format!("{}{} accepts a new alternative {}", self.label(ptr), self.of_tool(), short(alt))
        } else {
            format!("alternative {} of {}{} was removed", short(alt), self.label(ptr), self.of_tool())
        }
    }
}
