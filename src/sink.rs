//! The last step before any byte leaves mcp-pin: one escaping layer per output sink.
//!
//! Everything a server, a lockfile or a config sends is untrusted text, and mcp-pin's output is
//! read by GitHub's runner, which takes a log line whose text (after leading whitespace) starts
//! with `::` as a workflow command, and the legacy `##[command]` form anywhere in a line (lines
//! end at `\n` or `\r`). So:
//! - every renderer's output goes through [`finish`] for its format ([`crate::report::render`]
//!   calls it), which neutralises both forms in whatever foreign text reached it, in the
//!   spelling of that format (`\u{003A}` in text, `\u0023` in JSON, `&#35;` in XML);
//! - every write to stdout, stderr or a file goes through [`print_out`], [`print_err`],
//!   [`write_file`] or [`append_file`], which mask every secret in free text
//!   ([`crate::secrets::mask`]), or [`print_report`] and [`write_report`], which write what
//!   [`crate::report::render_masked`] made: masked there, in the report's data before a structured
//!   format is serialised (masking its text would break its syntax); messages (`say!`, `tell!`)
//!   are neutralised as terminal text there. `std::println!` and friends are disallowed by
//!   `clippy.toml`, so a new message cannot bypass this module.
//!
//! mcp-pin's own workflow commands (`--format github`) are built by [`crate::report::github`],
//! with foreign text in their data escaped by the runner's own rules; [`finish`] lets exactly
//! those lines through.

use std::io::Write;
use std::path::Path;

/// A line the runner would read as a command: `::` after leading whitespace.
fn starts_command(line: &str) -> bool {
    line.trim_start().starts_with("::")
}

/// Neutralise both command forms in `text`, writing `colon` for the first `:` of a line that
/// starts with `::` and `hash` for the second `#` of every `##[`.
fn neutralise(text: &str, colon: &str, hash: &str, keep_line: impl Fn(&str) -> bool) -> String {
    if !text.contains("::") && !text.contains("##[") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).map(|i| i + 1).unwrap_or(rest.len());
        let (line, tail) = rest.split_at(end);
        rest = tail;
        let mut line = line.to_string();
        if !keep_line(&line) && starts_command(&line) {
            let at = line.len() - line.trim_start().len();
            line.replace_range(at..at + 1, colon);
        }
        if line.contains("##[") {
            line = line.replace("##[", &format!("#{hash}["));
        }
        out.push_str(&line);
    }
    out
}

/// Text for a terminal or a CI log (the human report, messages, `lock`'s output).
pub fn terminal(text: &str) -> String {
    neutralise(text, "\\u{003A}", "\\u{0023}", |_| false)
}

/// The syntax an output is written in, which says how foreign text in it is kept from forming a
/// workflow command (each report format names its own: `report::Format::syntax`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Text a person reads: a terminal, a CI log, Markdown.
    Text,
    /// JSON (the JSON report, SARIF): `#` only occurs inside strings.
    Json,
    /// XML (JUnit).
    Xml,
    /// mcp-pin's own workflow commands (`--format github`): those lines pass, and only those.
    Annotations,
}

/// The last step of every renderer: `text` as rendered in `syntax`, with every workflow command
/// that foreign text could form neutralised in that syntax's own escapes.
pub fn finish(syntax: Syntax, text: String) -> String {
    match syntax {
        Syntax::Text => terminal(&text),
        // `#` only occurs inside strings, where `\u0023` is the same character; a line cannot
        // start with `::` (strings are quoted, line breaks escaped).
        Syntax::Json => {
            if text.contains("##[") {
                text.replace("##[", "#\\u0023[")
            } else {
                text
            }
        }
        Syntax::Xml => neutralise(&text, "&#58;", "&#35;", |_| false),
        // mcp-pin's own annotation commands pass; anything else that would read as one is escaped.
        Syntax::Annotations => neutralise(&text, "\\u{003A}", "\\u{0023}", is_own_annotation),
    }
}

/// A line `crate::report::github` writes: `::error `/`::warning `/`::notice ` at the very start.
fn is_own_annotation(line: &str) -> bool {
    ["::error ", "::warning ", "::notice "].iter().any(|p| line.starts_with(p))
}

/// The zero-width space [`defang`] inserts.
pub const ZWSP: char = '\u{200B}';

/// Foreign text (what a server wrote) for a GitHub-bound output (the pull-request comment, the
/// step summary, the drift issue, annotations), so that GitHub makes nothing of it: GitHub links
/// `@user`, `@org/team`, `#123`, `GH-123`, `owner/repo#1`, commit SHAs and URLs after Markdown
/// is rendered, where a backslash escape is already gone (github/markup#1168). As Renovate's
/// `sanitizeMarkdown` does, a zero-width space goes after `@` and after `#` before a digit (and
/// after `GH-`); a URL's scheme is broken (`hxxps://`, `ftp:\u{200B}//`) and `www.` split, so no
/// address is ever a link; a run of 7 or more hex digits (a commit SHA) is split every 6. The
/// reader sees the same words.
pub fn defang(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let prev = if i > 0 { Some(chars[i - 1]) } else { None };
        let at_word_start = !prev.is_some_and(word);
        let rest: String = chars[i..chars.len().min(i + 8)].iter().collect::<String>().to_ascii_lowercase();
        if c == '@' && next.is_some_and(|n| n.is_alphanumeric() || n == '-' || n == '_') {
            out.push_str("@\u{200B}");
        } else if c == '#' && next.is_some_and(|n| n.is_ascii_digit()) {
            out.push_str("#\u{200B}");
        } else if at_word_start && rest.starts_with("gh-") && chars.get(i + 3).is_some_and(char::is_ascii_digit) {
            out.extend(&chars[i..i + 3]);
            out.push(ZWSP);
            i += 3;
            continue;
        } else if at_word_start && (rest.starts_with("https://") || rest.starts_with("http://")) {
            // `http` -> `hxxp`, keeping the letters' case, and the rest of the scheme as it is.
            let len = if rest.starts_with("https") { 8 } else { 7 };
            out.push(chars[i]);
            out.push(if chars[i + 1].is_uppercase() { 'X' } else { 'x' });
            out.push(if chars[i + 2].is_uppercase() { 'X' } else { 'x' });
            out.extend(&chars[i + 3..i + len]);
            i += len;
            continue;
        } else if c == ':' && next == Some('/') && chars.get(i + 2) == Some(&'/') {
            out.push(':');
            out.push(ZWSP);
        } else if at_word_start && rest.starts_with("www.") {
            out.extend(&chars[i..i + 3]);
            out.push(ZWSP);
            i += 3;
            continue;
        } else if at_word_start && c.is_ascii_hexdigit() {
            let len = chars[i..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
            let run = &chars[i..i + len];
            let ends_word = !chars.get(i + len).copied().is_some_and(word);
            if len >= 7
                && ends_word
                && run.iter().any(char::is_ascii_digit)
                && run.iter().any(|c| c.is_ascii_alphabetic())
            {
                for (k, h) in run.iter().enumerate() {
                    if k > 0 && k % 6 == 0 {
                        out.push(ZWSP);
                    }
                    out.push(*h);
                }
            } else {
                out.extend(run);
            }
            i += len;
            continue;
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// Masked, terminal-safe text, as every stream write gets it.
fn for_stream(text: &str) -> String {
    terminal(&crate::secrets::mask(text))
}

/// Write to stdout; a closed pipe (`| head`) is not an error. Nothing once a signal stopped the
/// run (its report would be made of calls the signal cut short: [`crate::stop`]); checked, not
/// held, so a reader that stops reading cannot keep a signal from ending the run.
pub fn print_out(text: &str) {
    if crate::stop::stopped().is_some() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(for_stream(text).as_bytes());
    let _ = out.flush();
}

/// Write a rendered report to stdout as [`crate::report::render_masked`] made it (masked and escaped
/// there); a closed pipe is not an error.
pub fn print_report(text: &str) {
    if crate::stop::stopped().is_some() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Write to stderr.
pub fn print_err(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(for_stream(text).as_bytes());
    let _ = err.flush();
}

/// Write free text to a file mcp-pin owns (`init`'s config, `review`'s rejections) atomically,
/// masked.
pub fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    crate::files::write_atomic(path, crate::secrets::mask(text).as_bytes())
}

/// Write a rendered report (as [`crate::report::render_masked`] made it) to the path a user named: written,
/// not replaced. A symlink writes its target, a FIFO or a device is written to, this process's
/// own stdout (`/dev/stdout`, `/proc/self/fd/1`, or any path to the same file) is written through
/// the stdout; nothing is renamed over the path (which would fail in `/dev` for a user who is not
/// root, and would replace a symlink by a file).
pub fn write_report(path: &Path, text: &str) -> std::io::Result<()> {
    if is_stdout(path) {
        print_report(text);
        return Ok(());
    }
    let _not_stopped = crate::stop::write_guard()?;
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(path)?;
    f.write_all(text.as_bytes())?;
    f.flush()
}

/// Whether `path` names the file this process's stdout is (following symlinks).
pub fn is_stdout(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let Ok(target) = std::fs::metadata(path) else {
            return false;
        };
        let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
            return false;
        };
        match std::fs::File::from(fd).metadata() {
            Ok(out) => out.dev() == target.dev() && out.ino() == target.ino(),
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        path == Path::new("/dev/stdout")
    }
}

/// Append rendered `text` to `path` (the step summary), masked.
pub fn append_file(path: &Path, text: &str) -> std::io::Result<()> {
    let _not_stopped = crate::stop::write_guard()?;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    f.write_all(crate::secrets::mask(text).as_bytes())?;
    f.flush()
}

/// A JSON-RPC line mcp-pin writes itself on the proxy's stdout (a refusal, an error, a judged
/// list), built with [`crate::json::write_string`]: masked, and `##[` spelled `#\u0023[` inside
/// its strings (the same character to a JSON reader; `::` cannot start a JSON-RPC line). The
/// messages the proxy relays are never passed through here: they reach the client as the server
/// sent them (`src/proxy/relay.rs`).
pub fn jsonrpc_own(line: String) -> String {
    finish(Syntax::Json, crate::secrets::mask(&line).into_owned())
}

/// `println!` through the sink: masked and terminal-safe, to stdout.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{ $crate::sink::print_out(&format!("{}\n", format_args!($($arg)*))) }};
}

/// `eprintln!` through the sink: masked and terminal-safe, to stderr.
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {{ $crate::sink::print_err(&format!("{}\n", format_args!($($arg)*))) }};
}

/// `eprint!` through the sink (a prompt without a line break).
#[macro_export]
macro_rules! tell_raw {
    ($($arg:tt)*) => {{ $crate::sink::print_err(&format!($($arg)*)) }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defang_leaves_github_nothing_to_link() {
        let z = ZWSP;
        assert_eq!(defang("ping @octocat and @org/team"), format!("ping @{z}octocat and @{z}org/team"));
        assert_eq!(defang("see #12, GH-34 and owner/repo#5"), format!("see #{z}12, GH-{z}34 and owner/repo#{z}5"));
        assert_eq!(defang("send to https://evil.example/x"), "send to hxxps://evil.example/x");
        assert_eq!(defang("HTTP://A.example ftp://b.example"), format!("HXXP://A.example ftp:{z}//b.example"));
        assert_eq!(defang("www.evil.example"), format!("www{z}.evil.example"));
        assert_eq!(defang("commit 0123456789abcdef"), format!("commit 012345{z}6789ab{z}cdef"));
        // What GitHub does not link is left alone: a heading `#`, an address without a scheme,
        // a word of hex letters, a short number, an e-mail's @ is split too.
        for plain in ["# title", "C# and #tag", "evil.example", "deadbeef", "v1.2.3", "1234567"] {
            assert_eq!(defang(plain), plain);
        }
        assert_eq!(defang("x@evil.example"), format!("x@{z}evil.example"));
    }

    #[test]
    fn neutralises_both_forms_at_any_line_start() {
        let t = terminal("ok\n  ::add-mask::x\r::stop-commands::T\nsee ##[set-env name=A]b");
        assert_eq!(t, "ok\n  \\u{003A}:add-mask::x\r\\u{003A}:stop-commands::T\nsee #\\u{0023}[set-env name=A]b");
        assert_eq!(terminal("a :: b"), "a :: b");
        let j = finish(Syntax::Json, "{\"a\": \"##[x]\"}".into());
        assert_eq!(serde_json::from_str::<serde_json::Value>(&j).unwrap()["a"], "##[x]");
        assert!(!j.contains("##["));
        let g = finish(Syntax::Annotations, "::error file=a::m ##[add-mask]x\n::add-mask::y\n".into());
        assert_eq!(g, "::error file=a::m #\\u{0023}[add-mask]x\n\\u{003A}:add-mask::y\n");
    }
}
