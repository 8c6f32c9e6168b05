//! How a server is started or reached, as written in its config: what the lock pins for
//! `server-launch-changed` (RULES.md, "Server").
//!
//! The strings are the config's own text, before `${VAR}` expansion and path resolution, so
//! another machine, checkout or folder records the same launch and a secret read from the
//! environment never reaches it. Only the builder ([`super::build`]) makes one, from what a front
//! end read; a URL is kept with its userinfo, token-shaped path segments and query values
//! redacted ([`super::redact_url`]), as the lock's `source` keeps it.

use serde_json::{Map, Value};

/// The command, arguments and working folder of a stdio server, or the URL of an HTTP one, as
/// written. Compared field by field; a field a transport does not have is `None` (or no args).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launch {
    /// `command` as written (stdio).
    pub command: Option<String>,
    /// `args` as written (stdio).
    pub args: Vec<String>,
    /// `cwd` as written, when the config sets one (stdio).
    pub cwd: Option<String>,
    /// `url` as written, redacted (HTTP).
    pub url: Option<String>,
}

impl Launch {
    /// A stdio server's launch.
    pub fn stdio(command: &str, args: &[String], cwd: Option<&str>) -> Launch {
        Launch { command: Some(command.into()), args: args.to_vec(), cwd: cwd.map(str::to_string), url: None }
    }

    /// An HTTP server's launch: the URL as written, redacted.
    pub fn http(url: &str) -> Launch {
        Launch { url: Some(super::redact_url(url)), ..Launch::default() }
    }

    /// The lock's `launch` object: `command` and `args` (a stdio server, `args` even when empty),
    /// `cwd` when set, `url` (an HTTP server).
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        if let Some(c) = &self.command {
            m.insert("command".into(), Value::String(c.clone()));
        }
        if self.command.is_some() || !self.args.is_empty() {
            m.insert("args".into(), Value::Array(self.args.iter().cloned().map(Value::String).collect()));
        }
        if let Some(c) = &self.cwd {
            m.insert("cwd".into(), Value::String(c.clone()));
        }
        if let Some(u) = &self.url {
            m.insert("url".into(), Value::String(u.clone()));
        }
        Value::Object(m)
    }

    /// Read a lock's `launch` object (hostile: every field is type-checked; the error says which
    /// field is wrong, never quoting its value). Other keys are ignored.
    pub fn from_json(v: &Value) -> Result<Launch, String> {
        let Value::Object(m) = v else { return Err("is not an object".into()) };
        let text = |key: &str| -> Result<Option<String>, String> {
            match m.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("`{key}` is not a string")),
            }
        };
        let args = match m.get("args") {
            None => vec![],
            Some(Value::Array(a)) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| "`args` holds a value that is not a string".to_string())
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("`args` is not an array".into()),
        };
        Ok(Launch { command: text("command")?, args, cwd: text("cwd")?, url: text("url")? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_launch_reads_back_as_written() {
        for l in [
            Launch::stdio("npx", &["-y".into(), "${PKG}".into()], Some("servers/docs")),
            Launch::stdio("./run.sh", &[], None),
            Launch::http("https://user:pw@mcp.example.com/mcp?token=abc"),
        ] {
            assert_eq!(Launch::from_json(&l.to_json()), Ok(l.clone()));
        }
        assert_eq!(Launch::stdio("x", &[], None).to_json(), json!({"command": "x", "args": []}));
        // The URL is kept redacted: no secret written in it reaches the lock.
        let url = Launch::http("https://user:pw@mcp.example.com/mcp?token=abc").url.unwrap();
        assert!(!url.contains("pw") && !url.contains("abc"), "{url}");
    }

    #[test]
    fn a_hostile_launch_is_refused_without_quoting_it() {
        for (v, says) in [
            (json!("npx"), "not an object"),
            (json!({"command": 1}), "`command`"),
            (json!({"args": "x"}), "`args`"),
            (json!({"args": [1]}), "`args`"),
            (json!({"command": "secret", "cwd": ["secret"]}), "`cwd`"),
        ] {
            let e = Launch::from_json(&v).unwrap_err();
            assert!(e.contains(says) && !e.contains("secret"), "{v}: {e}");
        }
    }
}
