//! Policy: config class overrides (`[rules]`) and ignores (`[[ignore]]`) applied to the default
//! classes the diff produced.

use std::collections::BTreeMap;

use crate::change::Change;
use crate::config::Ignore;
use crate::rules::Class;
use crate::rules::RuleId;

/// What policy made of a list of changes.
#[derive(Debug, Clone, Default)]
pub struct PolicyOutcome {
    /// Changes that still apply, reclassified by the overrides.
    pub changes: Vec<Change>,
    /// Changes an ignore removed, with the ignore's reason.
    pub ignored: Vec<(Change, String)>,
    /// One message per ignore whose `until` date has passed.
    pub expired: Vec<String>,
}

/// Apply overrides and ignores for one server. `today` is `YYYY-MM-DD`; an ignore applies up to
/// and including its `until` day.
pub fn apply(
    changes: Vec<Change>,
    server: &str,
    overrides: &BTreeMap<RuleId, Class>,
    ignores: &[Ignore],
    today: &str,
) -> PolicyOutcome {
    let mut out = PolicyOutcome::default();
    let relevant = |ig: &Ignore| ig.server.as_deref().is_none_or(|s| s == server);
    let (live, expired): (Vec<&Ignore>, Vec<&Ignore>) =
        ignores.iter().filter(|ig| relevant(ig)).partition(|ig| ig.until.as_deref().is_none_or(|u| u >= today));
    for ig in expired {
        let target = match (&ig.server, &ig.tool) {
            (Some(s), Some(t)) => format!("{s}/{t}"),
            (Some(s), None) => s.clone(),
            (None, Some(t)) => format!("*/{t}"),
            (None, None) => "*".into(),
        };
        out.expired.push(format!(
            "ignore for rule {} on {} expired on {}; it no longer applies",
            ig.rule,
            target,
            ig.until.as_deref().unwrap_or("")
        ));
    }
    for mut c in changes {
        if let Some(ig) = live.iter().find(|ig| ig.matches(c.rule, server, c.tool.as_deref(), &c.pointer, today)) {
            out.ignored.push((c, ig.reason.clone()));
            continue;
        }
        if let Some(cls) = overrides.get(&c.rule) {
            c.class = *cls;
        }
        out.changes.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(rule: RuleId, tool: &str, pointer: &str) -> Change {
        Change {
            rule,
            class: rule.class(),
            tool: Some(tool.into()),
            pointer: pointer.into(),
            message: String::new(),
            before: None,
            after: None,
            cues: None,
        }
    }

    fn ig(rule: RuleId, tool: Option<&str>, pointer: Option<&str>, until: Option<&str>) -> Ignore {
        Ignore {
            rule,
            server: Some("srv".into()),
            tool: tool.map(Into::into),
            pointer: pointer.map(Into::into),
            reason: "known".into(),
            until: until.map(Into::into),
        }
    }

    #[test]
    fn overrides_and_ignores() {
        let changes = vec![
            ch(RuleId::DescriptionChanged, "a", "/description"),
            ch(RuleId::RequiredRemoved, "a", "/inputSchema/properties/x/required"),
            ch(RuleId::RequiredRemoved, "b", "/inputSchema/required"),
        ];
        let mut ov = BTreeMap::new();
        ov.insert(RuleId::DescriptionChanged, Class::Loud);
        let ignores = vec![
            ig(RuleId::RequiredRemoved, Some("a"), Some("/inputSchema/properties/x"), Some("2030-01-01")),
            ig(RuleId::RequiredRemoved, Some("b"), None, Some("2020-01-01")),
        ];
        let o = apply(changes, "srv", &ov, &ignores, "2026-11-30");
        assert_eq!(o.changes.len(), 2);
        assert_eq!(o.changes[0].class, Class::Loud);
        assert_eq!(o.ignored.len(), 1);
        assert_eq!(o.ignored[0].1, "known");
        assert_eq!(
            o.expired,
            vec!["ignore for rule required-removed on srv/b expired on 2020-01-01; it no longer applies"]
        );
        // another server: nothing applies, nothing expires
        let o = apply(
            vec![ch(RuleId::RequiredRemoved, "a", "/inputSchema/properties/x/required")],
            "other",
            &ov,
            &ignores,
            "2026-11-30",
        );
        assert_eq!(o.changes.len(), 1);
        assert!(o.expired.is_empty());
    }

    #[test]
    fn until_is_inclusive() {
        let ignores = vec![ig(RuleId::RequiredRemoved, None, None, Some("2026-11-30"))];
        let o = apply(
            vec![ch(RuleId::RequiredRemoved, "a", "/inputSchema/required")],
            "srv",
            &BTreeMap::new(),
            &ignores,
            "2026-11-30",
        );
        assert!(o.changes.is_empty());
        assert!(o.expired.is_empty());
    }

    #[test]
    fn unknown_rule_rejected() {
        // config keys parse into rule ids; an unknown one cannot become an override
        assert!("no-such-rule".parse::<RuleId>().is_err());
    }
}
