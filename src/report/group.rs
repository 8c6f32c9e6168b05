//! Grouping for reports at the scale of real releases: changes that are the same rule with the
//! same before and after at the same place inside their tools (the same pointer relative to
//! the tool) are one group across tools, and a server's changes are summed up by class and rule.
//! Every renderer that groups (human, markdown, JSON, `lock`'s list) takes its groups from here.

use std::collections::BTreeMap;

use std::cmp::Reverse;

use serde::Serialize;
use serde_json::Value;

use crate::change::Change;
use crate::rules::Class;

/// The changes of one server that are the same change on several tools (or one change alone).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group<'a> {
    pub rule: &'a str,
    pub class: Class,
    /// The pointer inside each tool.
    pub pointer: &'a str,
    pub before: Option<&'a Value>,
    pub after: Option<&'a Value>,
    /// The change's message with its tool's name taken out (for a group of one: as it is).
    pub message: String,
    /// The tools, sorted (server-level changes are never grouped: none).
    pub tools: Vec<&'a str>,
    /// For the same edit of several texts (the same words appended to each tool's description,
    /// whatever each said before): what the edit is, `appended 'Results are cached.'` (the
    /// group's `before` and `after` are then none: each tool's are its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edit: Option<String>,
    #[serde(skip)]
    pub changes: Vec<&'a Change>,
}

impl Group<'_> {
    /// The group's message, with its edit when it is one: `description changed: appended '…'`.
    pub fn headline(&self) -> String {
        match &self.edit {
            Some(e) => format!("{}: {e}", self.message),
            None => self.message.clone(),
        }
    }

    pub fn len(&self) -> usize {
        self.changes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// A change's message with " of tool NAME" (its tool) taken out, for a line about many tools.
pub fn message_without_tool(c: &Change) -> String {
    match &c.tool {
        Some(t) => {
            let name = crate::json::escape_line(t);
            c.message.replace(&format!(" of tool {name}"), "").replace(&format!("tool {name} "), "the tool ")
        }
        None => c.message.clone(),
    }
}

/// The groups of `changes`, in the deterministic order of the reports ([`rank`]): a change
/// whose added words carry a cue first, then by class (silent first), then risk (highest
/// first), then rule, then first tool, then pointer. Changes of prose the model reads group by
/// their edit (the words removed and added), so the same clause appended to eleven descriptions
/// is one group and the twelfth, which added something else, stands alone.
pub fn groups<'a>(changes: &[&'a Change]) -> Vec<Group<'a>> {
    // (cued, class, rule, pointer, before, after), or for an edit (cued, class, rule, pointer,
    // "edit", the changed words).
    type Key = (bool, Reverse<Class>, String, String, String, String);
    let canon = |v: &Option<Value>| v.as_ref().map(crate::json::to_canonical_string).unwrap_or_default();
    let mut by_key: BTreeMap<Key, Vec<&'a Change>> = BTreeMap::new();
    let mut singles: Vec<&'a Change> = Vec::new();
    let mut edits: std::collections::HashSet<*const Change> = std::collections::HashSet::new();
    for c in changes {
        if c.tool.is_none() {
            singles.push(c);
            continue;
        }
        let base = (c.cued(), Reverse(c.class), c.rule.to_string(), c.pointer.clone());
        let key = match edit_key(c) {
            Some(words) => {
                edits.insert(*c as *const Change);
                (base.0, base.1, base.2, base.3, "edit".to_string(), words)
            }
            None => (base.0, base.1, base.2, base.3, canon(&c.before), canon(&c.after)),
        };
        by_key.entry(key).or_default().push(c);
    }
    let mut out: Vec<Group<'a>> = singles.into_iter().map(|c| group_of(vec![c])).collect();
    for (_, mut cs) in by_key {
        cs.sort_by(|a, b| a.tool.cmp(&b.tool));
        // A group whose messages differ beyond the tool's name is several changes after all
        // (the message quotes something the key does not hold): keep those apart.
        let first = message_without_tool(cs[0]);
        if cs.iter().all(|c| message_without_tool(c) == first) {
            let edit = cs.len() > 1 && edits.contains(&(cs[0] as *const Change));
            let mut g = group_of(cs);
            if edit {
                if let Some((b, a)) = super::textdiff::shown_texts(g.changes[0]) {
                    g.edit = Some(super::textdiff::edit_summary(&super::textdiff::pieces(b, a)));
                }
                if g.changes.iter().any(|c| c.before != g.changes[0].before || c.after != g.changes[0].after) {
                    (g.before, g.after) = (None, None);
                }
            }
            out.push(g);
        } else {
            out.extend(cs.into_iter().map(|c| group_of(vec![c])));
        }
    }
    out.sort_by(|a, b| rank(a).cmp(&rank(b)));
    out
}

/// The order of groups in a report: the first change's [`Change::rank`] (a cue first, then
/// class, then risk; highest first), then rule, first tool, pointer.
fn rank<'a>(g: &Group<'a>) -> (Reverse<crate::rules::cues::Rank>, &'a str, Option<&'a str>, &'a str) {
    (Reverse(g.changes[0].rank()), g.rule, g.tools.first().copied(), g.pointer)
}

/// The words a change of prose removes and adds, as a grouping key (none for other changes).
fn edit_key(c: &Change) -> Option<String> {
    if !c.rule.is_prose() {
        return None;
    }
    let (b, a) = super::textdiff::shown_texts(c)?;
    let pieces = super::textdiff::pieces(b, a);
    let mut key = String::new();
    for p in pieces.iter().filter(|p| p.is_change()) {
        key.push(if matches!(p, super::textdiff::Piece::Added(_)) { '+' } else { '-' });
        key.push_str(p.text().trim());
        key.push('\u{0}');
    }
    Some(key)
}

fn group_of(changes: Vec<&Change>) -> Group<'_> {
    let c = changes[0];
    Group {
        rule: c.rule.as_str(),
        class: c.class,
        pointer: &c.pointer,
        before: c.before.as_ref(),
        after: c.after.as_ref(),
        message: if changes.len() == 1 { c.message.clone() } else { message_without_tool(c) },
        tools: changes.iter().filter_map(|c| c.tool.as_deref()).collect(),
        edit: None,
        changes,
    }
}

/// `a, b, c, … (+N)`: the first `shown` names, then how many more.
pub fn name_list(names: &[&str], shown: usize) -> String {
    let mut s: Vec<String> = names.iter().take(shown).map(|n| crate::json::escape_line(n)).collect();
    if names.len() > shown {
        s.push(format!("… (+{})", names.len() - shown));
    }
    s.join(", ")
}

/// A rule in report order: highest risk first, then by id.
type RuleRank<'a> = (Reverse<u8>, &'a str);

/// One line summing a server's changes up by class and rule, each class's rules highest risk
/// first: `12 silent: 2 tool-removed, 3 required-removed, 7 description-changed; 40 loud: …`.
pub fn summary_line(changes: &[&Change]) -> String {
    let mut by_class: BTreeMap<Reverse<Class>, BTreeMap<RuleRank<'_>, usize>> = BTreeMap::new();
    for c in changes {
        *by_class.entry(Reverse(c.class)).or_default().entry((Reverse(c.rule.risk()), c.rule.as_str())).or_default() +=
            1;
    }
    by_class
        .into_iter()
        .map(|(class, rules)| {
            let total: usize = rules.values().sum();
            let parts: Vec<String> = rules.iter().map(|((_, r), n)| format!("{n} {r}")).collect();
            format!("{total} {}: {}", class.0, parts.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// For each rule, its tools (a server-level change counts as "the server"), by class, then risk
/// (highest first), then rule.
pub fn by_rule<'a>(changes: &[&'a Change]) -> Vec<(Class, &'a str, Vec<&'a str>)> {
    let mut m: BTreeMap<(Reverse<Class>, RuleRank<'a>), Vec<&'a str>> = BTreeMap::new();
    for c in changes {
        let tools = m.entry((Reverse(c.class), (Reverse(c.rule.risk()), c.rule.as_str()))).or_default();
        let name = c.tool.as_deref().unwrap_or("the server");
        if !tools.contains(&name) {
            tools.push(name);
        }
    }
    m.into_iter()
        .map(|((class, (_, rule)), mut tools)| {
            tools.sort();
            (class.0, rule, tools)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ch(rule: &str, class: Class, tool: &str, msg: &str, before: Value, after: Value) -> Change {
        Change {
            rule: rule.parse().expect("a catalogue rule"),
            class,
            tool: Some(tool.into()),
            pointer: "/inputSchema/additionalProperties".into(),
            message: msg.into(),
            before: Some(before),
            after: Some(after),
            cues: None,
        }
    }

    #[test]
    fn same_change_on_many_tools_is_one_group() {
        let changes: Vec<Change> = ["b", "a", "c"]
            .iter()
            .map(|t| {
                ch(
                    "constraint-loosened",
                    Class::Silent,
                    t,
                    &format!("the argument object of tool {t} now accepts other properties"),
                    json!(false),
                    json!(true),
                )
            })
            .chain([ch("constraint-loosened", Class::Silent, "d", "x of tool d", json!(false), json!({}))])
            .collect();
        let refs: Vec<&Change> = changes.iter().collect();
        let g = groups(&refs);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].tools, ["a", "b", "c"]);
        assert_eq!(g[0].message, "the argument object now accepts other properties");
        assert_eq!(g[1].tools, ["d"]);
        assert_eq!(g[1].message, "x of tool d");
        assert_eq!(name_list(&["a", "b", "c", "d"], 2), "a, b, … (+2)");
        assert_eq!(summary_line(&refs), "4 silent: 4 constraint-loosened");
    }
}
