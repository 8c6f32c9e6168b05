//! `server-launch-changed`: the command, args, working folder or URL a server is started with,
//! as written in the config, against the one its lock entry was pinned with.
//!
//! Both sides are the config's own text ([`crate::config::Launch`]), so another machine, checkout
//! or folder compares equal. A lock from before mcp-pin recorded the launch has none: nothing is
//! compared until the next `lock` records it (an upgrade never cries wolf). Both sides are
//! compared masked, as the lock holds them ([`crate::secrets::mask_json`]).

use serde_json::Value;

use crate::change::Change;
use crate::config::Launch;
use crate::rules::RuleId;

/// The one `server-launch-changed` of a server whose launch differs from the pinned one, or
/// nothing (also when either side recorded none).
pub fn launch_changes(pinned: Option<&Launch>, live: Option<&Launch>) -> Vec<Change> {
    let (Some(pinned), Some(live)) = (pinned, live) else { return Vec::new() };
    let (a, b) = (masked(pinned), masked(live));
    if a == b {
        return Vec::new();
    }
    let (la, lb) = (Launch::from_json(&a).unwrap_or_default(), Launch::from_json(&b).unwrap_or_default());
    let mut parts = Vec::new();
    if la.command != lb.command {
        parts.push(format!("command changed from {} to {}", text(&la.command), text(&lb.command)));
    }
    if la.args != lb.args {
        parts.push(format!("args changed from {} to {}", list(&la.args), list(&lb.args)));
    }
    if la.cwd != lb.cwd {
        parts.push(format!("working folder (cwd) changed from {} to {}", text(&la.cwd), text(&lb.cwd)));
    }
    if la.url != lb.url {
        parts.push(format!("url changed from {} to {}", text(&la.url), text(&lb.url)));
    }
    let mut out = vec![Change {
        rule: RuleId::ServerLaunchChanged,
        class: RuleId::ServerLaunchChanged.class(),
        tool: None,
        pointer: "/launch".into(),
        message: format!(
            "the server is started another way than when it was pinned: {} (the lock now vouches for what the config starts)",
            parts.join("; ")
        ),
        before: Some(a),
        after: Some(b),
        cues: None,
    }];
    super::finish(&mut out);
    out
}

/// The launch as the lock holds it: its strings masked.
fn masked(l: &Launch) -> Value {
    let mut v = l.to_json();
    crate::secrets::mask_json(&mut v);
    v
}

/// A string as a JSON string (quotes and control characters escaped), or `(none)`.
fn text(s: &Option<String>) -> String {
    s.as_ref().map_or_else(|| "(none)".into(), |s| Value::String(s.clone()).to_string())
}

/// A list of strings as written: `["-y", "pkg@1"]`.
fn list(a: &[String]) -> String {
    format!("[{}]", a.iter().map(|s| Value::String(s.clone()).to_string()).collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Class;

    #[test]
    fn one_loud_change_names_what_changed() {
        let npx = Launch::stdio("npx", &["-y".into(), "@acme/docs@1".into()], None);
        let node = Launch::stdio("node", &["vendor/docs/index.js".into()], Some("tools"));
        let c = launch_changes(Some(&npx), Some(&node));
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            (c[0].rule, c[0].class, c[0].tool.as_deref(), c[0].pointer.as_str()),
            (RuleId::ServerLaunchChanged, Class::Loud, None, "/launch")
        );
        assert!(c[0].message.contains(r#"command changed from "npx" to "node""#), "{}", c[0].message);
        assert!(
            c[0].message.contains(r#"args changed from ["-y", "@acme/docs@1"] to ["vendor/docs/index.js"]"#),
            "{}",
            c[0].message
        );
        assert!(c[0].message.contains(r#"working folder (cwd) changed from (none) to "tools""#), "{}", c[0].message);
        let url = launch_changes(Some(&npx), Some(&Launch::http("https://mcp.example.com/mcp")));
        assert!(
            url[0].message.contains(r#"url changed from (none) to "https://mcp.example.com/mcp""#),
            "{}",
            url[0].message
        );
    }

    #[test]
    fn the_same_launch_or_none_recorded_is_no_change() {
        let a = Launch::stdio("npx", &["-y".into(), "${PKG}".into()], Some("."));
        assert!(launch_changes(Some(&a), Some(&a.clone())).is_empty());
        // A lock from before the launch was recorded.
        assert!(launch_changes(None, Some(&a)).is_empty());
        assert!(launch_changes(Some(&a), None).is_empty());
    }
}
