//! How the walker names what it found: the noun for a side (`argument` / `result field`), a
//! pointer as a human path (`filters.status`), the tool suffix and short value renderings. Every
//! message the walker writes is built from these.

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
